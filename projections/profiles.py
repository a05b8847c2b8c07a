"""The raters' profiles read from a read model, each when first asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger import events
from projections.batch import profile_fact

if TYPE_CHECKING:
    from projections.schema import ReadModel


class ProfilesOnDemand:
    """The raters' `profiles` mapping for a read model: a player's typed profile read when
    first asked for (a catch-up rarely needs more than the players it re-rates)."""

    def __init__(self, view: ReadModel) -> None:
        self.conn = view.db.conn
        self.found: dict[str, events.PlayerRegistered | None] = {}

    def get(
        self, member_id: str, default: events.PlayerRegistered | None = None
    ) -> events.PlayerRegistered | None:
        if member_id not in self.found:
            row = self.conn.execute(
                "select profile from players where id = ?", [member_id]
            ).fetchone()
            self.found[member_id] = None if row is None else profile_fact(member_id, row[0])
        found = self.found[member_id]
        return default if found is None else found

    def __getitem__(self, member_id: str) -> events.PlayerRegistered:
        found = self.get(member_id)
        if found is None:
            raise KeyError(member_id)
        return found
