"""A site that holds list day (issue 33): "no per-request session set-up or catch-up when nothing
is new"; "responses cached by the ledger position they reflect (ETag) so a proxy can serve
repeats"; "several worker processes"."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urlencode

import pytest
from projection_helpers import Ledger, counting, round_robin
from test_web import get

from ledger.application import RatingsLedger
from ledger.entrypoints.web.app import Site
from ledger.log import read_entries
from ledger.store import view_path
from projections import binding, session, unrated

A, B, C, D = "20000001", "20000002", "20000003", "20000004"
PATIENCE_SECONDS = 30  # a loaded test machine: the properties are "eventually", not times


@pytest.fixture
def ledger(tmp_path):
    """A ledger with one section of three players (the fourth registered only)."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    app = Ledger(RatingsLedger(store))
    app.register(A, B, C, D, adult=True)
    app.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    yield app, store
    app.app.close()


def test_a_second_page_opens_no_session_and_catches_nothing_up(ledger, monkeypatch):
    # issue 33: "no per-request session set-up or catch-up when nothing is new"
    _, store = ledger
    site = Site(store)
    opened = counting(monkeypatch, session.ReadSession, "open")
    caught_up = counting(monkeypatch, binding, "catch_up")
    assert get(site, f"/api/players/{A}").status == 200
    assert (len(opened), len(caught_up)) == (1, 1)
    for player in (A, B, C):
        assert get(site, f"/api/players/{player}").status == 200
    assert (len(opened), len(caught_up)) == (1, 1)


def test_an_append_is_caught_up_by_the_next_page_of_a_held_session(ledger):
    # issue 33: a session is kept, yet "catch-up when [something] is new" still happens
    app, store = ledger
    site = Site(store)
    assert get(site, f"/api/players/{D}").json()["sections"] == []
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    played = get(site, f"/api/players/{D}").json()["sections"]
    assert [s["section_id"] for s in played] == ["FEB"]


def test_a_sections_reasons_are_worked_out_once_while_the_model_stands_still(ledger, monkeypatch):
    # issue 33: "a page costs well under a millisecond of Python beyond its queries": why a
    # section rated a player not is asked by the page of each of its players, and worked out
    # once for the model's position; an append moves it, and the reasons are worked out again
    app, store = ledger
    feb = round_robin("FEB", [A, B], "2024-02-03")
    feb["players"] += [{"id": C}, {"id": D}]  # C and D play no game
    app.submit(feb)
    site = Site(store, kept=0)
    worked = counting(monkeypatch, unrated, "reasons")

    def not_rated(player: str) -> str | None:
        played = get(site, f"/api/players/{player}").json()["sections"]
        return next(s for s in played if s["section_id"] == "FEB").get("not_rated")

    assert not_rated(C) == not_rated(D) == not_rated(C) == unrated.NO_GAME
    assert len(worked) == 1
    app.submit(round_robin("MAR", [A, B], "2024-03-02"))
    assert not_rated(D) == unrated.NO_GAME
    assert len(worked) == 2


def test_a_page_is_tagged_with_the_position_it_reflects_for_a_proxy(ledger):
    # issue 33: "responses cached by the ledger position they reflect (ETag)"; "Cache-Control
    # that a proxy can use" (docs/decisions.md: public, revalidated every time)
    _, store = ledger
    answer = get(Site(store), f"/api/players/{A}")
    last = answer.json()
    with RatingsLedger(store) as app:
        head = app.recorder.max_notification_id()
    assert answer.headers["ETag"].endswith(f'-uschess-{head}-{head}"')
    assert answer.headers["Cache-Control"] == "public, no-cache"
    assert last["id"] == A


def test_the_current_etag_is_answered_304_with_no_body(ledger):
    # issue 33: "If-None-Match → 304"
    _, store = ledger
    site = Site(store)
    tag = get(site, f"/players/{A}").headers["ETag"]
    again = _get_with(site, f"/players/{A}", tag)
    assert again.status == 304
    assert again.text == ""
    assert again.headers["ETag"] == tag
    assert "Content-Type" not in again.headers
    assert _get_with(site, f"/players/{A}", f'W/{tag}, "other"').status == 304


def test_an_append_changes_the_tag_so_an_old_one_gets_the_new_page(ledger):
    # issue 33: the tag is the ledger position the answer reflects: a new entry, a new answer
    app, store = ledger
    site = Site(store)
    tag = get(site, f"/api/players/{D}").headers["ETag"]
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    answer = _get_with(site, f"/api/players/{D}", tag)
    assert answer.status == 200
    assert answer.headers["ETag"] != tag
    assert [s["section_id"] for s in answer.json()["sections"]] == ["FEB"]


def test_a_page_as_known_at_a_position_is_tagged_with_that_position(ledger):
    # issue 33: an answer "cached by the ledger position [it reflects]": an older position's
    # page keeps its tag while the ledger grows
    app, store = ledger
    site = Site(store)
    with RatingsLedger(store) as reader:
        then = reader.recorder.max_notification_id()
    past = get(site, f"/api/players/{A}", f"position={then}")
    assert f"-uschess-{then}-" in past.headers["ETag"]
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    again = get(site, f"/api/players/{A}", f"position={then}")
    assert again.json()["sections"] == past.json()["sections"]
    assert f"-uschess-{then}-" in again.headers["ETag"]


def test_an_error_carries_no_tag(ledger):
    # a 404 reflects no position: nothing for a proxy to keep
    _, store = ledger
    answer = get(Site(store), "/api/players/99999999")
    assert answer.status == 404
    assert "ETag" not in answer.headers


def test_a_read_model_rebuilt_in_place_is_opened_again(ledger):
    # a rebuild links a new file in place (projections/modelfile.py): a held session must
    # not keep reading the old one
    app, store = ledger
    site = Site(store)
    assert get(site, f"/api/players/{D}").status == 200
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    _cli("rebuild", "--store", store)
    old = Path(view_path(store, None))
    assert old.exists()
    played = get(site, f"/api/players/{D}").json()["sections"]
    assert [s["section_id"] for s in played] == ["FEB"]


def test_serve_with_two_workers_answers_from_two_processes_and_follows_appends(ledger):
    # issue 33: "several worker processes" (brief: `serve --workers N`, processes sharing the
    # read model files read-only, one follower)
    app, store = ledger
    server = subprocess.Popen(
        [*_command(), "serve", "--store", store, "--port", "0", "--workers", "2"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "2 workers" in line
        base = line.split()[1].rstrip("/")
        assert len(_children(server.pid)) == 2
        assert _json(f"{base}/api/players/{A}")["id"] == A
        app.submit(round_robin("FEB", [A, D], "2024-02-03"))
        assert _eventually(lambda: _json(f"{base}/api/sections/FEB").get("section_id") == "FEB")
        workers = _children(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(PATIENCE_SECONDS)
    assert server.returncode == 0
    assert not any(Path(f"/proc/{pid}").exists() and _alive(pid) for pid in workers)


def _get_with(site, path, tag):
    from wsgiref.util import setup_testing_defaults

    from test_web import Response

    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING="", REQUEST_METHOD="GET")
    environ["HTTP_IF_NONE_MATCH"] = tag
    started = {}

    def start_response(status, headers):
        started.update(status=status, headers=headers)

    body = b"".join(site(environ, start_response))
    return Response(started["status"], started["headers"], body)


def _command():
    return [str(Path(sys.executable).parent / "ratings-ledger")]


def _cli(*args):
    subprocess.run([*_command(), *args], check=True, capture_output=True)


def _children(pid):
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in found]


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _json(url):
    try:
        with urllib.request.urlopen(url, timeout=PATIENCE_SECONDS) as answer:
            return json.loads(answer.read())
    except HTTPError as exc:
        return {"status": exc.code}


def _eventually(check):
    give_up = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < give_up:
        if check():
            return True
        time.sleep(0.01)
    return False


def test_an_as_known_at_moment_is_looked_up_in_the_log_once(ledger, monkeypatch):
    # issue 33: "no log scan from position 0 for a date" on every request: a moment an entry
    # already follows resolves to the same position for good (the log only grows)
    _, store = ledger
    with RatingsLedger(store) as app:
        first = list(read_entries(app))[-2]  # the players registered, the section after it
    site = Site(store)
    scans = counting(monkeypatch, session, "position_at")
    for _ in range(3):
        answer = get(site, f"/api/players/{A}", urlencode({"as_known_at": first.recorded_at}))
        assert answer.json()["position"] == first.position
    assert len(scans) == 1


def test_a_worker_refuses_a_read_model_of_another_ledger(ledger, tmp_path):
    # issue 33's workers only read the model the server keeps, and still check its binding
    # (projections/binding.py): a model of another ledger is 503, never served
    _, store = ledger
    other = f"sqlite:///{tmp_path / 'other.db'}"
    Ledger(RatingsLedger(other)).register(A, adult=True)
    assert get(Site(other), f"/api/players/{A}").status == 200  # binds other's model
    worker = Site(store, view=Path(view_path(other, None)), catches_up=False)
    answer = get(worker, f"/api/players/{A}")
    assert answer.status == 503
    assert "another ledger" in answer.json()["detail"]  # problem details (issue 32)
