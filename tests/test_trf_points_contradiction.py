"""A file that contradicts itself says so in one line, and is still imported (issue 31: "1 has
a points column of 0.0 for everyone while its results sum to 1.5-6.0, and goes in without a
word"; "where the file contradicts itself (points against results) the import says so in one
line"; docs/decisions.md, "A file that contradicts itself").
"""

from __future__ import annotations

import json
from pathlib import Path

from trf_helpers import HEADER, import_trf, ledger, player, trf, write

from ledger.entrypoints.interchange import trf as trf_module


def club(points: tuple[str, str, str, str]) -> str:
    """Four players, two rounds: results that sum to 2, 1, 1 and 0."""
    a, b, c, d = points
    return trf(
        player(1, "Adams, Ann", [(3, "w", "1"), (2, "b", "1")], points=a),
        player(2, "Brown, Bob", [(4, "b", "1"), (1, "w", "0")], points=b),
        player(3, "Clark, Cid", [(1, "b", "0"), (4, "w", "1")], points=c),
        player(4, "Dunn, Dee", [(2, "w", "0"), (3, "b", "0")], points=d),
    )


def test_a_points_column_of_zero_for_everyone_is_one_warning_and_the_results_are_rated(
    tmp_path: Path,
) -> None:
    cli = ledger(tmp_path)
    result = import_trf(cli, write(tmp_path, club(("0.0", "0.0", "0.0", "0.0"))))
    assert result.exit_code == 0, result.output
    # Dunn's 0.0 is right: the other three disagree.
    said = [x for x in result.stderr.splitlines() if "points column" in x]
    assert said == [
        f"warning: {tmp_path / 'club.trf'}: points column disagrees with the results for 3 of 4 "
        "players (the results are rated)"
    ]
    report = json.loads(cli("section", "2024-05-04-club-night", "--json").stdout)
    assert [g["result"] for g in report["games"]] == ["1-0", "0-1", "0-1", "1-0"]


def test_a_points_column_that_adds_up_says_nothing(tmp_path: Path) -> None:
    text = club(("2.0", "1.0", "1.0", "0.0"))
    assert trf_module.points_disagree(trf_module.parse_trf(text, "club.trf")) == []
    result = import_trf(ledger(tmp_path), write(tmp_path, text), "--json")
    assert not [w for w in json.loads(result.stdout)["warnings"] if "points column" in w]


def test_a_blank_points_column_says_nothing() -> None:
    text = club(("", "", "", ""))
    assert trf_module.points_disagree(trf_module.parse_trf(text, "club.trf")) == []


def test_byes_count_as_the_points_they_score() -> None:
    # TRF16: "H half-point-bye, F full-point-bye, U pairing-allocated bye" score; "Z" does not.
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "1"), (0, "-", "H"), (0, "-", "U")], points="2.5"),
        player(2, "Brown, Bob", [(1, "b", "0"), (0, "-", "F"), (0, "-", "Z")], points="1.0"),
    )
    assert trf_module.points_disagree(trf_module.parse_trf(text, "club.trf")) == []


def test_a_file_that_declares_other_points_is_not_checked() -> None:
    # TRF-2026's 162 ("W 1.0  D 0.5  L 0.0" in FIDE's sample): a file scoring 3-1-0 writes
    # its points column in those points, which is no contradiction of its results.
    players = club(("6.0", "3.0", "3.0", "0.0")).splitlines()[4:]
    football = trf(*players, header=(*HEADER, "162  W 3.0    D 1.0    L 0.0"))
    assert trf_module.points_disagree(trf_module.parse_trf(football, "club.trf")) == []
    chess = trf(*players, header=(*HEADER, "162  W 1.0    D 0.5    L 0.0"))
    assert len(trf_module.points_disagree(trf_module.parse_trf(chess, "club.trf"))) == 3


def test_a_points_column_with_a_decimal_comma_is_read() -> None:
    # "1,5" for 1.5, as programs in a comma-decimal locale write it, is checked the same way.
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "="), (0, "-", "F")], points="1,5"),
        player(2, "Brown, Bob", [(1, "b", "="), (0, "-", "Z")], points="1,5"),
    )
    assert [p.points for p in trf_module.parse_trf(text, "club.trf").players] == [1.5, 1.5]
    assert [p.start for p in trf_module.points_disagree(trf_module.parse_trf(text, "c"))] == [2]
