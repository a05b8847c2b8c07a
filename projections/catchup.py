"""What one catch-up or rebuild did (`CatchUp`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class CatchUp:
    """What one catch-up did: entries read, items re-rated, rows written."""

    entries: int = 0
    items_rated: int = 0
    rows: int = 0
    # rows the raters made again in a catch-up's cascade, written or not (a rebuild's are its
    # `rows`): what its cost per row rated is counted over (scripts/bench.py, issue 33)
    rows_rated: int = 0
    players: set[str] = field(default_factory=set)
    last_position: int = 0
    # (player, system) → (ratings row before or None, after or None), for changed standings:
    # each row its values in the table's column order (`ratings_table(family).names`), as
    # stored and as written, not a dict of them (a correction at 10M changes 197,731 rows)
    changes: dict[tuple[str, str], tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]] = field(
        default_factory=dict
    )
    history_changed: dict[tuple[str, str], int] = field(default_factory=dict)

    def row_changed(self, player: str, system: str) -> None:
        """One more of the player's history rows in `system` changed (or gone)."""
        key = (player, system)
        self.history_changed[key] = self.history_changed.get(key, 0) + 1

    def then(self, later: CatchUp) -> None:
        """`later`, a catch-up of the entries after this one's, added to it: one catch-up of
        them all (a standing's change from its first before to its last after; none if it
        came back)."""
        self.entries += later.entries
        self.items_rated += later.items_rated
        self.rows += later.rows
        self.rows_rated += later.rows_rated
        self.players |= later.players
        self.last_position = later.last_position
        for key, (_, after) in later.changes.items():
            before = self.changes[key][0] if key in self.changes else later.changes[key][0]
            if before == after:
                self.changes.pop(key, None)
            else:
                self.changes[key] = (before, after)
        for key, count in later.history_changed.items():
            self.history_changed[key] = self.history_changed.get(key, 0) + count
