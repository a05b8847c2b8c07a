"""As of a date and as known at a time: what we published then, and what we know now."""

import json
import time
from datetime import UTC, datetime

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections import queries, timetravel
from projections.projector import View
from projections.seals import Seals

A, B, C = "70000001", "70000002", "70000003"


def build(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, B, C, adult=True)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    led.submit(round_robin("FEB", [A, B], "2024-02-03"))
    before = led.app.recorder.max_notification_id()
    time.sleep(0.01)
    moment = datetime.now(UTC).isoformat()
    time.sleep(0.01)
    led.correct(round_robin("JAN", [A, B, C], "2024-01-06", results={(A, B): "0-1"}))
    return store, led, before, moment


def test_as_known_before_a_correction_gives_the_published_rating(tmp_path):
    store, led, before, _ = build(tmp_path)
    now = View(tmp_path / "view.db")
    led.catch_up(now)
    past = timetravel.at_position(
        now, lambda after: read_entries(led.app, after), before, tmp_path / "p.db"
    )
    published = queries.rating_as_of(past, A, "OTBR", "2024-01-31")
    corrected = queries.rating_as_of(now, A, "OTBR", "2024-01-31")
    # A beat B in the report first published; the correction makes it a loss.
    assert published["rating"] > corrected["rating"]
    fresh = View(tmp_path / "fresh.db")
    fresh.catch_up(e for e in read_entries(led.app) if e.position <= before)
    assert past.digest() == fresh.digest()


def test_checkpoints_give_the_same_past_as_a_replay(tmp_path):
    store, led, before, _ = build(tmp_path)
    view = View(tmp_path / "view.db", checkpoint_every=2)
    view.seals = seals = Seals(led.app, report=pytest.fail)  # every checkpoint sealed, used
    for e in read_entries(led.app):
        view.catch_up([e])
    view.wait_for_checkpoint()
    assert len(list(view.checkpoints_dir.glob("*.db.seal"))) >= 2
    for position in range(1, view.last_position + 1):
        past = timetravel.at_position(
            view, lambda after: read_entries(led.app, after), position, tmp_path / "past.db", seals
        )
        fresh = View(tmp_path / f"fresh-{position}.db")
        fresh.catch_up(e for e in read_entries(led.app) if e.position <= position)
        assert past.digest() == fresh.digest(), position
        past.close()


def test_published_then_and_known_now_from_the_command_line(tmp_path):
    store, led, before, moment = build(tmp_path)
    led.app.close()
    runner = CliRunner()

    def rating(*extra):
        out = runner.invoke(
            app,
            [
                "rating",
                A,
                "--system",
                "OTBR",
                "--as-of",
                "2024-01-31",
                "--json",
                "--store",
                store,
                *extra,
            ],
        )
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)["rating"]

    now = rating()
    assert rating("--as-known-at", moment) == rating("--position", str(before)) > now
    history = runner.invoke(
        app,
        ["history", A, "--system", "OTBR", "--json", "--position", str(before), "--store", store],
    )
    assert len(json.loads(history.stdout)) == 2
    early = runner.invoke(app, ["player", A, "--as-known-at", "2000-01-01", "--store", store])
    assert early.exit_code == 2
