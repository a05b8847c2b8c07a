"""The site's read sessions, kept open between requests (issue 33: "no per-request session
set-up or catch-up when nothing is new"), and the validator of each answer (its ETag).

Each thread answering requests holds one `ReadSession` per family: the ledger opened
read-only, the read model open, its binding checked once. A request asks a cheap question
first (`follow.changes`: SQLite's `data_version` of a connection of its own, a counter that
moves when another connection commits; on another store, the ledger's last position) and
catches the model up only when the answer moved; a read model whose file was replaced (a
rebuild links a new one in place) is opened again. A worker of `serve --workers N` never
catches up: the server's one follower does (`catches_up=False`).

An answer reflects the read model at one position: the request reads it inside one read
transaction (`snapshot`), so the position its ETag names is the one its queries saw; the tag
also names the ledger's last position the session knew (the log pages read the ledger) and
the code that made the page (`BUILD`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledger.entrypoints.web.follow import changes
from ledger.evidence import read_verified_entries
from ledger.evidence.verified import Trail
from ledger.log import ReadBreak, breaks_reported, report_break
from projections import SCHEMA_VERSION
from projections.projector import View
from projections.seals import Seals
from projections.session import ReadSession, known_moment
from projections.timetravel import at_position

SOURCES = Path(__file__).resolve().parents[2], Path(__file__).resolve().parents[3] / "projections"
# A held read model's page cache (KiB, SQLite's negative cache_size): pages are shared through
# the operating system's cache (mmap) by every thread and worker, not copied into each.
HELD_CACHE_KIB = 8 * 1024
HELD_MMAP_BYTES = 1 << 30
MOMENTS_REMEMBERED = 1024  # as-known-at values whose position a session keeps
KEPT_BYTES = 64 * 1024 * 1024  # the answers a process keeps (`Kept`), their bodies' bytes
PASTS_KEPT = 4  # past read models a process keeps built (`Pasts`), each a model's size on disk
STATES_KEPT = 4  # read models' states whose worked-out answers a process keeps (`Memos`)
MEMO_ANSWERS = 8192  # answers kept for one state (all forgotten at once past it)


def build() -> str:
    """A short digest of the code that makes the pages (the sources' sizes and times) and the
    read model's schema: a deploy of other code changes every ETag."""
    digest = hashlib.sha256(SCHEMA_VERSION.encode())
    for folder in SOURCES:
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".html", ".svg", ".css"):
                found = path.stat()
                digest.update(f"{path.name}:{found.st_size}:{found.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


@dataclass
class Held:
    """One thread's session of one family: the session, its change signal (and what closes
    it), the signal's value at its last catch-up, the ledger's last position then and the
    write its checked read stopped at (issue 28), and the positions of the as-known-at values
    asked (the process's, shared by its threads and families: `Sessions.moments`)."""

    session: ReadSession
    changed: Callable[[], int]
    stop: AbstractContextManager[Callable[[], int]]
    token: int | None
    head: int
    positions: dict[str, int] = field(default_factory=dict)
    breaks: list[ReadBreak] = field(default_factory=list)
    pasts: OrderedDict[Path, View] = field(default_factory=OrderedDict)

    def position(self, known: str) -> int:
        """The ledger's last position at the as-known-at value `known` (`session.position`:
        NothingKnownYet before the first entry), remembered once an entry after it exists:
        the log only grows, so the first entry later than the moment stays the first."""
        found = self.positions.get(known)
        if found is None:
            found = self.session.position(known_moment(known))
            if found < self.head:
                if len(self.positions) >= MOMENTS_REMEMBERED:
                    self.positions.clear()
                self.positions[known] = found
        return found

    def past(self, path: Path) -> View:
        """This thread's connection to the past read model built at `path` (`Pasts`), kept
        open for the next request of it; the least recently read closed past `PASTS_KEPT`."""
        found = self.pasts.pop(path, None)
        if found is None:
            found = View(path, self.session.view.family, checkpoint_every=0)
        self.pasts[path] = found
        while len(self.pasts) > PASTS_KEPT:
            self.pasts.popitem(last=False)[1].close()
        return found

    def close(self) -> None:
        for past in self.pasts.values():
            past.close()
        self.stop.__exit__(None, None, None)
        self.session.close()


class Sessions:
    """Each thread's open sessions, per family (closed when the thread's storage goes: a
    server's threads live as long as it does)."""

    def __init__(
        self, store: str, views: Mapping[str, Path], busy_ms: int, catches_up: bool = True
    ) -> None:
        self.store, self.views, self.busy_ms = store, dict(views), busy_ms
        self.catches_up = catches_up
        self.local = threading.local()
        # a worker's trail of the ledger, shared by its threads and families (they read one
        # ledger: its writes are checked once a process), and the lock they read it under
        self.trail = Trail()
        self.lock = threading.Lock()
        self.pasts = Pasts()
        # the positions of the as-known-at values asked, shared by the threads and the
        # families (all read one ledger): a moment's log scan once a process
        self.moments: dict[str, int] = {}

    def session(self, family: str) -> Held:
        """This thread's session of `family`, caught up if the ledger changed since it last
        looked (LedgerError, ValueError: as `ReadSession.open` and `catch_up`; the session is
        dropped, the next request opens it again)."""
        held: dict[str, Held] = self.local.__dict__.setdefault("held", {})
        found = held.get(family)
        if found is not None and not _same_file(found):
            self._drop(held, family)
            found = None
        try:
            if found is None:
                found = held[family] = self._open(family)
            token = found.changed()
            if token != found.token:
                found.breaks = self._caught_up(found.session)
                found.token, found.head = token, _head(found.session)
        except BaseException:
            self._drop(held, family)
            raise
        for stop in found.breaks:  # each request's banner (issue 28), found at the catch-up
            report_break(stop)
        return found

    def warm(self) -> None:
        """This thread's session of every family opened before its first request (issue 33:
        a first request pays nothing more than the next); one that cannot be opened now is
        left to the request, which opens it again and says why."""
        held: dict[str, Held] = self.local.__dict__.setdefault("held", {})
        for family in self.views:
            if family not in held:
                with contextlib.suppress(Exception):
                    held[family] = self._open(family)

    def past(self, held: Held, family: str, position: int) -> View:
        """`family`'s read model as the ledger stood at `position`, built once by this
        process (`Pasts`) and read through this thread's connection; the breaks its build
        stopped at reported to each request reading it."""
        view, breaks = self.pasts.read(family, held.session, position, held.past)
        for stop in breaks:
            report_break(stop)
        return view

    def close(self) -> None:
        """Remove the past read models this process built (the threads' sessions close with
        their threads)."""
        self.pasts.remove()

    def _caught_up(self, session: ReadSession) -> list[ReadBreak]:
        """The session's model caught up (by a worker: only read up to the ledger's end), and
        the write its checked read stopped at, if any."""
        found: list[ReadBreak] = []
        with breaks_reported(found.append):
            if self.catches_up:
                ReadSession(session.ledger, session.view, owns_ledger=False).catch_up()
            else:
                self._checked(session)
        return found

    def _checked(self, session: ReadSession) -> None:
        """A worker's read of the writes after its model's position, for the one that does
        not verify: from where this process's last such read ended, if later (it found none
        up to there: the writes are the ledger's, whatever the family, so a thread's first
        read goes on from the first thread's), along its `Trail` (one statement; one thread
        at a time)."""
        with self.lock:
            after = max(session.view.last_position, self.trail.position)
            for _ in read_verified_entries(session.ledger, after, trail=self.trail):
                pass

    def _open(self, family: str) -> Held:
        """A session whose binding is checked, caught up (unless `catches_up` is False),
        noting the change signal's value before it caught up."""
        session = ReadSession.open(
            self.store, self.views[family], family, self.busy_ms, catches_up=self.catches_up
        )
        stop = changes(self.store, session.ledger)
        try:
            changed = stop.__enter__()
        except BaseException:
            session.close()
            raise
        held = Held(session, changed, stop, changed(), 0, self.moments)
        try:
            session.check()  # a worker's too: its model must be this ledger's
            held.breaks = self._caught_up(session)
            held.head = _head(session)
            session.view.db.execute(f"PRAGMA cache_size = -{HELD_CACHE_KIB}")
            session.view.db.execute(f"PRAGMA mmap_size = {HELD_MMAP_BYTES}")
        except BaseException:
            held.close()
            raise
        return held

    def _drop(self, held: dict[str, Held], family: str) -> None:
        gone = held.pop(family, None)
        if gone is not None:
            gone.close()


class Pasts:
    """The read models as the ledger stood at past positions (an as-known-at page's), each
    built once per (family, position) by the process in a folder of its own and read by
    every thread after: never a copy of a checkpoint per request. The `kept` most recently
    asked are kept; a thread still reading one that goes keeps its open file."""

    def __init__(self, kept: int = PASTS_KEPT) -> None:
        self.kept = kept
        self.folder: Path | None = None  # made when the first past model is asked for
        self.models: OrderedDict[tuple[str, int], tuple[Path, list[ReadBreak]]] = OrderedDict()
        self.building: dict[tuple[str, int], threading.Lock] = {}
        self.lock = threading.Lock()

    def read(
        self, family: str, session: ReadSession, position: int, opened: Callable[[Path], View]
    ) -> tuple[View, list[ReadBreak]]:
        """`family`'s model at `position` as `opened` opens its file (never one removed
        meanwhile), and the breaks its build stopped at; built from `session` (its ledger, its
        model's checkpoints) by the first thread to ask, the others asking meanwhile wait."""
        key = (family, position)
        with self.lock:
            if (found := self._open(key, opened)) is not None:
                return found
            if self.folder is None:
                self.folder = Path(tempfile.mkdtemp(prefix="ratings-ledger-past-"))
                weakref.finalize(self, shutil.rmtree, self.folder, True)
            folder, one = self.folder, self.building.setdefault(key, threading.Lock())
        with one:
            with self.lock:
                if (found := self._open(key, opened)) is not None:
                    return found
            built = self._build(family, session, position, folder)
            with self.lock:
                self.models[key] = built
                self.building.pop(key, None)
                while len(self.models) > self.kept:
                    _gone(self.models.popitem(last=False)[1][0])
                return opened(built[0]), built[1]

    def _open(
        self, key: tuple[str, int], opened: Callable[[Path], View]
    ) -> tuple[View, list[ReadBreak]] | None:
        found = self.models.get(key)
        if found is None:
            return None
        self.models.move_to_end(key)
        return opened(found[0]), found[1]

    @staticmethod
    def _build(
        family: str, session: ReadSession, position: int, folder: Path
    ) -> tuple[Path, list[ReadBreak]]:
        """The model at `position` built into `folder` (projections/timetravel.py: the latest
        sealed checkpoint at or before it, caught up)."""
        path = folder / f"{family}-{position}" / "past.db"  # its files in a folder of its own
        path.parent.mkdir(exist_ok=True)
        breaks: list[ReadBreak] = []
        with breaks_reported(breaks.append):
            ledger = session.ledger
            past = at_position(
                session.view,
                lambda after: read_verified_entries(ledger, after),
                position,
                path,
                Seals(ledger),
            )
        past.close()
        return path, breaks

    def remove(self) -> None:
        with self.lock:
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
            self.models.clear()


class Memos:
    """What pages worked out from a read model in one state (its family, its file and the
    position it reflects), shared by a process's threads: a section's reasons for rating a
    player not, asked again by the page of each of its players (issue 33). A model's content
    in a state is fixed (a catch-up moves its position, a rebuild links another file in), so
    nothing is ever invalidated; the `kept` states most recently read are kept."""

    def __init__(self, kept: int = STATES_KEPT) -> None:
        self.kept = kept
        self.states: OrderedDict[tuple[str, int, int], dict[Any, Any]] = OrderedDict()
        self.lock = threading.Lock()

    def at(self, family: str, view: View, position: int) -> dict[Any, Any]:
        """The answers worked out from `family`'s model `view` at `position` (none at first);
        a page keeps what it works out there."""
        state = (family, view.inode, position)
        with self.lock:
            found = self.states.get(state)
            if found is None:
                found = self.states[state] = {}
                while len(self.states) > self.kept:
                    self.states.popitem(last=False)
            else:
                self.states.move_to_end(state)
            if len(found) >= MEMO_ANSWERS:
                found.clear()
            return found


def _gone(path: Path) -> None:
    """A past model's files removed (a thread reading it keeps its open file)."""
    shutil.rmtree(path.parent, ignore_errors=True)


@contextmanager
def snapshot(view: View) -> Iterator[int]:
    """One read transaction on `view`: every query inside sees the model at the position
    yielded (a follower's commit meanwhile is seen by the next request)."""
    conn = view.db.conn
    conn.execute("BEGIN")
    try:
        row = conn.execute("select value from meta where key = 'last_position'").fetchone()
        yield int(row[0]) if row else 0
    finally:
        if conn.in_transaction:
            conn.rollback()


def tag(build: str, family: str, position: int, head: int) -> str:
    """The ETag of an answer made by `build` from `family`'s read model at `position`, the
    ledger known to end at `head`."""
    return f'"{build}-{family}-{position}-{head}"'


def matches(asked: str | None, current: str) -> bool:
    """Whether an If-None-Match header names `current` (weakly compared: RFC 9110 13.1.2)."""
    if not asked:
        return False
    if asked.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == current for t in asked.split(","))


def _head(session: ReadSession) -> int:
    return session.ledger.recorder.max_notification_id() or 0


def _same_file(held: Held) -> bool:
    """Whether the read model's path still names the file the session opened."""
    view = held.session.view
    try:
        return os.stat(view.path).st_ino == view.inode
    except OSError:
        return False


# A proxy may keep an answer and serve it again once the server says it is unchanged (a 304
# to its If-None-Match): the read model moves with every append, so it never serves one
# unasked (docs/decisions.md, "A site that holds list day (issue 33)").
CACHE_CONTROL = "public, no-cache"


class NotModified(Exception):
    """The answer the request's If-None-Match names is still the current one."""


class Known(Exception):
    """The answer to the request was made before at the position it reflects (`Kept`)."""

    def __init__(self, ctype: str, body: bytes) -> None:
        super().__init__(ctype)
        self.ctype, self.body = ctype, body


class Kept:
    """The answers a process made, by their ETag and what was asked (path and query): the
    tag names the read model's position, so a write moves every tag and no answer of an
    older position is ever served again; the least recently served go first once their
    bodies pass `budget` bytes. Shared by the process's threads."""

    def __init__(self, budget: int = KEPT_BYTES) -> None:
        self.budget, self.size = budget, 0
        self.answers: OrderedDict[tuple[str, str], tuple[str, bytes]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> tuple[str, bytes] | None:
        with self.lock:
            found = self.answers.get(key)
            if found is not None:
                self.answers.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], answer: tuple[str, bytes]) -> None:
        if len(answer[1]) > self.budget:
            return
        with self.lock:
            gone = self.answers.pop(key, None)
            self.size += len(answer[1]) - (len(gone[1]) if gone else 0)
            self.answers[key] = answer
            while self.size > self.budget:
                _, (_, body) = self.answers.popitem(last=False)
                self.size -= len(body)


@dataclass
class Validator:
    """A request's If-None-Match (`asked`) and its answer's ETag once known (`etag`); the
    process's answers (`kept`) and what the request asked (`request`: its path and query)."""

    asked: str | None = None
    etag: str | None = None
    kept: Kept | None = None
    request: str = ""

    def check(self, current: str, broken: bool = False) -> None:
        """Note the answer's tag; NotModified if the request already holds that answer,
        Known if this process made it before (never when the request's reads stopped at a
        break (`broken`): its answer says so)."""
        self.etag = current
        if matches(self.asked, current):
            raise NotModified(current)
        kept = None if broken else self.kept
        found = None if kept is None else kept.get((current, self.request))
        if found is not None:
            raise Known(*found)

    def keep(self, ctype: str, body: bytes) -> None:
        """Keep the answer made (once its tag is known), for the next request of it."""
        if self.kept is not None and self.etag is not None:
            self.kept.put((self.etag, self.request), (ctype, body))

    def headers(self) -> list[tuple[str, str]]:
        """The caching headers of an answer (none before a tag was known: an error)."""
        if self.etag is None:
            return []
        return [("ETag", self.etag), ("Cache-Control", CACHE_CONTROL)]
