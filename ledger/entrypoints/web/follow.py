"""Keeping a server's read model warm: a thread that catches it up as entries are appended.

eventsourcing 9.5's SQLite recorder offers no subscription to wait on, so the follower polls
the ledger's last position (one indexed query) every `POLL_SECONDS` and catches the read model
up when it grew: a page asked for after an append finds it done (issue 21: "the web server
shows a newly appended section within 50 ms of the append"). A request still catches up
itself if it comes first (ledger/entrypoints/web/app.py); the follower only does it sooner.
A PostgreSQL store could LISTEN for its NOTIFY instead of polling; polling serves both.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

from ledger.errors import LedgerError
from ledger.reading import open_ledger
from projections.session import ReadSession

POLL_SECONDS = 0.005  # how often the ledger's last position is looked at
RETRY_SECONDS = 1.0  # after a failure (a missing store, a read model of another ledger…)


class Follower:
    """Catches `view` up with the ledger at `store` from a thread of its own until `stop`."""

    def __init__(
        self, store: str, view: Path, family: str = "uschess", poll: float = POLL_SECONDS
    ) -> None:
        self.store, self.view, self.family, self.poll = store, view, family, poll
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="read-model follower", daemon=True)

    def start(self) -> Follower:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)

    def _run(self) -> None:
        while not self.stopping.is_set():
            # the requests say what is wrong (503); the follower tries again a little later
            with contextlib.suppress(LedgerError, sqlite3.Error, OSError, ValueError):
                self._follow()
            self.stopping.wait(RETRY_SECONDS)

    def _follow(self) -> None:
        """Poll and catch up until stopped: the ledger kept open, the read model read through
        a `ReadSession` beside it at each new position (the one door to the read model)."""
        ledger = open_ledger(self.store)
        try:
            known = -1
            while not self.stopping.wait(self.poll):
                head = ledger.recorder.max_notification_id() or 0
                if head == known:
                    continue
                with ReadSession.beside(ledger, self.view, self.family) as session:
                    session.catch_up()
                known = head
        finally:
            ledger.close()
