"""The history's stored layout: narrow rows, and a row's standing and detail apart.

A rater's history row (`schema.history_columns` order, projections/change.py) is split when
it is written: its key and figures go to `history_rows`, the standing after it (the family's
`s_*` state columns, `Rater.state_columns`) to `history_standing` only if any of them has a
value, and its `detail` JSON to `history_detail` only if it is not "{}"; the three are keyed
by the row's `id`. The view `history` joins them back into the rater's rows, so every reader,
and the digest (schema.content), sees the same rows as before the split (docs/decisions.md,
"Narrow history rows"). A family's `Layout` holds its statements.

Each narrow row also keeps its `fingerprint`: 64 bits of a BLAKE2b of the rater's row but its
key and detail (`fingerprint`), made where the row is written (a rebuild's in its writer
process). A cascade reads a stored row's key, figures it decides on, detail and fingerprint,
not its ~45 values (docs/decisions.md, "A stored row known by its fingerprint (issue 33)").
Not content: the view leaves it out.
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, Protocol

import msgspec

from projections import statements
from projections.standing import UNRATED, Standing
from projections.writer import LocalWriter, Part, Writer, parts, split_rows

# The rater's row: the narrow part every family has, then `detail`, then the family's own: its
# figures (`Rater.figure_columns`) and its state columns (`Rater.state_columns`).
NARROW_COLUMNS = (
    "item_key",
    "player",
    "system",
    "sort_key",
    "kind",
    "end_date",
    "position",
    "revision",
    "rules",
    "formula",
    "pre_rating",
    "post_rating",
    "official_rating",
    "games_before",
    "games_after",
    "m",
    "score",
    "k",
    "expected",
)
POST = NARROW_COLUMNS.index("post_rating")
GAMES = NARROW_COLUMNS.index("games_after")
TABLES = ("history_rows", "history_standing", "history_detail")
DETAIL: Final = len(NARROW_COLUMNS)  # the index of `detail` in a rater's row
NO_DETAIL = "{}"


def _marks(n: int) -> str:
    return ", ".join("?" for _ in range(n))


# A narrow row as stored: the rater's narrow values, then the row's fingerprint.
STORED_NARROW = (*NARROW_COLUMNS, "fingerprint")
ROWS_INSERT = f"insert into history_rows values ({_marks(1 + len(STORED_NARROW))})"
ROWS_UPDATE = (
    f"update history_rows set {', '.join(f'[{c}] = ?' for c in STORED_NARROW)} where id = ?"
)
# A stored row's narrow values but its key (item, player, system, sort key), its indexes kept.
KEYS: Final = 4
NARROW_UPDATE = (
    f"update history_rows set {', '.join(f'[{c}] = ?' for c in STORED_NARROW[KEYS:])} where id = ?"
)
# A stored row as a cascade reads it (`Layout.rows_of_item`): these, by their places.
SEEN = (
    "id",
    "player",
    "system",
    "sort_key",
    "pre_rating",
    "post_rating",
    "games_after",
    "detail",
    "standing",  # its id in history_standing (NULL: it has no standing)
    "fingerprint",
)
SEEN_ID: Final = SEEN.index("id")
SEEN_PLAYER: Final = SEEN.index("player")
SEEN_SYSTEM: Final = SEEN.index("system")
SEEN_SORT_KEY: Final = SEEN.index("sort_key")
SEEN_PRE: Final = SEEN.index("pre_rating")
SEEN_POST: Final = SEEN.index("post_rating")
SEEN_GAMES: Final = SEEN.index("games_after")
SEEN_DETAIL: Final = SEEN.index("detail")
SEEN_STANDING: Final = SEEN.index("standing")
SEEN_PRINT: Final = SEEN.index("fingerprint")
_ENCODE: Final = msgspec.msgpack.Encoder().encode
# a BLAKE2b of 8 bytes, copied for each row: a new one, its digest size a keyword, costs more
_BLAKE2B: Final = hashlib.blake2b(digest_size=8)
_SIGNED: Final = struct.Struct("<q").unpack  # 8 bytes as a signed little-endian int
_EXACT: Final = 1 << 53  # ints below this in size are the float they equal


def fingerprint(row: Sequence[Any]) -> int:
    """A rater's row's fingerprint: a signed 64-bit BLAKE2b of its values but its key and
    detail, msgpack-encoded, an int as the float it equals (so that rows equal in Python have
    one fingerprint, whichever of 1 and 1.0 a rater made, or SQLite gave back). The same in
    every process and Python: not `hash` (salted for str) nor `marshal` (its bytes follow
    interning)."""
    values = list(row)
    values[DETAIL] = None  # compared apart (it is read)
    for i in range(KEYS, len(values)):
        v = values[i]
        if isinstance(v, int):
            n: int = v
            if -_EXACT < n < _EXACT:
                values[i] = float(n)
    hasher = _BLAKE2B.copy()
    hasher.update(_ENCODE(values[KEYS:]))
    signed: int = _SIGNED(hasher.digest())[0]
    return signed


def printed(row: Sequence[Any]) -> tuple[Any, ...]:
    """A rater's row as it is split to be stored: its fingerprint after its narrow values."""
    return (*row[:DETAIL], fingerprint(row), *row[DETAIL:])


def append_printed(
    conn: sqlite3.Connection, rows: Sequence[Sequence[Any]], first: int, spec: list[Part]
) -> None:
    """Rater's rows numbered from `first`, each fingerprinted and split into `spec`'s tables
    (run by the writer, in its process for a large rebuild: `Layout.append`)."""
    split_rows(conn, [printed(r) for r in rows], first, spec)


APPEND = "projections.history_store:append_printed"  # `append_printed`, as `call` names it
DETAIL_INSERT = "insert or replace into history_detail values (?, ?)"
ID_OF_KEY = "select id from history_rows where player = ? and system = ? and sort_key = ?"
STANDING_DELETE = "delete from history_standing where id = ?"
DETAIL_DELETE = "delete from history_detail where id = ?"
DETAIL_OR_NONE = f"case when d.id is null then '{NO_DETAIL}' else d.detail end"
# The values of `SEEN` not read from `history_rows` (h): from its standing (s), its detail (d).
_SEEN_FROM = {"detail": DETAIL_OR_NONE, "standing": "s.id"}


class Record(Protocol):
    """What keeps the rows a catch-up changes as they stood before (projections/knowledge.py,
    `Keeping`): each writer here gives it the rows it is about to change, before it does."""

    def keep(self, ids: Iterable[int]) -> None:
        """The stored rows of `ids`, about to be changed or deleted."""

    def add(self, rows: Sequence[Sequence[Any]]) -> None:
        """Rater's rows about to be stored as new rows."""


class Layout:
    """The history of one family: `history_standing` holds its own columns, its figures and
    its state (`Rater.figure_columns`, `Rater.state_columns`), the state read back into
    standings by its `standing_of`."""

    def __init__(
        self,
        figure_columns: Sequence[str],
        state_columns: Sequence[str],
        standing_of: Callable[[Sequence[Any]], Standing[object]],
    ) -> None:
        self.state_columns = tuple(state_columns)
        self.own_columns = (*figure_columns, *self.state_columns)
        self.standing_of = standing_of
        self.state_start = DETAIL + 1 + len(figure_columns)  # a row's state columns start here
        self.no_standing: tuple[None, ...] = (None,) * len(self.own_columns)
        self.standing_insert = (
            f"insert or replace into history_standing values ({_marks(1 + len(self.own_columns))})"
        )
        # a stored standing written again in place (a catch-up's rewrite, `rewrite`)
        self.standing_update = (
            f"update history_standing set {', '.join(f'[{c}] = ?' for c in self.own_columns)} "
            "where id = ?"
        )
        own = ", ".join(f"s.[{c}]" for c in self.own_columns)
        self.own_of_id = f"select {own} from history_standing s where s.id = ?"
        state = ", ".join(f"s.[{c}]" for c in self.state_columns)
        narrow = ", ".join(f"h.[{c}]" for c in NARROW_COLUMNS)
        # The rows as the raters make them: what every reader and the digest read.
        self.view = (
            f"create view history as select {narrow}, {DETAIL_OR_NONE} as detail, {own} "
            "from history_rows h left join history_standing s on s.id = h.id "
            "left join history_detail d on d.id = h.id"
        )
        # The stored rows of one item as a cascade sees them (`SEEN`): it reads those of the
        # items it re-rates (never those it passes over) and compares them with the new ones.
        seen = ", ".join(_SEEN_FROM.get(c, f"h.[{c}]") for c in SEEN)
        self.rows_of_item_query = (
            f"select {seen} from history_rows h "
            "left join history_standing s on s.id = h.id "
            "left join history_detail d on d.id = h.id where h.item_key = ?"
        )
        # The state after each (player, system)'s last row before a sort key (rating, N, then
        # the state columns), for pairs given as two JSON lists (the players; their systems, in
        # the same places), each answered by its place: many pairs, one query (plain lists:
        # json_each parses the players once, json_extract finds a pair's system by its place).
        self.states_before = (
            f"select w.key, h.post_rating, h.games_after, {state} "
            "from json_each(?1) w join history_rows h on h.id = (select x.id from history_rows x "
            "where x.player = w.value and x.system = json_extract(?2, '$[' || w.key || ']') "
            "and x.sort_key < ?3 order by x.sort_key desc limit 1) "
            "left join history_standing s on s.id = h.id"
        )
        # The rater's row split once `printed` (its fingerprint after its narrow values): where
        # each table's columns lie in it, and the values of a row without a standing or a
        # detail (projections/writer.py runs it, in a writer process too).
        self.split: list[Part] = [
            ("history_rows", 0, DETAIL + 1, None),
            (
                "history_standing",
                DETAIL + 2,
                DETAIL + 2 + len(self.own_columns),
                self.no_standing,
            ),
            ("history_detail", DETAIL + 1, DETAIL + 2, (NO_DETAIL,)),
        ]

    def create(self, conn: sqlite3.Connection, types: dict[str, str]) -> None:
        """The three tables and the view (`types`: each column's SQL type)."""
        conn.execute(
            "create table history_rows (id INTEGER PRIMARY KEY, "
            + ", ".join(f"[{c}] {types[c]}" for c in NARROW_COLUMNS)
            + ", fingerprint INTEGER)"
        )
        conn.execute(
            "create table history_standing (id INTEGER PRIMARY KEY, "
            + ", ".join(f"[{c}] {types[c]}" for c in self.own_columns)
            + ")"
        )
        conn.execute("create table history_detail (id INTEGER PRIMARY KEY, detail TEXT)")
        conn.execute(self.view)

    def append(self, conn: Writer | LocalWriter, rows: Sequence[Sequence[Any]], first: int) -> int:
        """Bulk-load rater's rows into an empty history (a rebuild), numbered from `first`, in
        the order they come (each table appended to), fingerprinted and split by the writer;
        the next number."""
        conn.call(APPEND, rows, first, self.split)
        return first + len(rows)

    def replace(
        self, conn: sqlite3.Connection, rows: Iterable[Sequence[Any]], record: Record | None = None
    ) -> None:
        """Store rater's rows in place of the rows with their keys (player, system, sort key),
        or as new rows numbered after the last (a catch-up; `record`: what keeps the rows
        replaced)."""
        stored, added = [], []
        for row in rows:
            found = conn.execute(ID_OF_KEY, row[1:4]).fetchone()
            if found is None:
                added.append(row)
            else:
                stored.append((found[0], row))
        last = conn.execute("select coalesce(max(id), 0) from history_rows").fetchone()[0]
        if record is not None:
            record.keep([rid for rid, _ in stored])
            record.add(added)
        numbered = [*stored, *enumerate(added, last + 1)]
        narrow, standing, detail = parts([(i, printed(r)) for i, r in numbered], self.split)
        kept = len(stored)
        statements.executemany(conn, ROWS_UPDATE, [(*r[1:], r[0]) for r in narrow[:kept]])
        statements.executemany(conn, ROWS_INSERT, narrow[kept:])
        # A stored row's standing or detail it no longer has goes; the others are replaced.
        has = {r[0] for r in standing}, {r[0] for r in detail}
        for table, ids in zip(("history_standing", "history_detail"), has, strict=True):
            gone = [(rid,) for rid, _ in stored if rid not in ids]
            conn.executemany(f"delete from {table} where id = ?", gone)
        statements.executemany(conn, self.standing_insert, standing)
        conn.executemany(DETAIL_INSERT, detail)

    def standing_of_row(self, row: Sequence[Any]) -> Standing[object]:
        """The standing after a rater's row: its rating, N and state columns."""
        return self.standing_of((row[POST], row[GAMES], *row[self.state_start :]))

    def rows_of_item(self, conn: sqlite3.Connection, key: str) -> list[tuple[Any, ...]]:
        """The stored rows of the item `key`, as a cascade sees them (`SEEN`)."""
        return conn.execute(self.rows_of_item_query, [key]).fetchall()

    def own_values(self, conn: sqlite3.Connection, rid: int) -> tuple[Any, ...]:
        """The stored row `rid`'s own values (its figures and state: a rater's row's last)."""
        found = conn.execute(self.own_of_id, [rid]).fetchone()
        return self.no_standing if found is None else tuple(found)

    def standings_before(
        self, conn: sqlite3.Connection, pairs: Sequence[tuple[str, str]], sort_key: str
    ) -> dict[tuple[str, str], Standing[object]]:
        """Each (player, system)'s standing just before the item at `sort_key` (UNRATED if he
        has no row before it), read in one query: what `queries.standing_before` gives."""
        found: dict[tuple[str, str], Standing[object]] = dict.fromkeys(pairs, UNRATED)
        players = statements.json_list([player for player, _ in pairs])
        systems = statements.json_list([system for _, system in pairs])
        for at, *state in conn.execute(self.states_before, [players, systems, sort_key]):
            found[pairs[at]] = self.standing_of(state)
        return found

    def rewrite(
        self,
        conn: sqlite3.Connection,
        stored: Sequence[tuple[Sequence[Any], Sequence[Any], int]],
        record: Record | None = None,
    ) -> None:
        """Stored rows given again with the same key: (the row as a cascade saw it, `SEEN`;
        the new row; its fingerprint); of each only the parts that differ are written: its
        narrow row and standing where the fingerprints differ, its detail where it differs,
        in a few statements (`record`: what keeps the rows as they were; each differs)."""
        if record is not None:
            record.keep([old[SEEN_ID] for old, _, _ in stored])
        rows, standing, detail, no_standing, no_detail = [], [], [], [], []
        updated = []  # standings the row had: written in place (a replace deletes and inserts)
        for old, new, print_ in stored:
            rid = old[SEEN_ID]
            if old[SEEN_PRINT] != print_:
                rows.append((*new[KEYS:DETAIL], print_, rid))
                state = tuple(new[DETAIL + 1 :])
                if state == self.no_standing:
                    if old[SEEN_STANDING] is not None:
                        no_standing.append((rid,))
                elif old[SEEN_STANDING] is None:
                    standing.append((rid, *state))
                else:
                    updated.append((*state, rid))
            if old[SEEN_DETAIL] != new[DETAIL]:
                if new[DETAIL] == NO_DETAIL:
                    no_detail.append((rid,))
                else:
                    detail.append((rid, new[DETAIL]))
        statements.executemany(conn, NARROW_UPDATE, rows)
        conn.executemany(STANDING_DELETE, no_standing)
        statements.executemany(conn, self.standing_update, updated)
        statements.executemany(conn, self.standing_insert, standing)
        conn.executemany(DETAIL_DELETE, no_detail)
        conn.executemany(DETAIL_INSERT, detail)


def delete_ids(conn: sqlite3.Connection, ids: Iterable[int], record: Record | None = None) -> None:
    """The rows of these ids (from every table; `record`: what keeps them)."""
    args = [(i,) for i in ids]
    if record is not None:
        record.keep([i for (i,) in args])
    for table in ("history_detail", "history_standing", "history_rows"):
        conn.executemany(f"delete from {table} where id = ?", args)


def delete_item(conn: sqlite3.Connection, item_key: str, record: Record | None = None) -> None:
    """Every row of one item (`record`: what keeps them)."""
    _delete(conn, "select id from history_rows where item_key = ?", [[item_key]], record)


def delete_keys(conn: sqlite3.Connection, keys: Iterable[Sequence[Any]]) -> None:
    """The rows of (player, system, sort key) keys."""
    _delete(conn, ID_OF_KEY, keys, None)


def _delete(
    conn: sqlite3.Connection,
    select: str,
    args: Iterable[Sequence[Any]],
    record: Record | None,
) -> None:
    ids = [r[0] for a in args for r in conn.execute(select, a).fetchall()]
    delete_ids(conn, ids, record)
