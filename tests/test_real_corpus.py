"""The real-file corpus (tests/fixtures/real/corpus.toml; README.md there names each file's
repository, path, commit and licence), each file on a fresh ledger as a new user would import it.

Issue 31, "Every real file goes in": "Each imports as delivered, or is refused in one line that
names the flag that supplies what is truly missing, and then imports with it", and "every
player's total and games equal to the file's". The file's totals are read here from its own
player lines (TRF16: the opponent in columns 92-95 of each round's block, the result code in
column 99), not by the importer.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from ledger.entrypoints.cli import app as main_app
from ledger.entrypoints.interchange import trf, trf_header
from ledger.rules.time_notation import ledger_time_control

REAL = Path(__file__).parent / "fixtures" / "real"
CORPUS = {f["file"]: f for f in tomllib.loads((REAL / "corpus.toml").read_text())["file"]}
# TRF16 result codes and what each scores: "1" win, "=" draw, "0" loss; "+" forfeit win, "-"
# forfeit loss; "W", "D", "L" unrated; "H" half-point bye, "F" full-point bye, "U"
# pairing-allocated bye, "Z" (or blank) zero-point bye.
SCORES = {"1": 1.0, "+": 1.0, "W": 1.0, "F": 1.0, "U": 1.0, "=": 0.5, "D": 0.5, "H": 0.5}
NO_GAME = frozenset("-D")  # both sides forfeited, or an unplayed draw: no game was played
FLAG = re.compile(r"--[a-z][a-z-]*")


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., Result]:
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main_app, [*args, "--store", store])

    assert invoke("init", "--actor", "ed").exit_code == 0
    return invoke


def test_the_corpus_holds_every_real_file_and_thirty_or_more() -> None:
    # Issue 31: "a corpus of real tournament files ... at least 30".
    assert set(CORPUS) == {p.name for p in REAL.glob("*.trf")}
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_a_real_file_goes_in_with_only_the_flags_its_refusals_name(
    cli: Callable[..., Result], name: str
) -> None:
    entry = CORPUS[name]
    result, args = _import_naming_flags(cli, REAL / name, _options(entry["flags"]))
    summary = json.loads(result.stdout)
    section = summary["sections"][0]
    assert (section["players"], section["games"]) == (entry["players"], entry["games"])
    # The section as the ledger holds it: its one SectionSubmitted entry (a refused import
    # appended nothing).
    log = json.loads(cli("log", "--json").stdout)
    (report,) = (e["payload"] for e in log if e["type"] == "SectionSubmitted")
    members = {m["start"]: m["member"] for m in summary["matched"]}
    assert _ledger_totals(report) == _file_totals(REAL / name, members, "--partial" in args)


def _options(flags: list[str]) -> dict[str, list[str]]:
    """The manifest's flags, each with its value (if it takes one)."""
    options: dict[str, list[str]] = {}
    for item in flags:
        if item.startswith("--"):
            options[item] = []
            last = item
        else:
            options[last].append(item)
    return options


def _import_naming_flags(
    cli: Callable[..., Result], path: Path, options: dict[str, list[str]]
) -> tuple[Result, list[str]]:
    """Import as delivered; while refused, the refusal is one `error:` line naming a flag the
    manifest holds and not yet given, which is then given. Every flag the manifest holds must
    have been asked for."""
    args: list[str] = []
    while True:
        result = cli("import", "trf", str(path), "--register-players", "--actor", "ed", "--json",
                     *args)  # fmt: skip
        if result.exit_code == 0:
            break
        assert result.exit_code == 2, result.output
        line = result.stderr.rstrip("\n")
        assert "\n" not in line and line.startswith("error: "), line
        named = [f for f in FLAG.findall(line) if f in options and f not in args]
        assert named, f"the refusal names no flag the manifest gives: {line}"
        args += [named[0], *options[named[0]]]
    assert set(options) <= set(args), f"flags never asked for: {set(options) - set(args)}"
    return result, args


def _file_totals(
    path: Path, members: dict[int, str], partial: bool
) -> dict[str, tuple[int, float]]:
    """Each member's games and points as the file's own player lines give them (a player the
    ledger does not list, a team's reserve or the bye's line, must have none); a partial
    import's rounds are those up to the last with a game in it."""
    lines = re.split(r"\r\n|\r|\n", path.read_bytes().decode("utf-8", errors="replace"))
    grid = {int(line[4:8]): _rounds(line) for line in lines if line.startswith("001")}
    played = max(
        (r for rounds in grid.values() for r, (opp, _) in rounds.items() if opp), default=0
    )
    totals: Counter[tuple[str, str]] = Counter()
    for start, rounds in grid.items():
        for number, (opponent, code) in rounds.items():
            if partial and number > played:
                continue
            other = grid.get(opponent or 0, {}).get(number, (None, " "))[1]
            game = opponent is not None and not (code in NO_GAME and other in NO_GAME)
            if start not in members:
                assert not game and not SCORES.get(code), f"{path.name}: player {start} left out"
                continue
            totals[(members[start], "games")] += game
            totals[(members[start], "points")] += SCORES.get(code, 0.0)  # type: ignore[assignment]
    return {m: (int(totals[(m, "games")]), float(totals[(m, "points")])) for m in members.values()}


def _rounds(line: str) -> dict[int, tuple[int | None, str]]:
    """A player line's rounds: the opponent's starting rank (None: none) and the result code,
    up to a round paired and not yet played (`*`, or an opponent without a result)."""
    rounds: dict[int, tuple[int | None, str]] = {}
    for number, column in enumerate(range(91, len(line.rstrip()), 10), start=1):
        block = line[column : column + 10].ljust(10)
        opponent = int(block[:4]) if block[:4].strip() else 0
        if block[7] == "*" or (block[7] == " " and opponent):
            break
        rounds[number] = (opponent or None, block[7].upper())
    return rounds


def _ledger_totals(report: dict[str, Any]) -> dict[str, tuple[int, float]]:
    """Each member's games and points in the section the ledger holds (its entry's payload)."""
    games: Counter[str] = Counter()
    points: Counter[str] = Counter()
    for player in report["players"]:
        games[player["id"]] += 0
    for game in report["games"]:
        white, black = (_score(s) for s in game["result"].split("-"))
        games.update((game["white"], game["black"]))
        points[game["white"]] += white  # type: ignore[assignment]
        points[game["black"]] += black  # type: ignore[assignment]
    for bye in report["byes"]:
        points[bye["player"]] += {"full": 1.0, "half": 0.5}.get(bye["bye"], 0.0)  # type: ignore[assignment]
    return {m: (games[m], float(points[m])) for m in games}


def _score(side: str) -> float:
    side = side.rstrip("F")
    return 0.5 if side == "1/2" else float(side)


# What the corpus needed, each with the file that needed it (docs/decisions.md, "The real-file
# corpus (issue 31)").


def test_a_round_paired_and_not_yet_played_ends_the_line() -> None:
    # chesspairing's TRF-2026 sample: `XXR 3`, round 3 paired as `0000 - *` ("Not yet played").
    report = trf.parse_trf((REAL / "chesspairing-trf2026-team-pending-round.trf").read_text(), "f")
    assert report.rounds_played == 2
    assert {len(p.rounds) for p in report.players} == {2}


def test_a_round_paired_without_a_result_ends_the_line_as_not_yet_played() -> None:
    # Bilkent's club Swiss after round 2 was paired: `    8 b` and no result. TRF16's blank
    # result is a zero-point bye, which has no opponent; with one, the game is still to come.
    report = trf.parse_trf((REAL / "bilkent-club-swiss-2024-round-2-paired.trf").read_text(), "f")
    assert report.rounds_played == 1
    assert {len(p.rounds) for p in report.players} == {1, 3}  # player 4's byes ahead
    assert sum(1 for p in report.players if p.rounds[0].opponent) == 20


def test_a_file_before_round_1_is_refused_as_nothing_to_import(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # Sharly Chess's bbpPairings inputs for round 1 (`team_bye.input`): players, no round yet.
    # No flag supplies a game, so none is offered (issue 31: "refused in one line that names
    # the flag that supplies what is truly missing").
    path = tmp_path / "round-1.trf"
    path.write_text(
        "012 Before round 1\n042 2025/01/01\n052 2025/01/01\nXXR 3\n"
        + "".join(f"001 {n:4d}      Player{n:<28d}2000\n" for n in (1, 2))
    )
    result = cli("import", "trf", str(path), "--register-players", "--actor", "ed")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {path}: no round has been played (a file made before round 1 was played); "
        "there is nothing to import\n",
    )


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # The Gelendzhik file's 122 (FIDE's own wording).
        ("Standard: 90 minutes with 30 second increment from move 1", "G/90;+30"),
        ("Standard: 90min + 30sec increment per move starting from move 1", "G/90;+30"),
        ("Rapid: 15 minutes with 10 seconds increment from move 1", "G/15;+10"),
    ],
)
def test_fide_s_worded_time_control_is_read(text: str, meant: str) -> None:
    assert ledger_time_control(text) == meant


@pytest.mark.parametrize(
    ("text", "rounds", "day"),
    [
        ("25/08/28", [], date(2025, 8, 28)),  # caissify's generator: `042 25/08/28`, as 132
        ("25/09/10", [], date(2025, 9, 10)),
        ("05/28/07", [], date(2007, 5, 28)),  # no 28th month: month first, as before
        ("24/09/2010", [], date(2010, 9, 24)),  # four digits: day first, as before
        # A file whose 132 lines say May 2026 started on 1 May 2026, not 26 May 2001.
        ("01/05/26", [date(2026, 5, 1), date(2026, 5, 2)], date(2026, 5, 1)),
        ("26/05/01", [date(2026, 5, 1)], date(2026, 5, 1)),
    ],
)
def test_a_header_date_of_two_digit_parts_is_trf_s_yy_mm_dd(
    text: str, rounds: list[date], day: date
) -> None:
    assert trf_header.read_date(text, rounds) == day


def test_sex_u_is_unknown() -> None:
    # caissify's generator writes `u` in column 10 for every player.
    line = "001    1 u    Player    1                       2202            2180             3.0"
    report = trf.parse_trf(f"012 T\n{line}\n{line.replace('    1 u', '    2 u')}\n", "f")
    assert [p.sex for p in report.players] == [None, None]
