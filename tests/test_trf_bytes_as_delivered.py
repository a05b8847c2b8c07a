"""`import trf`: a file's bytes as programs deliver them (brief h9, issue 31 "Each imports as
delivered"): Windows-1252 or Latin-1 names, a UTF-8 byte order mark, tabs, trailing blanks and
short lines, lowercase result codes. TRF16: "each line shall have a CR"; columns as numbered
there (name 15-47, round r's block from 92 + 10(r-1): opponent, colour, result).
"""

from __future__ import annotations

import pytest
from trf_helpers import player, trf

from ledger.entrypoints.interchange import trf as trf_module

LINES = (player(1, "Šimek, Žan", [(2, "w", "1")]), player(2, "Müller, Jürgen", [(1, "b", "0")]))


@pytest.mark.parametrize("encoding", ["cp1252", "utf-8", "utf-8-sig"])
def test_accented_names_are_read_in_the_encoding_the_program_wrote(encoding: str) -> None:
    # Windows programs write Windows-1252: `Š` is byte 0x8A, a control character in Latin-1
    # (which no name may hold).
    text = trf_module.decoded(trf(*LINES).encode(encoding))
    names = [p.name for p in trf_module.parse_trf(text, "f").players]
    assert names == ["Šimek, Žan", "Müller, Jürgen"]


def test_a_byte_undefined_in_windows_1252_is_read_as_latin_1() -> None:
    raw = trf(*LINES[1:], player(1, "Adams, Ann", [(2, "w", "1")])).encode("latin-1")
    assert trf_module.decoded(raw + b"\x81") == (raw + b"\x81").decode("latin-1")


def test_a_byte_order_mark_is_not_part_of_the_first_line() -> None:
    text = trf_module.decoded(trf(*LINES).encode("utf-8-sig"))
    assert trf_module.parse_trf(text, "f").tag("012") == ("Club Night", "f line 1")


def test_a_tab_for_a_blank_and_trailing_blanks_leave_the_columns_as_they_are() -> None:
    # A tab in place of one blank (in the name, which may hold no control character, and
    # before a result); a line cut short after its last round, another padded with blanks
    # and tabs.
    one = player(1, "Adams,\tAnn", [(2, "w", "1"), (2, "b", "=")])
    two = player(2, "Brown, Bob", [(1, "b", "0"), (1, "w", "=")])
    one = one[:97] + "\t" + one[98:]
    report = trf_module.parse_trf(trf(one, two + "   \t  "), "f")
    assert [p.name for p in report.players] == ["Adams, Ann", "Brown, Bob"]
    assert [[(e.opponent, e.colour, e.code) for e in p.rounds] for p in report.players] == [
        [(2, "w", "1"), (2, "b", "=")],
        [(1, "b", "0"), (1, "w", "=")],
    ]


def test_lowercase_result_codes_are_trf_s_codes() -> None:
    # TRF16's codes are letters: `w`, `d`, `l` (unrated win, draw, loss), `h`, `f`, `u`, `z`.
    one = player(1, "Adams, Ann", [(2, "w", "w"), (2, "b", "d"), (0, "-", "h"), (0, "-", "f")])
    two = player(2, "Brown, Bob", [(1, "b", "l"), (1, "w", "d"), (0, "-", "u"), (0, "-", "z")])
    report = trf_module.parse_trf(trf(one, two), "f")
    assert [[e.code for e in p.rounds] for p in report.players] == [
        ["W", "D", "H", "F"],
        ["L", "D", "U", "Z"],
    ]
