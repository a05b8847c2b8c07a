"""FIDE's Tournament Report File (TRF16, FIDE Handbook C.04 Annex 2) read as one section.

The player lines (`001`) have fixed columns (1-based): starting rank 5-8, name 15-47, FIDE id
58-68, and for round r a 10-column block from column 92 + 10(r-1): the opponent's starting rank
(4 columns, `0000` or blanks for none), the colour (`w`, `b`, `-`) and the result code.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ledger.domain import InvalidCommand
from ledger.interchange import (
    Entrant,
    Entry,
    FieldPath,
    Imported,
    ResultCodes,
    derived_id,
    grid_to_section,
)

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


@dataclass(frozen=True)
class TrfPlayer:
    start: int
    name: str
    fide_id: str | None
    line: int
    rounds: tuple[Entry, ...]


@dataclass(frozen=True)
class TrfReport:
    """A parsed file: the tournament tags (tag → line number, text) and the player lines."""

    source: str
    tags: Mapping[str, tuple[int, str]]
    players: tuple[TrfPlayer, ...]

    def where(self, player: TrfPlayer) -> str:
        return f"{self.source} line {player.line} (player {player.start})"

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
    fide_id = line[57:68].strip()
    if fide_id and not fide_id.isdigit():
        raise InvalidCommand((), f"{where}: FIDE id {fide_id!r} (columns 58-68) is not a number")
    rounds: list[Entry] = []
    column = ROUND_COLUMN - 1
    while column < len(line.rstrip()):
        block = line[column : column + ROUND_WIDTH].ljust(ROUND_WIDTH)
        rounds.append(_round(block, len(rounds) + 1, where))
        column += ROUND_WIDTH
    return TrfPlayer(start, line[14:47].strip(), fide_id or None, number, tuple(rounds))


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


def read_id_map(path: Path) -> dict[int, str]:
    """A CSV of `starting rank, member id` (a header line is allowed)."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    ids: dict[int, str] = {}
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if len(cells) < 2 or not cells[1]:
            raise InvalidCommand((), f"{path} line {number}: expected starting rank, member id")
        if not cells[0].isdigit():
            if not ids and number == 1:
                continue
            raise InvalidCommand((), f"{path} line {number}: {cells[0]!r} is not a starting rank")
        if int(cells[0]) in ids:
            raise InvalidCommand((), f"{path} line {number}: starting rank {cells[0]} is twice")
        ids[int(cells[0])] = cells[1]
    return ids


def to_section(
    report: TrfReport,
    *,
    section_id: str | None = None,
    tournament_id: str | None = None,
    ids: Mapping[int, str] | None = None,
    time_control: str | None = None,
    start: date | None = None,
    end: date | None = None,
    online: bool = False,
    rules: str | None = None,
) -> Imported:
    """The section file content of a TRF; options given replace what the file says."""
    origins: dict[FieldPath, str] = {}
    name, origins[("event_name",)] = _required(report, "012")
    start, origins[("start_date",)] = _date_of(report, "042", start, "--start")
    end, origins[("end_date",)] = _date_of(report, "052", end, "--end")
    if time_control is None:
        time_control, origins[("time_control",)] = _required(report, "122", "--time-control")
    else:
        origins[("time_control",)] = "--time-control"
    if section_id is None:
        section_id = derived_id(start, name)
    else:
        origins[("section_id",)] = "--section-id"
    entrants = [
        Entrant(p.start, member_id(report, p, ids), report.where(p), p.rounds)
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


def member_id(report: TrfReport, player: TrfPlayer, ids: Mapping[int, str] | None) -> str:
    """The member id of a TRF player: from the id map, else the FIDE id."""
    if ids is not None:
        if player.start not in ids:
            raise InvalidCommand(
                (), f"{report.where(player)}: starting rank {player.start} is not in the id map"
            )
        return ids[player.start]
    if player.fide_id is None:
        raise InvalidCommand(
            (), f"{report.where(player)}: no FIDE id (columns 58-68); give --id-map"
        )
    return player.fide_id


def _last_round(player: TrfPlayer) -> int:
    """The last round the line says anything about (a blank block is a zero-point bye)."""
    said = [e.round for e in player.rounds if e.opponent is not None or e.code != " "]
    return max(said, default=0)
