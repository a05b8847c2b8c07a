"""The history's stored layout: narrow rows, and a row's standing and detail apart.

A rater's history row (`HISTORY_COLUMNS` order, projections/raters/change.py) is split when it
is written: its key and figures go to `history_rows`, the standing after it (the `s_*` state
columns) to `history_standing` only if any of them has a value, and its `detail` JSON to
`history_detail` only if it is not "{}"; the three are keyed by the row's `id`. The view
`history` joins them back into the rater's rows, so every reader, and the digest
(schema.CONTENT), sees the same rows as before the split (docs/decisions.md, "Narrow history
rows").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from projections.standing import STATE_COLUMNS
from projections.writer import LocalWriter, Part, Writer, parts

# The rater's row: the narrow part, then `detail`, then the standing (schema.HISTORY_COLUMNS).
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
    "bonus_multiplier",
    "formula",
    "pre_rating",
    "post_rating",
    "official_rating",
    "games_before",
    "games_after",
    "m",
    "score",
    "n_eff",
    "k",
    "expected",
    "bonus",
    "step3",
    "step4",
    "step5",
    "floor_bound",
)
TABLES = ("history_rows", "history_standing", "history_detail")
DETAIL = len(NARROW_COLUMNS)  # the index of `detail` in a rater's row
NO_DETAIL = "{}"
NO_STANDING = (None,) * len(STATE_COLUMNS)


def _marks(n: int) -> str:
    return ", ".join("?" for _ in range(n))


ROWS_INSERT = f"insert into history_rows values ({_marks(1 + len(NARROW_COLUMNS))})"
ROWS_UPDATE = (
    f"update history_rows set {', '.join(f'[{c}] = ?' for c in NARROW_COLUMNS)} where id = ?"
)
STANDING_INSERT = (
    f"insert or replace into history_standing values ({_marks(1 + len(STATE_COLUMNS))})"
)
DETAIL_INSERT = "insert or replace into history_detail values (?, ?)"
ID_OF_KEY = "select id from history_rows where player = ? and system = ? and sort_key = ?"

# The rows as the raters make them: what every reader and the digest read.
VIEW = (
    "create view history as select "
    + ", ".join(f"h.[{c}]" for c in NARROW_COLUMNS)
    + f", case when d.id is null then '{NO_DETAIL}' else d.detail end as detail, "
    + ", ".join(f"s.[{c}]" for c in STATE_COLUMNS)
    + " from history_rows h left join history_standing s on s.id = h.id "
    "left join history_detail d on d.id = h.id"
)


def create(conn: Any, types: dict[str, str]) -> None:
    """The three tables and the view (`types`: each column's SQL type)."""
    conn.execute(
        "create table history_rows (id INTEGER PRIMARY KEY, "
        + ", ".join(f"[{c}] {types[c]}" for c in NARROW_COLUMNS)
        + ")"
    )
    conn.execute(
        "create table history_standing (id INTEGER PRIMARY KEY, "
        + ", ".join(f"[{c}] {types[c]}" for c in STATE_COLUMNS)
        + ")"
    )
    conn.execute("create table history_detail (id INTEGER PRIMARY KEY, detail TEXT)")
    conn.execute(VIEW)


# The rater's row split: where each table's columns lie in it, and the values of a row
# without a standing or a detail (projections/writer.py runs it, in a writer process too).
SPLIT: list[Part] = [
    (ROWS_INSERT, 0, DETAIL, None),
    (STANDING_INSERT, DETAIL + 1, DETAIL + 1 + len(STATE_COLUMNS), NO_STANDING),
    (DETAIL_INSERT, DETAIL, DETAIL + 1, (NO_DETAIL,)),
]


def append(conn: Writer | LocalWriter, rows: list[Sequence[Any]], first: int) -> int:
    """Bulk-load rater's rows into an empty history (a rebuild), numbered from `first`, in
    the order they come (each table appended to), split by the writer; the next number."""
    conn.split(rows, first, SPLIT)
    return first + len(rows)


def replace(conn: Any, rows: Iterable[Sequence[Any]]) -> None:
    """Store rater's rows in place of the rows with their keys (player, system, sort key), or
    as new rows numbered after the last (a catch-up)."""
    stored, added = [], []
    for row in rows:
        found = conn.execute(ID_OF_KEY, row[1:4]).fetchone()
        if found is None:
            added.append(row)
        else:
            stored.append((found[0], row))
    last = conn.execute("select coalesce(max(id), 0) from history_rows").fetchone()[0]
    narrow, standing, detail = parts([*stored, *enumerate(added, last + 1)], SPLIT)
    kept = len(stored)
    conn.executemany(ROWS_UPDATE, [(*r[1:], r[0]) for r in narrow[:kept]])
    conn.executemany(ROWS_INSERT, narrow[kept:])
    # A stored row's standing or detail it no longer has goes; the others are replaced.
    has = {r[0] for r in standing}, {r[0] for r in detail}
    for table, ids in zip(("history_standing", "history_detail"), has, strict=True):
        gone = [(rid,) for rid, _ in stored if rid not in ids]
        conn.executemany(f"delete from {table} where id = ?", gone)
    conn.executemany(STANDING_INSERT, standing)
    conn.executemany(DETAIL_INSERT, detail)


def delete_item(conn: Any, item_key: str) -> None:
    """Every row of one item."""
    _delete(conn, "select id from history_rows where item_key = ?", [[item_key]])


def delete_keys(conn: Any, keys: Iterable[Sequence[Any]]) -> None:
    """The rows of (player, system, sort key) keys."""
    _delete(conn, ID_OF_KEY, keys)


def _delete(conn: Any, select: str, args: Iterable[Sequence[Any]]) -> None:
    ids = [(r[0],) for a in args for r in conn.execute(select, a).fetchall()]
    for table in ("history_detail", "history_standing", "history_rows"):
        conn.executemany(f"delete from {table} where id = ?", ids)
