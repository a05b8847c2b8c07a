"""Real tournament files (tests/fixtures/real/README.md names each one's repository and path),
imported as delivered: `import trf FILE --register-players` on a fresh ledger (issue 20: "Real
tournament files ... each imported as delivered with only --register-players on a fresh
ledger, every section listed after").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from test_web import get
from typer.testing import CliRunner, Result

from ledger.entrypoints.cli import app as main_app
from ledger.entrypoints.cli.reading import caught_up
from ledger.entrypoints.web.app import Site
from ledger.rules.time_controls import NOT_GIVEN
from projections import queries
from projections.unrated import NO_GAME

REAL = Path(__file__).parent / "fixtures" / "real"

# file → (extra options, section id, players, time control, online, players given an id)
COMPLETE = {
    "karl-mala-2005.trf": (
        [],
        "2005-07-28-9-karl-mala-gedenkturnier",
        283,  # 284 lines, one of them `spielfrei` (the bye)
        "40/120, SD/60",
        False,
        137,
    ),
    "lichess-2020-06.trf": ([], "2020-05-29-mai-5-plus-0-turnier", 13, NOT_GIVEN, True, 13),
    "lichess-2021-03.trf": ([], "2020-06-26-juni-blitzschach-5-plus-0", 9, NOT_GIVEN, True, 9),
    # In progress: XXR 3 with 2 rounds played, XXR 9 with 4 (issue 20: "--partial").
    "chesspairing-pair-input.trf": (
        ["--partial"],
        "2025-01-15-fide-grand-prix-2025",
        5,
        "40/90, SD/30;+30",
        False,
        2,
    ),
    "javafo-gros-2010-in-progress.trf": (
        ["--partial"],
        "2010-09-24-xx-open-internacional-de-gros",
        52,
        NOT_GIVEN,
        False,
        1,
    ),
    # FIDE's TRF-2026 team sample: all have a FIDE id (tests/test_import_trf26_team_file.py).
    "fide-trf26-team-sample.trf": (
        [],
        "2024-01-01-grandmommy-s-cup",
        248,  # 249 listed, one never fielded (a reserve)
        "40/100, SD/15;+30",
        False,
        0,
    ),
    # A Swiss-Manager team export: 129 listed, 88 played (`062 129 (88)`), 4 without FIDE id.
    "heltour-crete-friendship-cup-2024.trf": (
        [],
        "2024-11-23-diasyllogiko-kypello-kritikis-filias-2024",
        88,
        "G/15;+10",
        False,
        4,
    ),
    # bbpPairings team inputs: round 1 of 3, no dates (given), no time control.
    "bbppairings-team-330-forfeit.trf": (
        ["--start", "2025-01-01", "--end", "2025-01-01", "--partial"],
        "2025-01-01-team-330-whole-team-forfeit",
        4,
        NOT_GIVEN,
        False,
        4,
    ),
    "bbppairings-team-13-board-forfeits.trf": (
        ["--start", "2025-01-01", "--end", "2025-01-01", "--partial"],
        "2025-01-01-boards-forfeited-each-way-still-decide-the-match",
        12,
        NOT_GIVEN,
        False,
        12,
    ),
    # No 042, 052 or 132 line: the dates are the one thing the file cannot give.
    "olympiad-six-teams.trf": (
        ["--start", "2024-09-11", "--end", "2024-09-11", "--partial"],  # 142: 11 rounds
        "2024-09-11-olympiad-six-teams-of-four-after-round-1",
        24,
        NOT_GIVEN,
        False,
        24,
    ),
}


def store_of(cli: Callable[..., Result]) -> str:
    return cli.store  # type: ignore[attr-defined]


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., Result]:
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main_app, [*args, "--store", store])

    invoke.store = store  # type: ignore[attr-defined]

    assert invoke("init", "--actor", "ed").exit_code == 0
    return invoke


@pytest.mark.parametrize("name", COMPLETE)
def test_a_real_file_imports_with_only_register_players_and_is_listed(
    cli: Callable[..., Result], name: str
) -> None:
    options, section_id, players, time_control, online, assigned = COMPLETE[name]
    result = cli("import", "trf", str(REAL / name), "--register-players", "--actor", "ed",
                 "--json", *options)  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["sections"][0]["section_id"] == section_id
    assert summary["sections"][0]["players"] == players
    assert sum(m["by"] == "assigned" for m in summary["matched"]) == assigned
    listed = cli("sections")
    assert listed.exit_code == 0 and section_id in listed.stdout
    report = json.loads(cli("section", section_id, "--json").stdout)
    assert (report["time_control"], report["online"]) == (time_control, online)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("chesspairing-pair-input.trf", "3 rounds announced (XXR/142), 2 played"),
        ("javafo-gros-2010-in-progress.trf", "9 rounds announced (XXR/142), 4 played"),
    ],
)
def test_a_file_of_a_tournament_in_progress_is_refused_without_partial(
    cli: Callable[..., Result], name: str, why: str
) -> None:
    # Issue 20: "an in-progress file (`XXR 9`, 4 rounds played) is rated without a word".
    result = cli("import", "trf", str(REAL / name), "--register-players", "--actor", "ed")
    assert result.exit_code == 2
    assert f"the tournament is in progress ({why}); give --partial" in result.stderr
    assert "SectionSubmitted" not in cli("log").stdout


def test_a_partial_import_takes_only_the_rounds_played_and_says_so(
    cli: Callable[..., Result],
) -> None:
    # The Gros file enters round 5's byes ahead of the round: they are not imported.
    path = REAL / "javafo-gros-2010-in-progress.trf"
    result = cli("import", "trf", str(path), "--register-players", "--actor", "ed",
                 "--partial", "--json")  # fmt: skip
    summary = json.loads(result.stdout)
    assert any("only the rounds played are imported" in w for w in summary["warnings"])
    report = json.loads(cli("section", "2010-09-24-xx-open-internacional-de-gros", "--json").stdout)
    assert max(x["round"] for x in report["games"] + report["byes"]) == 4
    assert report["start_date"] == "2010-09-24"  # `042 24/09/2010`


def test_an_online_file_s_players_are_unrated_with_the_reason(cli: Callable[..., Result]) -> None:
    # Issue 20: "a section that is never rated ... shows no rating and no reason".
    path = REAL / "lichess-2020-06.trf"
    result = cli("import", "trf", str(path), "--register-players", "--actor", "ed", "--json")
    summary = json.loads(result.stdout)
    assert summary["sections"][0]["not_rated"] == {
        "uschess": "the report gives no time control: no US Chess system's range can hold it",
        "fide": "played online: FIDE's lists rate over-the-board games (B.02 1.1)",
        "icu": "played online: the ICU rates over-the-board games",
    }
    table = cli("crosstable", "2020-05-29-mai-5-plus-0-turnier", "--rules-family", "fide")
    assert "not rated: played online: FIDE's lists rate over-the-board games" in table.stdout
    member = summary["matched"][0]["member"]
    why = cli("explain", member, "--system", "FIDE", "--section",
              "2020-05-29-mai-5-plus-0-turnier", "--rules-family", "fide")  # fmt: skip
    assert why.exit_code == 0, why.output
    assert "not rated in FIDE: played online" in why.stdout


def test_the_same_unrated_player_in_two_files_is_one_member(cli: Callable[..., Result]) -> None:
    # Both lichess files hold `mattderkuerschner` without a FIDE id: the id the ledger assigns
    # depends on name, birth year and federation only (docs/decisions.md).
    ids = []
    for name in ("lichess-2020-06.trf", "lichess-2021-03.trf"):
        result = cli("import", "trf", str(REAL / name), "--register-players", "--actor", "ed",
                     "--json")  # fmt: skip
        matched = json.loads(result.stdout)["matched"]
        ids.append(next(m["member"] for m in matched if m["name"] == "mattderkuerschner"))
    assert ids[0] == ids[1]


def test_year_only_birth_dates_titles_and_federations_are_kept(cli: Callable[..., Result]) -> None:
    # Issue 20: "year-only birth dates are dropped; federations of unrated players are dropped".
    path = REAL / "javafo-gros-2010-in-progress.trf"
    result = cli("import", "trf", str(path), "--register-players", "--actor", "ed",
                 "--partial", "--json")  # fmt: skip
    matched = json.loads(result.stdout)["matched"]
    unrated = next(m["member"] for m in matched if m["by"] == "assigned")  # Gorrochategui
    with caught_up(store_of(cli), None, "uschess") as view:
        mirzoev, gorrochategui = (queries.player_card(view, m) for m in ("13400304", unrated))
    assert mirzoev is not None and gorrochategui is not None
    assert (mirzoev["title"], mirzoev["federation"], mirzoev["birth_year"]) == ("GM", "AZE", 1978)
    assert gorrochategui["name"] == "Gorrochategui Torres, Eugenio"
    assert (gorrochategui["federation"], gorrochategui["birth_year"]) == ("ESP", 1950)


def test_the_section_and_player_pages_say_why_nothing_is_rated(
    cli: Callable[..., Result],
) -> None:
    # Issue 20: "a section that is never rated (a G/1 online section, or everything under
    # --rules-family icu) shows no rating and no reason on the page ... or in the crosstable".
    path = REAL / "karl-mala-2005.trf"
    assert cli("import", "trf", str(path), "--register-players", "--actor", "ed").exit_code == 0
    site = Site(store_of(cli), family="icu")
    section = "2005-07-28-9-karl-mala-gedenkturnier"
    why = "no player was rated by ICU before: none to rate the others against"
    assert f"Not rated: {why}" in get(site, f"/sections/{section}").text
    assert get(site, f"/api/sections/{section}").json()["not_rated"] == why
    player = get(site, "/players/3400042").text  # Vasquez, Rodrigo
    assert f"not rated: {why}" in player
    explained = get(site, "/players/3400042/explain", f"system=ICU&section={section}")
    assert f"not rated in ICU: {why}" in explained.text


def test_the_import_report_names_each_player_without_a_rated_game(
    cli: Callable[..., Result],
) -> None:
    # Issue 20: "every unrated ... player says why" in the import report. Bakhmatov (player 13)
    # lost round 1 by forfeit (`153 - -`) and played no more.
    path = REAL / "karl-mala-2005.trf"
    result = cli("import", "trf", str(path), "--register-players", "--actor", "ed", "--json")
    unrated = json.loads(result.stdout)["sections"][0]["unrated_players"]
    assert unrated == {"14103435": NO_GAME}  # "no rated game (byes and forfeits are not rated)"
