"""`import trf`: what a `001` line says of the player besides his games, as real programs write
it. Issue 31: "Values a program writes that the ledger does not need are never a reason to
refuse" (brief h9: online arenas' titles `LM`, `BOT`, `NM`, `AGM`; two-letter federations
`DE`, `US`, `---`, blank; day-first birth dates `12.05.1988`, `12/05/1988`, `12-05-1988`, a
year only; an ambiguous `05/06/1988` as its year only). TRF16 columns: sex 10, title 11-13,
federation 54-56, birth date 70-79.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from trf_helpers import import_trf, ledger, player, trf, write

from ledger.entrypoints.interchange import trf as trf_module


def with_columns(first: int, last: int, text: str) -> str:
    """Player 1's line with TRF16 columns `first`-`last` (1-based) written as `text`."""
    line = player(1, "Adams, Ann", [(2, "w", "1")])
    return line[: first - 1] + text.ljust(last - first + 1) + line[last:]


def first_player(first: int, last: int, text: str) -> trf_module.TrfPlayer:
    source = trf(with_columns(first, last, text), player(2, "Brown, Bob", [(1, "b", "0")]))
    return trf_module.parse_trf(source, "club.trf").players[0]


@pytest.mark.parametrize(
    ("written", "title"),
    [
        ("LM", None),  # lichess's Lichess Master
        ("BOT", None),
        ("NM", None),  # a national master: no FIDE title
        ("AGM", None),
        ("AIM", None),
        ("wgm", "WGM"),  # a FIDE title in lowercase is still the title
        ("CM", "CM"),
        ("wf", "WFM"),  # TRF16's short form
    ],
)
def test_a_title_that_is_not_fide_s_is_no_title(written: str, title: str | None) -> None:
    found = first_player(11, 13, written)
    assert found.title == title
    assert found.unread == (() if title else (("title", written),))


@pytest.mark.parametrize(
    ("written", "federation", "noted"),
    [
        ("DE", None, True),
        ("US", None, True),
        ("RU", None, True),
        ("12", None, True),
        ("---", None, False),  # written for "not known": unknown, nothing to note
        ("", None, False),
        ("ger", "GER", False),  # FIDE's code in lowercase
        ("NOR", "NOR", False),
    ],
)
def test_a_federation_that_is_not_a_fide_code_is_unknown(
    written: str, federation: str | None, noted: bool
) -> None:
    found = first_player(54, 56, written)
    assert found.federation == federation
    assert bool(found.unread) == noted


@pytest.mark.parametrize(("written", "sex"), [("m", "m"), ("W", "w"), ("f", "w"), ("x", None)])
def test_a_sex_other_than_m_or_w_is_unknown(written: str, sex: str | None) -> None:
    assert first_player(10, 10, written).sex == sex


@pytest.mark.parametrize(
    ("written", "born", "year"),
    [
        ("12.05.1988", date(1988, 5, 12), 1988),  # dots: day first
        ("05.06.1988", date(1988, 6, 5), 1988),
        ("12/05/1988", None, 1988),  # day or month first: both are months, the year only
        ("05/06/1988", None, 1988),
        ("13/05/1988", date(1988, 5, 13), 1988),  # no 13th month: day first
        ("05/13/1988", date(1988, 5, 13), 1988),  # month first (as US programs write it)
        ("25-12-1988", date(1988, 12, 25), 1988),
        ("07/07/1988", date(1988, 7, 7), 1988),  # either way the same day
        ("1988.05.12", date(1988, 5, 12), 1988),  # TRF16's order with other separators
        ("1988-05-12", date(1988, 5, 12), 1988),
        ("1988", None, 1988),  # a year only
        ("31.02.1988", None, None),  # no such day: unknown, noted
        ("12.05.88", None, None),  # a two-digit year: which century is not said
        ("born 1988", None, None),
    ],
)
def test_a_birth_date_is_read_in_each_form_that_says_one_date(
    written: str, born: date | None, year: int | None
) -> None:
    found = first_player(70, 79, written)
    assert (found.birth_date, found.birth_year) == (born, year)


def test_a_file_of_arena_titles_and_two_letter_federations_goes_in_with_one_note(
    tmp_path: Path,
) -> None:
    # Issue 31: "Each imports as delivered"; output proportionate: one line for the file.
    lines = [
        with_columns(11, 13, "LM"),
        player(2, "Brown, Bob", [(1, "b", "0"), (3, "w", "=")]),
        player(3, "Clark, Cy", [(0, "-", "U"), (2, "b", "=")]),
    ]
    lines[1] = lines[1][:53] + "DE " + lines[1][56:69] + "05/06/1988" + lines[1][79:]
    lines[2] = lines[2][:10] + "BOT" + lines[2][13:53] + "DE " + lines[2][56:]
    cli = ledger(tmp_path)
    result = import_trf(cli, write(tmp_path, trf(*lines)), "--json")
    assert result.exit_code == 0, result.output
    notes = [w for w in json.loads(result.stdout)["warnings"] if "does not record" in w]
    assert notes == [
        f"{tmp_path / 'club.trf'}: values the ledger does not record, left out of the "
        "profiles: title 'LM' (1), 'BOT' (1); federation 'DE' (2); "
        "birth date (its year kept) '05/06/1988' (1)"
    ]
    registered = {
        e["payload"]["name"]: e["payload"]
        for e in json.loads(cli("log", "--json").stdout)
        if e["type"] == "PlayerRegistered"
    }
    assert [registered[n]["title"] for n in ("Adams, Ann", "Clark, Cy")] == [None, None]
    assert (registered["Brown, Bob"]["federation"], registered["Brown, Bob"]["birth_year"]) == (
        None,
        1988,
    )


@pytest.mark.parametrize(
    ("first", "last", "written", "rating"),
    [
        (49, 52, "1850", 1850),  # TRF16's columns
        (48, 51, "1850", 1850),  # one column left: fixed columns would read 850
        (50, 53, "1850", 1850),  # one column right: fixed columns would read 185
        (50, 52, "950", 950),
    ],
)
def test_a_rating_one_column_off_is_read_whole(
    first: int, last: int, written: str, rating: int
) -> None:
    # Brief h9: "ratings like `1850` in wrong columns by one space … do not mis-read a correct
    # file". TRF16 leaves columns 48 and 53 blank; a number spilling into them is the rating.
    blank = with_columns(48, 53, "")
    line = blank[: first - 1] + written + blank[last:]
    text = trf(line, player(2, "Brown, Bob", [(1, "b", "0")]))
    assert trf_module.parse_trf(text, "club.trf").players[0].rating == rating


def test_a_name_running_into_column_48_leaves_the_rating_where_trf16_puts_it() -> None:
    # A 34-letter name (one past columns 15-47) and the rating in 49-52.
    line = with_columns(15, 48, "Abcdefghijklmnopqrstuvwxyz Abcdefg")
    line = line[:48] + "2150" + line[52:]
    text = trf(line, player(2, "Brown, Bob", [(1, "b", "0")]))
    assert trf_module.parse_trf(text, "club.trf").players[0].rating == 2150
