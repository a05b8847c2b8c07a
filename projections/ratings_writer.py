"""The `ratings` rows (each player's current standing in a system): a rebuild's written whole, a
catch-up's only where they differ from the stored ones, each noted before → after."""

from __future__ import annotations

import operator
import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from projections import statements
from projections.catchup import CatchUp
from projections.live_standings import LiveStandings
from projections.schema import RatingsTable, rating_row, ratings_table
from projections.standing import Standing
from projections.writer import LocalWriter, Writer

# `ratings` rows built at a time: a rebuild's handed to the writer (a million games' 60,000
# rows built at once were about 100 MiB, the rebuild's peak: issue 21), and a catch-up's
# compared with the stored ones and written (`write_changes`). Not `Final`: a test sets it.
RATINGS_CHUNK = 4_000


class RatingsWriter:
    """The `ratings` rows of a family's standings (a rating of None: no row)."""

    def __init__(self, family: str) -> None:
        self.family = family

    def write_all(
        self, live: Mapping[tuple[str, str], Standing[object]], conn: Writer | LocalWriter
    ) -> None:
        """A rebuild's rows, into an empty table: in key order (each b-tree appended to), a
        chunk at a time."""
        table, family = ratings_table(self.family), self.family
        ordered = live.ordered() if isinstance(live, LiveStandings) else _in_order(live)
        rows: list[tuple[Any, ...]] = []
        for (player, system), standing in ordered:  # a loop: compiled, nothing made whole
            if standing.rating is None:
                continue
            rows.append(table.values(rating_row(family, player, system, standing)))
            if len(rows) == RATINGS_CHUNK:
                conn.executemany(table.insert, rows)
                rows = []
        if rows:
            conn.executemany(table.insert, rows)

    def write_changes(
        self,
        live: dict[tuple[str, str], Standing[object]],
        stats: CatchUp,
        conn: sqlite3.Connection,
    ) -> None:
        """A catch-up's rows: only those that differ from the stored ones are written, and each
        is noted in `stats.changes` as (before, after): the row's values as stored, and as
        written (in the table's column order). In key order, `RATINGS_CHUNK` keys at a time:
        a year-old correction at 10M games writes 197,731 rows, and made at once they and the
        stored rows read were some 700 MB of its peak (docs/decisions.md, "A catch-up's
        `ratings` rows a chunk at a time (issue 33)")."""
        table = ratings_table(self.family)
        chunk: list[tuple[tuple[str, str], Standing[object]]] = []
        for pair in _in_order(live):  # each chunk read and written in the key's order
            chunk.append(pair)
            if len(chunk) == RATINGS_CHUNK:
                self._write_chunk(table, chunk, stats, conn)
                chunk = []
        if chunk:
            self._write_chunk(table, chunk, stats, conn)

    def _write_chunk(
        self,
        table: RatingsTable,
        chunk: list[tuple[tuple[str, str], Standing[object]]],
        stats: CatchUp,
        conn: sqlite3.Connection,
    ) -> None:
        """Some keys' rows (`write_changes`)."""
        gone = [(p, str(s)) for (p, s), st in chunk if st.rating is None]
        rows = [rating_row(self.family, p, s, st) for (p, s), st in chunk if st.rating is not None]
        keys = [*gone, *((r["player"], r["system"]) for r in rows)]
        before = _stored(conn, table, keys)
        gone = [k for k in gone if k in before]
        for key in gone:
            stats.changes[key] = (before[key], None)
        written, kept = [], []  # new rows; rows that were there (updated in place)
        for r in rows:
            key, values = _RATING_KEY(r), table.values(r)
            was = before.get(key)
            if was is None:
                written.append(r)
            elif was != values:
                kept.append((*values[2:], *key))
            else:
                continue
            stats.changes[key] = (was, values)
        statements.executemany(conn, table.update, kept)
        conn.executemany("delete from ratings where player = ? and system = ?", gone)
        statements.executemany(conn, table.insert, list(map(table.values, written)))


def _stored(
    conn: sqlite3.Connection, table: RatingsTable, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], tuple[Any, ...]]:
    """The `ratings` rows of (player, system) keys (their values, in the table's column order),
    in one query."""
    found = conn.execute(table.of_keys, [statements.json_list(keys)])
    return {(row[0], row[1]): row for row in found}


_RATING_KEY = operator.itemgetter("player", "system")


def _in_order(
    live: Mapping[tuple[str, str], Standing[object]],
) -> Iterator[tuple[tuple[str, str], Standing[object]]]:
    for key in sorted(live):
        yield key, live[key]
