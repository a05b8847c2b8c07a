"""Issue 32, "The door under attack": authentication by the write's signature alone; a revoked
key, a replayed request, a request signed for another ledger, a forged signature, an oversized
or dripping body and too many writes with one key are each refused in one line, and nothing is
appended."""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.error import HTTPError

import pytest

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.web.writes import MAX_WRITE_BYTES, Limiter
from ledger.errors import AccessDenied, ConflictError, InvalidCommand
from ledger.evidence.chain import verify
from ledger.evidence.remote import DOOR, RemoteRecorder
from tests.door_helpers import Served, laptop, serving, set_up


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving(set_up(tmp_path / "server", "tom")) as found:
        yield found


def signed(monkeypatch: pytest.MonkeyPatch, url: str, member: str, actor: str = "td") -> Any:
    """Register `member` through the door as `actor`; the body it posted."""
    posted: list[Any] = []
    call = RemoteRecorder._call

    def spy(self: RemoteRecorder, path: str, body: Any = None) -> Any:
        if body is not None:
            posted.append(body)
        return call(self, path, body)

    with monkeypatch.context() as patch:
        patch.setattr(RemoteRecorder, "_call", spy)
        with closing(RatingsLedger(url)) as app:
            app.players.register(parse(RegisterPlayer, {"id": member}), actor=actor)
    return posted[-1]


def post(url: str, body: Any) -> tuple[int, dict[str, Any], dict[str, str]]:
    """POST a write; its status, problem (or answer) and headers."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(url + DOOR, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read()), dict(answer.headers)
    except HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def one_line_problem(problem: dict[str, Any], status: int) -> str:
    """RFC 9457: type, title, status, detail; the detail one line (the CLI's)."""
    assert problem["status"] == status and problem["type"].startswith("urn:ratings-ledger:")
    assert problem["title"] and "\n" not in problem["detail"]
    return str(problem["detail"])


def test_a_revoked_key_is_refused_exit_4_and_nothing_is_appended(
    tmp_path: Path, served: Served
) -> None:
    """Issue 32: "a revoked key"; README: exit 4 for roles."""
    before = served.count()
    gone = laptop(tmp_path / "tom-laptop", served, "tom")
    refused = gone.run("register", "players.json", "--actor", "tom")
    assert refused.returncode == 4, refused.stderr
    assert refused.stderr.count("\n") == 1
    assert served.count() == before


def test_a_revoked_key_whose_client_skips_its_checks_is_refused_403_by_the_server(
    monkeypatch: pytest.MonkeyPatch, served: Served
) -> None:
    """A client that does not check its roles and key first (an attacker's) posts a write
    signed with the revoked key: the server refuses it (403: AccessDenied, exit 4)."""
    monkeypatch.setattr(RatingsLedger, "authorized", lambda self, verb, actor: None)
    monkeypatch.setattr(
        RatingsLedger, "_signing_key", lambda self, actor, held: self.keyring.private_key(actor)
    )
    before = served.count()
    with closing(RatingsLedger(served.url)) as app, pytest.raises(AccessDenied) as refused:
        app.players.register(parse(RegisterPlayer, {"id": "50000001"}), actor="tom")
    assert "holds no key for 'tom'" in str(refused.value)
    assert served.count() == before


def test_a_replayed_write_is_refused_409_and_nothing_is_appended(
    monkeypatch: pytest.MonkeyPatch, served: Served
) -> None:
    """Issue 32: "a replayed request (same body twice: the second refused, nothing appended)";
    the signature binds the position and head."""
    body = signed(monkeypatch, served.url, "50000001")
    before = served.count()
    status, problem, _ = post(served.url, body)
    assert status == 409
    assert "moved" in one_line_problem(problem, 409)
    assert served.count() == before


def test_a_write_signed_for_another_ledger_is_refused_400(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, served: Served
) -> None:
    """Issue 32: "a request for another ledger (identity)"."""
    with serving(set_up(tmp_path / "other")) as other:
        body = signed(monkeypatch, other.url, "50000001")
    before = served.count()
    status, problem, _ = post(served.url, body)
    assert status == 400
    assert "signed for ledger" in one_line_problem(problem, 400)
    assert served.count() == before


def test_a_forged_signature_is_refused_403(monkeypatch: pytest.MonkeyPatch, served: Served) -> None:
    """Authentication by signature only: a body whose signature is not the actor's key's."""
    body = signed(monkeypatch, served.url, "50000001")
    head = json.loads(urllib.request.urlopen(served.url + DOOR + "/head").read())
    body = {**body, "head": head["position"], "signature": "00" * 64}
    before = served.count()
    status, problem, _ = post(served.url, body)
    assert status == 403
    assert "signature is not 'td'" in one_line_problem(problem, 403)
    assert served.count() == before


def test_entries_that_are_not_the_ones_signed_are_refused(
    monkeypatch: pytest.MonkeyPatch, served: Served
) -> None:
    """A write whose signature is good but whose entries were swapped in transit: the
    checkpoint they make at the head is not the one signed (nothing appended)."""
    posted: list[Any] = []
    call = RemoteRecorder._call

    def swap(self: RemoteRecorder, path: str, body: Any = None) -> Any:
        if body is not None:
            other = json.loads(json.dumps(body))
            other["events"][0]["originator_version"] = 2  # not the entry signed
            posted.append(other)
            return call(self, path, other)
        return call(self, path, body)

    before = served.count()
    monkeypatch.setattr(RemoteRecorder, "_call", swap)
    with closing(RatingsLedger(served.url)) as app, pytest.raises(InvalidCommand) as refused:
        app.players.register(parse(RegisterPlayer, {"id": "50000002"}), actor="td")
    assert "not the ones signed" in str(refused.value)
    assert served.count() == before


def test_an_oversized_body_is_refused_413_before_it_is_read(served: Served) -> None:
    """Issue 32: "an oversized body (bounded, 413 before reading it)"."""
    port = int(served.url.rsplit(":", 1)[1])
    before = served.count()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(
            f"POST {DOOR} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {MAX_WRITE_BYTES + 1}\r\n\r\n".encode()
        )
        answer = s.recv(4096).decode("latin-1")  # no byte of the body was sent
    assert answer.startswith("HTTP/1.1 413")
    assert served.count() == before


def test_a_dripping_body_is_cut_off_at_the_request_deadline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 32: "a dripping/slow body (bounded by the server's slow-client limits)"."""
    with serving(set_up(tmp_path / "server"), deadline=1.0) as served:
        body = json.dumps(signed(monkeypatch, served.url, "50000001")).encode()
        before = served.count()
        port = int(served.url.rsplit(":", 1)[1])
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                f"POST {DOOR} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            )
            closed = None
            for byte in body:
                try:
                    s.sendall(bytes([byte]))
                    time.sleep(0.2)
                except OSError:
                    closed = time.monotonic() - started
                    break
                if time.monotonic() - started > 8:
                    break
        assert closed is not None and closed < 5  # the deadline (1 s) and a cleanup pass or two
        assert served.count() == before


def test_too_many_writes_with_one_key_are_refused_429_with_retry_after(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 32: "requests per key limited (429 with Retry-After)"; nothing appended."""
    limiter = Limiter(per_minute=6, burst=2)
    with serving(set_up(tmp_path / "server"), limiter) as served:
        signed(monkeypatch, served.url, "50000001")
        body = signed(monkeypatch, served.url, "50000002")
        before = served.count()
        status, problem, headers = post(served.url, body)
        assert status == 429
        assert int(headers["Retry-After"]) == 10  # one write every 10 s at 6 a minute
        assert "too many writes" in one_line_problem(problem, 429)
        with closing(RatingsLedger(served.url)) as app, pytest.raises(ConflictError) as refused:
            app.players.register(parse(RegisterPlayer, {"id": "50000003"}), actor="td")
        assert "too many writes" in str(refused.value)
        assert served.count() == before


def test_after_a_refused_write_the_next_one_is_appended_on_either_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, store_url: str
) -> None:
    """A refused write appends nothing, and takes nothing from the next: on PostgreSQL a write
    rolled back has used its positions (the sequence skips them), so the head a writer signs
    names the position the next entry takes, not the last one's plus one."""
    with serving(set_up(tmp_path / "server", store=store_url)) as served:
        body = signed(monkeypatch, served.url, "50000001")
        before = served.count()
        assert post(served.url, body)[0] == 409  # replayed: rolled back
        with closing(RatingsLedger(served.url)) as app:
            entries = app.players.register(parse(RegisterPlayer, {"id": "50000002"}), actor="td")
        assert len(entries) == 1
        with closing(RatingsLedger(served.store, read_only=True)) as app:
            found = verify(app)
        assert found.broken is None and found.entries == before + 1
