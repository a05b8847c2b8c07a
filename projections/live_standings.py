"""A rebuild's standings in memory, bounded in the number of players (issue 33): the standings
set lately kept as objects, at most HOT_STANDINGS of them; beyond that all are packed, each as
the values a history row keeps of it (the family's `columns` and `standing_of`, exact: a
catch-up reads standings back from those rows; a standing without a family state as itself) in
one `marshal` string, and unpacked when read.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from projections.standing import UNRATED, Standing

Key = tuple[str, str]  # (player, system)

# Standings kept as objects (about 480 bytes each, with their key, for US Chess) before they
# are all packed (about 200): 10M games for 200,000 players leave about 800,000 standings,
# which had been most of a rebuild's 617 MiB (docs/benchmarks/rebuild-memory.md).
HOT_STANDINGS = 150_000


class LiveStandings(Mapping[Key, Standing[object]]):
    """(player, system) → standing, the packed ones read back on demand."""

    def __init__(
        self,
        columns: Callable[[Standing[Any]], tuple[Any, ...]],
        standing_of: Callable[[Sequence[Any]], Standing[Any]],
        hot_limit: int | None = None,
    ) -> None:
        self.columns, self.standing_of = columns, standing_of
        self.hot_limit = HOT_STANDINGS if hot_limit is None else hot_limit
        self.hot: dict[Key, Standing[object]] = {}
        self.cold: dict[Key, bytes] = {}

    def lookup(self, player: str, system: str) -> Standing[object]:
        """The player's standing in `system` (UNRATED if he has none)."""
        key = (player, system)
        found = self.hot.get(key)
        if found is not None:
            return found
        packed = self.cold.get(key)
        if packed is None:
            return UNRATED
        row, *values = marshal.loads(packed)
        return self.standing_of(values) if row else tuple.__new__(Standing, values)

    def put(self, player: str, system: str, standing: Standing[object]) -> None:
        key = (player, system)
        if key not in self.hot:
            if len(self.hot) >= self.hot_limit:
                self._pack()  # a new dict: self.hot read again below
            self.cold.pop(key, None)
        self.hot[key] = standing

    def _pack(self) -> None:
        """Every standing kept as an object packed: as a history row's values, or, with no
        family state (a history row always has one), as itself."""
        columns, cold = self.columns, self.cold
        for key, s in self.hot.items():
            if s.state is None:
                cold[key] = marshal.dumps((False, *s[:6], None))
            else:
                cold[key] = marshal.dumps((True, s.rating, s.games, *columns(s)))
        self.hot = {}

    def __getitem__(self, key: Key) -> Standing[object]:
        found = self.lookup(*key)
        if found is UNRATED and key not in self.hot:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Key]:
        yield from self.hot
        yield from self.cold

    def __len__(self) -> int:
        return len(self.hot) + len(self.cold)
