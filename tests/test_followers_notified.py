"""Issue 33, "Beyond one process": "two or more web servers, each with its own read model
following one PostgreSQL store (notified of new entries, not polling every millisecond), shown
by a test that starts two and sees a write on both within a stated time"; its target: "a write
visible on both within 100 ms". The bound asserted here, `BOUND_SECONDS`, leaves room for a
loaded test machine and stays well under the follower's fallback look (`FALLBACK_SECONDS`), so
only a notification meets it every time; each measured latency is printed."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.entrypoints.web.follow import FALLBACK_SECONDS, QUIET_SECONDS, Follower
from ledger.entrypoints.web.sessions import Held, Sessions
from ledger.reading import open_ledger

pytestmark = pytest.mark.postgres

A, B, C = "20000001", "20000002", "20000003"
TARGET_SECONDS = 0.1  # issue 33: "a write visible on both within 100 ms"
# The target with room for a loaded machine (the median is the benchmark's to report:
# scripts/benchmarks/followers.py), and half FALLBACK_SECONDS: only a notification meets it
BOUND_SECONDS = FALLBACK_SECONDS / 2
WARM_SECONDS = 120  # the servers' first build of their read models, on a busy machine
WRITES = 3


def new_schema(base: str) -> str:
    """A fresh, empty schema in the test database; its store URL."""
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return f"{base}?schema={schema}"


def drop_schema(url: str) -> None:
    import psycopg

    base, _, schema = url.partition("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def store(postgres_url: str) -> Iterator[str]:
    """A fresh schema holding a ledger with one section."""
    url = new_schema(postgres_url)
    app = RatingsLedger(url)
    try:
        ledger = Ledger(app)
        ledger.register(A, B, C, adult=True)
        ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    finally:
        app.close()
    try:
        yield url
    finally:
        drop_schema(url)


def serve(store: str, view: Path) -> tuple[subprocess.Popen[str], str]:
    """`ratings-ledger serve` in a process of its own, with its own read model `view`."""
    command = Path(sys.executable).parent / "ratings-ledger"
    server = subprocess.Popen(
        [str(command), "serve", "--store", store, "--view", str(view), "--port", "0"]
        + ["--families", "uschess"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()  # "serving http://127.0.0.1:PORT/ (read-only; ...)"
    assert line.startswith("serving http://"), line
    return server, line.split()[1].rstrip("/")


def position(view: Path) -> int:
    """The ledger position the read model at `view` reflects (0 before it is built), read
    from the file: no request, so no request's own catch-up."""
    if not view.exists():
        return 0
    db = sqlite3.connect(f"{view.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'last_position'").fetchone()
    except sqlite3.OperationalError:  # the file made, its tables not yet
        return 0
    finally:
        db.close()
    return int(row[0]) if row else 0


def seconds_until(views: list[Path], head: int, patience: float) -> list[float]:
    """For each read model, the seconds from now until it reaches `head` (polled every ms)."""
    start = time.perf_counter()
    reached: dict[Path, float] = {}
    while len(reached) < len(views) and time.perf_counter() - start < patience:
        for view in views:
            if view not in reached and position(view) >= head:
                reached[view] = time.perf_counter() - start
        time.sleep(0.001)
    return [reached.get(view, float("inf")) for view in views]


@pytest.fixture
def two_servers(store: str, tmp_path: Path) -> Iterator[tuple[list[str], list[Path]]]:
    """Two `serve` processes on the one store, each with its own read model, both warm."""
    views = [tmp_path / f"server{n}.view.db" for n in (1, 2)]
    servers = [serve(store, view) for view in views]
    try:
        ledger = open_ledger(store)
        head = ledger.recorder.max_notification_id() or 0
        ledger.close()
        assert max(seconds_until(views, head, WARM_SECONDS)) < WARM_SECONDS
        yield [base for _, base in servers], views
    finally:
        for server, _ in servers:
            server.terminate()
            server.wait(30)


def test_a_write_is_visible_on_two_servers_of_one_store_well_within_the_bound(store, two_servers):
    # Issue 33: "starts two and sees a write on both within a stated time" (target 100 ms).
    bases, views = two_servers
    app = RatingsLedger(store)
    try:
        ledger = Ledger(app)
        for n in range(WRITES):
            section = f"FEB{n}"
            ledger.submit(round_robin(section, [A, C], f"2024-02-{n + 3:02d}"))
            head = app.recorder.max_notification_id() or 0
            latencies = seconds_until(views, head, 4 * FALLBACK_SECONDS)
            shown = ", ".join(f"{1000 * s:.1f} ms" for s in latencies)
            print(
                f"write {n + 1}: visible on the two servers after {shown} "
                f"(target {1000 * TARGET_SECONDS:.0f} ms)"
            )
            assert max(latencies) < BOUND_SECONDS, shown
            for base in bases:
                with urllib.request.urlopen(f"{base}/api/sections/{section}", timeout=10) as page:
                    assert page.status == 200
    finally:
        app.close()


def test_an_append_notifies_its_own_ledgers_channel_and_no_other(store, postgres_url):
    # Issue 33: each server is "notified of new entries" of its store: an append NOTIFYs the
    # channel of its ledger (its schema) once it commits, not that of another ledger in the
    # same database.
    import psycopg
    from psycopg.sql import SQL, Identifier

    other = new_schema(postgres_url)
    try:
        RatingsLedger(other).close()  # its tables, and so its recorder's channel
        channels = []
        for url in (store, other):
            reader = open_ledger(url)
            channels.append(reader.recorder.channel_name)  # type: ignore[attr-defined]
            reader.close()
        assert channels[0] != channels[1]
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            for channel in channels:
                conn.execute(SQL("LISTEN {}").format(Identifier(channel)))
            app = RatingsLedger(store)
            try:
                Ledger(app).submit(round_robin("MAR", [A, B], "2024-03-02"))
            finally:
                app.close()
            heard = [n.channel for n in conn.notifies(timeout=5, stop_after=1)]
            heard += [n.channel for n in conn.notifies(timeout=0.5)]
        assert heard and set(heard) == {channels[0]}
    finally:
        drop_schema(other)


def test_a_follower_waiting_for_a_notification_stops_at_once(store, tmp_path):
    # Issue 33: the follower "waits on the notification with a long fallback poll"; stopping a
    # server does not wait for that poll (`stop` rings the follower's bell).
    view = tmp_path / "server.view.db"
    follower = Follower(store, view).start()
    ledger = open_ledger(store)
    head = ledger.recorder.max_notification_id() or 0
    ledger.close()
    assert seconds_until([view], head, WARM_SECONDS)[0] < WARM_SECONDS
    time.sleep(0.2)  # in its long wait now
    start = time.perf_counter()
    follower.stop()
    assert time.perf_counter() - start < FALLBACK_SECONDS / 5
    assert not follower.thread.is_alive()


def test_a_follower_on_a_quiet_postgresql_store_sends_no_queries(store, tmp_path):
    # Issue 33: "notified of new entries, not polling every millisecond": while nothing is
    # appended, the follower's connections to the store stay idle (their last query is older
    # than the time waited).
    import psycopg

    base, _, schema = store.partition("?schema=")
    view = tmp_path / "server.view.db"
    follower = Follower(store, view).start()
    try:
        ledger = open_ledger(store)
        head = ledger.recorder.max_notification_id() or 0
        ledger.close()
        assert seconds_until([view], head, WARM_SECONDS)[0] < WARM_SECONDS
        time.sleep(1.0)
        with psycopg.connect(base, autocommit=True) as conn:
            mine = conn.info.backend_pid
            since = "clock_timestamp() - state_change"
            rows = conn.execute(
                f"SELECT pid, state, extract(epoch FROM {since}) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid != %s AND query LIKE %s",
                (mine, f"%{schema}%"),
            ).fetchall()
    finally:
        follower.stop()
    assert rows, "the follower's connections"
    assert all(state == "idle" and float(idle) > 0.5 for _, state, idle in rows), rows


def sent_by_thread(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Every statement psycopg sends from now on, with the thread that sends it: each query (a
    cursor's `execute`, `executemany`) and each command it sends of itself (BEGIN, ROLLBACK,
    DEALLOCATE ALL: psycopg's `_exec_command`), each a round trip to the store."""
    import psycopg
    from psycopg import _connection_base

    sent: list[tuple[int, str]] = []

    def counting(real: Any) -> Any:
        def counted(self: object, query: Any, *args: Any, **kwargs: Any) -> Any:
            sent.append((threading.get_ident(), str(query)))
            return real(self, query, *args, **kwargs)

        return counted

    for owner, name in (
        (psycopg.Cursor, "execute"),
        (psycopg.Cursor, "executemany"),
        (_connection_base.BaseConnection, "_exec_command"),
    ):
        monkeypatch.setattr(owner, name, counting(getattr(owner, name)))
    return sent


def appended(app: RatingsLedger, n: int) -> int:
    """A new section appended to the store; the ledger's last position then."""
    Ledger(app).submit(round_robin(f"FEB{n}", [A, C], f"2024-02-{n + 3:02d}"))
    return app.recorder.max_notification_id() or 0


@pytest.fixture
def followed(store: str, tmp_path: Path) -> Iterator[tuple[Follower, Path, RatingsLedger]]:
    """A follower of the store in this process, its read model built and quiet; the ledger
    open to append to."""
    view = tmp_path / "server.view.db"
    follower = Follower(store, view).start()
    app = RatingsLedger(store)
    try:
        head = app.recorder.max_notification_id() or 0
        assert seconds_until([view], head, WARM_SECONDS)[0] < WARM_SECONDS
        time.sleep(4 * QUIET_SECONDS)  # its checkpoint once quiet: done
        yield follower, view, app
    finally:
        follower.stop()
        app.close()


@pytest.fixture
def opened(
    store: str, followed: tuple[Follower, Path, RatingsLedger]
) -> Iterator[Callable[[bool], Sessions]]:
    """Sessions of the followed read model (a worker's, which never catches up, unless
    `catches_up`) with this thread's session open; closed after the test."""
    made: list[Held] = []

    def sessions(catches_up: bool) -> Sessions:
        found = Sessions(store, {"uschess": followed[1]}, 1000, catches_up)
        made.append(found.session("uschess"))
        return found

    yield sessions
    for held in made:
        held.close()


def test_after_a_notification_a_follower_reads_the_store_in_one_statement(followed, monkeypatch):
    # Issue 33: servers "notified of new entries, not polling": from the notification to the
    # read model at the new position the follower sends one statement, which reads the new
    # entries with their chain rows and what the model's binding is checked against (the
    # ledger's identity, head and the link it was built to): no look at the last position
    # first, no transaction around it, nothing read from position 0.
    follower, view, app = followed
    sent = sent_by_thread(monkeypatch)
    for n in range(WRITES):
        head = appended(app, n)
        assert seconds_until([view], head, BOUND_SECONDS)[0] < BOUND_SECONDS
        time.sleep(4 * QUIET_SECONDS)  # what it does once the store is quiet again, counted
        mine = [query for thread, query in sent if thread == follower.thread.ident]
        assert len(mine) == n + 1, mine
        assert "UNION ALL" in mine[-1], mine[-1]


def test_a_request_reads_only_the_last_position_until_the_ledger_grows_then_one_statement_more(
    followed, opened, monkeypatch
):
    # Issue 33: "no per-request session set-up or catch-up when nothing is new": a request
    # thread asks the store for its last position and nothing else; once an append moved it,
    # the thread's catch-up goes on along the follower's trail in one statement (no check of
    # the signatures or the binding from the log again).
    _, view, app = followed
    sessions = opened(catches_up=True)
    sent = sent_by_thread(monkeypatch)
    mine = threading.get_ident()
    for _ in range(3):
        sessions.session("uschess")
    asked = [query for thread, query in sent if thread == mine]
    assert len(asked) == 3 and all("MAX(notification_id)" in q for q in asked), asked
    head = appended(app, 0)
    assert seconds_until([view], head, BOUND_SECONDS)[0] < BOUND_SECONDS
    sent.clear()
    assert sessions.session("uschess").session.view.last_position == head
    asked = [query for thread, query in sent if thread == mine]
    others = [q for q in asked if "MAX(notification_id)" not in q]
    assert len(others) == 1 and "UNION ALL" in others[0], asked


def test_a_worker_reads_only_the_new_writes_and_still_names_one_that_does_not_verify(
    followed, opened, store, monkeypatch
):
    # Issue 33: "several worker processes" only read the models their server's follower keeps;
    # a worker's request after an append reads the writes after its last look in one
    # statement (not the keys and tree from the log again), and still finds one that does not
    # verify, which its pages name (issue 28: the read stops at the write before it).
    from ledger.domain import player_key
    from tests.tamper_helpers import insert

    _, view, app = followed
    worker = opened(catches_up=False)
    head = appended(app, 0)
    assert seconds_until([view], head, BOUND_SECONDS)[0] < BOUND_SECONDS
    sent = sent_by_thread(monkeypatch)
    assert worker.session("uschess").breaks == []
    asked = [query for thread, query in sent if thread == threading.get_ident()]
    others = [q for q in asked if "MAX(notification_id)" not in q]
    assert len(others) == 1 and "UNION ALL" in others[0], asked
    state = b'{"member_id": "30000008"}'  # appended by an insider: unsigned, unsealed
    bad = insert(store, player_key("30000008"), 1, "ratings-ledger:PlayerRegistered", state)
    assert [stop.position for stop in worker.session("uschess").breaks] == [bad]
