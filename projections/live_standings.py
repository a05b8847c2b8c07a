"""A rebuild's standings in memory, bounded in the number of players (issue 33): the standings
set lately kept as objects, at most HOT_STANDINGS of them; beyond that all are packed, each as
the values a history row keeps of it (the family's `columns` and `standing_of`, exact: a
catch-up reads standings back from those rows; a standing without a family state as itself),
a player's in one `marshal` string (one key, one string for his three or four systems), and
unpacked when read.
"""

from __future__ import annotations

import heapq
import marshal
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from typing import Any

from projections.standing import UNRATED, Standing

Key = tuple[str, str]  # (player, system)

# Standings kept as objects (about 480 bytes each, with their key, for US Chess) before they
# are all packed (about 200): 10M games for 200,000 players leave about 800,000 standings,
# which had been most of a rebuild's 617 MiB. 75,000 rather than 150,000: 38-41 MiB less at
# 1M games for 200,000 players with the compiled kernel, 6-12 MiB pure, for 1-4 % more CPU
# (docs/benchmarks/rebuild-memory.md, "Session 13").
HOT_STANDINGS = 75_000


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
        # player → {system: standing}: one lookup by the player's id, then his few systems
        # (a dict keyed by (player, system) tuples cost twice as much a lookup)
        self.hot: dict[str, dict[str, Standing[object]]] = {}
        self.count = 0  # the standings in `hot`
        # player → {system: values} in one `marshal` string; a standing set again since it
        # was packed is in `hot` (read first), its packed values replaced at the next pack
        self.cold: dict[str, bytes] = {}
        # the player whose string was unpacked last and his values by system: his other
        # systems are looked up next (a rater's background, the ratings rows in key order)
        self.last: tuple[str, dict[str, Any]] | None = None

    def lookup(self, player: str, system: str) -> Standing[object]:
        """The player's standing in `system` (UNRATED if he has none)."""
        held = self.hot.get(player)
        if held is not None:
            found = held.get(system)
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
        held = self.hot.get(player)
        if held is None or system not in held:
            if self.count >= self.hot_limit:
                self._pack()
                held = None
            if held is None:
                held = self.hot[player] = {}
            self.count += 1
        held[system] = standing

    def _held(self, player: str, system: str) -> bool:
        """Whether the player's standing in `system` is kept as an object."""
        held = self.hot.get(player)
        return held is not None and system in held

    def _pack(self) -> None:
        """Every standing kept as an object packed into its player's string: as a history
        row's values, or, with no family state (a history row always has one), as itself.
        Each player's standings let go as his string is made: copied whole first, they had
        been a rebuild's peak (issue 33: 49 MiB of 328 at a million games for 200,000
        players, docs/benchmarks/rebuild-memory.md)."""
        columns, hot, cold = self.columns, self.hot, self.cold
        self.hot, self.count, self.last = {}, 0, None
        while hot:
            player, held = hot.popitem()
            systems: dict[str, tuple[Any, ...]] = {}
            for system, s in held.items():
                values: tuple[Any, ...]  # not the first branch's 8: the family's columns vary
                if s.state is None:
                    values = (False, *s[:6], None)
                else:
                    values = (True, s.rating, s.games, *columns(s))
                systems[str(system)] = values
            del held
            packed = cold.get(player)
            if packed is not None:
                systems = marshal.loads(packed) | systems
            cold[player] = marshal.dumps(systems)

    def __getitem__(self, key: Key) -> Standing[object]:
        found = self.lookup(*key)
        if found is UNRATED and not self._held(*key):
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Key]:
        held = self._held
        for player, systems in self.hot.items():
            for system in systems:
                yield player, system
        for player, packed in self.cold.items():
            for system in marshal.loads(packed):
                if not held(player, system):
                    yield player, system

    def items(self) -> ItemsView[Key, Standing[object]]:
        return _Items(self)

    def pairs(self) -> Iterator[tuple[Key, Standing[object]]]:
        """Every (key, standing), each player's string read once."""
        held, unpack = self._held, self._unpacked
        for player, systems in self.hot.items():
            for system, standing in systems.items():
                yield (player, system), standing
        for player, packed in self.cold.items():
            for system, values in marshal.loads(packed).items():
                if not held(player, system):
                    yield (player, system), unpack(values)

    def ordered(self) -> Iterator[tuple[Key, Standing[object]]]:
        """Every (key, standing) in key order, each player's string read once, made as they
        are asked for: no list of every key (at 1M games for 200,000 players the `ratings`
        rows' sorted keys were 15 MiB at the end of a rebuild, its peak). Generator functions,
        not generator expressions: compiled by mypyc, an expression passed on is made a list,
        and every packed standing unpacked at once was a 10M-game rebuild's peak."""
        return heapq.merge(self._kept_in_order(), self._packed_in_order())

    def _kept_in_order(self) -> Iterator[tuple[Key, Standing[object]]]:
        hot = self.hot
        for player in sorted(hot):
            for system, standing in sorted(hot[player].items()):
                yield (player, system), standing

    def _packed_in_order(self) -> Iterator[tuple[Key, Standing[object]]]:
        cold, held, unpack = self.cold, self._held, self._unpacked
        for player in sorted(cold):
            for system, values in sorted(marshal.loads(cold[player]).items()):
                if not held(player, system):
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
