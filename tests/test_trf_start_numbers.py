"""A player keeps his start number wherever the file's numbers are shown (issue 31: "team files
drop a reserve who never played and renumber every later player, so the crosstable's numbers no
longer match the pairing program's start numbers"; "a player keeps his start number wherever
the file's numbers are shown").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from trf_helpers import import_trf, ledger, player, trf, write

from ledger.commands import SubmitSection, parse
from ledger.entrypoints.interchange import start_numbers
from ledger.entrypoints.interchange import trf as trf_module
from ledger.errors import InvalidCommand

# Alpha's reserve, starting rank 2, is on the team's list and never at a board.
TEAM = "\n".join(
    [
        "012 Team Cup",
        "042 2024/05/04",
        "052 2024/05/05",
        "122 90+30",
        "142 2",
        f"013 {'Alpha':<32}{1:>5}{2:>5}{3:>5}",
        f"013 {'Beta':<32}{4:>5}{5:>5}",
        player(1, "Alpha, One", [(4, "w", "1"), (5, "b", "=")], fide_id="1001"),
        player(2, "Alpha, Reserve", [(0, "-", "-"), (0, "-", "-")], fide_id="1002"),
        player(3, "Alpha, Three", [(5, "b", "0"), (4, "w", "1")], fide_id="1003"),
        player(4, "Beta, Four", [(1, "b", "0"), (3, "b", "0")], fide_id="1004"),
        player(5, "Beta, Five", [(3, "w", "1"), (1, "w", "=")], fide_id="1005"),
    ]
)
STARTS = {"1001": 1, "1003": 3, "1004": 4, "1005": 5}


@pytest.fixture
def imported(tmp_path: Path) -> Any:
    cli = ledger(tmp_path)
    result = import_trf(cli, write(tmp_path, TEAM, "team.trf"), "--json")
    assert result.exit_code == 0, result.output
    return cli, json.loads(result.stdout)["sections"][0]["section_id"]


def test_the_reserve_is_left_out_and_every_later_player_keeps_his_start_number() -> None:
    section = trf_module.to_section(trf_module.parse_trf(TEAM, "team.trf")).data
    assert section["players"] == [{"id": m, "start": n} for m, n in STARTS.items()]


def test_the_section_json_shows_the_pairing_program_s_numbers(imported: Any) -> None:
    cli, section_id = imported
    report = json.loads(cli("section", section_id, "--json").stdout)
    assert start_numbers(report) == STARTS


def test_the_crosstable_shows_the_pairing_program_s_numbers(imported: Any) -> None:
    cli, section_id = imported
    table = json.loads(cli("crosstable", section_id, "--json").stdout)
    assert {r["player"]: r["pair"] for r in table["rows"]} == STARTS
    # Round 1: starting rank 1 beat starting rank 4, as the file says.
    first = next(r for r in table["rows"] if r["player"] == "1001")
    assert first["cells"][0] == "W4"


def test_export_trf_writes_the_pairing_program_s_numbers(imported: Any, tmp_path: Path) -> None:
    cli, section_id = imported
    exported = cli("export-trf", section_id).stdout
    lines = [x for x in exported.splitlines() if x.startswith("001")]
    assert [int(x[4:8]) for x in lines] == [1, 3, 4, 5]
    # Player 1's round 1 block (columns 92-101): opponent 4, white, a win.
    assert lines[0][91:99] == "   4 w 1"


def test_a_file_numbered_one_two_three_stores_no_start() -> None:
    # Entries keep their bytes where the place is the start number; an old entry without
    # starts is numbered by place, as before.
    text = trf(
        player(1, "Adams, Ann", [(2, "w", "1")], fide_id="2001"),
        player(2, "Brown, Bob", [(1, "b", "0")], fide_id="2002"),
    )
    section = trf_module.to_section(trf_module.parse_trf(text, "club.trf")).data
    assert section["players"] == [{"id": "2001"}, {"id": "2002"}]
    assert start_numbers(section) == {"2001": 1, "2002": 2}


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ([{"id": "A", "start": 1}, {"id": "B"}], "'B' has no start; give all or none"),
        ([{"id": "A", "start": 3}, {"id": "B", "start": 3}], "start 3 is listed twice"),
    ],
)
def test_start_numbers_are_given_for_all_or_none_each_once(
    players: list[dict[str, Any]], message: str
) -> None:
    data = {
        "section_id": "S",
        "event_name": "Open",
        "online": False,
        "time_control": "G/90;+30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-04",
        "players": players,
        "games": [{"round": 1, "white": "A", "black": "B", "result": "1-0"}],
    }
    with pytest.raises(InvalidCommand) as caught:
        parse(SubmitSection, data)
    assert (caught.value.path, caught.value.message) == (("players", 1, "start"), message)
