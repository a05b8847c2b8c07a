"""FIDE's Tournament Report File (TRF16, FIDE Handbook C.04 Annex 2) read as one section.

The player lines (`001`) have fixed columns (1-based): starting rank 5-8, sex 10, title 11-13,
name 15-47, FIDE rating 49-52, federation 54-56, FIDE id 58-68, birth date 70-79, and for round
r a 10-column block from column 92 + 10(r-1): the opponent's starting rank (4 columns, `0000` or
blanks for none), the colour (`w`, `b`, `-`) and the result code.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ledger.domain import InvalidCommand
from ledger.entrypoints.interchange import (
    Entrant,
    Entry,
    FieldPath,
    Imported,
    ResultCodes,
    derived_id,
    grid_to_section,
)
from ledger.entrypoints.interchange.time_controls import ledger_time_control
from ledger.rules.families import reads_time_control

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
TAG_NAMES = {
    "012": "tournament name",
    "042": "start date",
    "052": "end date",
    "122": "time control",
}
_DATE = re.compile(r"(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})")
_FEDERATION = re.compile(r"[A-Z]{3}")
_YEAR = re.compile(r"(\d{4})(?:[/.-]0{1,2}[/.-]0{1,2})?")
# TRF16 titles: "GM=g, IM=m, WGM=wg, FM=f, WIM=wm, CM=c, WFM=wf, WCM=wc" (also written long).
TITLES = {"g": "GM", "m": "IM", "wg": "WGM", "f": "FM", "wm": "WIM", "c": "CM", "wf": "WFM"}
TITLES |= {"wc": "WCM"} | {
    t.lower(): t for t in ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
}


@dataclass(frozen=True)
class TrfPlayer:
    """A `001` line: what TRF16 says about the player, and the rounds."""

    start: int
    name: str
    fide_id: str | None
    line: int
    rounds: tuple[Entry, ...]
    sex: str | None = None
    title: str | None = None
    rating: int | None = None
    federation: str | None = None
    birth_date: date | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrfReport:
    """A parsed file: the tournament tags (tag → line number, text) and the player lines."""

    source: str
    tags: Mapping[str, tuple[int, str]]
    players: tuple[TrfPlayer, ...]

    def where(self, player: TrfPlayer) -> str:
        return f"{self.source} line {player.line} (player {player.start})"

    @property
    def warnings(self) -> list[str]:
        return [f"{self.where(p)}: {w}" for p in self.players for w in p.warnings]

    def tag(self, tag: str) -> tuple[str, str] | None:
        """The text of a tournament tag and where it is, if the file has it."""
        if tag not in self.tags:
            return None
        line, text = self.tags[tag]
        return text, f"{self.source} line {line}"


def read_trf(path: Path) -> TrfReport:
    """Parse a TRF file (UTF-8, else Latin-1); InvalidCommand names the line and column."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_trf(text, str(path))


def parse_trf(text: str, source: str) -> TrfReport:
    """The tags and player lines of a TRF; comment (`###`) and unknown lines are skipped."""
    tags: dict[str, tuple[int, str]] = {}
    players: dict[int, TrfPlayer] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("001"):
            player = _player(line, number, source)
            if player.start in players:
                raise InvalidCommand(
                    (),
                    f"{source} line {number}: starting rank {player.start} is also on line "
                    f"{players[player.start].line}",
                )
            players[player.start] = player
        elif line[:3].isdigit():
            tags.setdefault(line[:3], (number, line[4:].strip()))
    if len(players) < 2:
        raise InvalidCommand((), f"{source}: {len(players)} player lines (001); a section has 2+")
    return TrfReport(source, tags, tuple(sorted(players.values(), key=lambda p: p.start)))


def _player(line: str, number: int, source: str) -> TrfPlayer:
    start_text = line[4:8].strip()
    if not start_text.isdigit() or int(start_text) == 0:
        raise InvalidCommand(
            (), f"{source} line {number}: starting rank {start_text!r} (columns 5-8) is not 1-9999"
        )
    start = int(start_text)
    where = f"{source} line {number} (player {start})"
    fide_id = line[57:68].strip().lstrip("0")  # 0: none
    if fide_id and not fide_id.isdigit():
        raise InvalidCommand((), f"{where}: FIDE id {fide_id!r} (columns 58-68) is not a number")
    rating = line[48:52].strip()
    if rating and not rating.isdigit():
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
    birth_date, warnings = _birth_date(line[69:79].strip(), where)
    if federation and not (rating and int(rating)):
        # The profile's federation is the FIDE rating's flag (`fide.federation`), nothing else.
        warnings += (f"federation {federation} without a FIDE rating; not stored",)
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
        warnings=warnings,
    )


def _birth_date(text: str, where: str) -> tuple[date | None, tuple[str, ...]]:
    """TRF16's `YYYY/MM/DD`; a year alone (`1988`, `1988/00/00`) is not a date the rules use."""
    if not text:
        return None, ()
    if _YEAR.fullmatch(text):
        return None, (f"birth date {text!r} gives only the year; not stored",)
    match = _DATE.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        return date(*(int(g) for g in match.groups())), ()
    except ValueError:
        raise InvalidCommand(
            (), f"{where}: birth date {text!r} (columns 70-79) is not a date (YYYY/MM/DD)"
        ) from None


def _round(block: str, number: int, where: str) -> Entry:
    opponent, colour, code = block[:4].strip(), block[5].lower(), block[7].upper()
    if opponent and not opponent.isdigit():
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


@dataclass(frozen=True)
class IdMap:
    """A `--map` file: TRF starting ranks and FIDE ids → member ids."""

    by_start: Mapping[int, str]
    by_fide_id: Mapping[str, str]


def read_map(path: Path) -> IdMap:
    """A JSON object `{"start": {"1": "12345678"}, "fide_id": {"2000001": "30000001"}}`, or a
    CSV of `start, member id` rows (a header line `fide_id,member_id` makes them FIDE ids)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    if text.lstrip().startswith("{"):
        return _json_map(path, text)
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    keys: dict[str, str] = {}
    kind = "start"
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if len(cells) < 2 or not cells[1]:
            raise InvalidCommand((), f"{path} line {number}: expected starting rank, member id")
        if not cells[0].isdigit():
            if not keys and number == 1:
                kind = "fide_id" if cells[0].lower().replace(" ", "_") == "fide_id" else "start"
                continue
            what = "a starting rank" if kind == "start" else "a FIDE id"
            raise InvalidCommand((), f"{path} line {number}: {cells[0]!r} is not {what}")
        if cells[0] in keys:
            raise InvalidCommand((), f"{path} line {number}: {kind} {cells[0]} is twice")
        keys[cells[0]] = cells[1]
    return _id_map(path, {kind: keys})


def _json_map(path: Path, text: str) -> IdMap:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidCommand(
            (), f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    unknown = [k for k in data if k not in ("start", "fide_id")]
    if unknown:
        raise InvalidCommand((), f"{path}: {unknown[0]!r} is not start or fide_id")
    for kind, keys in data.items():
        if not isinstance(keys, dict) or not all(
            isinstance(k, str) and k.isdigit() and isinstance(v, str) and v for k, v in keys.items()
        ):
            raise InvalidCommand((), f"{path}: {kind} must map numbers to member ids")
    return _id_map(path, data)


def _id_map(path: Path, data: Mapping[str, Mapping[str, str]]) -> IdMap:
    by_start = {int(k): v for k, v in data.get("start", {}).items()}
    if 0 in by_start:
        raise InvalidCommand((), f"{path}: starting rank 0 is not 1-9999")
    return IdMap(by_start, dict(data.get("fide_id", {})))


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
) -> Imported:
    """The section file content of a TRF; options given replace what the file says.

    `members` gives each starting rank's member id (default: the FIDE id, see `match`).
    """
    origins: dict[FieldPath, str] = {}
    name, origins[("event_name",)] = _required(report, "012")
    start, origins[("start_date",)] = _date_of(report, "042", start, "--start")
    end, origins[("end_date",)] = _date_of(report, "052", end, "--end")
    if time_control is None:
        time_control, origins[("time_control",)] = _time_control(report, rules)
    else:
        origins[("time_control",)] = "--time-control"
    if section_id is None:
        section_id = derived_id(start, name)
    else:
        origins[("section_id",)] = "--section-id"
    entrants = [
        Entrant(
            p.start,
            members[p.start] if members else _fide_id(report, p),
            report.where(p),
            p.rounds,
        )
        for p in report.players
    ]
    for i, e in enumerate(entrants):
        origins[("players", i)] = e.where
    rounds = max(_last_round(p) for p in report.players)
    games, byes = grid_to_section(entrants, rounds, TRF_CODES, origins)
    data: dict[str, Any] = {
        "section_id": section_id,
        "event_name": name,
        "online": online,
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


def _required(report: TrfReport, tag: str, option: str | None = None) -> tuple[str, str]:
    found = report.tag(tag)
    if found is None or not found[0]:
        hint = f": give {option}" if option else ""
        raise InvalidCommand((), f"{report.source}: no {tag} line ({TAG_NAMES[tag]}){hint}")
    return found


def _date_of(report: TrfReport, tag: str, given: date | None, option: str) -> tuple[date, str]:
    if given is not None:
        return given, option
    text, where = _required(report, tag, option)
    match = _DATE.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        return date(*(int(g) for g in match.groups())), where
    except ValueError:
        raise InvalidCommand(
            (), f"{where}: {TAG_NAMES[tag]} {text!r} is not a date (YYYY/MM/DD)"
        ) from None


def _time_control(report: TrfReport, rules: str | None) -> tuple[str, str]:
    """The 122 text in the ledger's notation; as written when the rules do not read it."""
    text, where = _required(report, "122", "--time-control")
    try:
        return ledger_time_control(text), where
    except ValueError as exc:
        if rules is not None and not reads_time_control(rules):
            return text, where
        raise InvalidCommand(
            (), f"{where}: {exc}; give it with --time-control, e.g. --time-control 'G/90;+30'"
        ) from None


def _fide_id(report: TrfReport, player: TrfPlayer) -> str:
    if player.fide_id is None:
        raise InvalidCommand(
            (), f"{report.where(player)}: no FIDE id (columns 58-68) and not in --map; give --map"
        )
    return player.fide_id


@dataclass(frozen=True)
class Match:
    """A TRF player's member id, and how it was found: `map`, `fide_id` (a member whose
    profile has it), `member` (a member whose id it is) or `new` (to be registered)."""

    member: str
    how: str


def match(
    report: TrfReport, id_map: IdMap | None, registered: Mapping[str, str | None]
) -> dict[int, Match]:
    """Each starting rank's member: by `--map` (starting rank, then FIDE id), else the member
    whose profile has the FIDE id, else the FIDE id as member id (registered or new).

    `registered` maps every registered member id to its profile's FIDE id (or None).
    """
    holders: dict[str, list[str]] = {}
    for member, fide_id in registered.items():
        if fide_id is not None:
            holders.setdefault(fide_id, []).append(member)
    matches: dict[int, Match] = {}
    for p in report.players:
        if id_map is not None and p.start in id_map.by_start:
            matches[p.start] = Match(id_map.by_start[p.start], "map")
            continue
        if id_map is not None and p.fide_id in id_map.by_fide_id:
            matches[p.start] = Match(id_map.by_fide_id[p.fide_id], "map")
            continue
        fide_id = _fide_id(report, p)
        found = sorted(holders.get(fide_id, []))
        if len(found) > 1:
            raise InvalidCommand(
                (),
                f"{report.where(p)}: FIDE id {fide_id} is in the profiles of members "
                f"{', '.join(found)}; give --map",
            )
        if found:
            matches[p.start] = Match(found[0], "fide_id")
        elif fide_id in registered:
            if registered[fide_id] is not None:
                raise InvalidCommand(
                    (),
                    f"{report.where(p)}: member {fide_id} has FIDE id {registered[fide_id]}, "
                    f"not {fide_id}; give --map",
                )
            matches[p.start] = Match(fide_id, "member")
        else:
            matches[p.start] = Match(fide_id, "new")
    return matches


def profile(player: TrfPlayer, member: str, start: date) -> dict[str, Any]:
    """The `register` item of a TRF player: every field of the `001` line the profile holds.
    The FIDE rating is dated the tournament's start (the list the file was paired with)."""
    fields: dict[str, Any] = {
        "id": member,
        "name": player.name or None,
        "sex": player.sex,
        "title": player.title,
        "fide_id": player.fide_id,
        "birth_date": player.birth_date and player.birth_date.isoformat(),
    }
    if player.rating is not None:
        fide = {"rating": player.rating, "date": start.isoformat()}
        fields["fide"] = fide | ({"federation": player.federation} if player.federation else {})
    return {k: v for k, v in fields.items() if v is not None}


def _last_round(player: TrfPlayer) -> int:
    """The last round the line says anything about (a blank block is a zero-point bye)."""
    said = [e.round for e in player.rounds if e.opponent is not None or e.code != " "]
    return max(said, default=0)
