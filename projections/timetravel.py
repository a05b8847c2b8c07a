"""Bitemporal reads: the read model as the ledger stood at a past position or time.

Catch-up writes a checkpoint every CHECKPOINT_EVERY positions (projections.projector), sealed
by the reader that wrote it (projections.seals); an as-known-at read copies the latest checkpoint
at or before the position whose seal checks and catches it up. A list's commitment is never
read from a checkpoint or the folder's model: `list_from_log` replays the verified log.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ledger.evidence import read_verified_entries
from ledger.log import LedgerEntry, read_entries
from ledger.reading import Readable
from ledger.text import digits
from projections import knowledge, queries
from projections.moments import Times, moment_of
from projections.projector import View
from projections.seals import Seals

SCAN_BATCH = 64  # entries read at a time while reading on from where the search stopped


class NoSuchList(LookupError):
    """The view's rules family has no published list of that name."""


def at_position(
    view: View,
    entries_after: Callable[[int], Iterable[LedgerEntry]],
    position: int,
    path: Path,
    seals: Seals | None = None,
) -> View:
    """The read model as the ledger stood at `position` (bitemporal "as known at"), in
    `path`: the latest checkpoint at or before it whose seal `seals` checks (none without
    `seals`: projections.seals), caught up to `position`; else a replay from the start."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    found = checkpoints(view, position)
    after = seals.restore(found, path, view.kind) if seals is not None else 0
    pending = itertools.takewhile(lambda e: e.position <= position, entries_after(after))
    past = View(path, view.family, view.what_if, checkpoint_every=0)
    knowledge.stop(past.db.conn)  # read and dropped: no record of what it knew when
    past.catch_up(pending)
    return past


def checkpoints(view: View, position: int) -> list[tuple[int, Path]]:
    """`view`'s checkpoint files at or before `position` (position, file), newest first."""
    folder = view.checkpoints_dir
    found = (f for f in (folder.glob("*.db") if folder.exists() else ()) if digits(f.stem))
    return sorted(((int(f.stem), f) for f in found if int(f.stem) <= position), reverse=True)


@contextmanager
def view_at(ledger: Readable, v: View, position: int | None = None) -> Iterator[View]:
    """`v` (caught up by the caller, which records its binding); with `position`, the read
    model as the ledger stood then (built in a temporary file, removed on exit)."""
    if position is None:
        yield v
        return
    with tempfile.TemporaryDirectory() as tmp:
        past = at_position(
            v,
            lambda after: read_verified_entries(ledger, after),
            position,
            Path(tmp) / "past.db",
            Seals(ledger),
        )
        with closing(past):
            yield past


@contextmanager
def list_view(ledger: Readable, v: View, name: str) -> Iterator[View]:
    """The read model as the list `name` of `v`'s family saw it (`v` caught up by the
    caller): as known at the list's cutoff, with the lists published up to this one (built in
    a temporary file). Read it with `queries.list_rating` or `queries.list_supplement`."""
    found = queries.published_list(v, name)
    if found is None:
        raise NoSuchList(f"no {v.family} list named {name!r} has been published")
    with tempfile.TemporaryDirectory() as tmp:
        past = at_position(
            v,
            lambda after: read_verified_entries(ledger, after),
            found.cutoff_position,
            Path(tmp) / "list.db",
            Seals(ledger),
        )
        with closing(past):
            later = read_verified_entries(ledger, past.last_position)
            past.catch_up(
                e
                for e in itertools.takewhile(lambda e: e.position <= found.position, later)
                if e.type == "ListPublished"
            )
            yield past


def position_at(ledger: Readable, moment: datetime, times: Times | None = None) -> int:
    """The last ledger position recorded at or before `moment` (UTC if naive), of the prefix
    before the first entry recorded after it; 0 if none. With `times` (a model's, of the same
    ledger: projections/moments.py), the positions it covers are halved by single-entry reads
    to an entry no earlier one was recorded after `moment` before, and read on from there;
    without, read from the start."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    start = 0
    if times is not None and times.latest is not None:
        if times.latest <= moment:
            start = times.upto
        else:  # an entry up to `upto` is recorded after `moment`: the answer lies before it
            start = _certainly_before(ledger, moment - timedelta(seconds=times.back), times.upto)
    position = start
    for e in read_entries(ledger, start, batch=SCAN_BATCH):
        if moment_of(e.recorded_at) > moment:
            break
        position = e.position
    return position


def _certainly_before(ledger: Readable, bound: datetime, upto: int) -> int:
    """A position up to `upto` recorded at or before `bound` (0: none found), where the entry
    at `upto` is recorded after it: halving, one entry read at each step (every position up
    to `upto` holds an entry)."""
    low, high = 0, upto
    while high - low > 1:
        middle = (low + high) // 2
        entry = next(iter(read_entries(ledger, middle - 1, batch=1)))
        if moment_of(entry.recorded_at) <= bound:
            low = middle
        else:
            high = middle
    return low


@contextmanager
def list_from_log(ledger: Readable, family: str, name: str, cutoff: int) -> Iterator[View]:
    """The read model as the list `name` of `family` (cut off at `cutoff`) saw it, replayed
    from the verified log alone into a temporary file: every entry up to the cutoff, then the
    lists published up to this one. Never a checkpoint file, the folder's model or a model an
    actor names: what a list's commitment is computed from (issue 28)."""
    with tempfile.TemporaryDirectory() as tmp:
        past = View(Path(tmp) / "list.db", family, checkpoint_every=0)
        with closing(past):
            entries = iter(read_verified_entries(ledger))
            beyond: list[LedgerEntry] = []

            def upto_cutoff() -> Iterator[LedgerEntry]:
                for e in entries:
                    if e.position > cutoff:
                        beyond.append(e)
                        return
                    yield e

            past.catch_up(upto_cutoff())
            past.catch_up(_lists_through(itertools.chain(beyond, entries), family, name))
            yield past


def _lists_through(entries: Iterable[LedgerEntry], family: str, name: str) -> Iterator[LedgerEntry]:
    """The `ListPublished` entries among `entries`, up to the one of list `name` of `family`."""
    for e in entries:
        if e.type == "ListPublished":
            yield e
            if (e.payload.get("family"), e.payload.get("list_name")) == (family, name):
                return
