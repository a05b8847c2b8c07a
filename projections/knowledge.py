"""What the read model knew when (issue 33): the history rows a catch-up replaced, kept.

A catch-up applies its entries in runs (projections/runs.py), each with its own cascade, so
the model passes through the state it had after every entry but the ones that only add rows.
While it does, temporary triggers on the history's tables (projections/history_store.py) keep,
in `history_past`, each row as it stood before the run's first entry changed it (`present` 1),
or the mark that its key had no row before the entry added one (`present` 0), with the entry's
position as `known_until`: the row was what the ledger said before that position. A row of an
item revised at or after that position needs no mark (nor is it kept if changed in the run):
its `revision` says it stood at no position before its item's revision. `known_since` holds the
position the record starts from: a rebuild's last position (a rebuild rates the whole ledger
at once and knows no earlier state). So, for a position P from `known_since` on, a player's
history as known at P is, key by key, the kept row with the least `known_until` above P, else
the row standing now, unless its revision is after P (`queries.history_known_at`): a few index
reads, whatever the ledger's size, where a past model built from a checkpoint copies the whole
model (projections/timetravel.py). Not content: a rebuild keeps none of it
(docs/decisions.md, "As known at, from the record").

A family that rates by its published lists (`Family.late_items`) re-rates every item at each
catch-up (projections/periods.py): its models keep no record, and read a past model.
"""

from __future__ import annotations

import sqlite3

from ledger.rules.families import family as rules_family
from projections.history_store import DETAIL_OR_NONE, NARROW_COLUMNS

TABLES = ("history_past", "known_since")
KEY = ("player", "system", "sort_key")


def keeps_record(family: str) -> bool:
    """Whether family `family`'s read models keep what they knew when (not rated by lists)."""
    return rules_family(family).late_items is None


def create(conn: sqlite3.Connection, types: dict[str, str]) -> None:
    """The record's tables (`types`: a history row's columns and their SQL types, in order)."""
    columns = ", ".join(f"[{c}] {t}" for c, t in types.items())
    conn.execute(
        f"create table history_past (known_until INTEGER, present INTEGER, {columns}, "
        f"primary key ({', '.join(KEY)}, known_until)) without rowid"
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


def record(conn: sqlite3.Connection, own_columns: tuple[str, ...]) -> None:
    """The triggers that keep the rows an entry replaces, on this connection (temporary:
    neither a rebuild's writer nor a copy of the file has them); they keep nothing until
    `at` names the entry being applied. `own_columns`: the family's history columns after
    `detail` (`Layout.own_columns`)."""
    conn.execute("create temp table if not exists known_now (position INTEGER)")
    # the rows (ids) whose state before the entry is settled: kept, or added by it
    conn.execute("create temp table if not exists known_ids (id INTEGER PRIMARY KEY)")
    columns = (*NARROW_COLUMNS, "detail", *own_columns)
    names = ", ".join(f"[{c}]" for c in columns)
    values = ", ".join(
        (
            *(f"h.[{c}]" for c in NARROW_COLUMNS),
            DETAIL_OR_NONE,
            *(f"s.[{c}]" for c in own_columns),
        )
    )

    # The first change of a key in an entry keeps it; no conflict clause (a trigger's yields
    # to its statement's: an `insert or replace` would make an `or ignore` replace).
    def first(player: str, system: str, sort_key: str) -> str:
        return (
            "not exists (select 1 from history_past k where k.player = "
            f"{player} and k.system = {system} and k.sort_key = {sort_key} "
            "and k.known_until = n.position)"
        )

    def kept(row_id: str) -> str:
        return (
            f"insert into history_past (known_until, present, {names}) "
            f"select n.position, 1, {values} from history_rows h "
            "left join history_standing s on s.id = h.id "
            f"left join history_detail d on d.id = h.id, known_now n where h.id = {row_id} "
            f"and h.revision < n.position and {first('h.player', 'h.system', 'h.sort_key')};"
        )

    added = (
        "insert into history_past (known_until, present, player, system, sort_key) "
        "select n.position, 0, NEW.player, NEW.system, NEW.sort_key from known_now n "
        f"where NEW.revision < n.position and {first('NEW.player', 'NEW.system', 'NEW.sort_key')};"
    )

    def settled(row_id: str) -> str:
        return f"insert or ignore into known_ids select {row_id} from known_now;"

    # A row's standing or detail written after its row was kept (or added) keeps nothing more:
    # told by one look in `known_ids`, before the trigger's statements run.
    unsettled = "when {} not in (select id from known_ids)"
    triggers = {
        "known_rows_update": (
            "before update on main.history_rows",
            kept("OLD.id") + settled("OLD.id"),
        ),
        "known_rows_delete": (
            "before delete on main.history_rows",
            kept("OLD.id") + settled("OLD.id"),
        ),
        "known_rows_insert": ("after insert on main.history_rows", added + settled("NEW.id")),
    }
    for table in ("history_standing", "history_detail"):
        for event, row_id in (("insert", "NEW.id"), ("update", "OLD.id"), ("delete", "OLD.id")):
            triggers[f"known_{table}_{event}"] = (
                f"before {event} on main.{table} {unsettled.format(row_id)}",
                kept(row_id) + settled(row_id),
            )
    for name, (when, body) in triggers.items():
        conn.execute(f"create temp trigger if not exists {name} {when} begin {body} end")


def at(conn: sqlite3.Connection, position: int | None) -> None:
    """The entry being applied (its position: what the rows it replaces are known until);
    None: none, the triggers keep nothing."""
    conn.execute("delete from known_now")
    conn.execute("delete from known_ids")
    if position is not None:
        conn.execute("insert into known_now values (?)", [position])
