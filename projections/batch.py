"""The read model's records as one catch-up or rebuild sees them (a `Batch`).

The handlers (projections/handlers.py) read and change records only through a batch; `Fresh`
keeps them in memory for a rebuild into an empty model and writes them once, in bulk;
`Incremental` reads and writes the database inside a catch-up's transaction.
"""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

import msgspec
import sqlite_utils

from ledger import events
from ledger.events import Fact
from projections import names
from projections.items import Item, stored_fact
from projections.merges import KEY as MERGE_KEY
from projections.merges import Merges, records
from projections.periods import PublishedList
from projections.schema import LIST_COLUMNS, SECTION_COLUMNS
from projections.spooled_items import RECORD, WRITE_ROWS, Spooled, parts, record
from projections.writer import LocalWriter, Writer

# A player's profile as the read model keeps it: the fact, its stored JSON, its position.
Profile = tuple[events.PlayerRegistered, str, int]
# One revision of a record changed more than once: [position, entry type, payload].
Revision = list[Any]
K = TypeVar("K")  # a kept table's key and value (`_put`)
V = TypeVar("V")


class Stored(NamedTuple):
    """An item as a rebuild's batch keeps it until it is rated: its place in the rating order,
    its key, and where its record lies in the batch's spool (`Spool`): its kind, dates,
    position and revision, its fact as the read model stores it, and the players it names.
    The facts are most of a ledger, and the rest as objects about 300 bytes an item (issue 33:
    the items of 10M games are some 220,000): on disk, a rebuild's memory grows little with
    the ledger's length."""

    sort_key: str
    key: str
    at: int  # where its record lies in the spool (`Spool.add`)


_ROW_ENCODE = msgspec.json.Encoder().encode  # a section's row (`Fresh.put_section`)
_ROW_DECODE = msgspec.json.Decoder(dict[str, Any]).decode
_REVISIONS_DECODE = msgspec.json.Decoder(list[Revision]).decode


# A rebuild's profile, packed in one int beside its player's id: its position, whether it is an
# update, where its stored text and then its encoded fact lie in the spool (issue 33: 200,000
# profiles as facts, text and tuples were some 180 MiB).
_LENGTH = 1 << 24
_OFFSET = 1 << 40
# Profiles a rebuild keeps decoded for its raters (the rest read back when asked for again):
# about 490 bytes each, 5 MiB (docs/benchmarks/rebuild-memory.md).
HOT_PROFILES = 10_000
# Bytes of a rebuild's spool held in memory before they are written to its file in one call
# (a call a record cost a system call each, some 7,000 at 100k games: docs/decisions.md).
SPOOL_BUFFER = 1 << 20
ITEMS_CHUNK = 100  # items written to the read model at a time (their facts read back)
WRITE_CHUNK = 2_000  # rows of the other records written at a time
# Players whose names go to the writer at a time (`follow_names`, `write_names`): 200,000 at
# once were 40 MiB of its process's 80; a few messages, so that the queue to it does not hold
# the rating back.
NAMES_CHUNK = 20_000
_NAMES_START, _NAMES_ADD = "projections.names:start", "projections.names:add"
_NAMES_FORGET, _NAMES_FINISH = "projections.names:forget", "projections.names:finish"


class Batch:
    """The read model's records as the entries of one catch-up (or rebuild) see them.

    Handlers read and change records only through these methods; `Fresh` keeps them in
    memory (a rebuild into an empty model), `Incremental` in the database.
    """

    fresh = False

    def __init__(self) -> None:
        self.dirty: dict[str, str] = {}  # item key → the earliest sort key it touches
        self.seeds: set[str] = set()  # players whose profile changed: all their rows may
        self.amended: list[tuple[str, str | None]] = []  # amendment ranges (effective, until)
        self.listed = False  # a rating list was published: a family rating by lists re-rates
        self._merges: Merges | None = None

    def merges(self) -> Merges:
        """The merges in force (projections/merges.py), read once until one changes."""
        if self._merges is None:
            self._merges = Merges.fold(self._merge_records())
        return self._merges

    def merges_changed(self) -> None:
        self._merges = None

    def _merge_records(self) -> Iterable[tuple[str, Any]]:
        raise NotImplementedError

    def realias(self, players: set[str]) -> None:
        """Items naming `players` (as `item_players` holds them) stored again and touched: the
        records they count as changed (a rebuild's batch names them when it writes)."""

    def touch(self, key: str, sort_key: str) -> None:
        found = self.dirty.get(key)
        if found is None or sort_key < found:
            self.dirty[key] = sort_key

    # Records; each pair is a read and a write (None deletes).
    def profile(self, member_id: str) -> Profile | None: ...
    def put_profile(
        self, member_id: str, profile: Profile | None, encoded: bytes | None = None
    ) -> None: ...  # `encoded`, when given, is `events.encode` of the profile's fact
    def item(self, key: str) -> Item | None: ...
    def put_item(self, key: str, item: Item | None) -> None: ...
    def section(self, section_id: str) -> dict[str, Any] | None: ...
    def put_section(self, section_id: str, row: dict[str, Any] | None) -> None: ...
    def amendment(self, position: int) -> tuple[Any, ...] | None: ...
    def put_amendment(self, position: int, row: tuple[Any, ...] | None) -> None: ...
    def entry_key(self, position: int) -> str | None: ...
    def put_entry_key(self, position: int, key: str) -> None: ...
    def revisions(self, key: str) -> list[Revision]:
        raise NotImplementedError

    def put_revisions(self, key: str, revisions: list[Revision]) -> None: ...
    def add_problem(self, position: int, key: str, kind: str, reason: str) -> None: ...
    def add_list(self, published: PublishedList) -> None: ...
    def note(self, key: str) -> str | None: ...
    def put_note(self, key: str, value: str | None) -> None:
        """A note of the office's review queue (projections/uploads.py), outside the content."""

    def family_lists(self, family: str) -> list[str]:
        """The names of `family`'s lists so far, in their order."""
        raise NotImplementedError

    def drop_problems(self, position: int | None, key: str | None = None) -> None:
        """Problem rows at `position` (of `key` only, when given); every one of `key` when
        `position` is None."""


class Fresh(Batch):
    """A rebuild's batch: every record in memory, written once with bulk inserts."""

    fresh = True

    def __init__(self) -> None:
        super().__init__()
        self.profiles: dict[str, int] = {}  # packed (`_pack`), the profile in `spool`
        self.items: dict[str, Stored] = {}
        # the items' records, the sections' rows and the profiles, encoded; closed by `close`
        # (the rebuild holds the batch in `closing`)
        self.spool = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
        self.spooled = 0  # the spool's length, the bytes held in memory included
        # the spool's last bytes, the first `held` of `pending`, not yet in its file: written
        # SPOOL_BUFFER at a time (`_spool`)
        self.pending = bytearray(SPOOL_BUFFER)
        self.held = 0
        self.flushed = 0  # the spool's bytes in its file (those before the ones held)
        self.sections: dict[str, int] = {}  # where each row lies in the spool, as JSON
        self.amendments: dict[int, tuple[Any, ...]] = {}
        # the entries' positions, ascending, and each one's key (`entry_key`): two arrays, not a
        # dict of ints (420,000 entries at 10M games were some 35 MiB as a dict)
        self.positions: array[int] = array("q")
        self.keys: list[str] = []
        self.revised: dict[str, int] = {}  # where each record's revisions lie, as JSON
        self.problems: dict[tuple[int, str], tuple[str, str]] = {}
        self.lists: list[PublishedList] = []
        self.notes: dict[str, int] = {}  # where each note lies
        self.facts = SpooledProfiles(self)  # the raters' profiles
        # the writer the players' names go to as the log is read (`follow_names`); the players
        # set since the last handed over (each his name then), and those handed over whose
        # profile changed since (made again at the end, `write_names`)
        self.names_to: Writer | LocalWriter | None = None
        self.unnamed: dict[str, str | None] = {}
        self.renamed: set[str] = set()

    def touch(self, key: str, sort_key: str) -> None:
        """Nothing: a rebuild rates every item (a catch-up's batch notes what it changed)."""

    def profile(self, member_id: str) -> Profile | None:
        packed = self.profiles.get(member_id)
        if packed is None:
            return None
        text, fact, position = self._profile(member_id, packed)
        return fact, text, position

    def put_profile(
        self, member_id: str, profile: Profile | None, encoded: bytes | None = None
    ) -> None:
        """The profile's text and its fact appended to the spool, and where they lie kept."""
        if self.names_to is not None:
            name = None if profile is None else profile[0].name
            self._name_changed(self.names_to, member_id, name)
        if profile is None:
            self.profiles.pop(member_id, None)
            return
        fact, text, position = profile
        data = text.encode()
        if encoded is None:
            encoded = events.encode(fact)
        updated = int(type(fact) is events.PlayerProfileUpdated)
        packed = ((position << 1 | updated) * _OFFSET + self._spool(data + encoded)) * _LENGTH
        self.profiles[member_id] = (packed + len(data)) * _LENGTH + len(encoded)

    def _profile(self, member_id: str, packed: int) -> tuple[str, events.PlayerRegistered, int]:
        """A packed profile's text, fact and position, read back."""
        packed, fact_length = divmod(packed, _LENGTH)
        packed, text_length = divmod(packed, _LENGTH)
        packed, offset = divmod(packed, _OFFSET)
        position, updated = divmod(packed, 2)
        data = self._spooled(offset, text_length + fact_length)
        type_ = "PlayerProfileUpdated" if updated else "PlayerRegistered"
        fact = events.decode(type_, state=data[text_length:])
        assert isinstance(fact, events.PlayerRegistered)  # decoded as its type
        return data[:text_length].decode(), fact, position

    def profile_text(self, member_id: str) -> tuple[str, int]:
        """A player's stored profile and its position (a player the batch holds), read back
        without decoding its fact."""
        packed = self.profiles[member_id] // _LENGTH
        packed, text_length = divmod(packed, _LENGTH)
        packed, offset = divmod(packed, _OFFSET)
        return self._spooled(offset, text_length).decode(), packed >> 1

    def item(self, key: str) -> Item | None:
        found = self.items.get(key)
        return None if found is None else self._item(found)

    def put_item(self, key: str, item: Item | None) -> None:
        """The item's record appended to the spool (`_record`), and where it lies kept."""
        if item is None:
            self.items.pop(key, None)
            return
        head = (item.kind, item.start, item.end, item.position, item.revision)
        data = record(head, events.encode(item.event), item.players)
        self.items[key] = Stored(item.sort_key, key, self._add(data))

    def _add(self, data: bytes) -> int:
        """`data` appended to the spool: where it lies (`_read`)."""
        return self._spool(data) * RECORD + len(data)

    def _read(self, at: int) -> bytes:
        offset, length = divmod(at, RECORD)
        return self._spooled(offset, length)

    def _spool(self, data: bytes) -> int:
        """`data` appended to the spool: its offset. The bytes are held in `pending` until
        SPOOL_BUFFER of them are, then written to the file in one call (docs/decisions.md,
        "The rebuild's spool written a mebibyte at a time")."""
        offset, size = self.spooled, len(data)
        if self.held + size > SPOOL_BUFFER:  # the bytes held to the file first
            self._flush()
        if size > SPOOL_BUFFER:  # more than it holds: to the file at once
            os.pwrite(self.spool.fileno(), data, offset)
            self.flushed = offset + size
        else:
            # in place (its length stays), through a view: one copy, not two
            memoryview(self.pending)[self.held : self.held + size] = data
            self.held += size
        self.spooled += size
        return offset

    def _flush(self) -> None:
        """The spool's bytes held in memory written to its file."""
        os.pwrite(self.spool.fileno(), memoryview(self.pending)[: self.held], self.flushed)
        self.flushed, self.held = self.spooled, 0

    def _spooled(self, offset: int, length: int) -> bytes:
        """The spool's `length` bytes at `offset` (one record's: in `pending` or in the file)."""
        start = offset - self.flushed
        if start >= 0:
            return bytes(self.pending[start : start + length])
        return os.pread(self.spool.fileno(), length, offset)

    def _texts(self, held: dict[str, int]) -> Iterator[tuple[str, str]]:
        """Each (key, text) of `held`, in key order, its text read back from the spool as asked
        for (a generator function: compiled, not a list made whole)."""
        for key, at in sorted(held.items()):
            yield key, self._read(at).decode()

    def _item(self, s: Stored) -> Item:
        (kind, start, end, position, revision), fact, _ = parts(self._read(s.at))
        return Item(s.key, kind, start, end, position, revision, stored_fact(kind, fact))

    def ordered(self) -> Iterator[Item]:
        """Every item in rating order, each read back and decoded when reached, and let go
        then (the batch holds no items afterwards): the items' records shrink as the
        standings they make grow."""
        order = sorted(self.items.values(), key=itemgetter(0), reverse=True)
        self.items = {}
        while order:
            yield self._item(order.pop())

    def close(self) -> None:
        self.spool.close()

    def _merge_records(self) -> Iterable[tuple[str, Any]]:
        return [(k, self.revisions(k)) for k in self.revised if k.startswith(MERGE_KEY)]

    def section(self, section_id: str) -> dict[str, Any] | None:
        at = self.sections.get(section_id)
        return None if at is None else _ROW_DECODE(self._read(at))

    def put_section(self, section_id: str, row: dict[str, Any] | None) -> None:
        """The row appended to the spool as JSON (its values strings, ints and None), and
        where it lies kept: 130,000 sections' rows at 10M games were some 70 MiB as dicts."""
        _put(self.sections, section_id, None if row is None else self._add(_ROW_ENCODE(row)))

    def amendment(self, position: int) -> tuple[Any, ...] | None:
        return self.amendments.get(position)

    def put_amendment(self, position: int, row: tuple[Any, ...] | None) -> None:
        _put(self.amendments, position, row)

    def entry_key(self, position: int) -> str | None:
        i = bisect_left(self.positions, position)
        found = i < len(self.positions) and self.positions[i] == position
        return self.keys[i] if found else None

    def put_entry_key(self, position: int, key: str) -> None:
        """The entry's key, kept in the positions' order (a rebuild's entries come in it)."""
        positions = self.positions
        if not positions or position > positions[-1]:
            positions.append(position)
            self.keys.append(key)
            return
        i = bisect_left(positions, position)
        if positions[i] == position:
            self.keys[i] = key
        else:
            positions.insert(i, position)
            self.keys.insert(i, key)

    def revisions(self, key: str) -> list[Revision]:
        at = self.revised.get(key)
        return [] if at is None else _REVISIONS_DECODE(self._read(at))

    def put_revisions(self, key: str, revisions: list[Revision]) -> None:
        """The revisions appended to the spool as the read model stores them (a section's are
        its whole facts), and where they lie kept."""
        found = self._add(revisions_json(revisions).encode()) if revisions else None
        _put(self.revised, key, found)

    def add_problem(self, position: int, key: str, kind: str, reason: str) -> None:
        self.problems[(position, key)] = (kind, reason)

    def add_list(self, published: PublishedList) -> None:
        self.lists.append(published)
        self.listed = True

    def note(self, key: str) -> str | None:
        at = self.notes.get(key)
        return None if at is None else self._read(at).decode()

    def put_note(self, key: str, value: str | None) -> None:
        _put(self.notes, key, None if value is None else self._add(value.encode()))

    def family_lists(self, family: str) -> list[str]:
        return [x.name for x in sorted(self.lists, key=lambda x: x.number) if x.family == family]

    def drop_problems(self, position: int | None, key: str | None = None) -> None:
        for found in [k for k in self.problems if position in (None, k[0]) and key in (None, k[1])]:
            del self.problems[found]

    def write(self, conn: Writer | LocalWriter) -> None:
        """Every record but the history rows, the ratings, the problems and the name tables,
        in bulk (before rating: a writer in another process stores them while the items are
        rated). Each table's rows go in its key's order: its b-trees are only appended to
        (issue 21). The records rating does not read are let go once written (the sections,
        the entries' keys, the players noted as changed: a third of a million-game rebuild's
        records); the profiles stay in the spool, read back by `facts` for the raters."""
        _insert(
            conn,
            "insert into players values (?, ?, ?)",
            _each(lambda m: (m, *self.profile_text(m)), sorted(self.profiles)),
        )
        _insert(
            conn,
            "insert into amendments values (?, ?, ?, ?, ?, ?)",
            _each(lambda item: (item[0], *item[1]), sorted(self.amendments.items())),
        )
        _insert(
            conn,
            "insert into sections values (?, ?, ?, ?, ?, ?, ?, ?)",
            _each(
                lambda item: tuple(map(_ROW_DECODE(self._read(item[1])).get, SECTION_COLUMNS)),
                sorted(self.sections.items()),
            ),
        )
        self.sections = {}
        _insert(
            conn, "insert into entries values (?, ?)", zip(self.positions, self.keys, strict=True)
        )
        self.positions, self.keys = array("q"), []
        _insert(conn, "insert into reviews values (?, ?)", self._texts(self.notes))
        self.notes = {}
        self.seeds = set()  # the profiles changed: every player, read by no rebuild
        _insert(
            conn,
            f"insert into lists values ({', '.join('?' for _ in LIST_COLUMNS)})",
            sorted(tuple(x.row()[c] for c in LIST_COLUMNS) for x in self.lists),
        )
        _insert(conn, "insert into revisions values (?, ?)", self._texts(self.revised))

    def follow_names(self, conn: Writer | LocalWriter) -> None:
        """The players' names handed to `conn`'s writer from here on as the log is read, a
        chunk at a time (a large rebuild's writer process idles while the log is read: the
        name tables of 200,000 players were some 11 s of its CPU, issue 33); the rest, and
        those whose profile changed since, by `write_names`."""
        conn.call(_NAMES_START)
        self._add_names(conn, list(self.profiles))
        self.names_to = conn

    def _name_changed(self, conn: Writer | LocalWriter, member_id: str, name: object) -> None:
        """A player's profile set anew (`name`: its name; None: dropped) while the names are
        followed: one handed over already is made again at the end."""
        if member_id not in self.unnamed and member_id in self.profiles:
            self.renamed.add(member_id)
            return
        self.unnamed[member_id] = names.usable(name)
        if len(self.unnamed) >= NAMES_CHUNK:
            self._hand_unnamed(conn)

    def _hand_unnamed(self, conn: Writer | LocalWriter) -> None:
        """The names of the players set since the last were handed over (those with one)."""
        named = [(p, n) for p, n in self.unnamed.items() if n is not None]
        if named:
            conn.call(_NAMES_ADD, named, WRITE_CHUNK)
        self.unnamed = {}

    def _add_names(self, conn: Writer | LocalWriter, players: list[str]) -> None:
        """The names of `players` (each with a profile) handed over, NAMES_CHUNK at a time."""
        found = _each(lambda m: (m, self.profile_text(m)[0]), players)
        while some := list(islice(found, NAMES_CHUNK)):
            conn.call(_NAMES_ADD, names.named(some), WRITE_CHUNK)

    def write_names(self, conn: Writer | LocalWriter) -> None:
        """The name tables, made in the writer's process from each player's name (the
        rebuild hands them over once the items' rows are in: issue 33): every player's, or
        those `follow_names` has not handed over as they now are."""
        if self.names_to is None:
            conn.call(_NAMES_START)
            self._add_names(conn, sorted(self.profiles))
        else:
            self._hand_unnamed(conn)
            if self.renamed:  # their rows made again, from their profiles as they end
                conn.call(_NAMES_FORGET, sorted(self.renamed))
                self._add_names(conn, sorted(self.renamed & self.profiles.keys()))
            self.names_to, self.renamed = None, set()
        conn.call(_NAMES_FINISH, WRITE_CHUNK)

    def shared(self) -> int:
        """The spool file's descriptor, for a writer process to read the items' records from
        (open there under the same number: projections/writer.py `Writer`)."""
        return int(self.spool.fileno())

    def item_writes(self, conn: Writer | LocalWriter) -> Iterator[None]:
        """The items' and their players' rows, `ITEMS_CHUNK` items a step (a million games'
        pairs at once were 100 MiB), each step when the rebuild asks: spread over its rating,
        the writer stores them as items are rated (issue 21). The writer makes them from the
        records it reads from the spool (projections/spooled_items.py), every byte of which is
        in its file from here on. Made before rating."""
        self._flush()
        order = sorted(self.items.values(), key=itemgetter(1), reverse=True)
        merges = self.merges()
        survivors = {m: merges.resolve(m) for m in merges.into}
        return self._write_items(conn, order, survivors)

    def _write_items(
        self, conn: Writer | LocalWriter, order: list[Stored], survivors: dict[str, str]
    ) -> Iterator[None]:
        fd = self.shared()
        while order:
            chunk: list[Spooled] = [(s.key, s.sort_key, s.at) for s in order[-ITEMS_CHUNK:][::-1]]
            del order[-ITEMS_CHUNK:]
            conn.call(WRITE_ROWS, fd, chunk, survivors)
            yield

    def write_problems(self, conn: Writer | LocalWriter) -> None:
        """The problem rows (after rating: it adds the items it could not rate)."""
        conn.executemany(
            "insert into problems values (?, ?, ?, ?)",
            [(p, key, kind, why) for (p, key), (kind, why) in sorted(self.problems.items())],
        )


class SpooledProfiles:
    """The raters' profiles of a rebuild's batch: a player's fact read back from the batch's
    spool when asked for, the last `HOT_PROFILES` asked for kept decoded (all of them below
    that many players: a rebuild reads each once)."""

    def __init__(self, batch: Fresh) -> None:
        self.batch = batch
        self.hot: OrderedDict[str, events.PlayerRegistered] = OrderedDict()

    def get(
        self, member_id: str, default: events.PlayerRegistered | None = None
    ) -> events.PlayerRegistered | None:
        found = self.hot.get(member_id)
        if found is not None:
            return found
        packed = self.batch.profiles.get(member_id)
        if packed is None:
            return default
        found = self.batch._profile(member_id, packed)[1]
        self.hot[member_id] = found
        if len(self.hot) > HOT_PROFILES:
            self.hot.popitem(last=False)
        return found

    def __getitem__(self, member_id: str) -> events.PlayerRegistered:
        found = self.get(member_id)
        if found is None:
            raise KeyError(member_id)
        return found


class Incremental(Batch):
    """A catch-up's batch: records read from and written to the database as they change,
    inside the catch-up's one transaction."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        super().__init__()
        self.conn = db.conn

    def _one(self, sql: str, args: list[Any]) -> Any:
        return self.conn.execute(sql, args).fetchone()

    def profile(self, member_id: str) -> Profile | None:
        row = self._one("select profile, position from players where id = ?", [member_id])
        if row is None:
            return None
        return profile_fact(member_id, row[0]), row[0], row[1]

    def put_profile(
        self, member_id: str, profile: Profile | None, encoded: bytes | None = None
    ) -> None:
        """The player's row and, when his name changed, his names' rows (projections/names);
        the fact is not stored (`encoded` unused)."""
        row = self._one("select profile from players where id = ?", [member_id])
        before = names.name_of(None if row is None else row[0])
        after = names.name_of(None if profile is None else profile[1])
        if before != after:
            names.rename(self.conn, member_id, before, after)
        if profile is None:
            self.conn.execute("delete from players where id = ?", [member_id])
        else:
            self.conn.execute(
                "insert or replace into players values (?, ?, ?)",
                [member_id, profile[1], profile[2]],
            )

    def item(self, key: str) -> Item | None:
        row = self._one(
            "select key, kind, start, end, position, revision, payload from items where key = ?",
            [key],
        )
        if row is None:
            return None
        key, kind, start, end, position, revision, payload = row
        return Item(key, kind, start, end, position, revision, decode_item(kind, payload))

    def put_item(self, key: str, item: Item | None) -> None:
        self.conn.execute("delete from item_players where item_key = ?", [key])
        if item is None:
            self.conn.execute("delete from items where key = ?", [key])
            return
        self.conn.execute(
            "insert or replace into items values (?, ?, ?, ?, ?, ?, ?, ?)", _item_row(item)
        )
        resolve = self.merges().resolve
        self.conn.executemany(
            "insert into item_players values (?, ?)",
            [(key, p) for p in dict.fromkeys(map(resolve, item.players))],
        )

    def _merge_records(self) -> Iterable[tuple[str, Any]]:
        return records(self.conn)

    def realias(self, players: set[str]) -> None:
        keys = [
            r[0]
            for p in sorted(players)
            for r in self.conn.execute("select item_key from item_players where player = ?", [p])
        ]
        for key in dict.fromkeys(keys):
            item = self.item(key)
            if item is not None:
                self.put_item(key, item)
                self.touch(key, item.sort_key)

    def section(self, section_id: str) -> dict[str, Any] | None:
        row = self._one(
            f"select {', '.join(SECTION_COLUMNS)} from sections where section_id = ?",
            [section_id],
        )
        return None if row is None else dict(zip(SECTION_COLUMNS, row, strict=True))

    def put_section(self, section_id: str, row: dict[str, Any] | None) -> None:
        if row is None:
            self.conn.execute("delete from sections where section_id = ?", [section_id])
        else:
            self.conn.execute(
                "insert or replace into sections values (?, ?, ?, ?, ?, ?, ?, ?)",
                [row.get(c) for c in SECTION_COLUMNS],
            )

    def amendment(self, position: int) -> tuple[Any, ...] | None:
        row = self._one(
            "select parameter, value, effective, until, reason from amendments where position = ?",
            [position],
        )
        return None if row is None else tuple(row)

    def put_amendment(self, position: int, row: tuple[Any, ...] | None) -> None:
        self.conn.execute("delete from amendments where position = ?", [position])
        if row is not None:
            self.conn.execute("insert into amendments values (?, ?, ?, ?, ?, ?)", [position, *row])

    def entry_key(self, position: int) -> str | None:
        row = self._one("select key from entries where position = ?", [position])
        return None if row is None else row[0]

    def put_entry_key(self, position: int, key: str) -> None:
        self.conn.execute("insert or replace into entries values (?, ?)", [position, key])

    def revisions(self, key: str) -> list[Revision]:
        row = self._one("select revisions from revisions where key = ?", [key])
        return [] if row is None else json.loads(row[0])

    def put_revisions(self, key: str, revisions: list[Revision]) -> None:
        self.conn.execute("delete from revisions where key = ?", [key])
        if revisions:
            self.conn.execute(
                "insert into revisions values (?, ?)", [key, revisions_json(revisions)]
            )

    def add_problem(self, position: int, key: str, kind: str, reason: str) -> None:
        self.conn.execute(
            "insert or replace into problems values (?, ?, ?, ?)", [position, key, kind, reason]
        )

    def add_list(self, published: PublishedList) -> None:
        row = published.row()
        self.conn.execute(
            f"insert into lists values ({', '.join('?' for _ in LIST_COLUMNS)})",
            [row[c] for c in LIST_COLUMNS],
        )
        self.listed = True

    def note(self, key: str) -> str | None:
        row = self._one("select value from reviews where key = ?", [key])
        return None if row is None else str(row[0])

    def put_note(self, key: str, value: str | None) -> None:
        self.conn.execute("delete from reviews where key = ?", [key])
        if value is not None:
            self.conn.execute("insert into reviews values (?, ?)", [key, value])

    def family_lists(self, family: str) -> list[str]:
        found = self.conn.execute(
            "select name from lists where family = ? order by number", [family]
        )
        return [name for (name,) in found]

    def drop_problems(self, position: int | None, key: str | None = None) -> None:
        if key is None:
            self.conn.execute("delete from problems where position = ?", [position])
        elif position is None:
            self.conn.execute("delete from problems where item_key = ?", [key])
        else:
            self.conn.execute(
                "delete from problems where position = ? and item_key = ?", [position, key]
            )


def _insert(conn: Writer | LocalWriter, sql: str, rows: Iterable[tuple[Any, ...]]) -> None:
    """`rows` handed to the writer `WRITE_CHUNK` at a time: each statement's rows are held
    whole in both processes (20,000 profiles or 42,000 entries at once were the peak of a
    writer otherwise flat)."""
    found = iter(rows)
    while chunk := list(islice(found, WRITE_CHUNK)):
        conn.executemany(sql, chunk)


def _put(table: dict[K, V], key: K, value: V | None) -> None:
    if value is None:
        table.pop(key, None)
    else:
        table[key] = value


def _item_row(i: Item) -> tuple[Any, ...]:
    return (
        i.key,
        i.kind,
        i.sort_key,
        i.start,
        i.end,
        i.position,
        i.revision,
        events.encode(i.event).decode(),
    )


def revisions_json(revisions: list[Revision]) -> str:
    return events.encode_value(revisions).decode()


def profile_fact(member_id: str, profile: str) -> events.PlayerRegistered:
    fact = events.decode(
        "PlayerRegistered", payload={"member_id": member_id, **msgspec.json.decode(profile)}
    )
    assert isinstance(fact, events.PlayerRegistered)  # decoded as its type
    return fact


def decode_item(kind: str, payload: str) -> Fact:
    return stored_fact(kind, payload.encode())


def _each(
    make: Callable[[Any], tuple[Any, ...]], items: Iterable[Any]
) -> Iterator[tuple[Any, ...]]:
    """`make(x)` for each x, as asked for: a generator function, since compiled by mypyc a
    generator expression passed on is made a list whole (every player's row at once)."""
    for x in items:
        yield make(x)
