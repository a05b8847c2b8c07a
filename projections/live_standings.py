"""A rebuild's standings in memory, bounded in the number of players (issue 33): the standings
set lately kept as objects, at most HOT_STANDINGS of them; beyond that all are packed, each as
the values a history row keeps of it (the family's `columns` and `standing_of`, exact: a
catch-up reads standings back from those rows; a standing without a family state as itself),
a player's in one `marshal` string (one key, one string for his three or four systems), and
unpacked when read.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from typing import Any

from projections.standing import UNRATED, Standing

Key = tuple[str, str]  # (player, system)

# Standings kept as objects (about 480 bytes each, with their key, for US Chess) before they
# are all packed (about 200): 10M games for 200,000 players leave about 800,000 standings,
# which had been most of a rebuild's 617 MiB (docs/benchmarks/rebuild-memory.md).
HOT_STANDINGS = 150_000


class LiveStandings(Mapping[Key, Standing[object]]):
    """(player, system) → standing, the packed ones read back on demand: a player's packed
    standings in one string (his systems' values by system), kept under his id."""

    def __init__(
        self,
        columns: Callable[[Standing[Any]], tuple[Any, ...]],
        standing_of: Callable[[Sequence[Any]], Standing[Any]],
        hot_limit: int | None = None,
    ) -> None:
        self.columns, self.standing_of = columns, standing_of
        self.hot_limit = HOT_STANDINGS if hot_limit is None else hot_limit
        self.hot: dict[Key, Standing[object]] = {}
        # player → {system: values} in one `marshal` string; a standing set again since it
        # was packed is in `hot` (read first), its packed values replaced at the next pack
        self.cold: dict[str, bytes] = {}
        # the player whose string was unpacked last and his values by system: his other
        # systems are looked up next (a rater's background, the ratings rows in key order)
        self.last: tuple[str, dict[str, Any]] | None = None

    def lookup(self, player: str, system: str) -> Standing[object]:
        """The player's standing in `system` (UNRATED if he has none)."""
        found = self.hot.get((player, system))
        if found is not None:
            return found
        last = self.last
        if last is not None and last[0] == player:
            systems = last[1]
        else:
            packed = self.cold.get(player)
            if packed is None:
                return UNRATED
            systems = marshal.loads(packed)
            self.last = (player, systems)
        values = systems.get(system)
        return UNRATED if values is None else self._unpacked(values)

    def put(self, player: str, system: str, standing: Standing[object]) -> None:
        key = (player, system)
        if key not in self.hot and len(self.hot) >= self.hot_limit:
            self._pack()
        self.hot[key] = standing

    def _pack(self) -> None:
        """Every standing kept as an object packed into its player's string: as a history
        row's values, or, with no family state (a history row always has one), as itself."""
        columns = self.columns
        by_player: dict[str, dict[str, tuple[Any, ...]]] = {}
        for (player, system), s in self.hot.items():
            values: tuple[Any, ...]  # not the first branch's 8: the family's columns vary
            if s.state is None:
                values = (False, *s[:6], None)
            else:
                values = (True, s.rating, s.games, *columns(s))
            by_player.setdefault(player, {})[str(system)] = values
        cold = self.cold
        for player, systems in by_player.items():
            packed = cold.get(player)
            if packed is not None:
                systems = marshal.loads(packed) | systems
            cold[player] = marshal.dumps(systems)
        self.hot = {}
        self.last = None

    def __getitem__(self, key: Key) -> Standing[object]:
        found = self.lookup(*key)
        if found is UNRATED and key not in self.hot:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Key]:
        hot = self.hot
        yield from hot
        for player, packed in self.cold.items():
            for system in marshal.loads(packed):
                if (player, system) not in hot:
                    yield player, system

    def items(self) -> ItemsView[Key, Standing[object]]:
        return _Items(self)

    def pairs(self) -> Iterator[tuple[Key, Standing[object]]]:
        """Every (key, standing), each player's string read once."""
        hot, unpack = self.hot, self._unpacked
        yield from hot.items()
        for player, packed in self.cold.items():
            for system, values in marshal.loads(packed).items():
                if (player, system) not in hot:
                    yield (player, system), unpack(values)

    def _unpacked(self, values: Sequence[Any]) -> Standing[object]:
        row, *rest = values
        return self.standing_of(rest) if row else tuple.__new__(Standing, rest)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Items(ItemsView[Key, Standing[object]]):
    """A LiveStandings' items, each player's packed standings unpacked once (`pairs`)."""

    _mapping: LiveStandings

    def __iter__(self) -> Iterator[tuple[Key, Standing[object]]]:
        return self._mapping.pairs()
