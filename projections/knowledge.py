"""What the read model knew when (issue 33): the history rows a catch-up replaced, kept.

A catch-up applies its entries in runs (projections/runs.py), each with its own cascade, so
the model passes through the state it had after every entry but the ones that only add rows.
While it does, the cascade (projections/cascade.py, through `Keeping`) keeps, in
`history_past`, before the statements that change them, each row as it stood before the run's
first entry changed it (`present` 1), or the mark that its key had no row before the entry
added one (`present` 0), with the entry's position as `known_until`: the row was what the
ledger said before that position. A row of an item revised at or after that position needs no
mark (nor is it kept if changed in the run): its `revision` says it stood at no position before
its item's revision. `known_since` holds the position the record starts from: a rebuild's last
position (a rebuild rates the whole ledger at once and knows no earlier state). So, for a
position P from `known_since` on, a player's history as known at P is, key by key, the kept row
with the least `known_until` above P, else the row standing now, unless its revision is after P
(`queries.history_known_at`): a few index reads, whatever the ledger's size, where a past model
built from a checkpoint copies the whole model (projections/timetravel.py). Not content: a
rebuild keeps none of it (docs/decisions.md, "As known at, from the record").

A family that rates by its published lists (`Family.late_items`) re-rates every item at each
catch-up (projections/periods.py): its models keep no record, and read a past model.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from ledger.rules.families import family as rules_family
from projections import statements
from projections.history_store import DETAIL_OR_NONE, NARROW_COLUMNS

# a rater row's key and revision, where NARROW_COLUMNS puts them
MARKED = tuple(NARROW_COLUMNS.index(c) for c in ("player", "system", "sort_key", "revision"))

TABLES = ("history_past", "known_since")
KEY = ("player", "system", "sort_key")


def keeps_record(family: str) -> bool:
    """Whether family `family`'s read models keep what they knew when (not rated by lists)."""
    return rules_family(family).late_items is None


def create(conn: sqlite3.Connection, types: dict[str, str]) -> None:
    """The record's tables (`types`: a history row's columns and their SQL types, in order)."""
    columns = ", ".join(f"[{c}] {t}" for c, t in types.items())
    # A rowid table, its key a unique index: as `without rowid`, rows of ~350 bytes spilled to
    # overflow pages (docs/benchmarks/corrections.md, sessions 13 and 16).
    conn.execute(f"create table history_past (known_until INTEGER, present INTEGER, {columns})")
    conn.execute(
        f"create unique index idx_history_past_key on history_past ({', '.join(KEY)}, known_until)"
    )
    conn.execute("create table known_since (position INTEGER)")


def start(conn: sqlite3.Connection, position: int) -> None:
    """The record starts at `position` (a rebuild's last): nothing known before it is kept."""
    conn.execute("delete from history_past")
    conn.execute("delete from known_since")
    conn.execute("insert into known_since values (?)", [position])


def stop(conn: sqlite3.Connection) -> None:
    """The model keeps no record from now on (a past model, read and dropped: its catch-up
    applies its entries in one batch); the rows kept so far stay, never read (`since`)."""
    with conn:
        conn.execute("delete from known_since")


def since(conn: sqlite3.Connection) -> int | None:
    """The position the record starts from (None: the model keeps none)."""
    row = conn.execute("select position from known_since").fetchone()
    return None if row is None else int(row[0])


def record(conn: sqlite3.Connection) -> None:
    """The tables the record is kept with on this connection (temporary: neither a rebuild's
    writer nor a copy of the file has them); they keep nothing until `at` names the entry
    being applied. No trigger keeps anything: the cascade, which makes every change of the
    history's tables in a catch-up, gives the rows it is about to change to `Keeping`
    (docs/decisions.md, "The record kept by statements, not row triggers")."""
    conn.execute("create temp table if not exists known_now (position INTEGER)")


# The first change of a key in an entry keeps it, in this statement and `_kept`'s: a key kept
# at the entry's position already is left as it is (`or ignore`, told by the unique index on
# the key and `known_until`, `create`: docs/decisions.md, "The record's first change told by
# its unique index (issue 33)").
# New rows (their key and revision, bound): each marks its key absent before the entry, unless
# its item was revised at or after it.
_ADDED = (
    "insert or ignore into history_past (known_until, present, player, system, sort_key) "
    "select n.position, 0, ?1, ?2, ?3 from known_now n where ?4 < n.position"
)


@functools.cache  # one statement a family's own columns
def _kept(own_columns: tuple[str, ...]) -> str:
    """The statement keeping the stored rows of the ids given (a JSON list) as they stand,
    those stored before the entry: a row whose key the entry has kept already (or marked
    absent, adding it) is left out by the unique index (`or ignore`). A row keeps its key
    while it is stored, so no table of the ids settled is needed (docs/decisions.md, "A
    cascade writes as it goes (issue 33)")."""
    columns = (*NARROW_COLUMNS, "detail", *own_columns)
    names = ", ".join(f"[{c}]" for c in columns)
    values = ", ".join(
        (
            *(f"h.[{c}]" for c in NARROW_COLUMNS),
            DETAIL_OR_NONE,
            *(f"s.[{c}]" for c in own_columns),
        )
    )
    return (
        f"insert or ignore into history_past (known_until, present, {names}) "
        f"select n.position, 1, {values} from known_now n, history_rows h "
        "left join history_standing s on s.id = h.id "
        "left join history_detail d on d.id = h.id "
        "where h.id in (select value from json_each(?)) "
        "and h.revision < n.position"
    )


class Keeping:
    """The record kept while an entry is applied (`at`): what the row triggers of its first
    version did, a statement for many rows. Each history row changed first in the entry is
    kept as it stood (`present` 1), once, before any statement changes it, and each new row
    marks its key absent before the entry (`present` 0); either settles its key for the
    entry."""

    def __init__(self, conn: sqlite3.Connection, own_columns: tuple[str, ...]) -> None:
        self.conn, self.kept = conn, _kept(own_columns)

    def keep(self, ids: Iterable[int]) -> None:
        """The stored rows of `ids`, about to be changed or deleted."""
        listed = statements.json_list(sorted(set(ids)))
        if listed != "[]":
            self.conn.execute(self.kept, [listed])

    def add(self, rows: Sequence[Sequence[Any]]) -> None:
        """Rater's rows about to be stored as new rows."""
        if rows:
            marks = [tuple(r[i] for i in MARKED) for r in rows]
            self.conn.executemany(_ADDED, marks)


def keeping(conn: sqlite3.Connection, own_columns: tuple[str, ...]) -> Keeping | None:
    """The record kept on `conn` while an entry is applied; None: none (the model keeps no
    record, or the catch-up applies its entries in one batch, `record` not called)."""
    made = conn.execute("select 1 from sqlite_temp_master where name = 'known_now'").fetchone()
    if made is None or conn.execute("select 1 from known_now").fetchone() is None:
        return None
    return Keeping(conn, own_columns)


def at(conn: sqlite3.Connection, position: int | None) -> None:
    """The entry being applied (its position: what the rows it replaces are known until);
    None: none, `keeping` keeps nothing."""
    conn.execute("delete from known_now")
    if position is not None:
        conn.execute("insert into known_now values (?)", [position])
