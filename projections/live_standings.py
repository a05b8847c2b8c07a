"""A rebuild's standings in memory, bounded in the number of players (issue 33): the standings
set lately kept as objects, at most HOT_STANDINGS of them; beyond that the older are packed
(those first set longest ago, until a share KEPT is left), each as the values a history row
keeps of it (the family's `columns` and `standing_of`, exact: a
catch-up reads standings back from those rows; a standing without a family state as itself),
a player's in one `marshal` string (one key, one string for his three or four systems), and
unpacked when read. The strings lie in a spool file (a temporary file, gone with the process),
each player's place in it an int in memory: at 10M games for 200,000 players they had been
some 80 MiB of the rebuild's (docs/decisions.md, "A rebuild's packed standings in a spool file
(issue 33)"; docs/benchmarks/rebuild-memory.md).
"""

from __future__ import annotations

import heapq
import marshal
import os
import tempfile
from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence
from typing import Any

from projections.standing import UNRATED, Standing

Key = tuple[str, str]  # (player, system)

# Standings kept as objects (about 480 bytes each, with their key, for US Chess) before the
# older are packed (about 200): 10M games for 200,000 players leave about 800,000 standings,
# which had been most of a rebuild's 617 MiB. 150,000 (session 13 chose 75,000 for 38-41 MiB
# at 1M games): at 10M games a pack of 75,000 had left 80 % of the rows' lookups to unpack and
# their standings to pack, some 45 % of the rating's CPU (docs/benchmarks/ten-million.md,
# "Session 17"), and the 10M rebuild's peak is well under issue 33's 400 MB.
HOT_STANDINGS = 150_000
# The share of HOT_STANDINGS a pack leaves kept as objects: the players whose standings were
# first set last since the pack before, looked up again soonest (a pack had packed them all).
KEPT = 0.75

# Where a player's packed string lies in the spool, in one int: its offset times _LENGTH, plus
# its length (a string of four systems is some 400 bytes, under 16 MiB).
_SHIFT = 24
_LENGTH = 1 << _SHIFT
# Bytes of packed strings written to the spool at a time (a pack writes its players' strings,
# some 20 MB at 10M games, a buffer of this size at a time).
SPOOL_CHUNK = 1 << 20
# The spool written again with only its players' latest strings once it holds more than this
# many times their bytes (each pack appends the strings of the players it packs, the strings
# they replace left where they were), and more than COMPACT_OVER bytes.
COMPACT_FACTOR = 3
COMPACT_OVER = 64 << 20


class LiveStandings(Mapping[Key, Standing[object]]):
    """(player, system) → standing, the packed ones read back on demand: a player's packed
    standings in one string (his systems' values by system), kept under his id."""

    def __init__(
        self,
        columns: Callable[[Standing[Any]], tuple[Any, ...]],
        standing_of: Callable[[Sequence[Any]], Standing[Any]],
        hot_limit: int | None = None,
        compact_over: int | None = None,
        kept: int | None = None,
    ) -> None:
        self.columns, self.standing_of = columns, standing_of
        self.hot_limit = HOT_STANDINGS if hot_limit is None else hot_limit
        # the standings a pack leaves kept as objects, those set last (`_pack`): fewer than
        # the bound, or a pack would pack none
        chosen = int(self.hot_limit * KEPT) if kept is None else kept
        self.kept = max(0, min(chosen, self.hot_limit - 1))
        self.compact_over = COMPACT_OVER if compact_over is None else compact_over
        # player → {system: standing}: one lookup by the player's id, then his few systems
        # (a dict keyed by (player, system) tuples cost twice as much a lookup)
        self.hot: dict[str, dict[str, Standing[object]]] = {}
        self.count = 0  # the standings in `hot`
        # player → where his {system: values} `marshal` string lies in the spool (an offset
        # and a length, `_LENGTH`); a standing set again since it was packed is in `hot` (read
        # first), its packed values replaced at the next pack
        self.cold: dict[str, int] = {}
        # the packed strings, made at the first pack and closed by `close`; the bytes written
        # to it and those of its players' latest strings (`compact`)
        self.spool: Any = None
        self.fd = -1
        self.spooled = 0
        self.live = 0
        self.compactions = 0
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
            at = self.cold.get(player)
            if at is None:
                return UNRATED
            systems = self._packed(at)
            self.last = (player, systems)
        values = systems.get(system)
        return UNRATED if values is None else self._unpacked(values)

    def put(self, player: str, system: str, standing: Standing[object]) -> None:
        held = self.hot.get(player)
        if held is None or system not in held:
            if self.count >= self.hot_limit:
                self._pack()
                held = self.hot.get(player)
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
        row's values, or, with no family state (a history row always has one), as itself;
        the strings appended to the spool a chunk at a time. Each player's standings let go as
        his string is made: copied whole first, they had been a rebuild's peak (issue 33: 49
        MiB of 328 at a million games for 200,000 players, docs/benchmarks/rebuild-memory.md)."""
        columns, hot, cold = self.columns, self.hot, self.cold
        self.last = None  # his packed string may be written anew
        count, keep = self.count, self.kept
        oldest = iter(list(hot))  # in the order first set since they were last packed
        if self.spool is None:
            self.spool = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
            self.fd = self.spool.fileno()
        fd, start, live = self.fd, self.spooled, self.live
        chunk = bytearray()
        while count > keep:
            player = next(oldest)
            held = hot.pop(player)
            count -= len(held)
            systems: dict[str, tuple[Any, ...]] = {}
            for system, s in held.items():
                values: tuple[Any, ...]  # not the first branch's 8: the family's columns vary
                if s.state is None:
                    values = (False, *s[:6], None)
                else:
                    values = (True, s.rating, s.games, *columns(s))
                systems[str(system)] = values
            del held
            at = cold.get(player)
            if at is not None:
                length = at & (_LENGTH - 1)
                systems = marshal.loads(os.pread(fd, length, at >> _SHIFT)) | systems
                live -= length
            data = marshal.dumps(systems)
            if len(data) >= _LENGTH:
                raise ValueError(f"{player}'s standings are {len(data)} bytes packed")
            cold[player] = (start + len(chunk)) * _LENGTH + len(data)
            live += len(data)
            chunk += data
            if len(chunk) >= SPOOL_CHUNK:
                start += _written(fd, chunk, start)
                chunk = bytearray()
        self.spooled = start + _written(fd, chunk, start)
        self.live, self.count = live, count
        if self.spooled > COMPACT_FACTOR * live and self.spooled > self.compact_over:
            self.compact()

    def compact(self) -> None:
        """The spool written anew with only each player's latest string (those it replaced
        left behind), a chunk at a time, in its players' order."""
        old, spool = self.fd, tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
        fd, start, cold = spool.fileno(), 0, self.cold
        chunk = bytearray()
        try:
            for player, at in cold.items():
                length = at & (_LENGTH - 1)
                cold[player] = (start + len(chunk)) * _LENGTH + length
                chunk += os.pread(old, length, at >> _SHIFT)
                if len(chunk) >= SPOOL_CHUNK:
                    start += _written(fd, chunk, start)
                    chunk = bytearray()
            start += _written(fd, chunk, start)
        except BaseException:
            spool.close()
            raise
        self.spool.close()
        self.spool, self.fd, self.spooled, self.live = spool, fd, start, start
        self.compactions += 1

    def close(self) -> None:
        """The spool closed (its file gone); the standings packed in it with it."""
        if self.spool is not None:
            self.spool.close()
            self.spool, self.fd, self.cold = None, -1, {}

    def _packed(self, at: int) -> dict[str, Any]:
        """The player's systems' values from the string at `at` in the spool."""
        values: dict[str, Any] = marshal.loads(os.pread(self.fd, at & (_LENGTH - 1), at >> _SHIFT))
        return values

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
        for player, at in self.cold.items():
            for system in self._packed(at):
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
        for player, at in self.cold.items():
            for system, values in self._packed(at).items():
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
            for system, values in sorted(self._packed(cold[player]).items()):
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


def _written(fd: int, data: bytearray, offset: int) -> int:
    """`data` written at `offset` in the file (all of it: a short write is written on)."""
    done = 0
    while done < len(data):
        done += os.pwrite(fd, memoryview(data)[done:], offset + done)
    return done
