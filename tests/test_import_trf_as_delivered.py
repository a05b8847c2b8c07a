"""TRF files as federations receive them (issue 20): header dates in the forms real files carry,
online events, ratings recorded as what they are, team files, the export that reads back as the
same section, and a revised file as a correction with a per-game diff.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from ledger.entrypoints.cli import app as main_app
from ledger.entrypoints.interchange import trf, trf_header, trf_players
from ledger.entrypoints.interchange.section_diff import diff
from ledger.entrypoints.interchange.trf_export import to_trf

REAL = Path(__file__).parent / "fixtures" / "real"
LAKESIDE = Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2024/01/01", date(2024, 1, 1)),  # TRF16's YYYY/MM/DD (TRF-2026's sample)
        ("2012-02-06", date(2012, 2, 6)),  # JaVaFo's acceleration sample
        ("1969.12.06", date(1969, 12, 6)),
        ("28. 07. 2005", date(2005, 7, 28)),  # Karl-Mala-Gedenkturnier
        ("24/09/2010", date(2010, 9, 24)),  # Open Internacional de Gros
        ("09/24/2010", date(2010, 9, 24)),  # a month over 12 is not day-first
        ("May 29, 2020", date(2020, 5, 29)),  # lichess
        ("Jun 26, 2020", date(2020, 6, 26)),
        ("29 May 2020", date(2020, 5, 29)),
        ("29. September 2020", date(2020, 9, 29)),
    ],
)
def test_a_header_date_in_each_form_real_files_carry_is_read(text: str, day: date) -> None:
    # Issue 20: "header dates in the forms real files carry are refused: `28. 07. 2005`,
    # `24/09/2010`, `May 29, 2020`, `2024/01/01`".
    assert trf_header.read_date(text) == day


@pytest.mark.parametrize("text", ["", "next Tuesday", "31/31/2020", "Foo 3, 2020"])
def test_a_header_that_is_no_date_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        trf_header.read_date(text)


def test_round_dates_are_yy_mm_dd_as_trf16_writes_them() -> None:
    # TRF16 and TRF-2026, 132: "Dates of the round (YY/MM/DD)".
    assert trf_header.read_round_date("25/01/15") == date(2025, 1, 15)


@pytest.mark.parametrize(
    ("tags", "online"),
    [
        ({"022": ("https://lichess.org/swiss/FaLp5fSD", "f line 2")}, True),
        ({"032": ("Lichess", "f line 3")}, True),
        ({"012": ("Titled Arena (chess.com)", "f line 1")}, True),
        ({"012": ("Online Rapid", "f line 1")}, True),
        ({"022": ("Frankfurt (Main) /GER", "f line 2")}, False),
    ],
)
def test_an_event_on_a_chess_server_is_detected_as_online(
    tags: dict[str, tuple[str, str]], online: bool
) -> None:
    # Issue 20: "`--online`/detection for online events".
    assert (trf_header.online(tags) is not None) is online


@pytest.mark.parametrize(
    ("online", "time_control", "kind"),
    [
        (True, "G/3;+2", "online"),  # the bullet event: never a FIDE rating
        (False, "not given", "unknown"),
        (False, "G/3;+2", "FIDE_BLITZ"),  # FIDE rapid and blitz 1.2: 10 minutes or less
        (False, "G/25;+10", "FIDE_RAPID"),
        (False, "G/90;+30", "FIDE"),
    ],
)
def test_a_file_s_rating_is_recorded_with_its_event_s_kind(
    online: bool, time_control: str, kind: str
) -> None:
    # Issue 20: "a file's ratings recorded as what they are (a rating the file reports, with
    # the event's kind), never as a FIDE rating unless the event is FIDE-rated".
    start = date(2024, 9, 14)
    assert trf_players.rating_kind(online, time_control, start) == kind
    sokolov = trf.read_trf(LAKESIDE).players[0]
    profile = trf_players.profile(sokolov, "14700011", start, kind)
    if kind == "FIDE":
        assert profile["fide"]["rating"] == 2615 and "reported_rating" not in profile
    else:
        assert "fide" not in profile
        assert profile["reported_rating"] == {"rating": 2615, "date": "2024-09-14", "kind": kind}


def team_line(start: int, name: str, rating: int, *rounds: str) -> str:
    """A `001` line in TRF16's columns: name 15-47, rating 49-52, rounds from column 92."""
    line = f"001 {start:>4}      {name:<33} {rating:>4}{'':28}{0.0:>4.1f} {start:>4}"
    return line + "".join(f"  {r}" for r in rounds)


TEAM = "\n".join(
    [
        "012 Team Cup",
        "042 2024/01/01",
        "052 2024/01/02",
        "122 90+30",
        "142 2",
        "013 Alpha                               1    2",
        "013 Beta                                3    4",
        team_line(1, "A1", 2200, "   3 w 1", "0000 - -"),
        team_line(2, "A2", 2100, "0000 - -", "   4 b 0"),
        team_line(3, "B1", 2150, "   1 b 0", "0000 - -"),
        team_line(4, "B2", 2050, "0000 - -", "   2 w 1"),
    ]
)


def test_a_team_file_s_unfielded_boards_are_not_byes() -> None:
    # Issue 20: "FIDE's TRF-2026 team file reads 1,426 'byes' with no team awareness": in a team
    # file `0000 - -` is a board the player was not fielded on.
    report = trf.parse_trf(TEAM, "team.trf")
    assert report.team
    section = trf.to_section(report, members={n: f"P{n}" for n in range(1, 5)}).data
    assert section["byes"] == []
    assert [(g["round"], g["white"], g["black"], g["result"]) for g in section["games"]] == [
        (1, "P1", "P3", "1-0"),
        (2, "P4", "P2", "1-0"),
    ]


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., Result]:
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main_app, [*args, "--store", store])

    assert invoke("init", "--actor", "ed").exit_code == 0
    return invoke


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("karl-mala-2005.trf", []),
        ("lichess-2020-06.trf", []),
        ("javafo-gros-2010-in-progress.trf", ["--partial"]),
        ("olympiad-six-teams.trf", ["--partial", "--start", "2024-09-11", "--end", "2024-09-11"]),
        # Team files: boards not fielded are rounds a player was not entered in; the export
        # writes them `0000 - -` and says so, not as zero-point byes (session 6).
        ("fide-trf26-team-sample.trf", []),
        ("heltour-crete-friendship-cup-2024.trf", []),
        (
            "bbppairings-team-330-forfeit.trf",
            ["--partial", "--start", "2025-01-01", "--end", "2025-01-01"],
        ),  # fmt: skip
    ],
)
def test_import_export_import_gives_the_same_section(
    cli: Callable[..., Result], tmp_path: Path, name: str, options: list[str]
) -> None:
    # Issue 20: "a TRF export of any section (round trip: import → export → import gives the
    # same section)".
    first = cli("import", "trf", str(REAL / name), "--register-players", "--actor", "ed",
                "--json", *options)  # fmt: skip
    section_id = json.loads(first.stdout)["sections"][0]["section_id"]
    before = json.loads(cli("section", section_id, "--json").stdout)
    exported = cli("export-trf", section_id)
    assert exported.exit_code == 0, exported.output
    (tmp_path / "out.trf").write_text(exported.stdout)
    again = CliRunner().invoke(main_app, ["init", "--actor", "ed", "--store",
                                          f"sqlite:///{tmp_path / 'other.db'}"])  # fmt: skip
    assert again.exit_code == 0
    other = ["--store", f"sqlite:///{tmp_path / 'other.db'}"]
    out = str(tmp_path / "out.trf")
    result = CliRunner().invoke(
        main_app, ["import", "trf", out, "--register-players", "--actor", "ed", *other]
    )
    assert result.exit_code == 0, result.output
    after = CliRunner().invoke(main_app, ["section", section_id, "--json", *other])
    assert json.loads(after.stdout) == before


def test_the_export_writes_trf16_columns() -> None:
    # TRF16: starting rank 5-8, sex 10, title 11-13, name 15-47, rating 49-52, federation
    # 54-56, FIDE id 58-68, birth date 70-79, round 1 from 92.
    report = {
        "section_id": "S",
        "event_name": "Open",
        "online": False,
        "time_control": "G/90;+30",
        "start_date": "2024-01-01",
        "end_date": "2024-01-02",
        "players": [{"id": "14700011"}, {"id": "X1"}],
        "games": [{"round": 1, "white": "14700011", "black": "X1", "result": "1-0"}],
        "byes": [],
    }
    profiles = {
        "14700011": {
            "name": "Sokolov, Ivan",
            "sex": "m",
            "title": "GM",
            "fide_id": "14700011",
            "birth_date": "1965-06-13",
            "fide": {"rating": 2615, "federation": "BIH"},
        }
    }
    line = next(x for x in to_trf(report, profiles).splitlines() if x.startswith("001    1"))
    assert (line[4:8], line[9], line[10:13].strip(), line[14:47].strip()) == (
        "   1",
        "m",
        "g",
        "Sokolov, Ivan",
    )
    assert (line[48:52], line[53:56], line[57:68].strip(), line[69:79]) == (
        "2615",
        "BIH",
        "14700011",
        "1965/06/13",
    )
    assert line[91:101] == "   2 w 1"


def test_a_revised_file_is_a_dry_runnable_correction_with_a_per_game_diff(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # Issue 20: "a revised file of an existing section becomes a dry-runnable correction with
    # a per-game diff". examples/may-open-revised.trf makes round 4 of players 1 and 5 a draw.
    examples = Path(__file__).parent.parent / "examples"
    imported = cli("import", "trf", str(examples / "may-open.trf"), "--register-players",
                   "--actor", "ed")  # fmt: skip
    assert imported.exit_code == 0, imported.output
    log = cli("log").stdout
    revised = str(examples / "may-open-revised.trf")
    dry = cli("import", "trf", revised, "--correct", "--reason", "round 4 was a draw",
              "--actor", "ed", "--dry-run")  # fmt: skip
    assert dry.exit_code == 0, dry.output
    assert "round 4: 2000005 0-1 2000001 → 2000005 1/2-1/2 2000001" in dry.stdout
    assert cli("log").stdout == log  # a dry run appends nothing
    done = cli("import", "trf", revised, "--correct", "--reason", "round 4 was a draw",
               "--actor", "ed")  # fmt: skip
    assert done.exit_code == 0 and "SectionCorrected" in done.stdout
    same = cli("import", "trf", revised, "--correct", "--reason", "again", "--actor", "ed")
    assert same.exit_code == 2 and "identical to its current report" in same.stderr


def test_the_diff_names_each_changed_added_and_removed_game() -> None:
    game = {"round": 1, "white": "A", "black": "B", "result": "1-0"}
    current = {"players": [{"id": "A"}, {"id": "B"}], "games": [game], "byes": []}
    revised = {
        "players": [{"id": "A"}, {"id": "B"}],
        "games": [{**game, "result": "0-1"}, {**game, "round": 2}],
        "byes": [],
    }
    assert diff(current, revised) == ["round 1: A 1-0 B → A 0-1 B", "+ round 2: A 1-0 B"]
    assert diff(revised, current) == ["round 1: A 0-1 B → A 1-0 B", "- round 2: A 1-0 B"]


def test_the_fide_txt_supplement_fills_sex_title_and_flag(cli: Callable[..., Result]) -> None:
    # Issue 20: "titles and sex are stored but `supplement --format fide-txt` leaves those
    # columns blank". Park, Chloe: WGM, w, KOR, born 1995.
    imported = cli("import", "trf", str(LAKESIDE), "--register-players", "--actor", "ed")
    assert imported.exit_code == 0, imported.output
    out = cli("supplement", "--as-of", "2024-12-01", "--format", "fide-txt").stdout.splitlines()
    head, park = out[0], next(x for x in out if x.startswith("5500012"))
    for column, value in [("Fed", "KOR"), ("Sex", "F"), ("Tit", "WGM"), ("WTit", "WGM")]:
        at = head.index(column)
        assert park[at : at + len(value)] == value
    assert park[head.index("B-day") :].split()[0] == "1995"
    assert park.rstrip().endswith("w")


# The head of TRF-2026's team sample (Molrn/TRF tests/example_trf26.trf, adapted by its author
# from FIDE's draft): its tags, the column ruler and legend lines, and two player lines.
TRF26_HEAD = [
    "### TRF 2025 sample at https://tec.fide.com/2024/09/04/draft-trf-2025-extensions-for-team",
    "012 Grandmommy's Cup",
    "022 Test",
    "032 FID",
    "042 2024/01/01",
    "052 2024/01/14",
    "082 50",
    "092 FIDE-TEAM-BAKU",
    "122 100'x40+15'+30\"",
    "132" + " " * 88 + "24/01/01  24/01/02  24/01/03",
    "142 14",
    "192 FIDE_TEAM_BAKU",
    "222 40/6000+30:900+30",
    "         1         2         3         4         5         6         7         8",
    "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
    "DDD SSSS sTTT NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN RRRR FFF IIIIIIIIIII BBBB/BB/BB PPPP RRRR",
    "001    1      Test0001 Player0001               2586 IND 70123454321 1987/00/00  8.0   12"
    "     2 b =",
    "001    2      Test0002 Player0002               2540 UKR 70223454321 1992/00/00  6.5   51"
    "     1 w =",
]


def test_the_trf_2026_team_sample_s_header_is_read() -> None:
    report = trf.parse_trf("\n".join(TRF26_HEAD), "example_trf26.trf")
    assert report.team
    assert trf_header.time_control(report.header) == (
        "40/100, SD/15;+30",
        "example_trf26.trf line 9",
    )
    assert trf_header.rounds_announced(report.header) == 14
    assert report.round_dates[0] == date(2024, 1, 1)
    assert [(p.fide_id, p.birth_date, p.birth_year) for p in report.players] == [
        ("70123454321", None, 1987),
        ("70223454321", None, 1992),
    ]


@pytest.mark.parametrize(
    ("tags", "team"),
    [
        ({"082": ("6", "f line 8"), "092": ("Individual: Swiss-System", "f line 9")}, False),
        ({"082": ("6", "f line 8")}, True),
        ({"092": ("FIDE-TEAM-BAKU", "f line 9")}, True),
        ({"092": ("Individual: Swiss-System", "f line 9")}, True),  # with team lines
    ],
)
def test_a_file_whose_type_says_individual_is_not_a_team_file(
    tags: dict[str, tuple[str, str]], team: bool
) -> None:
    # TRF16 082 is "Number of teams (in case of a team tournament)"; a file whose 092 says
    # "Individual" and whose 082 gives 6 (its players) is not a team file — unless it has team
    # lines (013, 310), the last row (docs/decisions.md, "Team files").
    team_lines = tags == {"092": ("Individual: Swiss-System", "f line 9")}
    assert trf_header.is_team_file(tags, team_lines) is team


def test_a_file_without_team_lines_has_no_team_report() -> None:
    # Issue 20's team awareness is read from the team lines; an individual file has none.
    report = trf.read_trf(LAKESIDE)
    assert not report.team
    assert trf.team_report(report) is None
    assert trf.team_report(trf.parse_trf(TEAM, "team.trf")) == {
        "teams": 2,
        "players_in_teams": 4,
        "team_matches": 2,
        "forfeited_matches": 0,
        "boards": 1,
        "team_rounds": 2,
        "points_disagree": [],
    }


@pytest.mark.parametrize(
    ("name", "section_id"),
    [
        ("ΔΙΑΣΥΛΛΟΓΙΚΟ ΚΥΠΕΛΛΟ ΚΡΗΤΙΚΗΣ ΦΙΛΙΑΣ 2024 ", "diasyllogiko-kypello-kritikis-filias-2024"),
        ("Кубок Москвы", "kubok-moskvy"),
        ("Müller-Gedenkturnier", "m-ller-gedenkturnier"),  # Latin letters: ids as before
        ("9. Karl-Mala-Gedenkturnier", "9-karl-mala-gedenkturnier"),
    ],
)
def test_a_name_in_another_script_gives_an_id_in_latin_letters(name: str, section_id: str) -> None:
    # A Cretan cup's 012 is Greek: its id was `2024-11-23-2024` (docs/decisions.md, "Ids from
    # names in other scripts").
    from ledger.entrypoints.interchange import derived_id

    assert derived_id(date(2024, 11, 23), name) == f"2024-11-23-{section_id}"


def test_an_individual_file_has_no_reserves() -> None:
    # A line without a game in an individual file is a player's byes, not a reserve.
    assert trf.reserves(trf.read_trf(REAL / "karl-mala-2005.trf")) == []
    team = trf.read_trf(REAL / "heltour-crete-friendship-cup-2024.trf")
    assert len(trf.reserves(team)) == 41


@pytest.mark.parametrize(
    ("dates", "refusal"),
    [
        ("25/05/0 ", "round date (132, YY/MM/DD) '25/05/0' is not a date (2024/01/01"),
        ("25/13/01", "round date (132, YY/MM/DD) '25/13/01' is not a date (month must be in"),
    ],
)
def test_a_round_date_that_is_no_date_is_refused_naming_its_line(
    cli: Callable[..., Result], tmp_path: Path, dates: str, refusal: str
) -> None:
    """Issue 28: "a `132` date `25/05/0` … end[s] in 'unexpected ValueError'" → "every
    'unexpected' error above becomes a one-line refusal"."""
    text = LAKESIDE.read_text().replace("24/09/14  24/09/14", f"{dates}  24/09/14")
    (tmp_path / "bad.trf").write_text(text)
    result = cli("import", "trf", str(tmp_path / "bad.trf"), "--register-players", "--actor", "ed")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {tmp_path / 'bad.trf'} line 13: {refusal}")
    assert result.stderr.count("\n") == 1
    assert "unexpected" not in result.stderr
