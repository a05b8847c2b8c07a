"""One door to read (issue 17: "A read session object opens the ledger, checks the read
model's binding, catches up once and answers `at(as_of, known_at, list)`; the CLI, the web,
`verify` and the consequences report all use it; the read side imports no write-side
application class")."""

import json
import subprocess
import sys
from collections import Counter
from datetime import datetime

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.store import view_path
from projections import binding, session
from projections.session import NothingKnownYet, ReadSession

A, B, C = "71000001", "71000002", "71000003"


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(A, B, C, adult=True)
    led.submit(round_robin("JAN", [A, B, C], "2025-01-04"))
    led.app.close()
    return url


def head(store: str) -> int:
    with RatingsLedger(store) as led:
        return led.recorder.max_notification_id()


@pytest.fixture
def counted(monkeypatch):
    """How often the session opens a read model, checks its binding and reads the log."""
    seen: Counter = Counter()

    class CountedView(session.View):
        def __init__(self, *args, **kwargs):
            seen["view opened"] += 1
            super().__init__(*args, **kwargs)

    def reads(*args, **kwargs):
        seen["log read"] += 1
        return read(*args, **kwargs)

    def check(*args, **kwargs):
        seen["binding checked"] += 1
        return checked(*args, **kwargs)

    read, checked = session.read_verified_entries, binding.check
    monkeypatch.setattr(session, "View", CountedView)
    monkeypatch.setattr(session, "read_verified_entries", reads)
    monkeypatch.setattr(binding, "check", check)
    return seen


def test_the_read_side_imports_no_write_side_application():
    # "the read side imports no write-side application class": every module of projections/
    # (and the ledger's read-only opening) imported in a fresh interpreter.
    code = (
        "import importlib, pkgutil, sys, projections\n"
        "for m in pkgutil.iter_modules(projections.__path__):\n"
        "    importlib.import_module('projections.' + m.name)\n"
        "import ledger.reading\n"
        "print('ledger.application' in sys.modules)\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "False"


def test_a_dry_run_correction_opens_checks_and_catches_up_the_read_model_once(
    store, tmp_path, counted
):
    # "catches up once": the write's report walks into the read side through one session.
    run = CliRunner().invoke
    assert run(app, ["catch-up", "--store", store]).exit_code == 0
    fixed = tmp_path / "fixed.json"
    fixed.write_text(
        json.dumps(round_robin("JAN", [A, B, C], "2025-01-04", results={(A, B): "0-1"}))
    )
    counted.clear()
    out = run(
        app,
        [
            *("correct", "JAN", str(fixed), "--reason", "r", "--actor", "admin"),
            *("--dry-run", "--store", store),
        ],
    )
    assert out.exit_code == 0, out.output
    assert "would change" in out.stdout
    # The model already reached the ledger's end (caught up above; a dry run appends
    # nothing): the catch-up finds nothing lacking and reads no log at all.
    assert counted == {"view opened": 1, "binding checked": 1}


def test_a_session_catches_up_once_however_many_reads_it_answers(store, counted):
    last = head(store)
    with ReadSession.open(store, view_path(store, None)) as s:
        with s.at() as now, s.at(position=2) as past:
            assert now.view.last_position == last
            assert past.view.last_position == 2 and past.position == 2
        assert s.catch_up().entries == last
    # The read model is opened, checked and caught up once (a past view is built apart, in a
    # temporary file, by projections.timetravel).
    assert counted == {"view opened": 1, "binding checked": 1, "log read": 1}


def test_as_known_before_the_first_entry_is_refused_the_same_way_by_the_cli_and_the_web(store):
    # Behaviour kept: "--as-known-at: the ledger had no entries at …" (exit 2) and a 404.
    early = "2000-01-01T00:00:00"
    out = CliRunner().invoke(app, ["player", A, "--store", store, "--as-known-at", early])
    assert out.exit_code == 2
    assert out.stderr.strip().endswith(f"--as-known-at: the ledger had no entries at {early}")
    answered = {}

    def start(status, headers):
        answered["status"] = status

    body = Site(store)({"PATH_INFO": "/api", "QUERY_STRING": f"as_known_at={early}"}, start)
    assert answered["status"] == "404 Not Found"
    assert json.loads(b"".join(body))["detail"] == f"the ledger had no entries at {early}"
    with (
        ReadSession.open(store, view_path(store, None)) as s,
        pytest.raises(NothingKnownYet),
        s.at(known_at=datetime.fromisoformat(early)),
    ):
        pass


def test_a_list_read_takes_no_known_at_or_position(store):
    # A list says what it said when published, as `rating --list` refuses `--as-known-at`
    # and `--position` beside it ("--list says what a list said").
    with (
        ReadSession.open(store, view_path(store, None)) as s,
        pytest.raises(ValueError),
        s.at(list="2025-01", position=1),
    ):
        pass
