"""`serve` on a real server (issue 10): threads and timeouts, stores opened read-only and never
created, a busy read model answered 503 with Retry-After, bad parameters 400."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import threading
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from urllib.error import HTTPError

import pytest
from conftest import FEDERATION
from eventsourcing.persistence import PersistenceError
from projection_helpers import Ledger
from test_web import get
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.cli.serve import Server, server
from ledger.entrypoints.web.app import Site
from ledger.store import view_path

MULLER = next(iter(FEDERATION))
STALLED = 8


@pytest.fixture
def served(federation_store):
    httpd = server(Site(federation_store), port=0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", httpd.server_port
    httpd.shutdown()
    thread.join(30)  # closing 4,000 connections on a busy machine may take a while
    httpd.server_close()


def test_clients_stalled_mid_request_do_not_stop_others_being_served(served):
    # Issue 10: "one client that sends half a request header blocks every other visitor".
    base, port = served
    with ExitStack() as stack:
        for _ in range(STALLED):
            stalled = stack.enter_context(socket.create_connection(("127.0.0.1", port)))
            stalled.sendall(b"GET /log HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
        served_while_stalled = 0
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{base}/api/players/{MULLER}", timeout=2) as answer:
                assert answer.status == 200
            served_while_stalled += 1
    print(f"{served_while_stalled} requests served in 2 s while {STALLED} clients stalled")
    assert served_while_stalled >= 10


def test_the_server_answers_requests_at_once(served):
    base, _ = served
    results: list[int] = []

    def fetch() -> None:
        with urllib.request.urlopen(f"{base}/api/sections", timeout=10) as answer:
            results.append(answer.status)

    threads = [threading.Thread(target=fetch) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert results == [200] * 8


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/log", "after=99999999999999999999999"),
        ("/log", "before=99999999999999999999999"),
        ("/log", "after=-1"),
        ("/log", "before=0"),
        ("/log", "after=1&before=5"),
        (f"/players/{MULLER}", "as_of=garbage"),
        (f"/players/{MULLER}", "as_known_at=garbage"),
        (f"/players/{MULLER}", "position=-1"),
        (f"/players/{MULLER}", "position=x"),
        (f"/players/{MULLER}", "position=3&as_known_at=2024-01-01"),
        ("/players", "q=a&offset=-3"),
        ("/sections", "offset=99999999999999999999999"),
    ],
)
def test_bad_parameters_are_400_never_500(federation_store, path, query):
    site = Site(federation_store)
    assert get(site, path, query).status == 400
    assert get(site, "/api" + path, query).json()["detail"]  # problem details (issue 32)


def test_position_shows_the_ledger_as_it_stood_then(federation_store):
    site = Site(federation_store)
    with RatingsLedger(federation_store) as ledger:
        after_jan = ledger.recorder.max_notification_id() - 3  # MAR, MAY, withdrawal came later
    out = get(site, f"/api/players/{MULLER}", f"position={after_jan}").json()
    assert out["ratings"]["OTBR"]["games"] == 3
    assert [t["section_id"] for t in out["sections"]] == ["JAN"]
    page = get(site, f"/players/{MULLER}", f"position={after_jan}").text
    assert f"/players/{MULLER}/history?system=OTBR&amp;position={after_jan}" in page
    assert f"position {after_jan}" in page


def test_a_missing_store_is_answered_503_and_never_created(tmp_path):
    store = f"sqlite:///{tmp_path / 'absent.db'}"
    response = get(Site(store), "/log")
    assert response.status == 503
    assert not (tmp_path / "absent.db").exists()


def test_serve_refuses_to_start_on_a_missing_store_with_one_error_line(tmp_path):
    out = CliRunner().invoke(app, ["serve", "--store", f"sqlite:///{tmp_path / 'absent.db'}"])
    assert out.exit_code == 1
    assert out.output.count("error:") == 1
    assert "no ledger at" in out.output
    assert list(tmp_path.iterdir()) == []


def test_the_site_opens_the_ledger_read_only(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    Ledger(RatingsLedger(store)).app.close()
    (tmp_path / "ledger.db").chmod(0o444)
    try:
        assert get(Site(store), "/log").status == 200
    finally:
        (tmp_path / "ledger.db").chmod(0o644)
    with pytest.raises(PersistenceError, match="readonly"):
        read_only = RatingsLedger(store, read_only=True)
        try:
            with read_only.recorder.datastore.transaction(commit=True) as cursor:
                cursor.execute("create table probe (x)")
        finally:
            read_only.close()


def test_a_read_model_locked_by_a_writer_is_retried_then_answered_503(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    site = Site(store, busy_ms=50)
    assert get(site, "/log").status == 200  # the read model exists and is caught up
    ledger.register("20000009", adult=True)  # so the next read must write to catch up
    ledger.app.close()
    holder = sqlite3.connect(view_path(store, None), isolation_level=None)
    holder.execute("begin immediate")
    try:
        started = time.monotonic()
        response = get(site, "/api/log")
        took = time.monotonic() - started
    finally:
        holder.execute("rollback")
        holder.close()
    assert response.status == 503
    assert response.headers["Retry-After"] == "2"
    assert took < 5
    assert get(site, "/api/log").status == 200


def test_the_server_shuts_down_promptly(federation_store):
    httpd = server(Site(federation_store), port=0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    with urllib.request.urlopen(f"http://127.0.0.1:{httpd.server_port}/api/log") as answer:
        assert answer.status == 200
    httpd.shutdown()
    thread.join(5)
    httpd.server_close()
    assert not thread.is_alive()
    with pytest.raises((HTTPError, OSError)):
        urllib.request.urlopen(f"http://127.0.0.1:{httpd.server_port}/api/log", timeout=2)


def test_paths_are_sqlite_files_beside_the_store(tmp_path):
    assert view_path(f"sqlite:///{tmp_path / 'l.db'}", None) == Path(tmp_path / "l.view.db")


def _drip(port: int) -> socket.socket:
    """A slow client: a request line, then nothing more for now (issue 18, 5)."""
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    client.sendall(b"GET /api/log HTTP/1.1\r\nHost: x\r\n")
    return client


def test_150_slow_clients_do_not_stop_the_site_answering(federation_store):
    """Issue 18: "the web server holds 150+ slow clients (connection limits, an absolute
    header deadline)": with 200 connections each dripping a header line, a probe is answered."""
    httpd = server(Site(federation_store), port=0, deadline=60)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    clients = [_drip(httpd.server_port) for _ in range(200)]
    try:
        for client in clients:
            client.sendall(b"X-Slow: 1\r\n")
        started = time.monotonic()
        url = f"http://127.0.0.1:{httpd.server_port}/api/log"
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert answer.status == 200
        assert time.monotonic() - started < 5
    finally:
        for client in clients:
            client.close()
        httpd.shutdown()
        thread.join(5)
        httpd.server_close()


def test_a_request_still_dripping_after_the_deadline_is_cut_off(federation_store):
    """Issue 18: waitress' timeout restarts at every byte; the deadline counts from the first."""
    httpd = server(Site(federation_store), port=0, deadline=1.5)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    client = _drip(httpd.server_port)
    try:
        closed_after = None
        started = time.monotonic()
        while time.monotonic() - started < 8:
            try:
                client.sendall(b"X-Slow: 1\r\n")
                if client.recv(1, socket.MSG_DONTWAIT) == b"":
                    closed_after = time.monotonic() - started
                    break
            except BlockingIOError:
                pass
            except OSError:
                closed_after = time.monotonic() - started
                break
            time.sleep(0.2)
        assert closed_after is not None and 1.5 <= closed_after < 5
    finally:
        client.close()
        httpd.shutdown()
        thread.join(5)
        httpd.server_close()


IDLE_CLIENTS = 4100  # issue 28's flood: more than the server's CONNECTION_LIMIT (4,000)


@pytest.fixture
def many_files() -> None:
    """This process may open the flood's sockets and the server's ends of them."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 2 * IDLE_CLIENTS + 500
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"the hard limit on open files ({hard}) is below {needed}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _closed_by_server(client: socket.socket) -> bool:
    try:
        return client.recv(1, socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def test_4100_idle_sockets_shed_the_oldest_and_a_probe_is_answered(many_files, served):
    """Issue 28: "4,100 idle sockets make every probe time out" → "idle connections are
    bounded and shed oldest first so a probe is answered"."""
    base, port = served
    with ExitStack() as stack:
        idle = []
        for _ in range(IDLE_CLIENTS):
            idle.append(stack.enter_context(socket.create_connection(("127.0.0.1", port))))
        started = time.monotonic()
        with urllib.request.urlopen(f"{base}/api/log", timeout=2) as answer:
            assert answer.status == 200
        assert time.monotonic() - started < 2
        time.sleep(0.2)
        assert all(_closed_by_server(c) for c in idle[:50])
        assert not any(_closed_by_server(c) for c in idle[-50:])


@pytest.fixture
def spooled(monkeypatch) -> list[int]:
    """Each request body waitress spools to a file, as it makes one."""
    from waitress.buffers import TempfileBasedBuffer

    made: list[int] = []
    newfile = TempfileBasedBuffer.newfile
    monkeypatch.setattr(TempfileBasedBuffer, "newfile", lambda b: made.append(1) or newfile(b))
    return made


def _status(client: socket.socket) -> bytes:
    """The status line of the answer read so far (until the server closes, or its headers end)."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while b"\r\n\r\n" not in data and (chunk := client.recv(65536)):
            data += chunk
    return data.split(b"\r\n")[0]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_request_body_over_8_kib_is_refused_413_and_never_spooled(served, spooled, method):
    """Issue 28: "an 859 MiB GET body is spooled to disk and answered 200" → "request
    bodies are refused (413) beyond a few KiB"."""
    _, port = served
    body = 1 << 20
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        head = f"{method} /api/log HTTP/1.1\r\nHost: x\r\nContent-Length: {body}\r\n\r\n"
        client.sendall(head.encode())
        assert _status(client) == b"HTTP/1.1 413 Request Entity Too Large"
        with contextlib.suppress(OSError):
            client.sendall(b"x" * body)
    assert spooled == []


def test_a_chunked_body_is_refused_413_once_past_8_kib(served, spooled):
    """Issue 28: "request bodies are refused (413) beyond a few KiB", however they are sent."""
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(b"GET /api/log HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        with contextlib.suppress(OSError):
            for _ in range(3):  # 12 KiB, never ended
                client.sendall(b"1000\r\n" + b"x" * 4096 + b"\r\n")
        assert _status(client) == b"HTTP/1.1 413 Request Entity Too Large"
    assert spooled == []


def test_a_request_with_a_body_of_8_kib_is_still_answered(served):
    """Issue 28's limit ("a few KiB") leaves room: a body of 8 KiB is read and the page
    answered (the site ignores it)."""
    _, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        head = "GET /api/log HTTP/1.1\r\nHost: x\r\nContent-Length: 8192\r\n\r\n"
        client.sendall(head.encode() + b"x" * 8192)
        assert _status(client) == b"HTTP/1.1 200 OK"


def test_serve_on_an_address_it_cannot_listen_on_says_so_in_one_line(federation_store):
    """Issue 28: "every 'unexpected' error … becomes a one-line refusal": a --host that is no
    address was "unexpected ValueError: Invalid host/port specified"."""
    no_host = ["serve", "--host", "no.such.host.invalid", "--port", "0", "--store"]
    out = CliRunner().invoke(app, [*no_host, federation_store])
    assert (out.exit_code, out.stderr.count("\n")) == (2, 1)
    assert out.stderr.startswith("error: --host 'no.such.host.invalid': cannot listen there (")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        out = CliRunner().invoke(app, ["serve", "--port", port, "--store", federation_store])
    assert (out.exit_code, out.stderr) == (
        1,
        f"error: cannot listen on 127.0.0.1 port {port}: Address already in use\n",
    )


def test_the_connection_shed_is_the_oldest_idle_then_the_oldest_not_reading():
    """Issue 28: "idle connections are bounded and shed oldest first": a connection a thread
    is answering is never shed; one whose answer waits for its client to read is shed only
    when none is idle."""
    from types import SimpleNamespace

    from ledger.entrypoints.cli.serve import _shed

    def channel(answering: bool, unsent: int) -> SimpleNamespace:
        return SimpleNamespace(requests=["r"] if answering else [], total_outbufs_len=unsent)

    answering, unread, idle, newer_idle = (channel(True, 0), channel(False, 9), channel(False, 0),
                                           channel(False, 0))  # fmt: skip
    assert _shed([answering, unread, idle, newer_idle]) is idle
    assert _shed([answering, unread]) is unread
    assert _shed([answering, channel(True, 9)]) is None


def test_a_content_length_of_5000_digits_is_answered_400(served):
    """Issue 28: "every 'unexpected' error … becomes a one-line refusal": waitress let the
    length's ValueError escape and closed the connection with no answer."""
    base, port = served
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(b"GET /api/log HTTP/1.1\r\nHost: x\r\nContent-Length: " + b"9" * 5000)
        client.sendall(b"\r\n\r\n")
        assert _status(client) == b"HTTP/1.1 400 Bad Request"
    with urllib.request.urlopen(f"{base}/api/log", timeout=5) as answer:
        assert answer.status == 200


@pytest.mark.parametrize(("shared", "taken"), [(False, 5), (True, 1)])
def test_a_worker_takes_one_waiting_connection_a_wake_up_so_a_burst_is_shared(
    federation_store, shared, taken
):
    # issue 33: "several worker processes": on the socket the workers share, the first to
    # wake took every connection of a burst and the others idled; a worker holding few
    # connections takes one a wake-up, a lone server still takes up to 64 (a flood's probe)
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    httpd = Server(Site(federation_store), "127.0.0.1", 0, sock=listening if shared else None)
    if not shared:
        listening.close()
        port = httpd.server_port
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    try:
        held = len(httpd.map)
        httpd.inner.handle_accept()
        assert len(httpd.map) - held == taken
    finally:
        for client in clients:
            client.close()
        httpd.shutdown()
        httpd.server_close()
        listening.close()
