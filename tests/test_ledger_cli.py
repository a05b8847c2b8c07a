"""The ledger's command line: write verbs, `log`, one-line errors with exit code 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from ledger.entrypoints.cli.writes import register

EXAMPLES = Path(__file__).parent.parent / "examples"
Run = Callable[..., Result]
SET_UP = (
    ("init", "--actor", "director"),
    ("grant-role", "office", "ratings_admin", "--actor", "director"),
    ("grant-role", "td", "tournament_director", "--actor", "director"),
)
SET_UP_ENTRIES = 4  # LedgerInitialized, then a RoleGranted each for director, office and td


@pytest.fixture
def run(store_url: str, tmp_path: Path) -> Run:
    """Invoke `ratings-ledger ARGS --store STORE` (the store given as an option)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    runner = CliRunner()

    def invoke(*args: str, store: bool = True) -> Result:
        return runner.invoke(app, [*args, *(["--store", store_url] if store else [])])

    return invoke


@pytest.fixture
def write(tmp_path: Path) -> Callable[[Any], str]:
    """Write JSON (or raw text) to a new file and return its path."""
    count = iter(range(1_000_000))

    def make(content: Any) -> str:
        path = tmp_path / f"input-{next(count)}.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return str(path)

    return make


def log_json(run: Run) -> list[dict[str, Any]]:
    result = run("log", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def ready(run: Run) -> Run:
    """A ledger set up by `director`; `office` is a ratings admin and `td` a tournament director."""
    for args in SET_UP:
        assert run(*args).exit_code == 0
    return run


@pytest.fixture
def populated(ready: Run) -> Run:
    """The example players and section, after the set-up."""
    for args in (
        ("register", str(EXAMPLES / "players.json"), "--actor", "office"),
        ("submit", str(EXAMPLES / "section-submit.json"), "--actor", "td"),
    ):
        assert ready(*args).exit_code == 0
    return ready


def test_the_examples_register_submit_and_show_in_the_json_log(populated: Run) -> None:
    # Brief: "log --json prints a JSON list of entries each with at least position, type,
    # recorded_at, actor"; the examples are "small realistic examples".
    entries = log_json(populated)[SET_UP_ENTRIES:]
    assert [e["type"] for e in entries] == ["PlayerRegistered"] * 6 + ["SectionSubmitted"]
    assert [e["position"] for e in entries] == list(range(SET_UP_ENTRIES + 1, SET_UP_ENTRIES + 8))
    assert {e["actor"] for e in entries} == {"office", "td"}
    assert all(e["recorded_at"] and e["payload"] for e in entries)
    assert entries[-1]["payload"]["games"][1]["result"] == "1/2-1/2"


def test_init_records_its_actor_as_the_director_of_a_new_ledger(run: Run) -> None:
    # Brief: "init"; "SQLite ... must work with zero set-up"; roles: "The first actor set up at
    # `init` is the director".
    result = run("init", "--actor", "ann")
    assert result.exit_code == 0, result.output
    assert "director 'ann', family uschess (2 entries)\nreceipt " in result.stdout
    entries = log_json(run)
    assert [(e["type"], e["actor"]) for e in entries] == [
        ("LedgerInitialized", "ann"),
        ("RoleGranted", "ann"),
    ]
    key = entries[0]["payload"]["public_key"]
    assert entries[1]["payload"] == {"holder": "ann", "role": "director", "public_key": key}


def test_every_option_verb_appends_its_fact(populated: Run, write: Callable[[Any], str]) -> None:
    # Brief: the verbs "correct ... --reason, withdraw ... --reason, award-money-floor (options:
    # --player --amount --limit --date --system), override (options), amend-rules (options:
    # --parameter --value --effective [--until] --reason)".
    section = json.loads((EXAMPLES / "section-submit.json").read_text())
    section["games"][0]["result"] = "0-1"
    commands = [
        ("correct", "2024-05-GRANDPRIX-OPEN", write(section), "--reason", "result reversed"),
        (
            "award-money-floor",
            "--player",
            "30000005",
            "--amount",
            "4000",
            "--limit",
            "1800",
            "--date",
            "2024-05-05",
        ),
        (
            "override",
            "--player",
            "30000001",
            "--action",
            "impose_ceiling",
            "--value",
            "2100",
            "--effective",
            "2024-06-01",
            "--reason",
            "review",
            "--system",
            "OTBQ",
        ),
        (
            "amend-rules",
            "--parameter",
            "bonus_multiplier",
            "--value",
            "10",
            "--effective",
            "2025-01-01",
            "--until",
            "2026-01-01",
            "--reason",
            "vote",
        ),
        ("withdraw", "2024-05-GRANDPRIX-OPEN", "--reason", "irregular pairings"),
    ]
    for args in commands:
        result = populated(*args, "--actor", "director")
        assert result.exit_code == 0, result.output
        # a correction first shows the report's changes (issue 31), then what it recorded
        assert "\nrecorded " in "\n" + result.stdout
    entries = log_json(populated)[SET_UP_ENTRIES + 7 :]
    assert [e["type"] for e in entries] == [
        "SectionCorrected",
        "MoneyFloorAwarded",
        "DirectorOverride",
        "RulesAmended",
        "SectionWithdrawn",
    ]
    assert entries[1]["payload"]["amount"] == 4000 and entries[1]["payload"]["limit"] == 1800
    assert entries[2]["payload"]["value"] == 2100 and entries[2]["payload"]["system"] == "OTBQ"
    assert entries[3]["payload"]["until"] == "2026-01-01"


def test_the_file_verbs_for_balances_fide_games_and_matches_append(
    populated: Run, write: Callable[[Any], str]
) -> None:
    # Brief: "opening-balance FILE.json", "fide-adjust FILE.json", "match FILE.json".
    balance = {
        "player": "30000001",
        "system": "OTBR",
        "as_of": "2024-01-01",
        "rating": 2050,
        "games": 300,
        "peak": 2120,
    }
    fide = [
        {
            "player": "30000002",
            "rating_list": "2024-06-01",
            "games": [{"opponent_rating": 2200, "score": 0.5}],
        }
    ]
    match = {
        "match_id": "M-2024-1",
        "online": True,
        "time_control": "G/15+10",
        "start_date": "2024-06-02",
        "end_date": "2024-06-02",
        "players": [{"id": "30000001"}, {"id": "30000002"}],
        "games": [{"round": 1, "white": "30000001", "black": "30000002", "result": "1-0"}],
    }
    for verb, content in (("opening-balance", balance), ("fide-adjust", fide), ("match", match)):
        result = populated(verb, write(content), "--actor", "director")
        assert result.exit_code == 0, result.output
    assert [e["type"] for e in log_json(populated)[SET_UP_ENTRIES + 7 :]] == [
        "OpeningBalanceRecorded",
        "FideAdjustmentSubmitted",
        "MatchResultSubmitted",
    ]


def section_with(**changes: Any) -> dict[str, Any]:
    section = json.loads((EXAMPLES / "section-submit.json").read_text())
    section["section_id"] = "NEW-SECTION"
    section.update(changes)
    return section


def games_with(index: int, **changes: Any) -> list[dict[str, Any]]:
    games = section_with()["games"]
    games[index] = {**games[index], **changes}
    return games


BAD_INPUTS: list[tuple[str, tuple[Any, ...], str]] = [
    ("bad JSON", ("submit", "{not json"), "not valid JSON (Expecting property name enclosed"),
    ("unknown field", ("submit", section_with(prize_fund=500)), "prize_fund: is not a known fi"),
    ("wrong type", ("submit", section_with(online="no")), "online: 'no': input should be a val"),
    (
        "unregistered player",
        ("submit", section_with(players=[*section_with()["players"], {"id": "99"}])),
        "players[6].id: '99' is not a registered player",
    ),
    (
        "unknown player in a game",
        ("submit", section_with(games=games_with(3, black="99"))),
        "games[3].black: '99' is not in players",
    ),
    (
        "player paired with themselves",
        ("submit", section_with(games=games_with(0, black="12345678"))),
        "games[0].black: '12345678' is paired with themselves",
    ),
    (
        "bad result",
        ("submit", section_with(games=games_with(3, result="2-0"))),
        "games[3].result: '2-0' is not one of 1-0, 0-1, 1/2-1/2, 1F-0F, 0F-1F",
    ),
    (
        "end before start",
        ("submit", section_with(end_date="2024-05-01")),
        "end_date: 2024-05-01 is before start_date 2024-05-04",
    ),
    (
        "negative rating",
        ("register", {"id": "40000000", "fide": {"rating": -1}}),
        "fide.rating: -1: input should be greater than or equal to 0",
    ),
    (
        "duplicate section id",
        ("submit", section_with(section_id="2024-05-GRANDPRIX-OPEN")),
        "section_id: section '2024-05-GRANDPRIX-OPEN' already exists",
    ),
    (
        "bad item in a list",
        ("register", [{"id": "40000000"}, {"id": "40000001", "adult": "yes"}]),
        "[1].adult: 'yes': input should be a valid boolean",
    ),
    (
        "unregistered player in a list",
        (
            "opening-balance",
            [
                {
                    "player": "12345678",
                    "system": "OTBR",
                    "as_of": "2024-01-01",
                    "rating": 1,
                    "games": 1,
                },
                {"player": "77", "system": "OTBR", "as_of": "2024-01-01", "rating": 1, "games": 1},
            ],
        ),
        "[1].player: '77' is not a registered player",
    ),
    ("empty list", ("register", []), "the list is empty"),
]


@pytest.mark.parametrize(("name", "args", "line"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_file_input_exits_2_with_one_line_naming_the_field_and_appends_nothing(
    populated: Run, write: Callable[[Any], str], name: str, args: tuple[Any, ...], line: str
) -> None:
    # Brief: "bad input (...) → exit code 2 and ONE clear line on stderr naming the field and
    # value ..., never a traceback, and nothing appended (test that the log is unchanged)".
    before = log_json(populated)
    verb, content = args
    result = populated(verb, write(content), "--actor", "director")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert line in result.stderr
    assert log_json(populated) == before


BAD_OPTIONS: list[tuple[str, tuple[str, ...], str]] = [
    ("withdraw unknown", ("withdraw", "NOPE", "--reason", "x"), "section 'NOPE' does not exist"),
    (
        "correct another id",
        ("correct", "OTHER", str(EXAMPLES / "section-submit.json"), "--reason", "x"),
        "section_id: '2024-05-GRANDPRIX-OPEN' in ",
    ),
    ("missing file", ("submit", "/nonexistent/section.json"), "section.json: no such file"),
    (
        "amount not a number",
        (
            "award-money-floor",
            "--player",
            "30000005",
            "--amount",
            "lots",
            "--limit",
            "1800",
            "--date",
            "2024-05-05",
        ),
        "amount: 'lots': input should be a valid number",
    ),
    (
        "ceiling without value",
        (
            "override",
            "--player",
            "30000005",
            "--action",
            "impose_ceiling",
            "--effective",
            "2024-05-05",
            "--reason",
            "x",
        ),
        "value: is required to impose ceiling",
    ),
    (
        "unknown parameter",
        (
            "amend-rules",
            "--parameter",
            "k",
            "--value",
            "1",
            "--effective",
            "2025-01-01",
            "--reason",
            "x",
        ),
        "parameter: 'k' is not one of bonus_multiplier",
    ),
    ("empty reason", ("withdraw", "2024-05-GRANDPRIX-OPEN", "--reason", ""), "reason: must not"),
]


@pytest.mark.parametrize(("name", "args", "line"), BAD_OPTIONS, ids=[b[0] for b in BAD_OPTIONS])
def test_bad_option_input_exits_2_with_one_line_and_appends_nothing(
    populated: Run, name: str, args: tuple[str, ...], line: str
) -> None:
    # Brief: "correcting/withdrawing an unknown ... section, …" → exit 2, one line, nothing
    # appended.
    before = log_json(populated)
    result = populated(*args, "--actor", "director")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and line in result.stderr
    assert log_json(populated) == before


def test_a_write_without_actor_is_refused(populated: Run) -> None:
    # Brief: "Every write takes --actor (required)".
    before = log_json(populated)
    result = populated("withdraw", "2024-05-GRANDPRIX-OPEN", "--reason", "x")
    assert result.exit_code == 2 and "--actor" in result.stderr
    assert log_json(populated) == before


def test_log_prints_a_line_per_entry_after_a_position_up_to_a_limit(populated: Run) -> None:
    # Brief: "log [--json] [--after N] [--limit N]".
    after = SET_UP_ENTRIES + 2
    lines = populated("log", "--after", str(after), "--limit", "3").stdout.splitlines()
    assert [int(line.split()[0]) for line in lines] == [after + 1, after + 2, after + 3]
    assert all("PlayerRegistered" in line and "office" in line for line in lines)
    last = SET_UP_ENTRIES + 7
    assert [
        e["position"]
        for e in json.loads(populated("log", "--json", "--after", str(last - 1)).stdout)
    ] == [last]


def test_the_store_defaults_to_the_ratings_ledger_store_variable(
    ready: Run, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Brief: "--store (default from RATINGS_LEDGER_STORE, else sqlite:///ratings-ledger.db)".
    monkeypatch.setenv("RATINGS_LEDGER_STORE", store_url)
    result = ready("register", str(EXAMPLES / "players.json"), "--actor", "office", store=False)
    assert result.exit_code == 0, result.output
    assert len(log_json(ready)) == SET_UP_ENTRIES + 6


def test_a_store_problem_exits_1_with_one_line(run: Run, tmp_path: Path) -> None:
    # Brief: errors are one clear line, "never a traceback".
    app = typer.Typer(add_completion=False)
    register(app)
    result = CliRunner().invoke(app, ["log", "--store", "mysql://x@y/z"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: store 'mysql://x@y/z': use sqlite:///")
