"""The `ratings` rows (each player's current standing in a system): a rebuild's written whole, a
catch-up's only where they differ from the stored ones, each noted before → after."""

from __future__ import annotations

import json
import operator
import sqlite3
from typing import Any

from ledger.rules.families import family as rules_family
from ledger.rules.uschess.systems import System
from projections.catchup import CatchUp
from projections.schema import RATING_COLUMNS, RATINGS_INSERT, rating_row
from projections.standing import Standing
from projections.writer import LocalWriter, Writer

# `ratings` rows a rebuild builds and hands to the writer at a time: a million games' 60,000
# rows built at once were about 100 MiB, the rebuild's peak (issue 21).
RATINGS_CHUNK = 4_000


class RatingsWriter:
    """The `ratings` rows of a family's standings (a rating of None: no row)."""

    def __init__(self, family: str) -> None:
        self.family = family

    def write_all(
        self, live: dict[tuple[str, System], Standing], conn: Writer | LocalWriter
    ) -> None:
        """A rebuild's rows, into an empty table: in key order (each b-tree appended to), a
        chunk at a time."""
        floors = rules_family(self.family).floors
        rated = sorted(k for k, st in live.items() if st.rating is not None)
        for start in range(0, len(rated), RATINGS_CHUNK):
            chunk = rated[start : start + RATINGS_CHUNK]
            rows = [_RATING_VALUES(rating_row(p, s, live[(p, s)], floors)) for p, s in chunk]
            conn.executemany(RATINGS_INSERT, rows)

    def write_changes(
        self, live: dict[tuple[str, System], Standing], stats: CatchUp, conn: sqlite3.Connection
    ) -> None:
        """A catch-up's rows: only those that differ from the stored ones are written, and each
        is noted in `stats.changes` as (before, after)."""
        floors = rules_family(self.family).floors
        gone = [(p, str(s)) for (p, s), st in live.items() if st.rating is None]
        rows = [
            rating_row(p, s, st, floors) for (p, s), st in live.items() if st.rating is not None
        ]
        keys = [*gone, *((r["player"], r["system"]) for r in rows)]
        before = _stored(conn, keys)
        gone = [k for k in gone if k in before]
        for key in gone:
            stats.changes[key] = (_rating_dict(before[key]), None)
        written, kept = [], []  # new rows; rows that were there (updated in place)
        for r in rows:
            key, values = _RATING_KEY(r), _RATING_VALUES(r)
            was = before.get(key)
            if was is None:
                written.append(r)
            elif was != values:
                kept.append((*values[2:], *key))
            else:
                continue
            stats.changes[key] = (_rating_dict(was), r)
        conn.executemany(RATINGS_UPDATE, kept)
        conn.executemany("delete from ratings where player = ? and system = ?", gone)
        conn.executemany(RATINGS_INSERT, list(map(_RATING_VALUES, written)))


def _stored(
    conn: sqlite3.Connection, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[Any, ...]]:
    """The `ratings` rows of (player, system) keys (their values, RATING_COLUMNS order), in one
    query."""
    found = conn.execute(RATINGS_OF_KEYS, [json.dumps(keys)])
    return {(row[0], row[1]): row for row in found}


_RATING_VALUES = operator.itemgetter(*RATING_COLUMNS)  # a `ratings` row's values, in order
_RATING_KEY = operator.itemgetter("player", "system")
RATINGS_UPDATE = (
    f"update ratings set {', '.join(f'{c} = ?' for c in list(RATING_COLUMNS)[2:])} "
    "where player = ? and system = ?"
)
# The `ratings` rows of (player, system) keys given as JSON ([[player, system], ...]).
RATINGS_OF_KEYS = (
    f"select {', '.join(RATING_COLUMNS)} from ratings where (player, system) in "
    "(select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(?))"
)


def _rating_dict(values: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """A `ratings` row's values as its dict (None: no row)."""
    return None if values is None else dict(zip(RATING_COLUMNS, values, strict=True))
