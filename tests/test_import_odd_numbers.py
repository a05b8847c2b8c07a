"""Numbers in imported files written with characters `int` refuses (issue 28: "a `132` date
`25/05/0` and a cosign size `1²` end in 'unexpected ValueError'" → "every 'unexpected' error
above becomes a one-line refusal"): a superscript digit (`str.isdigit` says yes to `²`), a
number of 5,000 digits (`int` refuses past 4,300), a team line's letters where a number
goes. Each is refused naming its line or record (exit 2), or, where the field is optional
and read only when it is a number, not read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_import_uschess_dbf import PLAYERS, SECTIONS, refusal, write_report
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.interchange import trf, trf_map
from ledger.errors import InvalidCommand
from ledger.text import digits

LAKESIDE = (Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf").read_text()
SOKOLOV = LAKESIDE.splitlines()[13]  # line 14, the first player line


def placed(column: int, text: str) -> str:
    """LAKESIDE with `text` over Sokolov's line from 0-based `column`."""
    line = SOKOLOV[:column] + text + SOKOLOV[column + len(text) :]
    return LAKESIDE.replace(SOKOLOV, line)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (placed(4, "   ²"), "line 14: starting rank '²' (columns 5-8) is not 1-9999"),
        (placed(48, "261²"), "line 14 (player 1): FIDE rating '261²' (columns 49-52) is not a"),
        (placed(57, "   1470001²"), "line 14 (player 1): FIDE id '1470001²' (columns 58-68) is"),
        (placed(91, "   ²"), "line 14 (player 1): round 1 opponent '²' is not a starting rank"),
    ],
)
def test_a_player_line_s_number_in_other_digits_is_refused_naming_its_columns(
    text: str, refused: str
) -> None:
    """Issue 28: "every 'unexpected' error above becomes a one-line refusal" (a TRF's `²`)."""
    with pytest.raises(InvalidCommand) as caught:
        trf.parse_trf(text, "f.trf")
    assert caught.value.message.startswith(f"f.trf {refused}")


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        ("013 Alpha                               1    ²", "line 21: 013 starting rank '²'"),
        ("310 ab  Alpha", "line 21: 310 team number 'ab' is not a number"),
        ("013 Alpha                               1    2\n802   x", "line 22: 802 team number 'x'"),
    ],
)
def test_a_team_line_whose_number_is_none_is_refused_naming_its_line(
    extra: str, refused: str
) -> None:
    """Issue 28: "every 'unexpected' error above becomes a one-line refusal" (team lines)."""
    report = trf.parse_trf(LAKESIDE + "\n" + extra, "f.trf")
    with pytest.raises(InvalidCommand) as caught:
        trf.team_report(report)
    assert caught.value.message.startswith(f"f.trf {refused}")


@pytest.mark.parametrize("rounds", ["²", "9" * 5000])
def test_a_number_of_rounds_that_is_no_number_announces_none(rounds: str) -> None:
    """Issue 28: no 'unexpected ValueError' from a 142 line; like `142 fourteen`, it is not
    read as a number of rounds."""
    report = trf.parse_trf(LAKESIDE.replace("132 ", f"142 {rounds}\n132 ", 1), "f.trf")
    assert trf.in_progress(report) is None


def test_a_time_control_of_5000_digits_is_refused_in_one_line(tmp_path: Path) -> None:
    """Issue 28: "every 'unexpected' error above becomes a one-line refusal" (exit 2)."""
    store = ("--store", f"sqlite:///{tmp_path / 'ledger.db'}")
    assert CliRunner().invoke(app, ["init", "--actor", "ed", *store]).exit_code == 0
    path = tmp_path / "f.trf"
    path.write_text(LAKESIDE.replace("122 90'/40+30'+30''", "222 " + "9" * 5000))
    args = ["import", "trf", str(path), "--register-players", "--actor", "ed", *store]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path} line 12: time control '999")
    assert result.stderr.endswith("(222) cannot be read; give it with --time-control, e.g. "
                                  "--time-control 90+30\n")  # fmt: skip


@pytest.mark.parametrize("key", ["²", "9" * 5000])
def test_an_id_map_s_starting_rank_that_is_no_number_is_refused(tmp_path: Path, key: str) -> None:
    """Issue 28: "every 'unexpected' error above becomes a one-line refusal" (`--map`)."""
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"start": {key: "X1"}}))
    with pytest.raises(InvalidCommand, match="start must map numbers to member ids"):
        trf_map.read_map(path)


@pytest.mark.parametrize(
    ("build", "refused"),
    [
        (
            lambda f: write_report(f, sections=[dict(SECTIONS[0], S_TOT_RNDS="~"), *SECTIONS[1:]]),
            "S_TOT_RNDS '²' is not a number of rounds",
        ),
        (
            lambda f: write_report(
                f, players=[(PLAYERS[0][0], "~", *PLAYERS[0][2:]), *PLAYERS[1:]]
            ),
            "D_PAIR_NUM '²' is not 1-9999",
        ),
    ],
)
def test_a_us_chess_report_s_number_in_other_digits_is_refused_naming_its_record(
    tmp_path: Path, build, refused: str
) -> None:
    """Issue 28: "every 'unexpected' error above becomes a one-line refusal" (DBF, Latin-1)."""
    folder = build(tmp_path)
    for dbf in folder.iterdir():  # the writer writes ASCII; ² is Latin-1's byte 0xB2
        dbf.write_bytes(dbf.read_bytes().replace(b"~", b"\xb2"))
    assert refused in refusal(folder)


@pytest.mark.parametrize(
    ("text", "number"),
    [("2615", True), ("0", True), ("²", False), ("١٢", False), ("", False), ("9" * 19, False)],
)
def test_a_number_is_ascii_digits_and_at_most_18_of_them(text: str, number: bool) -> None:
    """Issue 28's `1²`: what `str.isdigit` takes and `int` refuses is no number."""
    assert digits(text) is number
