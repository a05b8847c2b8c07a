"""Bitemporal reads: the read model as the ledger stood at a past position or time.

Catch-up writes a checkpoint every CHECKPOINT_EVERY positions (projections.projector); an
as-known-at read copies the latest checkpoint at or before the position and catches it up.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger.log import LedgerEntry, read_entries, read_verified_entries
from projections import queries
from projections.projector import View


class NoSuchList(LookupError):
    """The view's rules family has no published list of that name."""


def at_position(
    view: View, entries_after: Callable[[int], Iterable[LedgerEntry]], position: int, path: Path
) -> View:
    """The read model as the ledger stood at `position` (bitemporal "as known at"), in
    `path`: the latest checkpoint at or before it, caught up to `position`."""
    found = sorted(
        (int(f.stem), f)
        for f in (view.checkpoints_dir.glob("*.db") if view.checkpoints_dir.exists() else ())
        if int(f.stem) <= position
    )
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    after = found[-1][0] if found else 0
    pending = list(itertools.takewhile(lambda e: e.position <= position, entries_after(after)))
    if found and not pending:
        # Nothing to catch up: the checkpoint itself is the answer, linked rather than copied
        # (a read model of a million games is hundreds of megabytes); nothing writes to it.
        try:
            os.link(found[-1][1], path)
        except OSError:
            shutil.copyfile(found[-1][1], path)
    elif found:
        shutil.copyfile(found[-1][1], path)
    past = View(path, view.family, view.what_if, checkpoint_every=0)
    past.catch_up(pending)
    return past


@contextmanager
def view_at(ledger: Any, v: View, position: int | None = None) -> Iterator[View]:
    """`v` (caught up by the caller, which records its binding); with `position`, the read
    model as the ledger stood then (built in a temporary file, removed on exit)."""
    if position is None:
        yield v
        return
    with tempfile.TemporaryDirectory() as tmp:
        past = at_position(
            v, lambda after: read_verified_entries(ledger, after), position, Path(tmp) / "past.db"
        )
        with closing(past):
            yield past


@contextmanager
def list_view(ledger: Any, v: View, name: str) -> Iterator[View]:
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
        )
        with closing(past):
            later = read_verified_entries(ledger, past.last_position)
            past.catch_up(
                e
                for e in itertools.takewhile(lambda e: e.position <= found.position, later)
                if e.type == "ListPublished"
            )
            yield past


def position_at(ledger: Any, moment: datetime) -> int:
    """The last ledger position recorded at or before `moment` (UTC if naive); 0 if none."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    position = 0
    for e in read_entries(ledger, 0):
        if datetime.fromisoformat(e.recorded_at) > moment:
            break
        position = e.position
    return position
