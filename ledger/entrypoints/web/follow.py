"""Keeping a server's read model warm: a thread that catches it up as entries are appended.

On a SQLite store the follower polls every `POLL_SECONDS` (eventsourcing 9.5's SQLite recorder
offers no subscription to wait on) and catches the read model up when the ledger grew: a page
asked for after an append finds it done (issue 21: "the web server shows a newly appended
section within 50 ms of the append"). The poll is `PRAGMA data_version` on a connection of its
own (a counter SQLite changes when another connection commits: no table read). On a PostgreSQL
store it LISTENs on the ledger's channel, which every append NOTIFYs in its transaction
(ledger/evidence/postgres.py), and waits for a notification, catching up after each one and at
the latest every `FALLBACK_SECONDS`: so any number of servers, each with its own read model,
follow one store (issue 33). Each catch-up goes on from where the last verified read ended (a
`Trail`, which the server's requests share: `projections.session.followed`): after a
notification one statement reads the new writes with their chain rows and what the model's
binding is checked against (`reads.glance`), and only the new writes are checked, not the key
events and tree again. The ledger and
the read model stay open between catch-ups (no reopening, and no checkpoint of the model's WAL
at every close); the model's WAL is checkpointed when the ledger is quiet, outside the append →
visible path. A request still catches up itself if it comes first
(ledger/entrypoints/web/app.py); the follower only does it sooner.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, cast

from eventsourcing.persistence import PersistenceError

from ledger.errors import LedgerError
from ledger.reading import Readable, open_ledger
from ledger.rules.families import DEFAULT
from ledger.store import store_url
from projections.projector import View
from projections.session import ReadSession, followed

if TYPE_CHECKING:
    from eventsourcing.postgres import PostgresApplicationRecorder

POLL_SECONDS = 0.001  # how often a SQLite store's data_version is looked at
# The longest a PostgreSQL store's follower waits for a notification before it looks at the
# last position anyway (an append by a writer that does not notify its channel)
FALLBACK_SECONDS = 10.0
# The read model's log is copied into its file (a WAL checkpoint) once the ledger has been
# quiet this long after a catch-up, not within the commit of the catch-up after an append
# (SQLite's default, every 1,000 pages: a few appends' worth); past this many pages a commit
# still does it.
QUIET_SECONDS = 0.05
# a SQLite follower's look once the ledger has been quiet for QUIET_SECONDS: an idle server
# does not look 1,000 times a second (a page asked for still catches up itself)
QUIET_POLL_SECONDS = 0.01
WAL_PAGES_AT_MOST = 10_000
RETRY_SECONDS = 1.0  # after a failure (a missing store, a read model of another ledger…)
SQLITE = "sqlite:///"
Wait = Callable[[float], object]  # waits at most that many seconds


class Follower:
    """Catches `view` up with the ledger at `store` from a thread of its own until `stop`."""

    def __init__(
        self, store: str, view: Path, family: str = DEFAULT, poll: float | None = None
    ) -> None:
        self.sqlite = store_url(store).startswith(SQLITE)
        default = POLL_SECONDS if self.sqlite else FALLBACK_SECONDS
        self.store, self.view, self.family = store, view, family
        self.poll = default if poll is None else poll  # the longest wait between looks
        quiet = QUIET_POLL_SECONDS if self.sqlite and poll is None else self.poll
        self.quiet_poll = max(self.poll, quiet)  # the wait once the ledger has been quiet
        self.stopping = threading.Event()
        self.bell = socket.socketpair()  # `stop` rings it: a wait on PostgreSQL ends at once
        self.thread = threading.Thread(target=self._run, name="read-model follower", daemon=True)

    def start(self) -> Follower:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.bell[1].send(b"!")
        self.thread.join(5)
        for end in self.bell:
            end.close()

    def _run(self) -> None:
        while not self.stopping.is_set():
            # the requests say what is wrong (503); the follower tries again a little later
            with contextlib.suppress(
                LedgerError, PersistenceError, sqlite3.Error, OSError, ValueError
            ):
                self._follow()
            self.stopping.wait(RETRY_SECONDS)

    def _follow(self) -> None:
        """Look, catch up, wait, until stopped: the ledger and the read model kept open, read
        through a `ReadSession` at each change (the one door to the read model)."""
        ledger = open_ledger(self.store)
        try:
            view = View(self.view, self.family)
            try:
                # listening before the first look: an append between the two still wakes it
                with self._signals(ledger) as (wait, changed):
                    known, caught_up, trail = None, None, followed(ledger, self.view)
                    while not self.stopping.is_set():
                        now = changed()
                        if now != known:
                            view.db.execute(f"PRAGMA wal_autocheckpoint = {WAL_PAGES_AT_MOST}")
                            session = ReadSession(ledger, view, owns_ledger=False, trail=trail)
                            session.catch_up()
                            known, caught_up = now, monotonic()
                        elif caught_up is not None and monotonic() - caught_up > QUIET_SECONDS:
                            view.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                            caught_up = None
                        busy = caught_up is not None
                        wait(min(self.poll, QUIET_SECONDS) if busy else self.quiet_poll)
            finally:
                view.close()
        finally:
            ledger.close()

    @contextlib.contextmanager
    def _signals(self, ledger: Readable) -> Iterator[tuple[Wait, Callable[[], int]]]:
        """A wait, and a cheap function whose answer changes when the ledger may have grown:
        on SQLite its `data_version` (`changes`), looked at after every wait; on PostgreSQL
        the notifications heard (`_notified`): no query until one comes."""
        if self.sqlite:
            with changes(self.store, ledger) as changed:
                yield self.stopping.wait, changed
        else:
            with _notified(ledger, self.bell[0], self.poll) as signals:
                yield signals


@contextlib.contextmanager
def _notified(
    ledger: Readable, bell: socket.socket, fallback: float
) -> Iterator[tuple[Wait, Callable[[], int]]]:
    """A wait that ends at a notification of an append to `ledger` (a PostgreSQL store), at a
    ring of `bell`, or after its seconds, LISTENing on the ledger's channel all along on a
    connection of its own; and the count of the notifications heard and of the waits of
    `fallback` seconds or more that heard none (each a look, issue 33: an append by a writer
    that does not notify)."""
    from psycopg.sql import SQL, Identifier

    recorder = cast("PostgresApplicationRecorder", ledger.recorder)
    heard = [0]
    with recorder.datastore.get_connection() as conn, selectors.DefaultSelector() as ready:
        conn.execute(SQL("LISTEN {}").format(Identifier(recorder.channel_name)))
        ready.register(conn.fileno(), selectors.EVENT_READ)
        ready.register(bell, selectors.EVENT_READ)

        def wait(seconds: float) -> None:
            if ready.select(seconds):
                for _ in conn.notifies(timeout=0):  # drain those that came: any one wakes it
                    heard[0] += 1
            elif seconds >= fallback:
                heard[0] += 1

        yield wait, lambda: heard[0]


@contextlib.contextmanager
def changes(store: str, ledger: Readable) -> Iterator[Callable[[], int]]:
    """A cheap function whose answer changes when the ledger may have grown."""
    url = store_url(store)
    if not url.startswith(SQLITE):
        yield lambda: ledger.recorder.max_notification_id() or 0
        return
    path = Path(url[len(SQLITE) :]).resolve()
    # closed by whichever thread lets it go (a request thread's session: sessions.py)
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    try:
        yield lambda: conn.execute("PRAGMA data_version").fetchone()[0]
    finally:
        conn.close()
