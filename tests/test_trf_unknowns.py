"""`import trf`: values real programs write for "not known" are unknown, not errors (issue 31:
"unknown values as real programs write them (`0000/00/00`, `00000000`, blank) are unknown, not
errors"; "1 gives its unknown birth dates as `0000/00/00` and is refused ('birth_year: 0 …
>= 1850')").
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from trf_helpers import import_trf, ledger, player, trf, write

from ledger.entrypoints.interchange import trf as trf_module


def first_player(**columns: str) -> trf_module.TrfPlayer:
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "1")], **columns),
        player(2, "Brown, Bob", [(1, "b", "0")]),
    )
    return trf_module.parse_trf(text, "club.trf").players[0]


@pytest.mark.parametrize("written", ["0000/00/00", "0000-00-00", "00000000", "", "0000"])
def test_a_birth_date_written_as_unknown_is_no_birth_date_and_no_year(written: str) -> None:
    found = first_player(birth=written)
    assert (found.birth_date, found.birth_year) == (None, None)


@pytest.mark.parametrize(
    ("written", "born", "year"),
    [
        ("1988/05/12", date(1988, 5, 12), 1988),  # TRF16's YYYY/MM/DD, as before
        ("1988/00/00", None, 1988),  # a year alone is kept as the year
        ("19880000", None, 1988),
        ("19880512", date(1988, 5, 12), 1988),  # the same date without separators
    ],
)
def test_a_known_birth_date_or_year_is_kept(written: str, born: date | None, year: int) -> None:
    # The unknown forms above are told apart from real dates and years in the same shapes.
    found = first_player(birth=written)
    assert (found.birth_date, found.birth_year) == (born, year)


@pytest.mark.parametrize(("fide_id", "rating"), [("0", "0"), ("", ""), ("00000000", "0000")])
def test_a_fide_id_or_rating_of_zero_or_blank_is_none(fide_id: str, rating: str) -> None:
    found = first_player(fide_id=fide_id, rating=rating)
    assert (found.fide_id, found.rating) == (None, None)


def test_a_round_date_written_as_unknown_is_left_out() -> None:
    # 132: "00/00/00" for a round not yet dated is no date, and no error.
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "1")]),
        player(2, "Brown, Bob", [(1, "b", "0")]),
        header=("012 Club Night", f"132{'':88}24/05/04  00/00/00"),
    )
    assert trf_module.parse_trf(text, "club.trf").round_dates == (date(2024, 5, 4),)


def test_a_file_of_unknown_birth_dates_registers_its_players_without_them(tmp_path: Path) -> None:
    # Issue 31: the file refused for "birth_year: 0 … >= 1850" goes in as delivered.
    cli = ledger(tmp_path)
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "1")], birth="0000/00/00", fide_id="0", rating="0"),
        player(2, "Brown, Bob", [(1, "b", "0")], birth="0000/00/00", fide_id="0", rating="0"),
    )
    result = import_trf(cli, write(tmp_path, text), "--json")
    assert result.exit_code == 0, result.output
    registered = [
        e["payload"]
        for e in json.loads(cli("log", "--json").stdout)
        if e["type"] == "PlayerRegistered"
    ]
    assert [p["name"] for p in registered] == ["Adams, Ann", "Brown, Bob"]
    unknown = ("birth_date", "birth_year", "fide_id", "fide", "reported_rating")
    assert all(p[k] is None for p in registered for k in unknown)
