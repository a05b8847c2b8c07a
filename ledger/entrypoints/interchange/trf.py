"""FIDE's Tournament Report File (TRF16, FIDE Handbook C.04 Annex 2) read as one section.

The player lines (`001`) have fixed columns (1-based): starting rank 5-8, sex 10, title 11-13,
name 15-47, FIDE rating 49-52, federation 54-56, FIDE id 58-68, birth date 70-79, and for round
r a 10-column block from column 92 + 10(r-1): the opponent's starting rank (4 columns, `0000` or
blanks for none), the colour (`w`, `b`, `-`) and the result code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    trf_fields,
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
# A round paired and not yet played (`0005 w *`, as pairing programs write TRF-2026 between
# rounds; older programs leave the result blank, `   8 b`): it and the rounds after it are
# not on the line yet.
PENDING = "*"
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
# A result code's points, in a game or without an opponent (TRF06's "+" and "=" against 0000
# are byes that score): what a player's points column (81-84) should add up to.
SCORES = {"1": 1.0, "=": 0.5, "+": 1.0, "W": 1.0, "D": 0.5, "H": 0.5, "F": 1.0, "U": 1.0}
# TRF-2026 team files: `0000 - -` (or blank) is a board the player was not fielded on.
TEAM_CODES = replace(TRF_CODES, blank="N", absent=frozenset("N- "))
TEAM_RECORDS = ("013", "310", "330", "802")  # teams, forfeited matches, results by round
TAG_NAMES = {
    "012": "tournament name",
    "042": "start date",
    "052": "end date",
    "122": "time control",
}
# The flag that supplies each tournament line the import reads (`import trf`, issue 31); 122
# and 222 are read by `_time_control`, XXR and 142 by `in_progress`.
FLAGS = {"012": "--name", "042": "--start", "052": "--end", "122": "--time-control"}
FLAGS |= {"222": "--time-control", "XXR": "--rounds", "142": "--rounds"}
SECTION_FIELDS = {"012": "event_name", "042": "start_date", "052": "end_date"}
_POINTS = re.compile(r"\d{1,3}(?:\.\d)?|\.\d")  # 81-84, "Points (in the form 11.5)"
_ROUND_DATE = re.compile(r"\b\d{2,4}[/.-]\d{1,2}[/.-]\d{1,4}\b")
_BYE_NAME = re.compile(r"spielfrei|bye|free|exempt|bye player|pairing-allocated bye", re.I)


def read_trf(path: Path) -> TrfReport:
    """Parse a TRF file (`decoded`); InvalidCommand names the line and column."""
    raw = read_bytes(path, "trf")
    return parse_trf(decoded(raw), str(path))


def decoded(raw: bytes) -> str:
    """A file's text: UTF-8 (a byte order mark dropped), else Windows-1252 (Swiss-Manager's
    and Vega's `Š`, `Ž`, `š`, `ž` in names, where Latin-1 gives control characters), else
    Latin-1 (the five bytes Windows-1252 leaves undefined)."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


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
            player = _player(line.replace("\t", " "), number, source)
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
        elif line[:3].isdigit() or line[:3] in ("XXR", "XXS"):
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
    """A 132 line's dates of the rounds (one written as unknown, `00/00/00`, is left out); one
    that is no date is refused naming its line."""
    found = [d for d in _ROUND_DATE.findall(line[3:]) if not header.unknown(d)]
    try:
        return [header.read_round_date(d) for d in found]
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
    rating = trf_fields.rating(line)
    if rating and not digits(rating):
        raise InvalidCommand((), f"{where}: FIDE rating {rating!r} (columns 49-52) is not a number")
    sex, sex_unread = trf_fields.sex(line[9:10])
    title, title_unread = trf_fields.title(line[10:13])
    federation, federation_unread = trf_fields.federation(line[53:56])
    birth_date, birth_year, birth_unread = trf_fields.birth(line[69:79])
    unread = (sex_unread, title_unread, federation_unread, birth_unread)
    points = line[80:84].strip().replace(",", ".")  # `1,5` as some programs write it
    rounds: list[Entry] = []
    column = ROUND_COLUMN - 1
    while column < len(line.rstrip()):
        block = line[column : column + ROUND_WIDTH].ljust(ROUND_WIDTH)
        if _pending(block):
            break
        rounds.append(_round(block, len(rounds) + 1, where))
        column += ROUND_WIDTH
    return TrfPlayer(
        start,
        line[14:47].strip(),
        fide_id or None,
        number,
        tuple(rounds),
        sex=sex,
        title=title,
        rating=int(rating) if rating and int(rating) else None,
        federation=federation,
        birth_date=birth_date,
        birth_year=birth_year,
        points=float(points) if _POINTS.fullmatch(points) else None,
        unread=tuple(u for u in unread if u is not None),
    )


def _pending(block: str) -> bool:
    """A round paired and not yet played: `*` for its result, or an opponent and no result
    (TRF16's blank result is a zero-point bye, which has no opponent)."""
    opponent = block[:4].strip().lstrip("0")
    return block[7] == PENDING or (block[7] == " " and digits(opponent))


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
    name: str | None = None,
    time_control: str | None = None,
    start: date | None = None,
    end: date | None = None,
    rounds: int | None = None,
    online: bool = False,
    rules: str | None = None,
    partial: bool = False,
) -> Imported:
    """The section file content of a TRF; options given replace what the file says (`FLAGS`).

    `members` gives each starting rank's member id (default: the FIDE id, see `match`). A file
    whose XXR (or 142, or `rounds`) announces more rounds than were played is refused unless
    `partial`: then the rounds played are the section. In a team file a round without an
    opponent and without a point is a board the player did not play, not a bye, and a player
    fielded in no round (`reserves`) is left out; every player keeps the file's starting rank
    (`start`, stored when the ranks are not 1, 2, 3… in order: issue 31).
    """
    origins: dict[FieldPath, str] = {}
    rules = rules or report.embedded_one("rules")
    name, start, end = _tournament(report, name, start, end, origins)
    time_control, origins[("time_control",)] = _time_control(report, time_control, rules)
    if section_id is None:
        section_id = report.embedded_one("section") or derived_id(start, name)
    else:
        origins[("section_id",)] = "--section-id"
    tournament_id = tournament_id or report.embedded_one("tournament_id")
    announced, rounds = rounds, report.rounds_played
    _check_complete(report, rounds, partial, announced)
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
        "players": _players(entrants),
        "games": games,
        "byes": byes,
    }
    if tournament_id is not None:
        data["tournament_id"] = tournament_id
    if rules is not None:
        data["rules"] = rules
    return Imported(data, report.source, origins)


def _players(entrants: Sequence[Entrant]) -> list[dict[str, Any]]:
    """The section's players in the file's order, each with the file's starting rank when
    the ranks are not 1, 2, 3… (a reserve left out, the bye's line skipped): the pairing
    program's numbers, which the crosstable and the exports show (issue 31)."""
    numbered = [e.number for e in entrants] != list(range(1, len(entrants) + 1))
    return [{"id": e.member} | ({"start": e.number} if numbered else {}) for e in entrants]


def points_disagree(report: TrfReport) -> list[TrfPlayer]:
    """The players whose points column (81-84) is not the sum of their results' points (a
    blank column says nothing; a file that declares other points than 1-½-0 is not checked):
    the file contradicts itself, and the results are what is rated (docs/decisions.md, "A
    file that contradicts itself")."""
    if not header.one_half_zero(report.header):
        return []
    return [
        p
        for p in report.players
        if p.points is not None
        and abs(p.points - sum(SCORES.get(e.code, 0.0) for e in p.rounds)) > 1e-9
    ]


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


def in_progress(report: TrfReport, rounds: int | None = None) -> str | None:
    """Why the file is a tournament still being played (None: it is complete): the rounds it
    has (`rounds`, `--rounds`; else XXR or 142) are more than the rounds played."""
    played = report.rounds_played
    said = FLAGS["XXR"] if rounds is not None else "announced (XXR/142)"
    announced = rounds if rounds is not None else header.rounds_announced(report.header)
    if announced is None or announced <= played:
        return None
    return f"{announced} rounds {said}, {played} played"


def _check_complete(report: TrfReport, rounds: int, partial: bool, announced: int | None) -> None:
    if not any(_last_round(p) for p in report.players):
        raise InvalidCommand(
            (),
            f"{report.source}: no round has been played (a file made before round 1 was "
            "played); there is nothing to import",
        )
    if announced is not None and announced < rounds:
        flag = FLAGS["XXR"]
        raise InvalidCommand((), f"{flag} {announced}: the file has games in round {rounds}")
    why = in_progress(report, announced)
    if why is not None and not partial:
        raise InvalidCommand(
            (),
            f"{report.source}: the tournament is in progress ({why}); give --partial to "
            f"import the {rounds} round{'' if rounds == 1 else 's'} played, or "
            f"{FLAGS['XXR']} {rounds} if it had {rounds}",
        )


def _tournament(
    report: TrfReport,
    name: str | None,
    start: date | None,
    end: date | None,
    origins: dict[FieldPath, str],
) -> tuple[str, date, date]:
    """The section's name and dates: each flag given, else the file's line (the dates also
    from the rounds' 132 dates). A file that lacks any (no line, a value it gives as unknown
    or one that cannot be read) is refused in one line naming the flag for each, and only
    those (issue 31: "refused in one line that names the flag that supplies what is truly
    missing")."""
    missing: dict[str, str] = {}  # flag → why the file does not supply it
    values: dict[str, Any] = {}
    readers = (("012", name, _text_of), ("042", start, _date_of), ("052", end, _date_of))
    for tag, given, read in readers:
        key = SECTION_FIELDS[tag]
        if given is not None:
            values[tag], origins[(key,)] = given, FLAGS[tag]
            continue
        try:
            values[tag], origins[(key,)] = read(report, tag)
        except ValueError as exc:
            missing[FLAGS[tag]] = str(exc)
    if missing:
        why, flags = "; ".join(missing.values()), ", ".join(missing)
        raise InvalidCommand((), f"{report.source}: {why}: give {flags}")
    return values["012"], values["042"], values["052"]


def _text_of(report: TrfReport, tag: str) -> tuple[str, str]:
    """A tournament line's text and place; ValueError when the file has none or gives its
    value as unknown (blank, `0000/00/00`)."""
    found = report.tag(tag)
    if found is None:
        raise ValueError(f"no {tag} line ({TAG_NAMES[tag]})")
    text, where = found
    if header.unknown(text):
        raise ValueError(f"{_line(report, where)}: {TAG_NAMES[tag]} unknown ({text!r})")
    return found


def _date_of(report: TrfReport, tag: str) -> tuple[date, str]:
    """A date's line, else (none, or unknown) the first or last date of the rounds (132);
    ValueError saying why the file gives none."""
    try:
        text, where = _text_of(report, tag)
    except ValueError:
        if not report.round_dates:
            raise
        days = report.round_dates
        return (min(days) if tag == "042" else max(days)), f"{report.source} (132 round dates)"
    try:
        return header.read_date(text, report.round_dates), where
    except ValueError as exc:
        raise ValueError(f"{_line(report, where)}: {TAG_NAMES[tag]} {exc}") from None


def _line(report: TrfReport, where: str) -> str:
    """`line 4` of `file line 4`."""
    return where.removeprefix(report.source).strip()


def _time_control(report: TrfReport, given: str | None, rules: str | None) -> tuple[str, str]:
    """`--time-control` or the file's (122, else 222), in the ledger's notation; text the
    rules do not read is kept as written under a family that records it so, and a file that
    gives none records `not given` (the section is recorded and not rated)."""
    if given is not None:
        try:
            return ledger_time_control(given), FLAGS["122"]
        except ValueError as exc:
            raise InvalidCommand((), f"{FLAGS['122']}: {exc}") from None
    try:
        found = header.time_control(report.header)
    except ValueError as exc:
        text, where = report.header.get("122", ("", report.source))
        if rules is not None and not reads_time_control(rules):
            return text, where
        raise InvalidCommand(
            (), f"{exc}; give it with {FLAGS['122']}, e.g. {FLAGS['122']} 90+30"
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
