"""Issue 33, "no per-request session set-up": each of a server's threads opens its sessions of
every family when it starts, so its first request opens nothing (the cold round of
scripts/benchmarks/web_load.py paid about 17 ms CPU a thread and family on a first request).
"""

from __future__ import annotations

import threading
import time

import pytest
from test_site_families import _ledger
from test_web import get

import ledger.evidence.verified
from ledger.entrypoints.cli.serve import THREADS, Server
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.sessions import Sessions
from ledger.rules.families import NAMES


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return _ledger(tmp_path_factory.mktemp("warm"))


def test_a_warmed_thread_opens_no_session_on_its_first_request(store, monkeypatch):
    # Brief: "open each worker thread's sessions when the worker starts ... so the first
    # request pays nothing extra".
    site = Site(store)
    get(site, "/")  # the models built (a worker's are, by its server, before it starts)
    opened: list[str] = []
    real = Sessions._open

    def counted(self: Sessions, family: str):
        opened.append(family)
        return real(self, family)

    monkeypatch.setattr(Sessions, "_open", counted)

    def thread() -> None:
        site.sessions.warm()
        del opened[:]
        for family in NAMES:
            assert get(site, f"/api/v1/{family}/players").status == 200

    one = threading.Thread(target=thread)
    one.start()
    one.join()
    assert opened == []


def test_every_thread_of_a_server_warms_its_sessions_before_its_first_request(store, monkeypatch):
    # The server's side of the same sentence: waitress' threads each run `Sessions.warm` as
    # they start, before they take a request.
    site = Site(store)
    warmed: set[int] = set()
    monkeypatch.setattr(site.sessions, "warm", lambda: warmed.add(threading.get_ident()))
    server = Server(site, "127.0.0.1", 0)
    try:
        give_up = time.monotonic() + 30
        while len(warmed) < THREADS and time.monotonic() < give_up:
            time.sleep(0.01)
        assert len(warmed) == THREADS
    finally:
        server.inner.task_dispatcher.shutdown()
        server.server_close()


def test_a_workers_threads_and_families_check_the_ledgers_writes_once(store, monkeypatch):
    # Brief (issue 33, the cold round): "share one verified read of the ledger across a
    # process's threads and families at start (verification done once, the same checks)":
    # the keys and tree are learnt from the log once a worker, not once a family.
    get(Site(store), "/")  # the models built, as a worker's server builds them first
    worker = Site(store, catches_up=False)
    learnt: list[int] = []
    real = ledger.evidence.verified.verifier_at

    def counted(*args, **kwargs):
        learnt.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(ledger.evidence.verified, "verifier_at", counted)
    threads = [threading.Thread(target=worker.sessions.warm) for _ in range(3)]
    for t in threads:
        t.start()
        t.join()
    assert len(learnt) == 1
    for family in NAMES:  # and every family's page still answers from its own model
        assert get(worker, f"/api/v1/{family}/players").status == 200
