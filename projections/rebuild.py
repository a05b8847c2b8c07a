"""A rebuild: every entry into an empty model, rated in rating order with the standings in
memory, its rows written by the writer (another process for a large ledger, projections/
writer.py) into a new file behind the model's link, which the model's owner then links in
place of the empty one (`View`, projections/projector.py).

The writer's process starts while the log is still read, once the batch holds enough items
for one; the items' rows go to it a chunk at a time as the items are rated, and the history
rows as they come; the indexes are built once their tables are whole (issue 21).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import sqlite_utils

from ledger.log import LedgerEntry
from projections import modelfile, periods
from projections.batch import ITEMS_CHUNK, Fresh
from projections.catchup import CatchUp
from projections.handlers import apply_entries
from projections.live_standings import LiveStandings
from projections.rating import history_layout, rater_class
from projections.rating_step import RatingStep
from projections.ratings_writer import RatingsWriter
from projections.schema import AFTER_RATING, BEFORE_RATING, INDEXES, LOADED, create
from projections.standing import Standing
from projections.what_if import WhatIf
from projections.writer import LARGE, PRAGMAS, LocalWriter, Writer
from projections.writer import writer as open_writer

Conn = Writer | LocalWriter  # where a rebuild's rows go


class Rebuild:
    """A read model built whole from the ledger's entries, in a new file."""

    def __init__(
        self,
        path: str,
        family: str,
        what_if: WhatIf | None,
        step: RatingStep,
        ratings: RatingsWriter,
    ) -> None:
        self.path, self.family, self.what_if = path, family, what_if
        self.step, self.ratings = step, ratings

    def build(self, entries: Iterable[LedgerEntry], stats: CatchUp) -> tuple[int, str] | None:
        """Every entry after `stats.last_position` into a new file, built without a journal
        (nothing to roll back to): the first entry's position and the file, for the caller to
        link in place (`projections.modelfile`) or drop; a crash leaves the model as it was.
        None: no entry to build from."""
        with closing(Fresh()) as batch:
            return self._build(batch, entries, stats)

    def _build(
        self, batch: Fresh, entries: Iterable[LedgerEntry], stats: CatchUp
    ) -> tuple[int, str] | None:
        target = _Target(lambda: self._new_build(len(batch.items), batch.shared()))

        def started() -> None:  # the players' names made there while the log is read
            batch.follow_names(target.open()[1])

        try:
            # a large rebuild's writer process starts while the rest of the log is read
            first = apply_entries(batch, _when_large(entries, batch, started), stats)
        except BaseException:
            target.abort()
            raise
        if first is None:
            return None
        new, writer = target.open()
        try:
            self._replay(batch, stats, writer)
            writer.execute(
                "update meta set value = ? where key = 'last_position'", [str(stats.last_position)]
            )
            writer.close()  # the commit (a full disk fails here)
        except BaseException:
            target.abort()  # the writer stopped and the new file removed, as above
            raise
        return first, new

    def _new_build(self, items: int, spool: int) -> tuple[str, Conn]:
        """A new file behind the model's link, its tables made, and the writer for `items`
        (which reads the items' records from the batch's `spool`, a file descriptor)."""
        new = modelfile.new_build(self.path)
        db = sqlite_utils.Database(new)
        try:
            for pragma in PRAGMAS:  # a new file behind the link: nothing to journal
                db.execute(f"PRAGMA {pragma}")
            create(db, self.family, None if self.what_if is None else self.what_if.to_json())
        finally:
            db.close()
        return new, open_writer(new, items, (spool,))

    def _replay(self, batch: Fresh, stats: CatchUp, conn: Conn) -> None:
        """Into an empty read model: every item in rating order, in memory. The records go to
        the writer first, the history rows in chunks as they come (split there into the
        history's tables, projections/history_store.py): a writer process stores them while
        the next items are rated (projections/writer.py)."""
        # Indexes are built after the bulk inserts, from sorted keys (issue 21), but for those
        # kept while the history is loaded (projections/schema.py LOADED).
        for index in INDEXES:
            if index not in LOADED:
                conn.execute(f"drop index if exists {index}")
        batch.write(conn)
        # the items' rows a chunk a step, then their indexes and the name tables
        # (projections/batch.py)
        items = _then_indexed(conn, batch, batch.item_writes(conn))
        own = [x for x in batch.lists if x.family == self.family]
        live: Mapping[tuple[str, str], Standing[object]]
        if periods.in_periods(self.family, own):
            _finish(items)
            live = self._by_lists(batch, own, stats, conn)
        else:
            live = self._by_items(batch, items, stats, conn)
        try:
            _finish(items)
            batch.write_problems(conn)
            # the history's and problems' indexes asked for before the ratings rows: a writer
            # process builds them while this one makes those rows
            _index(conn, AFTER_RATING)
            self.ratings.write_all(live, conn)
        finally:
            if isinstance(live, LiveStandings):
                live.close()  # its spool file gone (a failed rebuild's with its process)

    def _by_lists(
        self, batch: Fresh, own: list[periods.PublishedList], stats: CatchUp, conn: Conn
    ) -> dict[tuple[str, str], Standing[object]]:
        """Every item by the family's lists (projections.periods); the standings after them."""
        ordered = list(batch.ordered())
        rows, live = periods.rate(
            ordered,
            own,
            self.step.for_periods(batch.facts, batch),
            self.step.uplift,
            self.step.named,
        )
        stats.players.update(p for p, _ in live)
        stats.items_rated = len(ordered)
        stats.rows = len(rows)
        history_layout(self.family).append(conn, rows, 1)
        return live

    def _by_items(
        self, batch: Fresh, items: Iterator[None], stats: CatchUp, conn: Conn
    ) -> LiveStandings:
        """Every item rated after the one before, the standings in memory (bounded,
        projections/live_standings.py), and a chunk of the items' rows written every
        ITEMS_PACE items; the standings after them."""
        reader = rater_class(self.family)
        live = LiveStandings(reader.columns, reader.standing_of)
        put = live.put
        amendments = [
            {"parameter": a[0], "value": json.loads(a[1]), "effective": a[2], "until": a[3]}
            for a in batch.amendments.values()
        ]
        rater = self.step.rater(
            live.lookup,
            batch.facts,
            amendments,
            merged=batch.merges(),
            items=len(batch.items),  # the replay's size, known before its first item
        )
        rate = rater.rate
        history = history_layout(self.family)  # its history: its state columns
        rows: list[tuple[Any, ...]] = []
        append = rows.append
        players = stats.players
        next_id = 1  # history rows are numbered in the order they are rated (appended)
        for n, item in enumerate(batch.ordered()):
            # a chunk of the items' rows every ITEMS_PACE rated items: all in by half the rating
            if n % ITEMS_PACE == 0:
                next(items, None)
            changes = self.step.rate(item, rate, batch)
            stats.items_rated += 1
            if changes is None:
                continue
            for player, system, standing, row in changes:
                put(player, system, standing)
                append(row)
                players.add(player)
            if len(rows) >= HISTORY_CHUNK:
                stats.rows += len(rows)
                next_id = history.append(conn, rows, next_id)
                rows = []
                append = rows.append
        stats.rows += len(rows)
        history.append(conn, rows, next_id)
        return live


class _Target:
    """The new file a rebuild writes and its writer, made when first asked for (`open`): once
    the batch holds as many items as a writer process takes, or when the whole log is read."""

    def __init__(self, make: Callable[[], tuple[str, Conn]]) -> None:
        self.make = make
        self.made: tuple[str, Conn] | None = None

    def open(self) -> tuple[str, Conn]:
        if self.made is None:
            self.made = self.make()
        return self.made

    def abort(self) -> None:
        """The writer stopped and its file removed, if they were made."""
        if self.made is not None:
            new, writer = self.made
            writer.abort()
            Path(new).unlink(missing_ok=True)


# History rows handed to the writer at a time: a chunk's rows are most of a rebuild's own
# memory beyond its live standings (about 1.5 KB a row), so it is kept small.
HISTORY_CHUNK = 4_000


# Rated items between two chunks of the items' rows (projections/batch.py `item_writes`):
# half a chunk, so that they are all written by the time half the items are rated.
ITEMS_PACE = ITEMS_CHUNK // 2


def _when_large(
    entries: Iterable[LedgerEntry], batch: Fresh, start: Callable[[], object]
) -> Iterator[LedgerEntry]:
    """`entries`, calling `start` once the batch holds as many items as a writer process
    takes (projections/writer.py LARGE)."""
    found = iter(entries)
    for entry in found:
        yield entry
        if len(batch.items) >= LARGE:
            start()
            break
    yield from found


def _then_indexed(conn: Conn, batch: Fresh, writes: Iterator[None]) -> Iterator[None]:
    """`writes`' steps, then the items' indexes and the name tables finished (in the writer
    process, while this one rates: a large rebuild's names handed over as the log was read,
    `Fresh.follow_names`; all at the rating's start, the name tables of 200,000 players held
    the rating some 7 s behind a full queue, docs/benchmarks/replay.md)."""
    yield from writes
    _index(conn, BEFORE_RATING)
    batch.write_names(conn)


def _finish(steps: Iterator[None]) -> None:
    """The steps left of `steps`."""
    for _ in steps:
        pass


def _index(conn: Conn, names: tuple[str, ...]) -> None:
    """Indexes a rebuild dropped, built once their tables' rows are in."""
    for name in names:
        conn.execute(INDEXES[name])
