"""As of a date and as known at a time: what we published then, and what we know now."""

import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from eventsourcing.persistence import Notification
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections import moments, queries, timetravel
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


class Recorded:
    """A log of entries recorded at the given times (ISO), read as the store's recorder is;
    `reads` counts its queries."""

    def __init__(self, times: list[str]) -> None:
        self.reads = 0
        self.rows = [
            Notification(
                id=i,
                originator_id=uuid.uuid4(),
                originator_version=1,
                topic="ratings-ledger:RoleGranted",
                state=json.dumps({"timestamp": {"_data_": t}, "actor": "td"}).encode(),
            )
            for i, t in enumerate(times, start=1)
        ]

    def select_notifications(self, start, limit, stop=None, topics=(), *, inclusive_of_start=True):
        self.reads += 1
        after = [n for n in self.rows if n.id > start or (inclusive_of_start and n.id == start)]
        return after[:limit]


def moments_of(minutes: list[float]) -> list[str]:
    day = datetime(2024, 1, 1, tzinfo=UTC)
    return [(day + timedelta(minutes=m)).isoformat() for m in minutes]


@pytest.mark.parametrize(
    "minutes",
    [
        [0, 1, 1, 2, 3, 5, 8, 8, 13, 21],  # in order, some at the same moment
        [0, 2, 1, 3, 5, 4.5, 4.9, 6, 9, 7, 10],  # writers a little apart: times back by minutes
        [0, 1, 2, -3000, 3, 4, 5],  # one dated days before the entries before it
        [0, 1, 2, 50_000_000, 3, 4, 5],  # one dated in the future: it hides all after it
        [5, 4, 3, 2, 1, 0],  # every one before the last
    ],
)
def test_a_date_finds_the_scans_position_without_reading_from_the_start(minutes):
    # Issue 33: "no log scan from position 0 for a date". A model notes when its entries were
    # recorded (projections/moments.py); the position known at any moment, at and around
    # every recorded time of the ledger, is the scan's: the prefix before the first entry
    # recorded after it, wherever times go backwards.
    log = Recorded(moments_of(minutes))
    ledger = SimpleNamespace(store="memory", recorder=log)
    times = moments.Times()
    assert len(list(times.watch(read_entries(ledger), 0))) == len(minutes)
    for at in sorted({*minutes, min(minutes) - 1, max(minutes) + 1}):
        for moment in moments_of([at - 1e-6, at, at + 1e-6]):
            asked = datetime.fromisoformat(moment)
            scanned = timetravel.position_at(ledger, asked)
            assert timetravel.position_at(ledger, asked, times) == scanned, (at, moment)


def test_a_date_in_a_long_ledger_takes_a_few_single_entry_reads():
    # Issue 33: "no log scan from position 0 for a date": in a ledger of 4,096 entries recorded
    # in order, a moment near its start is found by halving (13 reads or so), not by reading
    # every entry before it; after a gap (an entry set aside) the model notes no more, and a
    # moment after it reads on from the gap, still the scan's answer.
    minutes = list(range(4096))
    log = Recorded(moments_of(minutes))
    ledger = SimpleNamespace(store="memory", recorder=log)
    times = moments.Times()
    list(times.watch(read_entries(ledger), 0))
    asked = datetime.fromisoformat(moments_of([3000.5])[0])
    log.reads = 0
    assert timetravel.position_at(ledger, asked, times) == 3001
    assert log.reads <= 14
    gap = moments.Times()
    list(gap.watch((e for e in read_entries(ledger) if e.position != 2000), 0))
    assert gap.upto == 1999
    assert timetravel.position_at(ledger, asked, gap) == timetravel.position_at(ledger, asked)


def test_a_catch_up_and_a_rebuild_note_when_their_entries_were_recorded(tmp_path):
    # Issue 33: the times a date is found by are the model's, noted by its rebuild and each
    # catch-up (outside its content: no digest changes); a session's position for a moment
    # between two writes is the scan's.
    store, led, before, moment = build(tmp_path)
    view = View(tmp_path / "view.db")
    view.rebuild(e for e in read_entries(led.app) if e.position <= before)
    assert moments.read(view.db.conn).upto == before
    led.catch_up(view)
    last = led.app.recorder.max_notification_id()
    assert moments.read(view.db.conn).upto == last
    assert view.digest() == led.rebuilt(tmp_path / "again.db").digest()
    times = moments.read(view.db.conn)
    asked = datetime.fromisoformat(moment)
    assert timetravel.position_at(led.app, asked, times) == before
    assert timetravel.position_at(led.app, asked) == before
