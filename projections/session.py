"""One door to read: `ReadSession` opens the ledger read-only and its read model, checks the
model's binding, catches it up once, and answers `at(known_at, list, position)`; the CLI, the
web site, `verify --view` and a write's consequences all read through it. A day's ratings
("as of") are asked of the model a session gives: every query takes the day."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import NamedTuple

from ledger.elsewhere import UnverifiedRead, checked_elsewhere
from ledger.evidence import read_verified_entries
from ledger.evidence.reads import glance
from ledger.evidence.tables import Glance
from ledger.evidence.verified import Trail
from ledger.log import LedgerEntry
from ledger.reading import Readable, open_ledger
from ledger.rules.families import DEFAULT
from projections import binding, moments, queries
from projections.catchup import CatchUp
from projections.items import to_item
from projections.projector import Settle, View
from projections.schema import ROW_COLUMNS
from projections.seals import Seals
from projections.timetravel import list_view, position_at, view_at

# The trails of the read models a server's followers keep (issue 33), by store URL and model
# file: every catch-up of such a model in this process (a request's too) goes on from where the
# last one's verified read got to, holding the model's lock (`binding.catch_up`)
_FOLLOWED: dict[tuple[str, str], Trail] = {}

Progress = Callable[[Iterable[LedgerEntry], int, str], Iterable[LedgerEntry]]
"""Wraps the entries a catch-up or rebuild reads (a progress bar): items, how many, label."""


def followed(ledger: Readable, path: str | Path) -> Trail:
    """The trail the catch-ups of the read model at `path` from `ledger`'s store share in this
    process from now on (a server's follower asks for it: `ledger/entrypoints/web/follow.py`)."""
    return _FOLLOWED.setdefault((ledger.store, os.path.abspath(path)), Trail())


class NothingKnownYet(LookupError):
    """`at(known_at=…)` before the ledger's first entry."""


def known_moment(text: str) -> datetime:
    """An as-known-at value (`--as-known-at`, `?as_known_at=`): a date-time is that instant; a
    date alone is the end of that day (its last microsecond), so today's date finds what was
    recorded today (docs/decisions.md, issue 20). ValueError: neither."""
    try:
        return datetime.combine(date.fromisoformat(text), time.max)
    except ValueError:
        return datetime.fromisoformat(text)


@dataclass(frozen=True)
class At:
    """The read model a read asks (`view`): caught up, as the ledger stood at `position`, or
    as a published list saw it."""

    view: View
    position: int | None = None


class Rerated(NamedTuple):
    """A history row of a new item rated again: its player, system, item and `detail` JSON."""

    player: str
    system: str
    item: str
    detail: str


@dataclass(frozen=True)
class Effect:
    """What entries did (or would do) to the read model: the catch-up's changes, the rows of
    each new item rated again with every value shown, and the names of the players involved."""

    stats: CatchUp
    rerated: list[Rerated]
    names: dict[str, str]


class ReadSession:
    """A ledger and its read model, read together: the binding checked once, before the first
    catch-up or digest; the model caught up once (`catch_up`) before the first `at`."""

    def __init__(
        self,
        ledger: Readable,
        view: View,
        progress: Progress | None = None,
        owns_ledger: bool = True,
        catches_up: bool = True,
        trail: Trail | None = None,
    ) -> None:
        self.ledger, self.view = ledger, view
        # where the last verified read of this ledger into this model got to (a follower's,
        # issue 33): the catch-up's read goes on from it
        self._trail = trail or _FOLLOWED.get((ledger.store, os.path.abspath(view.path)))
        # False: another process keeps the model caught up (a server's follower, issue 33):
        # `catch_up` reads and writes nothing
        self._catches_up = catches_up
        view.seals = Seals(ledger)  # the checkpoints its catch-ups write, sealed for its reads
        self._progress = progress
        self._owns_ledger = owns_ledger
        self._checked = False
        self._stats: CatchUp | None = None

    @classmethod
    def open(
        cls,
        store: str | None,
        path: str | Path,
        family: str = DEFAULT,
        busy_ms: int | None = None,
        progress: Progress | None = None,
        catches_up: bool = True,
    ) -> ReadSession:
        """The ledger at `store` opened read-only (a missing one is never created), then the
        read model at `path` (ValueError if it rates under another family)."""
        ledger = open_ledger(store)
        try:
            session = cls(ledger, View(path, family), progress, catches_up=catches_up)
        except BaseException:
            ledger.close()
            raise
        if busy_ms is not None:  # how long one try waits for a model another writer holds
            try:
                session.view.db.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            except BaseException:
                session.close()
                raise
        return session

    @classmethod
    def beside(cls, ledger: Readable, path: str | Path, family: str = DEFAULT) -> ReadSession:
        """The read model at `path` read beside a ledger already open (a write's), which
        stays open when the session closes."""
        return cls(ledger, View(path, family), owns_ledger=False)

    def close(self) -> None:
        self.view.close()
        if self._owns_ledger:
            self.ledger.close()

    def __enter__(self) -> ReadSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self, seen: Glance | None = None) -> None:
        """Refuse a read model of another ledger or ahead of it (`projections.binding`; `seen`:
        what one statement saw of the ledger just now, `reads.glance`)."""
        if not self._checked:
            binding.check(self.view, self.ledger, seen)
            self._checked = True

    def catch_up(self, before: int | None = None) -> CatchUp:
        """Apply the entries the read model lacks (only those before position `before`, if
        given) and record what it was built to; once."""
        if self._stats is None and not self._catches_up:
            self._stats = CatchUp(last_position=self.view.last_position)
        if self._stats is None:
            self.view.follow_file()  # another session may have built it meanwhile
            seen = self._glance()
            self.check(seen)

            def run(entries: Iterable[LedgerEntry], settle: Settle) -> CatchUp:
                if before is not None:
                    entries = (e for e in entries if e.position < before)
                return binding.catch_up(self.view, self.ledger, entries, settle, self._trail)

            if self.view.last_position == 0:  # from the start: perhaps checked elsewhere
                self._stats = self._replayed(run, "catching up")
            else:
                self._stats = run(self._lacking(seen), None)
        return self._stats

    def rebuild(self) -> CatchUp:
        """Replay the whole ledger into the emptied read model, and bind it as built now (a
        model of another ledger is rebuilt, never refused)."""
        self._stats = self._replayed(self.view.rebuild, "rebuilding")
        binding.record(self.view, self.ledger)
        self._checked = True
        return self._stats

    def position(self, known_at: datetime) -> int:
        """The last position recorded at or before `known_at`; NothingKnownYet if none."""
        found = position_at(self.ledger, known_at, moments.read(self.view.db.conn))
        if found == 0:
            raise NothingKnownYet(known_at)
        return found

    def recorded(
        self, player: str, known_at: datetime | None = None, position: int | None = None
    ) -> int | None:
        """The position asked (`known_at`'s, else `position`) if the caught-up model's record
        of what it knew when answers `player`'s reads as known then (`queries.answers`,
        projections/knowledge.py: no past model built); None: read a past model (`at`)."""
        self.check()
        if known_at is not None:
            position = self.position(known_at)
        self.catch_up()
        if position is None or not queries.answers(self.view, player, position):
            return None
        return position

    @contextmanager
    def at(
        self, known_at: datetime | None = None, list: str | None = None, position: int | None = None
    ) -> Iterator[At]:
        """The read model caught up; or as the ledger stood at `known_at` (or `position`); or
        as the published list `list` saw it (NoSuchList if there is none). A past model is
        built in a temporary file, removed on exit."""
        if list is not None and (known_at is not None or position is not None):
            raise ValueError("a list says what it said then: no known_at or position with it")
        self.check()
        if known_at is not None:
            position = self.position(known_at)
        self.catch_up()
        if list is not None:
            with list_view(self.ledger, self.view, list) as past:
                yield At(past)
            return
        with view_at(self.ledger, self.view, position) as past:
            yield At(past, position)

    def effect(
        self, entries: Sequence[LedgerEntry], dry_run: bool, rerate: Iterable[LedgerEntry] = ()
    ) -> Effect:
        """What `entries` (a write's, just appended or, with `dry_run`, only decided) do to the
        read model: caught up to them, then through them (rolled back with `dry_run`); each of
        `rerate` (new items) rated again with every value shown."""
        self.catch_up(None if dry_run else entries[0].position)  # appended: up to them
        stats = self.view.catch_up(entries, dry_run=dry_run)
        if not dry_run:
            binding.record(self.view, self.ledger)
        detail = ROW_COLUMNS.index("detail")
        rerated = [
            Rerated(c.player, str(c.system), c.row[0], c.row[detail])
            for e in rerate
            for c in self.view.rerate(to_item(e))
        ]
        players = {p for p, _ in stats.changes} | {p for p, _ in stats.history_changed}
        players |= {c.player for c in rerated}
        return Effect(stats, rerated, queries.names(self.view, sorted(players)))

    def digests(self) -> tuple[int, str, str]:
        """The read model's position, its digest, and the digest of its rebuild from the
        ledger up to that position (in a temporary file), for `verify --view`."""
        self.check()
        kept = self.view.digest()
        return self.view.last_position, kept, binding.recomputed(self.view, self.ledger)

    def _glance(self) -> Glance | None:
        """Along a trail (a server's follower's, issue 33), in one statement: the ledger's
        identity, head and link at the position the model was built to for its binding's
        check, and the entries after the trail's end for its catch-up (`reads.glance`)."""
        after = self.view.last_position
        kept = self._trail.start(after) if self._trail is not None and after else None
        if kept is None:
            return None
        return glance(self.ledger, kept[0], binding.built_to(self.view))

    def _lacking(self, seen: Glance | None = None) -> Iterator[LedgerEntry]:
        """The entries after the read model's last position, looked for only when the
        catch-up reads them (holding the model's lock, so after any other catch-up that held
        it): none, and no ledger read, when the model already reaches the ledger's end (as
        `seen` saw it, if given)."""
        after = self.view.last_position
        head = seen.head if seen is not None else self.ledger.recorder.max_notification_id()
        if after < (head or 0):
            yield from self._read(after, "catching up", seen)

    def _replayed(
        self, run: Callable[[Iterable[LedgerEntry], Settle], CatchUp], label: str
    ) -> CatchUp:
        """`run` over the ledger's verified entries from its start: for a large ledger, read
        here while another process checks its signatures, kept only once that check settled
        (ledger/elsewhere.py); where it finds a write that does not verify, read
        again, checked here (which stops there and reports it)."""
        check = checked_elsewhere(self.ledger, 0)
        if check is not None:
            try:
                return run(self._progressed(check.entries(), 0, label), check.settle)
            except UnverifiedRead:
                pass
            finally:
                check.close()
        return run(self._read(0, label), None)

    def _read(self, after: int, label: str, seen: Glance | None = None) -> Iterable[LedgerEntry]:
        """The ledger's verified entries after `after` (those `seen` read, if it read them
        all), through the progress wrapper."""
        return self._progressed(
            read_verified_entries(self.ledger, after, trail=self._trail, ahead=seen), after, label
        )

    def _progressed(
        self, entries: Iterable[LedgerEntry], after: int, label: str
    ) -> Iterable[LedgerEntry]:
        if self._progress is None:
            return entries
        last = self.ledger.recorder.max_notification_id() or 0
        return self._progress(entries, max(last - after, 0), label)
