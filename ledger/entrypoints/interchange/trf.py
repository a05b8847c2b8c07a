"""FIDE's Tournament Report File (TRF16, FIDE Handbook C.04 Annex 2) read as one section.

The player lines (`001`) have fixed columns (1-based): starting rank 5-8, sex 10, title 11-13,
name 15-47, FIDE rating 49-52, federation 54-56, FIDE id 58-68, birth date 70-79, and for round
r a 10-column block from column 92 + 10(r-1): the opponent's starting rank (4 columns, `0000` or
blanks for none), the colour (`w`, `b`, `-`) and the result code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from ledger.entrypoints.interchange import (
    Entrant,
    Entry,
    FieldPath,
    Imported,
    ResultCodes,
    derived_id,
    grid_to_section,
    trf_teams,
)
from ledger.entrypoints.interchange import trf_header as header
from ledger.entrypoints.interchange.trf_export import COMMENT
from ledger.entrypoints.interchange.trf_players import assigned_ids
from ledger.entrypoints.interchange.trf_records import TrfPlayer, TrfReport
from ledger.errors import InvalidCommand
from ledger.inputs import read_bytes
from ledger.rules.families import reads_time_control
from ledger.rules.time_controls import NOT_GIVEN
from ledger.rules.time_notation import ledger_time_control
from ledger.text import digits

ROUND_COLUMN = 92  # TRF16: "round 1 starting at position 92; round 2 at 102 …"
ROUND_WIDTH = 10
# TRF16 result codes: rated games "1" win, "=" draw, "0" loss; not rated "+" forfeit win, "-"
# forfeit loss, "W"/"D"/"L" win/draw/loss; byes "H" half-point, "F" full-point, "U"
# pairing-allocated, "Z" zero-point; "(blank) equivalent to Z".
RESULT_CODES = frozenset("10=+-WDLHFUZ ")
TRF_CODES = ResultCodes(
    blank=" ",
    opponent={"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", "W": "L", "L": "W", "D": "D"},
    white_result={
        "1": "1-0",
        "0": "0-1",
        "=": "1/2-1/2",
        "+": "1F-0F",
        "-": "0F-1F",
        "W": "1F-0F",
        "L": "0F-1F",
    },
    # The ledger has no unrated draw and no double forfeit: each player gets the bye that
    # scores the same and is not rated either.
    both_byes={("D", "D"): "half", ("-", "-"): "zero"},
    # F and U score a full point, H half, Z and blank none; TRF06's "+", "=", "-" against
    # opponent 0000 are the same byes.
    no_opponent={"F": "full", "U": "full", "+": "full", "H": "half", "=": "half"}
    | {"Z": "zero", " ": "zero", "-": "zero"},
    needs_colour=frozenset("10=WDL"),
)
# TRF-2026 team files: `0000 - -` (or blank) is a board the player was not fielded on.
TEAM_CODES = replace(TRF_CODES, blank="N", absent=frozenset("N- "))
TEAM_RECORDS = ("013", "310", "330", "802")  # teams, forfeited matches, results by round
TAG_NAMES = {
    "012": "tournament name",
    "042": "start date",
    "052": "end date",
    "122": "time control",
}
_DATE = re.compile(r"(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})")
_FEDERATION = re.compile(r"[A-Z]{3}")
_YEAR = re.compile(r"(\d{4})(?:[/.-]0{1,2}[/.-]0{1,2})?")
_ROUND_DATE = re.compile(r"\b\d{2,4}[/.-]\d{1,2}[/.-]\d{1,4}\b")
_BYE_NAME = re.compile(r"spielfrei|bye|free|exempt|bye player|pairing-allocated bye", re.I)
# TRF16 titles: "GM=g, IM=m, WGM=wg, FM=f, WIM=wm, CM=c, WFM=wf, WCM=wc" (also written long).
TITLES = {"g": "GM", "m": "IM", "wg": "WGM", "f": "FM", "wm": "WIM", "c": "CM", "wf": "WFM"}
TITLES |= {"wc": "WCM"} | {
    t.lower(): t for t in ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
}


def read_trf(path: Path) -> TrfReport:
    """Parse a TRF file (UTF-8, else Latin-1); InvalidCommand names the line and column."""
    raw = read_bytes(path, "trf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_trf(text, str(path))


def parse_trf(text: str, source: str) -> TrfReport:
    """The tags and player lines of a TRF; comment (`###`) and unknown lines are skipped, and so
    is a line for the bye (`spielfrei`, `bye`) that pairing programs list as a player."""
    tags: dict[str, tuple[int, str]] = {}
    players: dict[int, TrfPlayer] = {}
    skipped: list[str] = []
    dates: list[date] = []
    embedded: dict[str, list[str]] = {}
    team_lines: dict[str, list[tuple[int, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(COMMENT):  # what `export-trf` wrote beyond TRF16's columns
            key, _, value = line[len(COMMENT) :].strip().partition(" ")
            embedded.setdefault(key, []).append(value.strip())
        elif line.startswith("001"):
            player = _player(line, number, source)
            if _BYE_NAME.fullmatch(player.name) and all(e.opponent is None for e in player.rounds):
                skipped.append(f"{source} line {number}: {player.name!r} is the bye, not a player")
                continue
            if player.start in players:
                raise InvalidCommand(
                    (),
                    f"{source} line {number}: starting rank {player.start} is also on line "
                    f"{players[player.start].line}",
                )
            players[player.start] = player
        elif line[:3].isdigit() or line[:3] == "XXR":
            tags.setdefault(line[:3], (number, line[4:].strip()))
            if line[:3] in TEAM_RECORDS:
                team_lines.setdefault(line[:3], []).append((number, line))
            if line.startswith("132"):
                dates += _round_dates(line, number, source)
    if len(players) < 2:
        raise InvalidCommand((), f"{source}: {len(players)} player lines (001); a section has 2+")
    ordered = tuple(sorted(players.values(), key=lambda p: p.start))
    return TrfReport(source, tags, ordered, tuple(skipped), tuple(dates), embedded, team_lines)


def _round_dates(line: str, number: int, source: str) -> list[date]:
    """A 132 line's dates of the rounds; one that is no date is refused naming its line."""
    try:
        return [header.read_round_date(d) for d in _ROUND_DATE.findall(line[3:])]
    except ValueError as exc:
        where = f"{source} line {number}: round date (132, YY/MM/DD)"
        raise InvalidCommand((), f"{where} {exc}") from None


def _player(line: str, number: int, source: str) -> TrfPlayer:
    start_text = line[4:8].strip()
    if not digits(start_text) or int(start_text) == 0:
        raise InvalidCommand(
            (), f"{source} line {number}: starting rank {start_text!r} (columns 5-8) is not 1-9999"
        )
    start = int(start_text)
    where = f"{source} line {number} (player {start})"
    fide_id = line[57:68].strip().lstrip("0")  # 0: none
    if fide_id and not digits(fide_id):
        raise InvalidCommand((), f"{where}: FIDE id {fide_id!r} (columns 58-68) is not a number")
    rating = line[48:52].strip()
    if rating and not digits(rating):
        raise InvalidCommand((), f"{where}: FIDE rating {rating!r} (columns 49-52) is not a number")
    sex, title = line[9:10].strip().lower(), line[10:13].strip().lower()
    if sex not in ("", "m", "w", "f"):
        raise InvalidCommand((), f"{where}: sex {sex!r} (column 10) is not m or w")
    if title and title not in TITLES:
        raise InvalidCommand(
            (), f"{where}: title {title!r} (columns 11-13) is not a FIDE title (g, m, f, c, wg…)"
        )
    federation = line[53:56].strip().upper()
    if federation and not _FEDERATION.fullmatch(federation):
        raise InvalidCommand(
            (), f"{where}: federation {federation!r} (columns 54-56) is not a FIDE federation code"
        )
    birth_date, birth_year = _birth_date(line[69:79].strip(), where)
    rounds: list[Entry] = []
    column = ROUND_COLUMN - 1
    while column < len(line.rstrip()):
        block = line[column : column + ROUND_WIDTH].ljust(ROUND_WIDTH)
        rounds.append(_round(block, len(rounds) + 1, where))
        column += ROUND_WIDTH
    return TrfPlayer(
        start,
        line[14:47].strip(),
        fide_id or None,
        number,
        tuple(rounds),
        sex={"m": "m", "w": "w", "f": "w"}.get(sex),
        title=TITLES.get(title),
        rating=int(rating) if rating and int(rating) else None,
        federation=federation or None,
        birth_date=birth_date,
        birth_year=birth_year,
    )


def _birth_date(text: str, where: str) -> tuple[date | None, int | None]:
    """TRF16's `YYYY/MM/DD` (also `YYYY.MM.DD`); a year alone (`1988`, `1988/00/00`) is kept as
    the birth year, not as a date (the rules age a player from a date)."""
    if not text:
        return None, None
    if year := _YEAR.fullmatch(text):
        return None, int(year[1])
    match = _DATE.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        born = date(*(int(g) for g in match.groups()))
        return born, born.year
    except ValueError:
        raise InvalidCommand(
            (), f"{where}: birth date {text!r} (columns 70-79) is not a date (YYYY/MM/DD)"
        ) from None


def _round(block: str, number: int, where: str) -> Entry:
    opponent, colour, code = block[:4].strip(), block[5].lower(), block[7].upper()
    if opponent and not digits(opponent):
        raise InvalidCommand(
            (), f"{where}: round {number} opponent {opponent!r} is not a starting rank"
        )
    if colour not in "wb- ":
        raise InvalidCommand((), f"{where}: round {number} colour {colour!r} is not w, b or -")
    if code not in RESULT_CODES:
        raise InvalidCommand(
            (), f"{where}: round {number} result {code!r} is not a TRF result code"
        )
    return Entry(
        number,
        int(opponent) if opponent and int(opponent) else None,
        colour if colour in "wb" else None,
        code,
    )


def to_section(
    report: TrfReport,
    *,
    section_id: str | None = None,
    tournament_id: str | None = None,
    members: Mapping[int, str] | None = None,
    time_control: str | None = None,
    start: date | None = None,
    end: date | None = None,
    online: bool = False,
    rules: str | None = None,
    partial: bool = False,
) -> Imported:
    """The section file content of a TRF; options given replace what the file says.

    `members` gives each starting rank's member id (default: the FIDE id, see `match`). A file
    whose XXR (or 142) announces more rounds than were played is refused unless `partial`: then
    the rounds played are the section. In a team file a round without an opponent and without
    a point is a board the player did not play, not a bye, and a player fielded in no round
    (`reserves`) is left out.
    """
    origins: dict[FieldPath, str] = {}
    rules = rules or report.embedded_one("rules")
    name, origins[("event_name",)] = _required(report, "012")
    start, origins[("start_date",)] = _date_of(report, "042", start, "--start")
    end, origins[("end_date",)] = _date_of(report, "052", end, "--end")
    time_control, origins[("time_control",)] = _time_control(report, time_control, rules)
    if section_id is None:
        section_id = report.embedded_one("section") or derived_id(start, name)
    else:
        origins[("section_id",)] = "--section-id"
    tournament_id = tournament_id or report.embedded_one("tournament_id")
    rounds = report.rounds_played
    _check_complete(report, rounds, partial)
    if not partial:
        rounds = max(_last_round(p) for p in report.players)
    left_out = {p.start for p in reserves(report, rounds)}
    entrants = [
        Entrant(
            p.start,
            members[p.start] if members else _fide_id(report, p),
            report.where(p),
            p.rounds[:rounds],
        )
        for p in report.players
        if p.start not in left_out
    ]
    for i, e in enumerate(entrants):
        origins[("players", i)] = e.where
    # A team file, or the ledger's own export (`### ratings-ledger absent`): `0000 - -` is a
    # round the player was not entered in, not a zero-point bye.
    not_entered = report.team or report.embedded_one("absent") is not None
    codes = TEAM_CODES if not_entered else TRF_CODES
    games, byes = grid_to_section(entrants, rounds, codes, origins)
    # By round, then line: a double forfeit's byes come with the pair, the export's alone.
    place = {e.member: i for i, e in enumerate(entrants)}
    byes.sort(key=lambda b: (b["round"], place[b["player"]]))
    data: dict[str, Any] = {
        "section_id": section_id,
        "event_name": name,
        "online": online or header.online(report.header) is not None,
        "time_control": time_control,
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "players": [{"id": e.member} for e in entrants],
        "games": games,
        "byes": byes,
    }
    if tournament_id is not None:
        data["tournament_id"] = tournament_id
    if rules is not None:
        data["rules"] = rules
    return Imported(data, report.source, origins)


def reserves(report: TrfReport, rounds: int | None = None) -> list[TrfPlayer]:
    """A team file's players fielded in none of the first `rounds` rounds (all, if None):
    on a team's list, never at a board; they are not players of the section. An
    individual file has none (a line without a game there is a player's zero-point byes)."""
    if not report.team:
        return []
    return [
        p
        for p in report.players
        if all(e.opponent is None and e.code in TEAM_CODES.absent for e in p.rounds[:rounds])
    ]


def team_report(report: TrfReport) -> dict[str, Any] | None:
    """A team file's teams, boards and team matches, and where its own team points (802)
    disagree with its boards (None: not a team file, or one without team lines); a team line
    whose numbers are none is refused naming it."""
    try:
        teams = trf_teams.read_teams(report.team_lines)
        points = trf_teams.match_points(report.team_lines.get("802", ()))
    except ValueError as exc:
        raise InvalidCommand((), f"{report.source} {exc}") from None
    if not report.team or not teams:
        return None
    rounds = {p.start: p.rounds for p in report.players}
    forfeited = trf_teams.forfeits(report.team_lines.get("330", ()))
    return trf_teams.summary(teams, rounds, points, forfeited)


def in_progress(report: TrfReport) -> str | None:
    """Why the file is a tournament still being played (None: it is complete)."""
    announced = header.rounds_announced(report.header)
    if announced is None or announced <= report.rounds_played:
        return None
    return f"{announced} rounds announced (XXR/142), {report.rounds_played} played"


def _check_complete(report: TrfReport, rounds: int, partial: bool) -> None:
    why = in_progress(report)
    if why is not None and not partial:
        raise InvalidCommand(
            (),
            f"{report.source}: the tournament is in progress ({why}); give --partial to "
            f"import the {rounds} round{'' if rounds == 1 else 's'} played",
        )


def _required(report: TrfReport, tag: str, option: str | None = None) -> tuple[str, str]:
    found = report.tag(tag)
    if found is None or not found[0]:
        hint = f": give {option}" if option else ""
        raise InvalidCommand((), f"{report.source}: no {tag} line ({TAG_NAMES[tag]}){hint}")
    return found


def _date_of(report: TrfReport, tag: str, given: date | None, option: str) -> tuple[date, str]:
    if given is not None:
        return given, option
    if report.tag(tag) is None and report.round_dates:  # the dates of the rounds (132)
        first, last = min(report.round_dates), max(report.round_dates)
        return (first if tag == "042" else last), f"{report.source} (132 round dates)"
    text, where = _required(report, tag, option)
    try:
        return header.read_date(text), where
    except ValueError as exc:
        raise InvalidCommand((), f"{where}: {TAG_NAMES[tag]} {exc}; give {option}") from None


def _time_control(report: TrfReport, given: str | None, rules: str | None) -> tuple[str, str]:
    """`--time-control` or the file's (122, else 222), in the ledger's notation; text the
    rules do not read is kept as written under a family that records it so, and a file that
    gives none records `not given` (the section is recorded and not rated)."""
    if given is not None:
        try:
            return ledger_time_control(given), "--time-control"
        except ValueError as exc:
            raise InvalidCommand((), f"--time-control: {exc}") from None
    try:
        found = header.time_control(report.header)
    except ValueError as exc:
        text, where = report.header.get("122", ("", report.source))
        if rules is not None and not reads_time_control(rules):
            return text, where
        raise InvalidCommand(
            (), f"{exc}; give it with --time-control, e.g. --time-control 90+30"
        ) from None
    if found is None:
        return NOT_GIVEN, report.header.get("122", ("", report.source))[1]
    return found


def _fide_id(report: TrfReport, player: TrfPlayer) -> str:
    return player.fide_id or assigned_ids(report)[player.start]


def _last_round(player: TrfPlayer) -> int:
    """The last round the line says anything about (a blank block is a zero-point bye)."""
    said = [e.round for e in player.rounds if e.opponent is not None or e.code != " "]
    return max(said, default=0)
