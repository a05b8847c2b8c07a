"""Issue 20: "a `--as-known-at` given as a date means that day's midnight (so "today" finds
nothing)": a date alone is the end of that day, so the day an entry was recorded finds it; a
date-time stays that instant (docs/decisions.md, "--as-known-at DATE")."""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta

import pytest
from test_web import get
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.cli.reading import known_moment
from ledger.entrypoints.web.app import Site


@pytest.fixture
def ledger(tmp_path):
    """A ledger with one player registered; `run`, and the registration's recorded time."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    players = tmp_path / "players.json"
    players.write_text('[{"id": "12345678", "name": "Ann Lee"}]')
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(app, [*args, "--store", store])

    run.store = store

    assert run("init", "--actor", "director").exit_code == 0
    assert run("register", str(players), "--actor", "director").exit_code == 0
    recorded = json.loads(run("log", "--json").stdout)[-1]["recorded_at"]
    return run, datetime.fromisoformat(recorded)


def test_the_day_an_entry_was_recorded_finds_it(ledger):
    run, recorded = ledger
    out = run("player", "12345678", "--as-known-at", recorded.date().isoformat())
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("12345678  Ann Lee")


def test_the_day_before_finds_nothing(ledger):
    run, recorded = ledger
    day = (recorded.date() - timedelta(days=1)).isoformat()
    out = run("player", "12345678", "--as-known-at", day)
    assert out.exit_code == 2 and "had no entries" in out.stderr


def test_a_date_time_stays_exact(ledger):
    # Just before the registration: the ledger held init's entries only, not the player.
    run, recorded = ledger
    before = (recorded - timedelta(microseconds=1)).isoformat()
    out = run("player", "12345678", "--as-known-at", before)
    assert out.exit_code == 1 and "not in the ledger" in out.stderr
    at = run("player", "12345678", "--as-known-at", recorded.isoformat())
    assert at.exit_code == 0, at.output


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2025-03-01", datetime.combine(date(2025, 3, 1), time.max)),
        ("2025-03-01T00:00", datetime(2025, 3, 1)),
        ("2025-03-01T12:30:00+00:00", datetime.fromisoformat("2025-03-01T12:30:00+00:00")),
    ],
)
def test_a_date_is_the_last_instant_of_that_day(text, moment):
    assert known_moment(text) == moment


def test_the_web_page_asked_as_known_at_the_day_finds_the_entry(ledger):
    # Issue 20 (session 6): the web's `?as_known_at=DATE` means the end of that day, as the
    # CLI's `--as-known-at` does (one function, projections.session.known_moment).
    run, recorded = ledger
    site = Site(run.store)
    day = recorded.date().isoformat()
    page = get(site, "/api/players/12345678", f"as_known_at={day}")
    assert page.status == 200, page.text
    assert page.json()["name"] == "Ann Lee"
    before = (recorded.date() - timedelta(days=1)).isoformat()
    assert get(site, "/api/players/12345678", f"as_known_at={before}").status == 404


def test_the_web_refuses_an_as_known_at_that_is_no_date(ledger):
    run, _ = ledger
    page = get(Site(run.store), "/api/players/12345678", "as_known_at=yesterday")
    assert page.status == 400
    assert "'yesterday' is not an ISO date or date-time" in page.text


def test_the_page_s_as_known_at_field_says_a_date_alone_is_the_end_of_the_day(ledger):
    run, _ = ledger
    page = get(Site(run.store), "/players/12345678").text
    assert "title='A date (the end of that day) or a date and time'" in page
