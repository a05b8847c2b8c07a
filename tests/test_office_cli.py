"""The ratings office's daily work on the command line: section, requests, reinstate,
revoke-override, dry runs, log, supplement, one error style, help, version."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

A, B, C, D = "80000001", "80000002", "80000003", "80000004"
LONG = "Alexandra Maximiliana Featherstonehaugh-Cholmondeley"
ROOT = Path(__file__).parent.parent


@pytest.fixture
def office(tmp_path):
    """A SQLite ledger: four established players (A has a long name) and one section."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, adult=True, name=LONG, birth_date="1990-04-01")
    led.register(B, C, D, adult=True)
    for p, r in zip((A, B, C, D), (1500.0, 1600.0, 1700.0, 1800.0), strict=True):
        led.opening(p, "OTBR", r, 60, wins=25, draws=10, losses=25)
    led.opening(D, "OTBQ", 1400.0, 10, wins=5, draws=0, losses=5)
    led.submit(round_robin("JAN", [A, B, C], "2025-01-04"))
    led.app.close()
    runner = CliRunner()

    def run(*args, store_option=True):
        return runner.invoke(app, [*args, *(["--store", store] if store_option else [])])

    return run, tmp_path, store


def entries(run):
    return json.loads(run("log", "--json").stdout)


def test_a_section_round_trips_through_correct(office):
    run, tmp, _ = office
    shown = run("section", "JAN", "--json")
    assert shown.exit_code == 0, shown.output
    file = tmp / "jan.json"
    file.write_text(shown.stdout)
    before = len(entries(run))
    same = run("correct", "JAN", str(file), "--reason", "check", "--actor", "admin")
    assert same.exit_code == 2 and "changes nothing" in same.stderr
    assert len(entries(run)) == before
    report = json.loads(shown.stdout)
    report["games"][0]["result"] = "0-1"
    file.write_text(json.dumps(report))
    edited = run("correct", "JAN", str(file), "--reason", "wrong result", "--actor", "admin")
    assert edited.exit_code == 0, edited.output
    assert entries(run)[-1]["type"] == "SectionCorrected"
    assert json.loads(run("section", "JAN", "--json").stdout)["games"][0]["result"] == "0-1"


def test_a_section_not_in_the_ledger_is_missing(office):
    run, _, _ = office
    out = run("section", "NOPE")
    assert out.exit_code == 1 and out.stderr == "error: section 'NOPE' is not in the ledger\n"


def test_a_withdrawn_section_is_reinstated_as_a_new_fact(office):
    run, _, _ = office
    rated = json.loads(run("player", A, "--json").stdout)["ratings"]["OTBR"]
    assert run("withdraw", "JAN", "--reason", "late", "--actor", "admin").exit_code == 0
    assert run("section", "JAN").exit_code == 1
    out = run("reinstate", "JAN", "--reason", "report arrived", "--actor", "admin")
    assert out.exit_code == 0, out.output
    assert "recorded SectionReinstated" in out.stdout and LONG in out.stdout
    types = [e["type"] for e in entries(run)]
    assert types[-2:] == ["SectionWithdrawn", "SectionReinstated"]
    assert json.loads(run("player", A, "--json").stdout)["ratings"]["OTBR"] == rated
    again = run("reinstate", "JAN", "--reason", "twice", "--actor", "admin")
    assert again.exit_code == 2 and "is not withdrawn" in again.stderr


def test_reinstating_gives_the_same_read_model_as_a_rebuild(office, tmp_path):
    run, _, _ = office
    run("catch-up")
    run("withdraw", "JAN", "--reason", "late", "--actor", "admin")
    run("reinstate", "JAN", "--reason", "back", "--actor", "admin")
    caught = json.loads(run("catch-up", "--json").stdout)
    assert caught["last_position"] == len(entries(run))
    incremental = run("history", A, "--system", "OTBR", "--json").stdout
    run("rebuild")
    assert run("history", A, "--system", "OTBR", "--json").stdout == incremental


def test_a_directors_decision_is_revoked_as_a_new_fact(office):
    run, _, _ = office
    args = ("--player", B, "--action", "impose_ceiling", "--value", "1550")
    decided = run(
        "override", *args, "--effective", "2025-02-01", "--reason", "r", "--actor", "director"
    )
    assert decided.exit_code == 0, decided.output
    position = entries(run)[-1]["position"]
    assert json.loads(run("player", B, "--json").stdout)["ratings"]["OTBR"]["ceiling"] == 1550
    dry = run(
        "revoke-override", str(position), "--reason", "appeal", "--actor", "director", "--dry-run"
    )
    assert dry.exit_code == 0 and "would record OverrideRevoked" in dry.stdout
    out = run("revoke-override", str(position), "--reason", "appeal", "--actor", "director")
    assert out.exit_code == 0, out.output
    assert json.loads(run("player", B, "--json").stdout)["ratings"]["OTBR"]["ceiling"] is None
    again = run("revoke-override", str(position), "--reason", "again", "--actor", "director")
    assert again.exit_code == 2 and "already revoked" in again.stderr
    other = run("revoke-override", "1", "--reason", "x", "--actor", "director")
    assert other.exit_code == 2 and "not the position of a director's decision" in other.stderr
    refused = run("revoke-override", str(position), "--reason", "x", "--actor", "admin")
    assert refused.exit_code == 4


def test_revoking_and_reinstating_take_the_roles_of_override_and_withdraw(office):
    run, _, _ = office
    assert run("withdraw", "JAN", "--reason", "late", "--actor", "admin").exit_code == 0
    assert run("reinstate", "JAN", "--reason", "back", "--actor", "td").exit_code == 4


@pytest.mark.parametrize(
    ("command", "make"),
    [
        ("submit", lambda: round_robin("FEB", [A, D], "2025-02-01")),
        (
            "match",
            lambda: {
                "match_id": "M1",
                "online": False,
                "time_control": "G/120",
                "start_date": "2025-03-01",
                "end_date": "2025-03-01",
                "players": [{"id": A}, {"id": B}],
                "games": [{"round": 1, "white": A, "black": B, "result": "1-0"}],
            },
        ),
        (
            "fide-adjust",
            lambda: {
                "player": A,
                "rating_list": "2025-02-01",
                "games": [{"opponent_rating": 1900, "score": 1}],
            },
        ),
        ("register", lambda: {"id": "80000009", "name": "New Player"}),
        (
            "opening-balance",
            lambda: {
                "player": B,
                "system": "OTBQ",
                "as_of": "2020-01-01",
                "rating": 1500,
                "games": 30,
            },
        ),
    ],
)
def test_every_file_write_has_a_dry_run_with_the_consequences(office, command, make):
    run, tmp, _ = office
    file = tmp / f"{command}.json"
    file.write_text(json.dumps(make()))
    before = entries(run)
    actor = "director"
    out = run(command, str(file), "--actor", actor, "--dry-run", "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["dry_run"] and report["entries"]
    assert entries(run) == before
    if command in ("submit", "match", "fide-adjust"):
        assert any(c["player"] == A and c["name"] == LONG for c in report["changed"])


def test_a_money_floor_award_has_a_dry_run(office):
    run, _, _ = office
    before = entries(run)
    args = ("--player", A, "--amount", "5000", "--limit", "1800", "--date", "2025-02-01")
    out = run("award-money-floor", *args, "--actor", "director", "--dry-run")
    assert out.exit_code == 0, out.output
    assert "would record MoneyFloorAwarded" in out.stdout and LONG in out.stdout
    assert entries(run) == before


def test_requests_lists_a_pending_floor_lowering_request(office):
    run, _, _ = office
    # the fixture's section JAN, a TD's upload, awaits review (issue 32): reviewed first
    assert run("review", "JAN", "--actor", "admin").exit_code == 0
    assert json.loads(run("requests", "--json").stdout) == []
    assert run("requests").stdout == "nothing awaits an admin\n"
    args = ("--player", C, "--action", "impose_ceiling", "--value", "50")
    run("override", *args, "--effective", "2025-02-01", "--reason", "r", "--actor", "director")
    rows = json.loads(run("requests", "--json").stdout)
    assert [(r["kind"], r["player"], r["ceiling"]) for r in rows] == [
        ("ceiling_below_floor", C, 50)
    ]
    assert run("requests", "--csv").stdout.startswith("kind,player,name,system")


def test_log_filters_by_type_actor_section_and_date_newest_first(office):
    run, _, _ = office
    run("withdraw", "JAN", "--reason", "late", "--actor", "admin")
    out = run("log", "--section", "JAN", "--newest-first", "--json")
    assert [e["type"] for e in json.loads(out.stdout)] == ["SectionWithdrawn", "SectionSubmitted"]
    by_admin = json.loads(
        run("log", "--actor", "admin", "--type", "sectionwithdrawn", "--json").stdout
    )
    assert [e["type"] for e in by_admin] == ["SectionWithdrawn"]
    assert json.loads(run("log", "--since", "2999-01-01", "--json").stdout) == []
    bad = run("log", "--since", "yesterday")
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --since: ")
    assert run("log", "--csv").stdout.startswith("position,recorded_at,type,actor,subject\n")


def test_log_columns_stay_aligned_for_long_names(office):
    run, tmp, _ = office
    file = tmp / "p.json"
    file.write_text(json.dumps({"id": "80000010"}))
    run(
        "grant-role",
        "a-very-long-actor-name-for-the-office",
        "ratings_admin",
        "--actor",
        "director",
    )
    run("register", str(file), "--actor", "a-very-long-actor-name-for-the-office")
    lines = run("log").stdout.splitlines()
    starts = {line.index("member_id=") for line in lines if "member_id=" in line}
    assert len(starts) == 1
    types = {line.index("PlayerRegistered") for line in lines if "PlayerRegistered" in line}
    assert len(types) == 1


def test_log_piped_into_head_exits_0(office):
    _, _, store = office
    shell = f"{sys.executable} -m ledger log --store {store} | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "--json"),
        ("catch-up", "--json"),
        ("crosstable", "JAN", "--json"),
        ("history", A, "--system", "OTBR", "--json"),
        ("requests", "--json"),
        ("section", "JAN", "--json"),
        ("supplement", "--as-of", "2025-02-01", "--json"),
    ],
)
def test_commands_that_print_data_print_json(office, args):
    run, _, _ = office
    out = run(*args)
    assert out.exit_code == 0, out.output
    json.loads(out.stdout)


def test_a_supplement_has_one_row_per_member_across_systems_with_provisional_marks(office):
    run, _, _ = office
    out = run(
        "supplement",
        "--as-of",
        "2025-02-01",
        "--sort",
        "name",
        "--system",
        "otbr",
        "--system",
        "OTBQ",
    )
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["ID", "Name", "OTBR", "N", "OTBQ", "N"]
    row = next(line for line in lines if line.startswith(D))
    # §1: a rating is established if based on more than 25 games; D's OTBQ has 10.
    assert row.split()[-4:] == ["1800", "60", "1400P10", "10"]
    assert lines[1].startswith(A) and LONG in lines[1]
    assert len({len(line) for line in lines[1:] if line.endswith("10")}) == 1


def test_a_supplement_filters_by_games(office):
    run, _, _ = office
    out = run(
        "supplement",
        "--as-of",
        "2025-02-01",
        "--json",
        "--system",
        "OTBQ",
        "--min-games",
        "11",
    )
    assert json.loads(out.stdout)["players"] == []


def test_a_supplement_in_the_fide_txt_layout(office):
    run, _, _ = office
    out = run("supplement", "--as-of", "2025-02-01", "--fide-txt", "--sort", "name")
    assert out.exit_code == 0, out.output
    head, first, *_ = out.stdout.splitlines()
    assert head.startswith("ID Number      Name")
    assert head.index("Fed") == 76 and head.index("FEB25") == 113
    assert first[:15].strip() == A and first[15:76].strip() == LONG
    assert first[113:119].strip() == str(round(float(first[113:119])))
    assert first[126:132].strip() == "1990"


def test_a_supplement_as_csv(office):
    run, _, _ = office
    out = run("supplement", "--as-of", "2025-02-01", "--csv", "--system", "OTBR")
    assert (
        out.stdout.splitlines()[0]
        == "id,name,federation,birth_year,OTBR_rating,OTBR_games,OTBR_established"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("submit",),
        ("nosuch",),
        ("log", "--limit", "x"),
        ("supplement", "--as-of", "2025-02-01", "--format", "pdf"),
        ("supplement", "--as-of", "2025-02-01", "--fide-txt", "--csv"),
    ],
)
def test_a_usage_error_is_one_error_line_with_exit_2(office, args):
    run, _, _ = office
    out = run(*args, store_option=False)
    assert out.exit_code == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")


@pytest.mark.parametrize(
    "command",
    ["submit", "correct", "history", "supplement", "log", "rating", "revoke-override", "section"],
)
def test_help_shows_real_metavars(office, command):
    run, _, _ = office
    out = run(command, "--help", store_option=False)
    assert out.exit_code == 0
    for bad in ("<str>", "<bool>", "<int>", "<path>", "{file}", "{"):
        assert bad not in out.stdout
    assert any(m in out.stdout for m in ("FILE", "DATE", "ID", "POSITION"))


def test_version_and_completion(office):
    run, _, _ = office
    out = run("--version", store_option=False)
    assert out.exit_code == 0 and out.stdout.startswith("ratings-ledger ")
    assert "--install-completion" in run("--help", store_option=False).stdout


def test_init_creates_a_postgresql_schema_that_does_not_exist(postgres_url):
    import uuid

    import psycopg

    schema = f"test_new_{uuid.uuid4().hex[:12]}"
    try:
        out = CliRunner().invoke(
            app, ["init", "--actor", "director", "--store", f"{postgres_url}?schema={schema}"]
        )
        assert out.exit_code == 0, out.output
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_the_demo_installs_without_the_test_extras_and_shows_progress():
    demo = (ROOT / "scripts" / "demo").read_text()
    assert ".[test]" not in demo and "scripts/setup" not in demo
    assert "pip install" in demo and "--quiet" not in demo


def test_diff_names_the_players_who_change(office):
    run, tmp, _ = office
    assert run("replay", "--to", str(tmp / "before.db")).exit_code == 0
    run("withdraw", "JAN", "--reason", "late", "--actor", "admin")
    run("catch-up")
    out = run(
        "diff", str(tmp / "before.db"), str(tmp / "ledger.view.db"), "--json", store_option=False
    )
    assert out.exit_code == 0, out.output
    largest = json.loads(out.stdout)["largest"]
    assert {(x["player"], x["name"]) for x in largest} >= {(A, LONG)}
