"""`import uschess-dbf`: a US Chess rating report (THEXPORT/TSEXPORT/TDEXPORT.DBF, format 2C) as
the tournament's sections, through the same validation as `submit`.

The fixture set in tests/fixtures/uschess-dbf is written by `write_fixture` below (a tiny
dBase III writer), so a test can check the committed bytes and build damaged variants.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli.importing import register
from ledger.entrypoints.interchange import uschess_dbf
from ledger.errors import InvalidCommand
from ledger.log import read_entries
from ledger.results import RATED_RESULTS

FIXTURE = Path(__file__).parent / "fixtures" / "uschess-dbf"
Field = tuple[str, str, int]
TOURNAMENT = "2024-06-01-riverside-club-championship"

HEADER_FIELDS: list[Field] = [
    ("H_FORMAT", "C", 5),
    ("H_PROGRAM", "C", 10),
    ("H_EVENT_ID", "C", 12),
    ("H_NAME", "C", 35),
    ("H_TOT_SECT", "C", 2),
    ("H_BEG_DATE", "D", 8),
    ("H_END_DATE", "D", 8),
    ("H_AFF_ID", "C", 8),
    ("H_CITY", "C", 21),
    ("H_STATE", "C", 2),
    ("H_ZIPCODE", "C", 10),
    ("H_COUNTRY", "C", 21),
    ("H_SENDCROS", "C", 1),
    ("H_CTD_ID", "C", 8),
    ("H_ATD_ID", "C", 8),
    ("H_OTHER_TD", "C", 255),
]
SECTION_FIELDS: list[Field] = [
    ("S_EVENT_ID", "C", 12),
    ("S_SEC_NUM", "C", 2),
    ("S_SEC_NAME", "C", 30),
    ("S_R_SYSTEM", "C", 1),
    ("S_TIMECTL", "C", 40),
    ("S_CTD_ID", "C", 8),
    ("S_ATD_ID", "C", 8),
    ("S_TRN_TYPE", "C", 1),
    ("S_TOT_RNDS", "C", 2),
    ("S_LST_PAIR", "C", 4),
    ("S_BEG_DATE", "C", 8),
    ("S_END_DATE", "C", 8),
    ("S_SCH_LVL", "C", 1),
    ("S_GR_PRIX", "C", 1),
    ("S_GP_PTS", "C", 3),
    ("S_FIDE", "C", 1),
]


def detail_fields(rounds: int) -> list[Field]:
    fields: list[Field] = [
        ("D_EVENT_ID", "C", 12),
        ("D_SEC_NUM", "C", 2),
        ("D_PAIR_NUM", "C", 4),
        ("D_MEM_ID", "C", 8),
        ("D_NAME", "C", 30),
        ("D_STATE", "C", 2),
        ("D_RATING", "C", 4),
    ]
    return fields + [(f"D_RND{r:02d}", "C", 7) for r in range(1, rounds + 1)]


HEADER = {
    "H_FORMAT": "2C",
    "H_PROGRAM": "TESTGEN",
    "H_NAME": "Riverside Club Championship",
    "H_BEG_DATE": "20240601",
    "H_END_DATE": "20240602",
    "H_AFF_ID": "A6000001",
    "H_CITY": "Riverside",
    "H_STATE": "CA",
    "H_ZIPCODE": "92501",
    "H_COUNTRY": "USA",
    "H_SENDCROS": "N",
    "H_CTD_ID": "90000001",
}
SECTIONS = [
    {
        "S_SEC_NUM": " 1",
        "S_SEC_NAME": "Open",
        "S_R_SYSTEM": "R",
        "S_TIMECTL": "G/90;d30",
        "S_TRN_TYPE": "S",
        "S_TOT_RNDS": "3",
        "S_LST_PAIR": "4",
        "S_BEG_DATE": "20240601",
        "S_END_DATE": "20240601",
    },
    {
        "S_SEC_NUM": " 2",
        "S_SEC_NAME": "U1600",
        "S_R_SYSTEM": "D",
        "S_TIMECTL": "G/45;d5",
        "S_TRN_TYPE": "S",
        "S_TOT_RNDS": "4",
        "S_LST_PAIR": "5",
    },
]
# (section, pair, member id, name, rating, round cells): result code, opponent's pair, colour.
PLAYERS: list[tuple[str, int, str, str, str, list[str]]] = [
    (" 1", 1, "12345678", "LEE, ANN", "1850", ["W3W", "W2B", "D4W", "U0"]),
    (" 1", 2, "30000001", "ORTIZ, BEN", "1700", ["D4B", "L1W", "H0", "U0"]),
    (" 1", 3, "30000002", "PARK, CHLOE", "1650", ["L1B", "X4", "U0", "U0"]),
    (" 1", 4, "30000003", "RAO, DEV", "", ["D2W", "F3", "D1B", "U0"]),
    (" 2", 1, "30000004", "NOVAK, ELI", "1500", ["W    2W", "W5B", "W3W", "L4B"]),
    (" 2", 2, "30000005", "CHEN, FAY", "1480", ["L1B", "W3W", "D4B", "W5W"]),
    (" 2", 3, "40000001", "KIM, GUS", "1320", ["D4W", "L2B", "L1B", "H0"]),
    (" 2", 4, "40000002", "LOPEZ, HAL", "1290", ["D3B", "X0", "D2W", "W1W"]),
    (" 2", 5, "40000003", "MORI, IVY", "", ["B0", "L1W", "F0", "L2B"]),
]
MEMBERS = [p[2] for p in PLAYERS]


def write_dbf(path: Path, fields: Sequence[Field], records: Sequence[Mapping[str, str]]) -> None:
    """A dBase III table: 32-byte header, 32-byte field descriptors, 0x0D, records, 0x1A."""
    header_size = 32 + 32 * len(fields) + 1
    record_size = 1 + sum(width for _, _, width in fields)
    out = bytearray(
        struct.pack("<BBBBIHH20x", 3, 124, 6, 3, len(records), header_size, record_size)
    )
    for name, kind, width in fields:
        out += struct.pack("<11sc4xBB14x", name.encode("ascii"), kind.encode("ascii"), width, 0)
    out += b"\r"
    for record in records:
        out += b" "
        for name, _, width in fields:
            value = record.get(name, "")
            assert len(value) <= width, (name, value)
            out += value.ljust(width).encode("ascii")
    out += b"\x1a"
    path.write_bytes(bytes(out))


def write_report(
    folder: Path,
    header: Mapping[str, str] = HEADER,
    sections: Sequence[Mapping[str, str]] = SECTIONS,
    players: Sequence[tuple[str, int, str, str, str, list[str]]] = PLAYERS,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rounds = max(len(p[5]) for p in players)
    header = {"H_TOT_SECT": str(len(sections)), **header}
    write_dbf(folder / "THEXPORT.DBF", HEADER_FIELDS, [header])
    write_dbf(folder / "TSEXPORT.DBF", SECTION_FIELDS, sections)
    details = [
        {
            "D_SEC_NUM": sec,
            "D_PAIR_NUM": str(pair),
            "D_MEM_ID": member,
            "D_NAME": name,
            "D_STATE": "CA",
            "D_RATING": rating,
            **{f"D_RND{r:02d}": cell for r, cell in enumerate(cells, start=1)},
        }
        for sec, pair, member, name, rating, cells in players
    ]
    write_dbf(folder / "TDEXPORT.DBF", detail_fields(rounds), details)
    return folder


def write_fixture(folder: Path = FIXTURE) -> Path:
    return write_report(folder)


def changed_cells(changes: Mapping[tuple[str, int, int], str]) -> list[Any]:
    """PLAYERS with the cells at (section, pair, round) replaced."""
    players = []
    for sec, pair, member, name, rating, cells in PLAYERS:
        cells = [changes.get((sec.strip(), pair, r), c) for r, c in enumerate(cells, start=1)]
        players.append((sec, pair, member, name, rating, cells))
    return players


def sections_of(folder: Path, **options: Any) -> list[dict[str, Any]]:
    report = uschess_dbf.read_report(folder)
    return [s.data for s in uschess_dbf.to_sections(report, **options)]


def refusal(folder: Path) -> str:
    with pytest.raises(InvalidCommand) as caught:
        sections_of(folder)
    return caught.value.message


def test_the_fixture_set_is_what_the_writer_generates(tmp_path: Path) -> None:
    # Keeps the committed binary fixtures reproducible from the readable data above.
    write_fixture(tmp_path)
    for name in ("THEXPORT.DBF", "TSEXPORT.DBF", "TDEXPORT.DBF"):
        assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes(), name


def test_the_report_becomes_one_section_per_tsexport_record() -> None:
    # Appendix E1: THEXPORT the event, TSEXPORT "one record per section", TDEXPORT "one per
    # player"; each D_RNDnn is the result, the opponent's pair number and the colour.
    open_, u1600 = sections_of(FIXTURE)
    assert open_ == {
        "section_id": f"{TOURNAMENT}-1",
        "tournament_id": TOURNAMENT,
        "event_name": "Riverside Club Championship — Open",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-06-01",
        "end_date": "2024-06-01",
        "players": [{"id": m} for m in MEMBERS[:4]],
        "games": [
            {"round": 1, "white": "12345678", "black": "30000002", "result": "1-0"},
            {"round": 1, "white": "30000003", "black": "30000001", "result": "1/2-1/2"},
            {"round": 2, "white": "30000001", "black": "12345678", "result": "0-1"},
            {"round": 2, "white": "30000002", "black": "30000003", "result": "1F-0F"},
            {"round": 3, "white": "12345678", "black": "30000003", "result": "1/2-1/2"},
        ],
        "byes": [
            {"round": 3, "player": "30000001", "bye": "half"},
            {"round": 3, "player": "30000002", "bye": "zero"},
        ],
    }
    assert u1600["section_id"] == f"{TOURNAMENT}-2"
    assert u1600["event_name"] == "Riverside Club Championship — U1600"
    # Blank S_BEG_DATE / S_END_DATE: the event's H_BEG_DATE / H_END_DATE.
    assert (u1600["start_date"], u1600["end_date"]) == ("2024-06-01", "2024-06-02")
    assert u1600["games"] == [
        {"round": 1, "white": "30000004", "black": "30000005", "result": "1-0"},
        {"round": 1, "white": "40000001", "black": "40000002", "result": "1/2-1/2"},
        {"round": 2, "white": "40000003", "black": "30000004", "result": "0-1"},
        {"round": 2, "white": "30000005", "black": "40000001", "result": "1-0"},
        {"round": 3, "white": "30000004", "black": "40000001", "result": "1-0"},
        {"round": 3, "white": "40000002", "black": "30000005", "result": "1/2-1/2"},
        {"round": 4, "white": "40000002", "black": "30000004", "result": "1-0"},
        {"round": 4, "white": "30000005", "black": "40000003", "result": "1-0"},
    ]
    assert u1600["byes"] == [
        {"round": 1, "player": "40000003", "bye": "full"},
        {"round": 2, "player": "40000002", "bye": "full"},
        {"round": 3, "player": "40000003", "bye": "zero"},
        {"round": 4, "player": "40000001", "bye": "half"},
    ]


@pytest.mark.parametrize(
    ("first", "second", "result", "rated"),
    [
        # Forum (US Chess ratings staff): "W – Win, L – Loss, D – Draw" are played games …
        ("W2W", "L1B", "1-0", True),
        ("L2W", "W1B", "0-1", True),
        ("D2W", "D1B", "1/2-1/2", True),
        # … "X – Forfeit Win, F – Forfeit Loss": unplayed, so not rated (§7: "Games in which
        # one player makes no move are not rated").
        ("X2", "F1", "1F-0F", False),
        ("F2", "X1", "0F-1F", False),
    ],
)
def test_each_paired_code_is_the_game_result_it_means(
    tmp_path: Path, first: str, second: str, result: str, rated: bool
) -> None:
    players = [(*PLAYERS[0][:5], [first]), (*PLAYERS[1][:5], [second])]
    sections = [dict(SECTIONS[0], S_TOT_RNDS="1", S_LST_PAIR="2")]
    section = sections_of(write_report(tmp_path, sections=sections, players=players))[0]
    assert section["games"] == [
        {"round": 1, "white": "12345678", "black": "30000001", "result": result}
    ]
    assert section["byes"] == []
    assert (result in RATED_RESULTS) is rated


@pytest.mark.parametrize(
    ("cell", "bye"),
    [
        # "H is a half point bye, B is a full point bye … U is for unpaired in that round (or a
        # zero point bye)"; "For all of the above, the opponent's pairing number should be
        # blank or zero."
        ("B0", "full"),
        ("B", "full"),
        ("H0", "half"),
        ("U0", "zero"),
        ("", "zero"),
        # "– Unpaired"; the round-robin "'*' … is treated the same as a 'U'".
        ("-", "zero"),
        ("*", "zero"),
        # Forfeits written without the opponent: the bye that scores the same.
        ("X0", "full"),
        ("F0", "zero"),
        ("Z0", "half"),
    ],
)
def test_each_unpaired_code_is_the_bye_that_scores_the_same(
    tmp_path: Path, cell: str, bye: str
) -> None:
    players = changed_cells({("1", 3, 3): cell})
    section = sections_of(write_report(tmp_path, players=players))[0]
    assert {"round": 3, "player": "30000002", "bye": bye} in section["byes"]


@pytest.mark.parametrize(
    ("pair", "bye"),
    # "Z – Forfeit Draw (rare)" between paired players, and a double forfeit: the ledger has
    # neither result, so each player gets the (unrated) bye that scores the same.
    [(("Z4", "Z3"), "half"), (("F4", "F3"), "zero")],
)
def test_a_paired_forfeit_draw_or_double_forfeit_is_two_byes(
    tmp_path: Path, pair: tuple[str, str], bye: str
) -> None:
    players = changed_cells({("1", 3, 2): pair[0], ("1", 4, 2): pair[1]})
    section = sections_of(write_report(tmp_path, players=players))[0]
    assert [g for g in section["games"] if g["round"] == 2] == [
        {"round": 2, "white": "30000001", "black": "12345678", "result": "0-1"}
    ]
    assert {"round": 2, "player": "30000002", "bye": bye} in section["byes"]
    assert {"round": 2, "player": "30000003", "bye": bye} in section["byes"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {("1", 2, 2): "Q1W"},
            "TDEXPORT.DBF record 2 (section 1, pair 2): D_RND02 'Q1W' is not a US Chess "
            "result code",
        ),
        (
            # "When the results are to be inconsistent but ratable, use: N – Win, R – Draw,
            # S – Loss": one game, two results, which a section file cannot hold.
            {("1", 1, 1): "N3W"},
            "D_RND01 'N3W' is an inconsistent but ratable win",
        ),
        ({("1", 1, 1): "W3B"}, "round 1 colour 'b' does not match 'b' on opponent 3's line"),
        ({("1", 1, 1): "W3"}, "round 1 result 'W' needs a colour"),
        ({("1", 1, 1): "D3W"}, "round 1 result 'D' does not match 'L' on opponent 3's line"),
        ({("1", 1, 1): "W2W"}, "round 1: opponent 2's line gives opponent 4"),
        ({("1", 1, 1): "W9W"}, "round 1 opponent 9 is not a player of the file"),
        ({("1", 1, 1): "W1W"}, "round 1 opponent 1 is the player themselves"),
        ({("1", 2, 3): "H3"}, "round 3 result 'H' is a bye but names opponent 3"),
        ({("1", 1, 1): "W"}, "round 1 result 'W' needs an opponent"),
        ({("1", 1, 4): "W2W"}, "D_RND04 'W2W' is after the section's 3 rounds"),
    ],
)
def test_a_bad_round_cell_is_refused_naming_the_record_and_field(
    tmp_path: Path, changes: Mapping[tuple[str, int, int], str], message: str
) -> None:
    # Brief: "a malformed file is rejected with the line/record and field named".
    error = refusal(write_report(tmp_path, players=changed_cells(changes)))
    assert error.startswith(str(tmp_path / "TDEXPORT.DBF") + " record ")
    assert message in error


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda f: write_report(f, sections=[dict(SECTIONS[0], S_TRN_TYPE="R"), SECTIONS[1]]),
            "S_TRN_TYPE 'R' (round robin) is not read",
        ),
        (
            lambda f: write_report(f, header=dict(HEADER, H_BEG_DATE="20241399")),
            "THEXPORT.DBF record 1: H_BEG_DATE '20241399' is not a date (YYYYMMDD)",
        ),
        (
            lambda f: write_report(f, sections=[dict(SECTIONS[0], S_TIMECTL=""), SECTIONS[1]]),
            "(section 1): S_TIMECTL is blank; give --time-control",
        ),
        (
            lambda f: write_report(f, sections=[SECTIONS[0]]),
            "TDEXPORT.DBF record 5: D_SEC_NUM '2' is not a section of TSEXPORT.DBF",
        ),
        (
            lambda f: write_report(f, players=[(*PLAYERS[0][:2], "", *PLAYERS[0][3:])]),
            "(section 1, pair 1): D_MEM_ID '' is not a US Chess id",
        ),
        (
            lambda f: write_report(f, players=[*PLAYERS, PLAYERS[0]]),
            "pair 1 of section 1 is also",
        ),
    ],
)
def test_a_bad_record_is_refused_naming_it(
    tmp_path: Path, build: Callable[[Path], Path], message: str
) -> None:
    assert message in refusal(build(tmp_path))


def test_missing_files_and_fields_are_named(tmp_path: Path) -> None:
    # Brief: "a malformed file is rejected with the line/record and field named".
    folder = write_fixture(tmp_path / "report")
    (folder / "TSEXPORT.DBF").unlink()
    assert refusal(folder) == f"{folder}: no TSEXPORT.DBF"
    write_dbf(folder / "TSEXPORT.DBF", SECTION_FIELDS[:3], SECTIONS)
    assert refusal(folder) == f"{folder / 'TSEXPORT.DBF'}: no field S_TIMECTL"
    (folder / "TSEXPORT.DBF").write_bytes(b"not a table")
    assert refusal(folder).startswith(f"{folder / 'TSEXPORT.DBF'}: not a readable DBF file")


def test_file_names_are_found_in_any_case(tmp_path: Path) -> None:
    # Appendix E1 itself writes both "Thexport.dbf" and "thexport.dbf".
    folder = write_fixture(tmp_path / "report")
    for path in folder.iterdir():
        path.rename(folder / path.name.lower())
    assert [s["section_id"] for s in sections_of(folder)] == [
        f"{TOURNAMENT}-1",
        f"{TOURNAMENT}-2",
    ]


def test_the_tournament_id_is_the_event_id_the_option_or_derived(tmp_path: Path) -> None:
    # Decision: --tournament-id, else H_EVENT_ID, else H_BEG_DATE and H_NAME; sections by number.
    folder = write_report(tmp_path, header=dict(HEADER, H_EVENT_ID="202406011234"))
    assert sections_of(folder)[0]["section_id"] == "202406011234-1"
    assert sections_of(folder, tournament_id="RCC-2024")[1]["section_id"] == "RCC-2024-2"
    assert sections_of(FIXTURE)[0]["tournament_id"] == TOURNAMENT


def test_the_time_control_option_replaces_every_sections_time_control() -> None:
    # Brief: the imports take "--time-control" like the TRF import.
    assert {s["time_control"] for s in sections_of(FIXTURE, time_control="G/60;d5")} == {"G/60;d5"}


@pytest.fixture
def run(ledger: RatingsLedger, store_url: str) -> Callable[..., Result]:
    """The command line on a ledger the conftest sets up (`td` is a tournament director), with
    the fixture's players registered."""
    ledger.players.register(*(parse(RegisterPlayer, {"id": m}) for m in MEMBERS), actor="td")
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app, [*args, "--store", store_url])

    return invoke


def positions(ledger: RatingsLedger) -> int:
    return ledger.recorder.max_notification_id() or 0


def test_the_import_submits_every_section_as_submit_would(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    result = run("import", "uschess-dbf", str(FIXTURE), "--actor", "td")
    assert result.exit_code == 0, result.output
    submitted = [e for e in read_entries(ledger) if e.type == "SectionSubmitted"]
    assert [e.payload["section_id"] for e in submitted] == [
        f"{TOURNAMENT}-1",
        f"{TOURNAMENT}-2",
    ]
    assert [e.payload["games"] for e in submitted] == [s["games"] for s in sections_of(FIXTURE)]
    assert {e.actor for e in submitted} == {"td"}


def test_a_dry_run_prints_the_sections_and_appends_nothing(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Brief: "--dry-run prints the section JSON that would be submitted and appends nothing".
    before = positions(ledger)
    result = run("import", "uschess-dbf", str(FIXTURE), "--actor", "td", "--dry-run")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert [s["section_id"] for s in printed] == [f"{TOURNAMENT}-1", f"{TOURNAMENT}-2"]
    assert printed[0]["games"] == sections_of(FIXTURE)[0]["games"]
    assert positions(ledger) == before


def test_one_unregistered_player_refuses_the_whole_report(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    # Both go "through the same validation as submit": a section's players must be registered,
    # and the report's sections are submitted all or none.
    players = [*PLAYERS[:-1], (" 2", 5, "49999999", "NEW, NAN", "", PLAYERS[-1][5])]
    folder = write_report(tmp_path / "report", players=players)
    before = positions(ledger)
    result = run("import", "uschess-dbf", str(folder), "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {folder / 'TDEXPORT.DBF'} record 9 (section 2, pair 5): players[4].id: "
        "'49999999' is not a registered player; give --register-players to register it\n"
    )
    assert positions(ledger) == before
    dry = run("import", "uschess-dbf", str(folder), "--actor", "td", "--dry-run")
    assert (dry.exit_code, dry.stderr) == (2, result.stderr)
    registering = run("import", "uschess-dbf", str(folder), "--actor", "td", "--register-players")
    assert registering.exit_code == 0, registering.output
    assert ledger.is_registered("49999999")


def test_a_malformed_report_exits_2_with_one_line_and_appends_nothing(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    folder = write_report(tmp_path / "report", players=changed_cells({("2", 3, 4): "3W"}))
    before = positions(ledger)
    result = run("import", "uschess-dbf", str(folder), "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert (
        "record 7 (section 2, pair 3): D_RND04 '3W' is not a US Chess result code" in result.stderr
    )
    assert positions(ledger) == before


def test_an_invalid_time_control_names_the_tsexport_record(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    sections = [SECTIONS[0], dict(SECTIONS[1], S_TIMECTL="fast")]
    folder = write_report(tmp_path / "report", sections=sections)
    result = run("import", "uschess-dbf", str(folder), "--actor", "td", "--dry-run")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"error: {folder / 'TSEXPORT.DBF'} record 2 (section 2) S_TIMECTL: time_control: "
    )


def damaged(folder: Path, name: str, change: Callable[[bytes], bytes]) -> Path:
    path = folder / name
    path.write_bytes(change(path.read_bytes()))
    return path


def retyped(data: bytes, field: str, kind: str) -> bytes:
    """The table with `field`'s type byte (offset 11 of its 32-byte descriptor) changed."""
    at = data.index(field.encode("ascii").ljust(11, b"\0")) + 11
    return data[:at] + kind.encode("ascii") + data[at + 1 :]


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        (
            "TDEXPORT.DBF",
            lambda b: b[:-50],
            "the header says 9 records of 91 bytes (819 bytes), the file has 770 after the header; "
            "truncated or damaged",
        ),
        (
            "TSEXPORT.DBF",
            lambda b: b[:4] + (3).to_bytes(4, "little") + b[8:],
            "the header says 3 records of 131 bytes (393 bytes), the file has 263 after the "
            "header; truncated or damaged",
        ),
        (
            "TSEXPORT.DBF",
            lambda b: b + b" " * 131,
            "the header says 2 records of 131 bytes (262 bytes), the file has 394 after the "
            "header; truncated or damaged",
        ),
        (
            "TSEXPORT.DBF",
            lambda b: b[:10] + (150).to_bytes(2, "little") + b[12:],
            "the fields take 131 bytes a record but the header says 150; damaged",
        ),
        ("TDEXPORT.DBF", lambda b: retyped(b, "D_PAIR_NUM", "F"), "field D_PAIR_NUM has type 'F'"),
        ("TDEXPORT.DBF", lambda b: retyped(b, "D_RND02", "M"), "field D_RND02 has type 'M'"),
        ("THEXPORT.DBF", lambda b: retyped(b, "H_BEG_DATE", "N"), "field H_BEG_DATE has type 'N'"),
    ],
)
def test_a_truncated_or_mistyped_table_is_refused_naming_the_file(
    tmp_path: Path, name: str, change: Callable[[bytes], bytes], message: str
) -> None:
    # Issue 10: "a truncated DBF, or one whose header record count does not match the file
    # size, is refused (exit 2, one line naming the file)".
    path = damaged(write_fixture(tmp_path / "report"), name, change)
    assert refusal(path.parent).startswith(f"{path}: {message}")


def test_the_number_of_sections_must_be_the_header_s(tmp_path: Path) -> None:
    folder = write_report(tmp_path / "report", header=dict(HEADER, H_TOT_SECT="3"))
    assert refusal(folder) == (
        f"{folder / 'THEXPORT.DBF'} record 1: H_TOT_SECT '3' sections, but "
        f"{folder / 'TSEXPORT.DBF'} has 2 records"
    )


def test_a_truncated_table_exits_2_with_one_line_and_appends_nothing(
    run: Callable[..., Result], ledger: RatingsLedger, tmp_path: Path
) -> None:
    path = damaged(write_fixture(tmp_path / "report"), "TDEXPORT.DBF", lambda b: b[:-120])
    before = positions(ledger)
    result = run("import", "uschess-dbf", str(path.parent), "--actor", "td")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}: the header says 9 records")
    assert result.stderr.count("\n") == 1
    assert positions(ledger) == before


def test_the_import_reports_the_records_of_each_file(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    # Issue 10: "It reports per file what it read (records per file)".
    result = run("import", "uschess-dbf", str(FIXTURE), "--actor", "td")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[:3] == [
        f"read {FIXTURE / 'THEXPORT.DBF'}: 1 record",
        f"read {FIXTURE / 'TSEXPORT.DBF'}: 2 records",
        f"read {FIXTURE / 'TDEXPORT.DBF'}: 9 records",
    ]


def test_the_json_summary_gives_files_sections_players_and_games(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    before = positions(ledger)
    result = run("import", "uschess-dbf", str(FIXTURE), "--actor", "td", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    # Issue 20: each section says why each family would not rate it (none here: G/90;d30 and
    # G/45;d5 over the board, rated by all three) and which players have no rated game.
    reasons = [(s.pop("not_rated"), s.pop("unrated_players")) for s in summary["sections"]]
    assert [r[0] for r in reasons] == [{}, {}]
    assert summary == {
        "dry_run": True,
        "files": [
            {"file": str(FIXTURE / "THEXPORT.DBF"), "records": 1},
            {"file": str(FIXTURE / "TSEXPORT.DBF"), "records": 2},
            {"file": str(FIXTURE / "TDEXPORT.DBF"), "records": 9},
        ],
        "sections": [
            {"section_id": f"{TOURNAMENT}-1", "players": 4, "games": 5, "byes": 2},
            {"section_id": f"{TOURNAMENT}-2", "players": 5, "games": 8, "byes": 4},
        ],
        "players_registered": [],
        "games": 13,
        "warnings": [],
    }
    assert positions(ledger) == before
