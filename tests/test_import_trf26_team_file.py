"""FIDE's TRF-2026 team sample (tests/fixtures/real/README.md), imported as delivered (issue 20:
"a full FIDE TRF-2026 team file ... imports as delivered with only --register-players on a
fresh ledger, read as individual games with team awareness (boards, team rounds, no thousand
false byes), every section listed after"). Each number checked is one the file itself gives:
its 062 (players), 082 (teams), 142 (rounds), the points column of each 001 line, the game
points of each 310 team line and the 330 forfeited matches.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ledger.entrypoints.cli import app as main_app

FILE = Path(__file__).parent / "fixtures" / "real" / "fide-trf26-team-sample.trf"
SECTION = "2024-01-01-grandmommy-s-cup"
LINES = FILE.read_text().splitlines()


def tag(code: str) -> str:
    return next(line[4:].strip() for line in LINES if line.startswith(code + " "))


def records(code: str) -> list[str]:
    return [line for line in LINES if line.startswith(code + " ")]


def blocks(line: str) -> list[tuple[str, str]]:
    """A 001 line's rounds: (opponent, result code), TRF16's 10 columns from column 92."""
    return [(line[c : c + 4].strip(), line[c + 7]) for c in range(91, len(line), 10)]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Callable[..., Result], dict]:
    store = f"sqlite:///{tmp_path_factory.mktemp('trf26') / 'ledger.db'}"
    runner = CliRunner()

    def cli(*args: str) -> Result:
        return runner.invoke(main_app, [*args, "--store", store])

    assert cli("init", "--actor", "ed").exit_code == 0
    result = cli("import", "trf", str(FILE), "--register-players", "--actor", "ed", "--json")
    assert result.exit_code == 0, result.output
    return cli, json.loads(result.stdout)


def test_the_file_imports_as_delivered_and_its_section_is_listed(imported) -> None:
    cli, summary = imported
    (section,) = summary["sections"]
    assert section["section_id"] == SECTION
    assert section["players"] == int(tag("062")) == 249  # 062: number of players
    listed = cli("sections")
    assert listed.exit_code == 0 and SECTION in listed.stdout
    report = json.loads(cli("section", SECTION, "--json").stdout)
    # 122 `100'x40+15'+30"`: 40 moves in 100 minutes, 15 more, 30 seconds a move.
    assert report["time_control"] == "40/100, SD/15;+30"
    assert (report["start_date"], report["end_date"]) == ("2024-01-01", "2024-01-14")


def test_games_are_the_paired_boards_and_unfielded_boards_are_not_byes(imported) -> None:
    # Each game is on two 001 lines; `0000 - +` is a board won by forfeit (the other team did
    # not field it): an unplayed point. `0000 - -` is a board not fielded: nothing.
    _, summary = imported
    rounds = [b for line in records("001") for b in blocks(line)]
    paired = sum(1 for opponent, _ in rounds if opponent != "0000")
    won_unplayed = sum(1 for opponent, code in rounds if opponent == "0000" and code == "+")
    (section,) = summary["sections"]
    assert section["games"] == paired // 2 == 1030
    assert section["byes"] == won_unplayed == 98
    assert len(rounds) - paired - won_unplayed == 1328  # not fielded: no entry in the ledger


def test_each_player_s_total_is_the_points_the_file_gives(imported) -> None:
    # TRF16 001, columns 81-84: "Points".
    cli, _ = imported
    table = json.loads(cli("crosstable", SECTION, "--json").stdout)
    totals = {row["pair"]: row["total"] for row in table["rows"]}
    stated = {int(line[4:8]): float(line[80:84]) for line in records("001")}
    assert len(totals) == 249
    assert totals == stated


def test_the_import_reads_teams_boards_and_team_rounds(imported) -> None:
    # 082: number of teams; 142: number of rounds; 330: a match forfeited whole; 300: the
    # four players a team fields in a match.
    _, summary = imported
    team = summary["sections"][0]["team"]
    assert team["teams"] == int(tag("082")) == len(records("310")) == 50
    assert team["team_rounds"] == int(tag("142")) == 14
    assert team["forfeited_matches"] == len(records("330")) == 22
    assert team["boards"] == len(records("300")[0].split()) - 4 == 4
    assert team["players_in_teams"] == 249
    assert team["points_disagree"] == []
    assert summary["warnings"] == []


def test_each_team_s_game_points_are_its_players_totals_and_its_byes(imported) -> None:
    # 310 GGGGGG (columns 62-67): the team's game points. A team bye (802 FPB, HPB, PAB)
    # scores the team, not a player, so the file's total is the players' plus the byes'.
    cli, _ = imported
    table = json.loads(cli("crosstable", SECTION, "--json").stdout)
    totals = {row["pair"]: row["total"] for row in table["rows"]}
    byes = {
        int(line[4:7]): sum(
            float(line[c + 6 : c + 11])
            for c in range(27, len(line), 13)
            if line[c : c + 3] in ("FPB", "HPB", "PAB")
        )
        for line in records("802")
    }
    for line in records("310"):
        number, players = int(line[4:7]), [int(p) for p in line[72:].split()]
        assert sum(totals[p] for p in players) + byes[number] == float(line[61:67]), line


REAL = FILE.parent
DAYS = ["--start", "2025-01-01", "--end", "2025-01-01", "--partial"]


def import_json(tmp_path: Path, name: str) -> tuple[Callable[..., Result], dict]:
    store = f"sqlite:///{tmp_path / 'ledger.db'}"

    def cli(*args: str) -> Result:
        return CliRunner().invoke(main_app, [*args, "--store", store])

    assert cli("init", "--actor", "ed").exit_code == 0
    result = cli("import", "trf", str(REAL / name), "--register-players", "--actor", "ed",
                 "--json", *DAYS)  # fmt: skip
    assert result.exit_code == 0, result.output
    return cli, json.loads(result.stdout)


def test_a_match_forfeited_whole_is_a_team_match_without_a_board(tmp_path: Path) -> None:
    # bbpPairings' `330 +-   1   1   2`: team 1 won round 1 against team 2 by forfeit; its
    # player has `0000 - +` (an unplayed point), team 2's `0000 - Z` (a zero-point bye, as the
    # file says). Teams 3 and 4 played one game.
    cli, summary = import_json(tmp_path, "bbppairings-team-330-forfeit.trf")
    (section,) = summary["sections"]
    assert (section["games"], section["byes"]) == (1, 2)
    team = section["team"]
    assert (team["team_matches"], team["forfeited_matches"], team["boards"]) == (2, 1, 1)
    report = json.loads(cli("section", section["section_id"], "--json").stdout)
    assert sorted(b["bye"] for b in report["byes"]) == ["full", "zero"]


def test_boards_forfeited_between_paired_players_are_unrated_games(tmp_path: Path) -> None:
    # bbpPairings' team_13: team 1 vs team 2 decided by forfeits each way on three boards
    # (`4 w +`, `5 b -`, `6 w -`), team 3 vs team 4 played: 6 games, 3 of them forfeits, and
    # the six players of teams 1 and 2 have no rated game.
    cli, summary = import_json(tmp_path, "bbppairings-team-13-board-forfeits.trf")
    (section,) = summary["sections"]
    report = json.loads(cli("section", section["section_id"], "--json").stdout)
    # White won boards 1 and 2 by forfeit (`1 w +`, `5 w +`), black board 3 (`6 b +`); then
    # 7 beat 10 and 9 beat 12 as white, 8 beat 11 as black.
    results = sorted(g["result"] for g in report["games"])
    assert results == ["0-1", "0F-1F", "1-0", "1-0", "1F-0F", "1F-0F"]
    assert len(section["unrated_players"]) == 6
    assert section["team"] == {
        "teams": 4,
        "players_in_teams": 12,
        "team_matches": 2,
        "forfeited_matches": 0,
        "boards": 3,
        "team_rounds": 1,
        "points_disagree": [],
    }
