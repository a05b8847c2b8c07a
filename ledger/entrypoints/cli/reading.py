"""The read model a read command asks: caught up, or as the ledger stood at a time, a position
or a published list."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import missing, reported, usage
from ledger.store import view_path

if TYPE_CHECKING:
    from projections.projector import View
    from projections.session import ReadSession


KnownAt = Annotated[
    str | None,
    typer.Option(
        "--as-known-at",
        help="What the ledger said at this time (ISO date-time; a date: the end of that day), "
        "before later corrections",
    ),
]
Position = Annotated[
    int | None, typer.Option("--position", min=1, help="What the ledger said at this position")
]
ListName = Annotated[
    str | None,
    typer.Option("--list", help="What this published list (of the rules family) said"),
]


@contextmanager
def caught_up(
    store: str,
    view: Path | None,
    family: str,
    known_at: str | None = None,
    position: int | None = None,
    list_name: str | None = None,
) -> Iterator[View]:
    """The read model caught up; or, bitemporally, as the ledger stood at a time or position;
    or as the published list `list_name` saw it."""
    from projections.session import NothingKnownYet
    from projections.timetravel import NoSuchList

    with reported(), closing(_session(store, view, family)) as session:
        moment = None if known_at is None else known_moment(known_at)
        try:
            with session.at(known_at=moment, position=position, list=list_name) as at:
                yield at.view
        except NothingKnownYet:
            usage(f"--as-known-at: the ledger had no entries at {known_at}")
        except NoSuchList as exc:
            missing(str(exc))


@dataclass(frozen=True)
class Known:
    """The read model a read of one player asks: `view` caught up and `position` the one asked,
    when the model's record answers his reads as known then (`queries.history_known_at`);
    else `view` as the ledger stood then (or now, if no time was asked) and no `position`."""

    view: View
    position: int | None


@contextmanager
def player_known(
    store: str,
    view: Path | None,
    family: str,
    player: str,
    known_at: str | None = None,
    position: int | None = None,
) -> Iterator[Known]:
    """As `caught_up`, for one player's reads: as known at a time or position, from the read
    model's record where it answers (no past model built, issue 33), else a past model."""
    from projections.session import NothingKnownYet

    with reported(), closing(_session(store, view, family)) as session:
        moment = None if known_at is None else known_moment(known_at)
        try:
            found = session.recorded(player, moment, position)
            if found is not None:
                yield Known(session.view, found)
                return
            with session.at(known_at=moment, position=position) as at:
                yield Known(at.view, None)
        except NothingKnownYet:
            usage(f"--as-known-at: the ledger had no entries at {known_at}")


def known_moment(text: str) -> datetime:
    """An --as-known-at value (`projections.session.known_moment`: a date alone is the end of
    that day); else a usage error."""
    from projections.session import known_moment as moment

    try:
        return moment(text)
    except ValueError:
        usage(f"--as-known-at: {text!r} is not an ISO date or date-time")


def _session(store: str, view: Path | None, family: str) -> ReadSession:
    """The ledger opened to read and its read model (`--view`, else beside the store), with a
    progress bar on a terminal while it catches up."""
    from ledger.progress import progress
    from projections.session import ReadSession

    try:
        return ReadSession.open(store, view_path(store, view, family), family, progress=progress)
    except ValueError as exc:
        usage(str(exc))
