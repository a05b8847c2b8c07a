"""Answers kept by the position they reflect, and past read models built once (issue 33:
"responses cached by the ledger position they reflect (ETag)"; "a page costs well under a
millisecond of Python beyond its queries (... no temporary copy of a checkpoint per
request)")."""

from __future__ import annotations

import threading
from urllib.parse import urlencode

import pytest
from projection_helpers import Ledger, counting, round_robin
from test_web import get

from ledger.application import RatingsLedger
from ledger.entrypoints.cli.serve import KEEP_MB
from ledger.entrypoints.web import players, sessions
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.sessions import KEPT_BYTES, Kept, Known, Validator
from ledger.log import read_entries
from projections import session

A, B, C, D = "20000001", "20000002", "20000003", "20000004"


@pytest.fixture
def ledger(tmp_path):
    """A ledger with one section of three players (the fourth registered only)."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    app = Ledger(RatingsLedger(store))
    app.register(A, B, C, D, adult=True)
    app.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    yield app, store
    app.app.close()


@pytest.mark.parametrize("path", [f"/api/players/{A}", f"/players/{A}"])
def test_a_page_asked_again_at_the_same_position_is_answered_as_it_was_without_making_it(
    ledger, monkeypatch, path
):
    # issue 33: "responses cached by the ledger position they reflect (ETag)"
    _, store = ledger
    site = Site(store)
    made = counting(monkeypatch, players, "player")
    first, second = get(site, path), get(site, path)
    assert (first.status, second.status) == (200, 200)
    assert first.text == second.text
    assert first.headers["ETag"] == second.headers["ETag"]
    assert len(made) == 1


def test_an_append_moves_the_position_and_the_next_answer_is_made_afresh(ledger, monkeypatch):
    # issue 33: an answer is kept by "the ledger position [it reflects]": a write moves it
    app, store = ledger
    site = Site(store)
    made = counting(monkeypatch, players, "player")
    before = get(site, f"/api/players/{D}")
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    after = get(site, f"/api/players/{D}")
    assert len(made) == 2
    assert after.headers["ETag"] != before.headers["ETag"]
    assert [s["section_id"] for s in after.json()["sections"]] == ["FEB"]


def test_a_site_that_keeps_no_answers_makes_every_one(ledger, monkeypatch):
    # `serve --keep 0` (docs/decisions.md, issue 33): every answer made, as the bench's
    # "unkept" server measures
    _, store = ledger
    site = Site(store, kept=0)
    made = counting(monkeypatch, players, "player")
    for _ in range(3):
        assert get(site, f"/api/players/{A}").status == 200
    assert len(made) == 3


def test_an_error_is_never_kept(ledger, monkeypatch):
    # Only a page's answer (200) is kept: a player added later is found at once
    app, store = ledger
    site = Site(store)
    assert get(site, "/api/players/20000009").status == 404
    assert not site.kept.answers


def test_kept_answers_past_their_budget_go_least_recently_served_first():
    # A process keeps at most `--keep` MB of answers
    kept = Kept(budget=10)
    for name in ("a", "b", "c"):
        kept.put(("tag", name), ("text/plain", b"1234"))
    assert list(kept.answers) == [("tag", "b"), ("tag", "c")]
    assert kept.get(("tag", "b")) is not None
    kept.put(("tag", "d"), ("text/plain", b"1234"))
    assert list(kept.answers) == [("tag", "b"), ("tag", "d")]
    assert kept.size == 8


def test_a_request_whose_reads_stopped_at_a_break_is_never_answered_from_a_kept_answer():
    # issue 28: such an answer says where the ledger broke, which a kept one may not
    kept = Kept()
    kept.put(('"t"', "/players/1?"), ("application/json", b"{}"))
    with pytest.raises(Known):
        Validator(kept=kept, request="/players/1?").check('"t"')
    Validator(kept=kept, request="/players/1?").check('"t"', broken=True)


def test_serves_default_budget_is_the_sites():
    # serve.py names the default without importing the site (every command would load it)
    assert KEEP_MB << 20 == KEPT_BYTES


def test_a_past_model_is_built_once_for_every_page_asked_at_its_position(ledger, monkeypatch):
    # issue 33: "no temporary copy of a checkpoint per request"; the brief: the as-known-at
    # page's past model cached by its position
    app, store = ledger
    position = app.app.recorder.max_notification_id()
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    site = Site(store, kept=0)
    built = counting(monkeypatch, sessions, "at_position")
    for player in (A, D, A):
        answer = get(site, f"/api/players/{player}", f"position={position}")
        assert answer.status == 200
        assert "FEB" not in [s["section_id"] for s in answer.json()["sections"]]
    assert len(built) == 1
    assert "FEB" in [s["section_id"] for s in get(site, f"/api/players/{D}").json()["sections"]]
    site.close()


def test_past_models_beyond_the_few_kept_are_removed_and_all_go_with_the_site(ledger, monkeypatch):
    # A past model is a read model's size on disk: a process keeps `PASTS_KEPT` of them
    app, store = ledger
    last = app.app.recorder.max_notification_id()
    site = Site(store, kept=0)
    monkeypatch.setattr(site.sessions.pasts, "kept", 1)
    for position in (last, last - 1, last):
        assert get(site, f"/api/players/{A}", f"position={position}").status == 200
    folder = site.sessions.pasts.folder
    assert folder is not None
    assert [p.name for p in folder.iterdir()] == [f"uschess-{last}"]
    site.close()
    assert not folder.exists()


def test_a_moments_position_is_found_once_by_a_process_whichever_thread_asks(ledger, monkeypatch):
    # issue 33: "no log scan from position 0 for a date" per request: once a process
    app, store = ledger
    moment = list(read_entries(app.app, 0))[-2].recorded_at
    app.submit(round_robin("FEB", [A, D], "2024-02-03"))
    site = Site(store)
    scanned = counting(monkeypatch, session.ReadSession, "position")
    answers = []

    def ask(player: str) -> None:
        asked = urlencode({"as_known_at": moment})
        answers.append(get(site, f"/api/players/{player}", asked).status)

    ask(A)
    other = threading.Thread(target=ask, args=(D,))
    other.start()
    other.join()
    assert answers == [200, 200]
    assert len(scanned) == 1
    site.close()
