"""Writes that change no rating say why; writes that change nothing are refused."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

A, B, C, D = "80000001", "80000002", "80000003", "80000004"


@pytest.fixture
def office(tmp_path):
    """A SQLite ledger: A and B established at 1500/1600, C and D provisional (5 games)."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, B, adult=True, name="Ada Able")
    led.register(B, C, D, adult=True)
    for p, r, n in ((A, 1500.0, 60), (B, 1600.0, 60), (C, 1400.0, 5), (D, 1450.0, 5)):
        led.opening(p, "OTBR", r, n, wins=n // 2, draws=0, losses=n - n // 2)
    led.submit(round_robin("JAN", [A, B, C], "2025-01-04"))
    led.app.close()
    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, [*args, "--store", store])

    return run, tmp_path


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def log_length(run):
    return len(json.loads(run("log", "--json").stdout))


def match_file(tmp_path, a, b):
    return write(
        tmp_path,
        f"match-{a}-{b}.json",
        {
            "match_id": f"M-{a}-{b}",
            "online": False,
            "time_control": "G/120",
            "start_date": "2025-03-01",
            "end_date": "2025-03-01",
            "players": [{"id": a}, {"id": b}],
            "games": [{"round": 1, "white": a, "black": b, "result": "1-0"}],
        },
    )


def test_a_match_between_provisional_players_says_why_it_is_not_rated(office):
    # §7 restriction 1: a match is rated only between players with established ratings.
    run, tmp = office
    out = run("match", match_file(tmp, C, D), "--actor", "td")
    assert out.exit_code == 0, out.output
    assert "not rated" in out.stdout and "no established rating" in out.stdout
    explained = run("explain", C, "--system", "otbr", "--section", f"match:M-{C}-{D}")
    assert explained.exit_code == 0, explained.output
    assert "no established rating" in explained.stdout


def test_a_prize_under_the_2020_threshold_says_why_it_earns_no_floor(office):
    # §5 (2020+): "If a player wins $4,000 or more in an under-2000 context".
    run, _ = office
    args = ("--player", A, "--amount", "2500", "--limit", "1800", "--date", "2025-02-01")
    out = run("award-money-floor", *args, "--actor", "director", "--json")
    assert out.exit_code == 0, out.output
    why = json.loads(out.stdout)["why"]
    assert why[0]["player"] == A and why[0]["name"] == "Ada Able"
    assert "$2,500 prize is under the money-floor threshold of $4,000" in why[0]["reason"]
    explained = run("explain", A, "--system", "OTBR", "--as-of", "2025-02-01")
    assert "money-floor threshold" in explained.stdout


def test_a_fide_adjustment_for_a_provisional_player_says_why(office):
    # §6 (2020+): "Only players with an established US Chess regular rating are eligible".
    run, tmp = office
    file = write(
        tmp,
        "fide.json",
        {
            "player": C,
            "rating_list": "2025-02-01",
            "games": [{"opponent_rating": 1800, "score": 1}],
        },
    )
    out = run("fide-adjust", file, "--actor", "admin")
    assert out.exit_code == 0, out.output
    assert "is not established" in out.stdout


def test_a_ceiling_below_the_floor_warns_and_both_are_recorded(office):
    run, _ = office
    out = run(
        *("override", "--player", A, "--action", "impose_ceiling", "--value", "90"),
        *("--effective", "2025-02-01", "--reason", "sandbagging", "--actor", "director"),
    )
    assert out.exit_code == 0, out.output
    assert "warning:" in out.stdout and "below the floor" in out.stdout
    shown = json.loads(run("player", A, "--json").stdout)["ratings"]["OTBR"]
    assert shown["ceiling"] == 90 and shown["floor"] > 90


@pytest.mark.parametrize("flag", [[], ["--dry-run"]])
def test_a_correction_identical_to_the_current_report_is_refused(office, flag):
    run, tmp = office
    before = log_length(run)
    same = write(tmp, "same.json", round_robin("JAN", [A, B, C], "2025-01-04"))
    out = run("correct", "JAN", same, "--reason", "again", "--actor", "admin", *flag)
    assert out.exit_code == 2
    assert out.stderr.startswith("error: section_id: ") and "changes nothing" in out.stderr
    assert log_length(run) == before


def test_registering_a_player_with_identical_fields_is_refused(office):
    run, tmp = office
    before = log_length(run)
    same = write(tmp, "same.json", {"id": A, "name": "Ada Able", "adult": True})
    out = run("register", same, "--actor", "td")
    assert out.exit_code == 2
    assert "error: id: '80000001' is already registered with these fields" in out.stderr
    assert log_length(run) == before
    changed = write(tmp, "changed.json", {"id": A, "name": "Ada Able-Baker"})
    assert run("register", changed, "--actor", "td").exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        ("history", A, "--system", "FOO"),
        ("rating", A, "--system", "FOO", "--as-of", "2025-01-04"),
        ("explain", A, "--system", "FOO", "--as-of", "2025-01-04"),
        ("list", "--system", "FOO", "--as-of", "2025-01-04"),
    ],
)
def test_an_unknown_system_is_named_with_the_known_ones(office, args):
    run, _ = office
    out = run(*args)
    assert out.exit_code == 2
    assert (
        out.stderr == "error: unknown system FOO (one of OTBR, OTBQ, OTBB, OLR, OLQ, OLB, FIDE, "
        "FIDE_RAPID, FIDE_BLITZ, ICU)\n"
    )


def test_systems_are_matched_case_insensitively(office):
    run, _ = office
    out = run("rating", A, "--system", "otbr", "--as-of", "2025-01-04", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["system"] == "OTBR"


@pytest.mark.parametrize(
    "amend",
    ["bonus_multiplier=10", "=10@2025-01-01", "bonus_multiplier=x@2025-01-01", "b=1@2025-13-01"],
)
def test_a_malformed_amend_gives_one_clear_line(office, amend):
    run, tmp = office
    out = run("replay", "--to", str(tmp / "what-if.db"), "--amend", amend)
    assert out.exit_code == 2
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --amend {amend!r}: ")
    assert "unpack" not in out.stderr
