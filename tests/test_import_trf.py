"""`import trf`: a FIDE Tournament Report File (TRF16) as one SectionSubmitted, through the same
validation as `submit`.

The fixture tests/fixtures/riverside-open-2024.trf follows the layout of FIDE's published
example: tournament lines 012 … 132, then one `001` line per player with the fixed columns and a
10-column block per round (opponent, colour, result).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app as main_app
from ledger.entrypoints.cli.importing import register
from ledger.entrypoints.cli.writes import register as register_ledger
from ledger.entrypoints.interchange import trf, trf_map, trf_players
from ledger.errors import InvalidCommand
from ledger.log import read_entries
from ledger.results import RATED_RESULTS

FIXTURE = Path(__file__).parent / "fixtures" / "riverside-open-2024.trf"
SECTION_ID = "2024-05-04-riverside-spring-open-2024"
FIDE_IDS = [f"200000{n}" for n in range(1, 8)]
HEADER = ["012 Test Open", "042 2024/05/04", "052 2024/05/05", "122 G/90;d30"]
Round = tuple[int | None, str, str]  # opponent's starting rank (None: 0000), colour, code

# TRF16: "1 win, = draw, 0 loss" are the rated results; "+ forfeit win, - forfeit loss" and
# "W win, D draw, L loss not rated". (white's code, black's code) → the ledger's result.
GAMES = {
    ("1", "0"): "1-0",
    ("0", "1"): "0-1",
    ("=", "="): "1/2-1/2",
    ("+", "-"): "1F-0F",
    ("-", "+"): "0F-1F",
    ("W", "L"): "1F-0F",
    ("L", "W"): "0F-1F",
}
# An unrated draw and a double forfeit have no ledger result: two byes that score the same.
BYE_PAIRS = {("D", "D"): "half", ("-", "-"): "zero"}
# "H half-point-bye, F full-point-bye, U pairing-allocated bye, Z zero-point-bye"; TRF06's
# "+", "=", "-" against 0000.
NO_OPPONENT = {"F": "full", "U": "full", "+": "full", "H": "half", "=": "half", "Z": "zero"}
NO_OPPONENT["-"] = "zero"


def player_line(start: int, fide_id: str, rounds: Sequence[Round], name: str = "") -> str:
    """A `001` line in TRF16's columns (name 15-47, FIDE id 58-68, rounds from 92)."""
    name = name or f"Player, No{start}"
    line = f"001 {start:>4} m    {name:<33} 2000 USA {fide_id:>11} 2000/01/01  0.0 {start:>4}"
    for opponent, colour, code in rounds:
        line += f"  {'0000' if opponent is None else opponent:>4} {colour} {code}"
    return line


def columns(first: int, last: int, text: str) -> str:
    """Player 1's line with columns `first`-`last` (1-based, as TRF16 numbers them) replaced."""
    line = player_line(1, "2000001", [(2, "w", "1")])
    return line[: first - 1] + text.rjust(last - first + 1) + line[last:]


def trf_text(*players: Sequence[Round], header: Sequence[str] = HEADER) -> str:
    lines = [*header]
    lines += [player_line(n, FIDE_IDS[n - 1], r) for n, r in enumerate(players, start=1)]
    return "\n".join(lines) + "\n"


def section_of(text: str, **options: Any) -> dict[str, Any]:
    return trf.to_section(trf.parse_trf(text, "game.trf"), **options).data


def members(text: str, id_map: trf_map.IdMap | None = None, **registered: str | None) -> list[str]:
    """Each player's member id, matched against members registered with those FIDE ids."""
    matches = trf_players.match(trf.parse_trf(text, "game.trf"), id_map, registered)
    return [matches[n].member for n in sorted(matches)]


def refusal(text: str, **options: Any) -> str:
    with pytest.raises(InvalidCommand) as caught:
        section_of(text, **options)
    return caught.value.message


def test_the_fide_layout_file_becomes_one_section_with_every_pairing() -> None:
    # Brief: "players, rounds, colours, results, forfeits and byes mapped faithfully; rated vs
    # unrated games per the TRF result codes".
    section = section_of(FIXTURE.read_text())
    a, b, c, d, e, f, g = FIDE_IDS
    assert {k: v for k, v in section.items() if k not in ("games", "byes")} == {
        "section_id": SECTION_ID,
        "event_name": "Riverside Spring Open 2024",
        "online": False,
        "time_control": "G/90+30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-05",
        "players": [{"id": p} for p in FIDE_IDS],
    }
    assert section["games"] == [
        {"round": 1, "white": a, "black": d, "result": "1-0"},
        {"round": 1, "white": e, "black": b, "result": "1/2-1/2"},
        {"round": 1, "white": c, "black": f, "result": "0-1"},
        {"round": 2, "white": f, "black": a, "result": "0-1"},
        {"round": 2, "white": e, "black": c, "result": "1F-0F"},  # "+" / "-"
        {"round": 2, "white": d, "black": g, "result": "0-1"},
        {"round": 3, "white": a, "black": b, "result": "1/2-1/2"},
        {"round": 3, "white": e, "black": d, "result": "0F-1F"},  # "L" / "W": not rated
        {"round": 3, "white": g, "black": f, "result": "0-1"},
        {"round": 4, "white": e, "black": a, "result": "0-1"},
        {"round": 4, "white": b, "black": c, "result": "1/2-1/2"},
        {"round": 4, "white": f, "black": d, "result": "0-1"},
    ]
    assert section["byes"] == [
        {"round": 1, "player": g, "bye": "full"},  # "U": pairing-allocated bye
        {"round": 2, "player": b, "bye": "half"},  # "H"
        {"round": 3, "player": c, "bye": "zero"},  # "Z"
        {"round": 4, "player": g, "bye": "zero"},  # "(blank) equivalent to Z"
    ]


@pytest.mark.parametrize(("codes", "result"), GAMES.items())
@pytest.mark.parametrize("white", [1, 2])
def test_each_pair_of_result_codes_is_the_game_it_means(
    codes: tuple[str, str], result: str, white: int
) -> None:
    first, second = codes if white == 1 else codes[::-1]
    colours = ("w", "b") if white == 1 else ("b", "w")
    text = trf_text([(2, colours[0], first)], [(1, colours[1], second)])
    players = FIDE_IDS[:2] if white == 1 else FIDE_IDS[1::-1]
    section = section_of(text)
    assert section["games"] == [
        {"round": 1, "white": players[0], "black": players[1], "result": result}
    ]
    # Only "1", "=", "0" are rated: the ledger rates exactly the results in RATED_RESULTS.
    assert (result in RATED_RESULTS) == (set(codes) <= {"1", "0", "="})


@pytest.mark.parametrize(("codes", "bye"), BYE_PAIRS.items())
def test_an_unrated_draw_or_a_double_forfeit_is_two_byes(codes: tuple[str, str], bye: str) -> None:
    section = section_of(trf_text([(2, "w", codes[0])], [(1, "b", codes[1])], [(None, "-", "F")]))
    assert section["games"] == []
    assert section["byes"][:2] == [
        {"round": 1, "player": FIDE_IDS[0], "bye": bye},
        {"round": 1, "player": FIDE_IDS[1], "bye": bye},
    ]


@pytest.mark.parametrize(("code", "bye"), NO_OPPONENT.items())
def test_each_bye_code_is_the_bye_it_means(code: str, bye: str) -> None:
    section = section_of(trf_text([(2, "w", "1")], [(1, "b", "0")], [(None, "-", code)]))
    assert section["byes"] == [{"round": 1, "player": FIDE_IDS[2], "bye": bye}]


def test_a_forfeit_without_colours_gives_white_to_the_lower_starting_rank() -> None:
    # TRF16 colour: "- (bye or not paired)": a forfeit may have no scheduled colour.
    section = section_of(trf_text([(2, "-", "-")], [(1, "-", "+")]))
    assert section["games"] == [
        {"round": 1, "white": FIDE_IDS[0], "black": FIDE_IDS[1], "result": "0F-1F"}
    ]


@st.composite
def grids(draw: st.DrawFn) -> tuple[list[list[Round]], list[dict[str, Any]], list[Any]]:
    """A random tournament's player lines and the games and byes they must become."""
    n = draw(st.integers(2, len(FIDE_IDS)))
    lines: list[list[Round]] = [[] for _ in range(n)]
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []
    for number in range(1, draw(st.integers(1, 5)) + 1):
        order = draw(st.permutations(range(1, n + 1)))
        resting = draw(st.integers(0, n // 2)) * 2 + n % 2
        for p in order[:resting]:
            code = draw(st.sampled_from(sorted(NO_OPPONENT)))
            lines[p - 1].append((None, "-", code))
            byes.append({"round": number, "player": FIDE_IDS[p - 1], "bye": NO_OPPONENT[code]})
        for white, black in zip(order[resting::2], order[resting + 1 :: 2], strict=True):
            codes = draw(st.sampled_from([*GAMES, *BYE_PAIRS]))
            lines[white - 1].append((black, "w", codes[0]))
            lines[black - 1].append((white, "b", codes[1]))
            if codes in BYE_PAIRS:
                byes += [
                    {"round": number, "player": FIDE_IDS[p - 1], "bye": BYE_PAIRS[codes]}
                    for p in (white, black)
                ]
            else:
                ids = (FIDE_IDS[white - 1], FIDE_IDS[black - 1])
                games.append(
                    {"round": number, "white": ids[0], "black": ids[1], "result": GAMES[codes]}
                )
    return lines, games, byes


def by_round(items: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(i, sort_keys=True) for i in items)


@given(grids())
def test_any_consistent_grid_is_read_back_as_its_games_and_byes(
    grid: tuple[list[list[Round]], list[dict[str, Any]], list[Any]],
) -> None:
    # Brief: everything "mapped faithfully": whatever pairing grid a file holds, the section
    # holds each pairing once, with its colours and result, and each bye.
    lines, games, byes = grid
    section = section_of(trf_text(*lines))
    assert by_round(section["games"]) == by_round(games)
    assert by_round(section["byes"]) == by_round(byes)


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (
            ([(2, "w", "1"), (3, "w", "1")], [(1, "b", "0"), (3, "b", "0")], [(None, "-", "U")]),
            "game.trf line 5 (player 1): round 2: opponent 3's line gives no opponent",
        ),
        (
            ([(2, "w", "1")], [(1, "b", "1")]),
            "game.trf line 5 (player 1): round 1 result '1' does not match '1' on opponent 2's "
            "line",
        ),
        (
            ([(2, "w", "1")], [(1, "w", "0")]),
            "game.trf line 5 (player 1): round 1 colour 'w' does not match 'w' on opponent 2's "
            "line",
        ),
        (
            ([(2, "-", "1")], [(1, "-", "0")]),
            "game.trf line 5 (player 1): round 1 result '1' needs a colour",
        ),
        (
            ([(9, "w", "1")], [(None, "-", "F")]),
            "game.trf line 5 (player 1): round 1 opponent 9 is not a player of the file",
        ),
        (
            ([(1, "w", "1")], [(None, "-", "F")]),
            "game.trf line 5 (player 1): round 1 opponent 1 is the player themselves",
        ),
        (
            ([(2, "w", "H")], [(1, "b", "H")]),
            "game.trf line 5 (player 1): round 1 result 'H' is a bye but names opponent 2",
        ),
        (
            ([(None, "-", "1")], [(None, "-", "F")]),
            "game.trf line 5 (player 1): round 1 result '1' needs an opponent",
        ),
    ],
)
def test_an_inconsistent_pairing_is_refused_naming_the_line(
    players: Sequence[Sequence[Round]], message: str
) -> None:
    # Brief: "a malformed file is rejected with the line/record and field named".
    assert refusal(trf_text(*players)) == message


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            player_line(1, "2000001", [(2, "w", "X")]),
            "game.trf line 5 (player 1): round 1 result 'X' is not a TRF result code",
        ),
        (
            player_line(1, "2000001", [(2, "x", "1")]),
            "game.trf line 5 (player 1): round 1 colour 'x' is not w, b or -",
        ),
        (
            player_line(1, "2000001", [(2, "w", "1")]).replace("     2 w", "    2a w"),
            "game.trf line 5 (player 1): round 1 opponent '2a' is not a starting rank",
        ),
        (
            player_line(1, "FIDE-1", [(2, "w", "1")]),
            "game.trf line 5 (player 1): FIDE id 'FIDE-1' (columns 58-68) is not a number",
        ),
        (
            "001    x" + player_line(1, "2000001", [(2, "w", "1")])[8:],
            "game.trf line 5: starting rank 'x' (columns 5-8) is not 1-9999",
        ),
        (
            player_line(2, "2000001", [(1, "w", "1")]),
            "game.trf line 6: starting rank 2 is also on line 5",
        ),
        (
            columns(49, 52, "20o0"),
            "game.trf line 5 (player 1): FIDE rating '20o0' (columns 49-52) is not a number",
        ),
    ],
)
def test_a_malformed_player_line_is_refused_naming_line_and_column(line: str, message: str) -> None:
    # Sex, title, federation and birth date are no longer among these: a value the ledger
    # does not record is no value, never a refusal (issue 31; tests/test_trf_player_values.py).
    text = "\n".join([*HEADER, line, player_line(2, "2000002", [(1, "b", "0")])]) + "\n"
    assert refusal(text) == message


@pytest.mark.parametrize(
    ("header", "options", "message"),
    [
        # Issue 31: refused "in one line that names the flag that supplies what is truly
        # missing" (`--name` among them).
        (HEADER[1:], {}, "game.trf: no 012 line (tournament name): give --name"),
        (
            [HEADER[0], "042 4th of May", *HEADER[2:]],
            {},
            "game.trf: line 2: start date '4th of May' is not a date (2024/01/01, 28. 07. 2005, "
            "May 29, 2020…): give --start",
        ),
        ([*HEADER[:2], HEADER[3]], {}, "game.trf: no 052 line (end date): give --end"),
    ],
)
def test_a_missing_or_bad_tournament_line_is_named(
    header: list[str], options: dict[str, Any], message: str
) -> None:
    assert refusal(trf_text([(2, "w", "1")], [(1, "b", "0")], header=header), **options) == message


def test_options_replace_what_the_file_says() -> None:
    # Brief: "section id from --section-id …; time control from --time-control …; dates from
    # 042/052 or --start/--end".
    section = section_of(
        trf_text([(2, "w", "1")], [(1, "b", "0")], header=HEADER[:1]),
        section_id="TEST-1",
        tournament_id="TEST",
        time_control="G/60;d5",
        start=date(2024, 5, 4),
        end=date(2024, 5, 4),
        online=True,
    )
    assert {k: section[k] for k in ("section_id", "tournament_id", "time_control")} == {
        "section_id": "TEST-1",
        "tournament_id": "TEST",
        "time_control": "G/60;d5",
    }
    assert (section["start_date"], section["end_date"], section["online"]) == (
        "2024-05-04",
        "2024-05-04",
        True,
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("ids.csv", "start,member\n1,12345678\n2,30000001\n"),
        ("ids.csv", "1,12345678\n2,30000001\n"),
        ("ids.csv", "fide_id,member_id\n2000001,12345678\n2000002,30000001\n"),
        ("ids.json", '{"start": {"1": "12345678", "2": "30000001"}}'),
        ("ids.json", '{"start": {"1": "12345678"}, "fide_id": {"2000002": "30000001"}}'),
    ],
)
def test_a_map_gives_starting_ranks_or_fide_ids_their_member_ids(
    tmp_path: Path, name: str, content: str
) -> None:
    # Issue 11: "a given mapping file (--map FILE, CSV or JSON of TRF start number or FIDE id →
    # member id)".
    path = tmp_path / name
    path.write_text(content)
    text = trf_text([(2, "w", "1")], [(1, "b", "0")])
    assert members(text, trf_map.read_map(path)) == ["12345678", "30000001"]


def test_the_map_wins_over_a_member_with_the_fide_id() -> None:
    text = trf_text([(2, "w", "1")], [(1, "b", "0")])
    id_map = trf_map.IdMap({2: "30000001"}, {})
    assert members(text, id_map, m9=FIDE_IDS[1]) == [FIDE_IDS[0], "30000001"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("ids.csv", "1,12345678\nx,30000001\n", "ids.csv line 2: 'x' is not a starting rank"),
        ("ids.csv", "fide_id,member\n20x,1\n", "ids.csv line 2: '20x' is not a FIDE id"),
        ("ids.csv", "1,12345678\n1,30000001\n", "ids.csv line 2: start 1 is twice"),
        ("ids.csv", "1\n", "ids.csv line 1: expected starting rank, member id"),
        ("ids.json", '{"start": ["1"]}', "ids.json: start must map numbers to member ids"),
        ("ids.json", '{"rank": {}}', "ids.json: 'rank' is not start or fide_id"),
        ("ids.json", '{"start": {"0": "x"}}', "ids.json: starting rank 0 is not 1-9999"),
        ("ids.json", '{"start": ', "ids.json: not valid JSON"),
    ],
)
def test_a_bad_map_is_refused_naming_its_line(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InvalidCommand) as caught:
        trf_map.read_map(path)
    assert caught.value.message.startswith(f"{tmp_path}/{message}")


def test_a_player_is_the_member_whose_profile_has_the_fide_id() -> None:
    # Issue 11: "by FIDE id when a registered member has that FIDE id".
    text = trf_text([(2, "w", "1")], [(1, "b", "0")])
    assert members(text, m12345678=FIDE_IDS[0]) == ["m12345678", FIDE_IDS[1]]
    matches = trf_players.match(trf.parse_trf(text, "game.trf"), None, {"u1": FIDE_IDS[0]})
    assert [m.how for m in matches.values()] == ["fide_id", "new"]


@pytest.mark.parametrize(
    ("registered", "message"),
    [
        (
            {"a1": FIDE_IDS[0], "b2": FIDE_IDS[0]},
            "game.trf line 5 (player 1): FIDE id 2000001 is in the profiles of members a1, b2; "
            "give --map",
        ),
        (
            {FIDE_IDS[0]: "9999999"},
            "game.trf line 5 (player 1): member 2000001 has FIDE id 9999999, not 2000001; "
            "give --map",
        ),
    ],
)
def test_an_ambiguous_fide_id_is_refused(registered: dict[str, str], message: str) -> None:
    text = trf_text([(2, "w", "1")], [(1, "b", "0")])
    with pytest.raises(InvalidCommand) as caught:
        trf_players.match(trf.parse_trf(text, "game.trf"), None, registered)
    assert caught.value.message == message


@pytest.mark.parametrize("fide_id", ["", "0"])
def test_a_player_without_fide_id_gets_a_member_id_the_ledger_assigns(fide_id: str) -> None:
    # Issue 20: "players without a FIDE id registered with a member id the ledger assigns";
    # 0 is no FIDE id. The id is the hash of name, birth year and federation (decisions);
    # the map still wins.
    text = "\n".join(
        [
            *HEADER,
            player_line(1, fide_id, [(2, "w", "1")]),
            player_line(2, "2000002", [(1, "b", "0")]),
        ]
    )
    [assigned, fide] = members(text)
    key = "player, no1|2000|USA"  # name 'Player, No1', born 2000/01/01, federation USA
    assert assigned == "X" + hashlib.sha256(key.encode()).hexdigest()[:8].upper()
    assert fide == "2000002"
    assert members(text, trf_map.IdMap({1: "30000001"}, {})) == ["30000001", "2000002"]


def test_two_lines_of_one_name_without_fide_id_get_two_member_ids() -> None:
    # Issue 20: the assigned id is deterministic; two such lines in one file stay apart.
    text = "\n".join(
        [
            *HEADER,
            player_line(1, "", [(2, "w", "1")], name="Same, Name"),
            player_line(2, "", [(1, "b", "0")], name="Same, Name"),
        ]
    )
    first, second = members(text)
    assert first != second and first.endswith("-1") and second.endswith("-2")


LAKESIDE = Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf"


def test_every_field_of_the_player_line_goes_into_the_profile() -> None:
    # Issue 11: "Carry every field that TRF-16 gives (sex, title, name, FIDE rating,
    # federation, FIDE id, birth date) into the profile".
    report = trf.read_trf(LAKESIDE)
    start = date(2024, 9, 14)
    profiles = [trf_players.profile(p, p.fide_id or "", start, "FIDE") for p in report.players]
    assert profiles[0] == {
        "id": "14700011",
        "name": "Sokolov, Ivan",
        "sex": "m",
        "title": "GM",
        "fide_id": "14700011",
        "birth_date": "1965-06-13",
        "federation": "BIH",
        "fide": {"rating": 2615, "date": "2024-09-14", "federation": "BIH"},
    }
    assert [(p.get("title"), p.get("sex")) for p in profiles] == [
        ("GM", "m"),
        ("WGM", "w"),
        ("FM", "m"),
        (None, "w"),
        ("CM", "m"),
        (None, "m"),
    ]
    # Issue 20: a year alone is kept as the birth year (not a date the rules age from); an
    # unrated player's federation is kept; an unrated player has no FIDE rating.
    assert "birth_date" not in profiles[4] and profiles[4]["birth_year"] == 1979
    assert profiles[5]["federation"] == "USA"
    assert report.warnings == []
    assert "fide" not in profiles[5]
    for p in profiles:
        parse(RegisterPlayer, p)


@pytest.mark.parametrize(
    ("title", "expected"),
    [("g", "GM"), ("m", "IM"), ("f", "FM"), ("c", "CM"), ("wg", "WGM"), ("wm", "WIM")]
    + [("wf", "WFM"), ("wc", "WCM"), ("GM", "GM"), ("IM", "IM"), ("wgm", "WGM"), ("", None)],
)
def test_each_trf_title_is_the_fide_title(title: str, expected: str | None) -> None:
    line = player_line(1, "2000001", [(2, "w", "1")])
    line = line[:10] + f"{title:>3}" + line[13:]
    text = "\n".join([*HEADER, line, player_line(2, "2000002", [(1, "b", "0")])])
    assert trf.parse_trf(text, "game.trf").players[0].title == expected


@pytest.fixture
def run(
    ledger: RatingsLedger, store_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Callable[..., Result]:
    """The command line in tmp_path, on a ledger the conftest sets up (`td` is a tournament
    director) with the fixture's players registered."""
    ledger.players.register(*(parse(RegisterPlayer, {"id": m}) for m in FIDE_IDS), actor="td")
    monkeypatch.chdir(tmp_path)
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    register_ledger(app)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app, [*args, "--store", store_url])

    return invoke


def positions(ledger: RatingsLedger) -> int:
    return ledger.recorder.max_notification_id() or 0


def submitted(ledger: RatingsLedger) -> list[dict[str, Any]]:
    return [e.payload for e in read_entries(ledger) if e.type == "SectionSubmitted"]


def test_the_import_appends_one_section_submitted(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Brief: "`ratings-ledger import trf FILE.trf` → one SectionSubmitted".
    result = run("import", "trf", str(FIXTURE), "--actor", "td")
    assert result.exit_code == 0, result.output
    (payload,) = submitted(ledger)
    expected = section_of(FIXTURE.read_text())
    assert {k: payload[k] for k in expected} == expected


def test_the_brief_s_malformed_file_exits_2_with_its_line(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # Brief: "error: game.trf line 7 (player 3): round 2 result 'X' is not a TRF result code",
    # nothing appended, exit 2.
    (tmp_path / "game.trf").write_text(
        trf_text(
            [(2, "w", "1"), (3, "b", "1")],
            [(1, "b", "0"), (None, "-", "H")],
            [(None, "-", "U"), (1, "w", "X")],
        )
    )
    before = positions(ledger)
    result = run("import", "trf", "game.trf", "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: game.trf line 7 (player 3): round 2 result 'X' is not a TRF result code\n"
    )
    assert positions(ledger) == before


def test_an_unregistered_player_is_refused_naming_the_line(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # "Both go through the same validation as submit": every player must be registered.
    (tmp_path / "game.trf").write_text(
        trf_text([(2, "w", "1")], [(1, "b", "0")]).replace(FIDE_IDS[1], "2999999")
    )
    before = positions(ledger)
    result = run("import", "trf", "game.trf", "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: game.trf line 6 (player 2): players[1].id: '2999999' is not a registered player; "
        "give --register-players to register it\n"
    )
    assert positions(ledger) == before
    # Issue 11: "A dry run must run every check the real run does".
    dry = run("import", "trf", "game.trf", "--actor", "td", "--dry-run")
    assert (dry.exit_code, dry.stderr) == (2, result.stderr)


def test_a_time_control_the_rules_cannot_read_names_the_122_line(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    header = [*HEADER[:3], "122 90 minutes for 40 moves, then 30 minutes"]
    (tmp_path / "game.trf").write_text(trf_text([(2, "w", "1")], [(1, "b", "0")], header=header))
    result = run("import", "trf", "game.trf", "--actor", "td", "--dry-run")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: game.trf line 4: time control '90 minutes for 40 moves, then 30 minutes' is not "
        "a notation the ledger reads (90+30, 90'/40+30'+30'', 40/90+30+30s, G/90;d30…); give it "
        "with --time-control, e.g. --time-control 90+30\n"
    )
    # A FIDE-rules section keeps its own notation (as `submit` does).
    fide = run("import", "trf", "game.trf", "--actor", "td", "--dry-run", "--rules", "fide")
    assert fide.exit_code == 0, fide.output
    assert json.loads(fide.stdout)["time_control"] == "90 minutes for 40 moves, then 30 minutes"


def test_a_dry_run_prints_what_submit_would_accept_and_appends_nothing(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # Brief: "--dry-run prints the section JSON that would be submitted and appends nothing".
    before = positions(ledger)
    result = run("import", "trf", str(FIXTURE), "--actor", "td", "--dry-run")
    assert result.exit_code == 0, result.output
    assert positions(ledger) == before
    (tmp_path / "section.json").write_text(result.stdout)
    assert run("submit", "section.json", "--actor", "td").exit_code == 0
    (payload,) = submitted(ledger)
    assert payload["section_id"] == SECTION_ID
    assert payload["games"] == section_of(FIXTURE.read_text())["games"]


def test_a_second_import_of_the_same_file_is_refused(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # The derived section id (start date and 012 name) is the same each time: "a section id is
    # accepted once".
    assert run("import", "trf", str(FIXTURE), "--actor", "td").exit_code == 0
    result = run("import", "trf", str(FIXTURE), "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {FIXTURE}: section_id: section '{SECTION_ID}' already exists\n"
    )
    assert len(submitted(ledger)) == 1


def test_the_id_map_and_date_options_on_the_command_line(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "ids.csv").write_text("".join(f"{n},{m}\n" for n, m in enumerate(FIDE_IDS, 1)))
    result = run(
        "import",
        "trf",
        str(FIXTURE),
        "--actor",
        "td",
        "--dry-run",
        "--id-map",
        "ids.csv",
        "--start",
        "2024-05-03",
        "--section-id",
        "RSO-2024",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["section_id"], out["start_date"]) == ("RSO-2024", "2024-05-03")
    bad = run("import", "trf", str(FIXTURE), "--actor", "td", "--start", "2024/05/03")
    assert bad.exit_code == 2
    assert bad.stderr == "error: --start: '2024/05/03' is not a date (YYYY-MM-DD)\n"


def test_three_commands_take_a_trf_file_to_an_explainable_ledger(tmp_path: Path) -> None:
    # The README's first flow: init, import with --register-players, then read it back.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()
    assert runner.invoke(main_app, ["init", "--actor", "ed", "--store", store]).exit_code == 0
    result = runner.invoke(
        main_app,
        [
            "import",
            "trf",
            str(FIXTURE),
            "--actor",
            "ed",
            "--register-players",
            "--time-control",
            "G/90;d30",
            "--store",
            store,
        ],
    )
    assert result.exit_code == 0, result.output
    assert "PlayerRegistered" in result.stdout
    player = json.loads(
        runner.invoke(main_app, ["player", "2000006", "--json", "--store", store]).stdout
    )
    assert player["name"] == "Chen, Fay"
    assert player["ratings"]["OTBR"]["games"] == 4
    again = runner.invoke(
        main_app,
        [
            "import",
            "trf",
            str(FIXTURE),
            "--actor",
            "ed",
            "--register-players",
            "--time-control",
            "G/90;d30",
            "--store",
            store,
        ],
    )
    assert again.exit_code == 2
    assert "already exists" in again.stderr


LAKESIDE_SECTION = "2024-09-14-lakeside-fide-open-2024"


def test_new_players_are_registered_with_what_the_file_says(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Issue 11: "an FM rated 2215 by FIDE imports as an unrated US player" no more. Three of the
    # file's FIDE ids are members' ids already (`run` registers them); the others are new.
    result = run("import", "trf", str(LAKESIDE), "--actor", "td", "--register-players", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary.pop("receipt").endswith("@15")  # the write's DIGEST@POSITION
    assert summary.pop("checkpoint").split("\n")[2] == "15"  # the checkpoint it signed: 15
    assert summary == {
        "dry_run": False,
        "files": [{"file": str(LAKESIDE), "records": 6}],
        "sections": [
            {
                "section_id": LAKESIDE_SECTION,
                "players": 6,
                "games": 8,
                "byes": 2,
                "not_rated": {},
                "unrated_players": {},
            }
        ],
        "players_registered": ["14700011", "5500012", "300001"],
        "games": 8,
        "warnings": [],
        "matched": [
            {"start": 1, "member": "14700011", "by": "new", "name": "Sokolov, Ivan"},
            {"start": 2, "member": "5500012", "by": "new", "name": "Park, Chloe"},
            {"start": 3, "member": "2000002", "by": "member", "name": "Ortiz, Ben"},
            {"start": 4, "member": "2000006", "by": "member", "name": "Chen, Fay"},
            {"start": 5, "member": "300001", "by": "new", "name": "Novak, Eli"},
            {"start": 6, "member": "2000007", "by": "member", "name": "Kim, Gus"},
        ],
    }
    registered = {
        e.payload["member_id"]: e.payload
        for e in read_entries(ledger)
        if e.type == "PlayerRegistered" and e.payload["member_id"] in summary["players_registered"]
    }
    assert registered["5500012"] == {
        "member_id": "5500012",
        "name": "Park, Chloe",
        "birth_date": "1995-01-01",
        "adult": None,
        "fide": {"rating": 2310.0, "date": "2024-09-14", "games": None, "federation": "KOR"},
        "cfc": None,
        "fide_adjustment_opt_in": None,
        "membership_expires": None,
        "playing_since": None,
        "fide_id": "5500012",
        "title": "WGM",
        "sex": "w",
        "club": None,
        "federation": "KOR",
        "birth_year": None,
        "reported_rating": None,
        "fide_k": None,  # issue 30's FIDE fields: a TRF has no K or list flags
        "fide_reached_2400": None,
        "fide_flags": None,
    }
    assert (registered["300001"]["title"], registered["300001"]["birth_date"]) == ("CM", None)
    assert registered["300001"]["birth_year"] == 1979


def test_a_member_whose_profile_has_the_fide_id_plays_under_their_member_id(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Issue 11: "by FIDE id when a registered member has that FIDE id".
    member = {"id": "12345678", "fide_id": "14700011", "name": "SOKOLOV, IVAN"}
    ledger.players.register(parse(RegisterPlayer, member), actor="td")
    result = run("import", "trf", str(LAKESIDE), "--actor", "td", "--register-players")
    assert result.exit_code == 0, result.output
    (payload,) = submitted(ledger)
    assert payload["players"][0] == {"id": "12345678"}
    registered = [
        e.payload["member_id"] for e in read_entries(ledger) if e.type == "PlayerRegistered"
    ]
    assert "14700011" not in registered


def test_a_map_file_on_the_command_line_names_the_members(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    (tmp_path / "map.json").write_text(
        json.dumps({"start": {"1": "US-1", "2": "US-2"}, "fide_id": {"300001": "US-5"}})
    )
    result = run(
        "import", "trf", str(LAKESIDE), "--actor", "td", "--map", "map.json", "--register-players"
    )
    assert result.exit_code == 0, result.output
    (payload,) = submitted(ledger)
    assert [p["id"] for p in payload["players"]] == [
        "US-1",
        "US-2",
        "2000002",
        "2000006",
        "US-5",
        "2000007",
    ]


def test_a_dry_run_runs_the_real_run_s_checks_and_appends_nothing(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Issue 11: "A dry run must run every check the real run does (same code path, appending
    # nothing). When the fix is --register-players, the error message says so."
    before = positions(ledger)
    refused = run("import", "trf", str(LAKESIDE), "--actor", "td", "--dry-run")
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"error: {LAKESIDE} line 14 (player 1): players[0].id: '14700011' is not a registered "
        "player; give --register-players to register it\n"
    )
    dry = run("import", "trf", str(LAKESIDE), "--actor", "td", "--dry-run", "--register-players")
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["section_id"] == LAKESIDE_SECTION
    assert dry.stderr.startswith(f"read {LAKESIDE}: 6 records\n")
    assert positions(ledger) == before
    summary = run(
        "import", "trf", str(LAKESIDE), "--actor", "td", "--dry-run", "--register-players", "--json"
    )
    assert json.loads(summary.stdout)["dry_run"] is True
    assert json.loads(summary.stdout)["players_registered"] == ["14700011", "5500012", "300001"]
    assert positions(ledger) == before
    assert run("import", "trf", str(LAKESIDE), "--actor", "td", "--register-players").exit_code == 0
    again = run("import", "trf", str(LAKESIDE), "--actor", "td", "--dry-run")
    assert again.exit_code == 2
    assert again.stderr == (
        f"error: {LAKESIDE}: section_id: section '{LAKESIDE_SECTION}' already exists\n"
    )


def test_a_refused_section_registers_nobody(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # "commands validate fully before appending": players and section are one append.
    assert run("import", "trf", str(LAKESIDE), "--actor", "td", "--register-players").exit_code == 0
    (tmp_path / "again.trf").write_text(LAKESIDE.read_text().replace("14700011", "14700099"))
    before = positions(ledger)
    result = run("import", "trf", "again.trf", "--actor", "td", "--register-players")
    assert result.exit_code == 2
    assert "already exists" in result.stderr
    assert positions(ledger) == before
    assert not ledger.is_registered("14700099")


def test_the_import_reports_what_it_read(run: Callable[..., Result], ledger: RatingsLedger) -> None:
    result = run("import", "trf", str(FIXTURE), "--actor", "td")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == [
        f"read {FIXTURE}: 7 records",
        f"section {SECTION_ID}: 7 players, 12 games, 4 byes",
        f"recorded SectionSubmitted at position {positions(ledger)}: section_id={SECTION_ID}",
    ]
    assert result.stdout.splitlines()[3].endswith(f"@{positions(ledger)}")  # the receipt


def test_fide_ratings_from_the_file_seed_the_fide_family(tmp_path: Path) -> None:
    # Issue 11: "the FIDE and ICU families rate nobody" when the profile has no FIDE rating.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()
    assert runner.invoke(main_app, ["init", "--actor", "ed", "--store", store]).exit_code == 0
    args = ["import", "trf", str(LAKESIDE), "--actor", "ed", "--register-players"]
    assert runner.invoke(main_app, [*args, "--store", store]).exit_code == 0
    shown = runner.invoke(
        main_app, ["player", "14700011", "--json", "--rules-family", "fide", "--store", store]
    )
    fide = json.loads(shown.stdout)["ratings"]["FIDE"]
    assert abs(fide["rating"] - 2615) < 10
    # a rated player's standing, not a first rating from his 3 games: his section is rated by
    # the continuous formula from the file's 2615 (N counts only the games rated here, issue
    # 30: "N and Games count games rated")
    history = runner.invoke(
        main_app,
        ["history", "14700011", "--system", "FIDE", "--json", "--rules-family", "fide"]
        + ["--store", store],
    )
    row = json.loads(history.stdout)[-1]
    assert (row["formula"], row["pre_rating"]) == ("continuous", 2615.0)


def test_a_profile_the_ledger_refuses_is_named_by_its_line(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # A birth date TRF16 can hold but `register` refuses (in the future) names the player line.
    (tmp_path / "game.trf").write_text(LAKESIDE.read_text().replace("1965/06/13", "2090/06/13"))
    before = positions(ledger)
    result = run("import", "trf", "game.trf", "--actor", "td", "--register-players")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: game.trf line 14 (player 1): birth_date: ")
    assert result.stderr.count("\n") == 1
    assert positions(ledger) == before
