"""A US Chess rating report (THEXPORT, TSEXPORT and TDEXPORT .DBF, format 2C) read as sections.

THEXPORT holds the event (H_NAME, H_BEG_DATE, H_END_DATE, H_EVENT_ID); TSEXPORT one record per
section (S_SEC_NUM, S_SEC_NAME, S_TIMECTL, S_TRN_TYPE, S_TOT_RNDS, S_BEG_DATE, S_END_DATE);
TDEXPORT one per player (D_SEC_NUM, D_PAIR_NUM, D_MEM_ID and D_RND01, D_RND02 …), each round a
result code, the opponent's pair number and the colour: `W12B`, `L3W`, `H0`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from dbfread import DBF

from ledger.entrypoints.interchange import (
    Entrant,
    Entry,
    FieldPath,
    Imported,
    ResultCodes,
    derived_id,
    grid_to_section,
)
from ledger.errors import InvalidCommand
from ledger.inputs import check_size
from ledger.text import digits

HEADER, SECTIONS, DETAILS = "THEXPORT.DBF", "TSEXPORT.DBF", "TDEXPORT.DBF"
REQUIRED = {
    HEADER: ("H_NAME", "H_BEG_DATE", "H_END_DATE"),
    SECTIONS: ("S_SEC_NUM", "S_TIMECTL", "S_TOT_RNDS"),
    DETAILS: ("D_SEC_NUM", "D_PAIR_NUM", "D_MEM_ID"),
}
# US Chess round codes: "W" win, "L" loss, "D" draw, with the opponent's pair number and colour;
# "X" forfeit win, "F" forfeit loss, "Z" forfeit draw; "B" full-point bye, "H" half-point bye,
# "U" unpaired ("or a zero point bye"); "N", "R", "S" an inconsistent but ratable win, draw, loss.
USCHESS_CODES = ResultCodes(
    blank="U",
    opponent={"W": "L", "L": "W", "D": "D", "X": "F", "F": "X", "Z": "Z"},
    white_result={"W": "1-0", "L": "0-1", "D": "1/2-1/2", "X": "1F-0F", "F": "0F-1F"},
    # The ledger has no unrated draw and no double forfeit: each player gets the bye that
    # scores the same and is not rated either.
    both_byes={("Z", "Z"): "half", ("F", "F"): "zero"},
    # A forfeit reported without the opponent (as pairing programs write them) is the bye that
    # scores the same.
    no_opponent={"B": "full", "X": "full", "H": "half", "Z": "half", "U": "zero", "F": "zero"},
    needs_colour=frozenset("WLD"),
)
INCONSISTENT = {"N": "win", "R": "draw", "S": "loss"}
UNPAIRED = {"", "-", "*"}  # a blank cell, and the round-robin diagonal, are "U"
SWISS_FORM = {"", "S"}
TRN_TYPES = {"R": "round robin", "M": "match", "C": "cumulative swiss"}
_CELL = re.compile(r"(?P<code>[A-Z])\s*(?P<opponent>\d*)\s*(?P<colour>[WB]?)")
_ROUND_FIELD = re.compile(r"D_RND(\d+)")
DATE_FORMATS = ("%Y%m%d", "%Y-%m-%d", "%m/%d/%Y")
# dBase field types the report's fields may have: character; numbers and dates as numeric or
# date fields, or as text. Any other (memo, logical, binary…) would be misread as text.
TEXT, NUMBER, DAY = frozenset("C"), frozenset("CN"), frozenset("CD")
NUMBER_FIELDS = {"S_SEC_NUM", "S_TOT_RNDS", "S_LST_PAIR", "H_TOT_SECT", "D_SEC_NUM", "D_PAIR_NUM"}
NUMBER_FIELDS |= {"D_MEM_ID"}


@dataclass(frozen=True)
class Record:
    """One DBF record's fields as stripped text, and where it is (`TDEXPORT.DBF record 4`)."""

    where: str
    values: Mapping[str, str]

    def get(self, field: str) -> str:
        return self.values.get(field, "")


@dataclass(frozen=True)
class UschessReport:
    """The three files of one event's report."""

    header: Record
    sections: tuple[Record, ...]
    details: tuple[Record, ...]
    details_file: str
    round_fields: frozenset[str]
    files: tuple[tuple[str, int], ...]  # each file read and its number of records


def read_report(directory: Path) -> UschessReport:
    """Read the report in `directory` (file names in any case)."""
    if not directory.is_dir():
        raise InvalidCommand((), f"{directory}: no such directory")
    for name in (HEADER, SECTIONS, DETAILS):  # each refused by its size before any is read
        check_size(_file(directory, name), "dbf")
    headers, header_file, _ = _read(directory, HEADER)
    if len(headers) != 1:
        raise InvalidCommand(
            (), f"{header_file}: {len(headers)} events; import the report of one event"
        )
    sections, sections_file, _ = _read(directory, SECTIONS)
    declared = headers[0].get("H_TOT_SECT")
    if declared and declared != str(len(sections)):
        raise InvalidCommand(
            (),
            f"{headers[0].where}: H_TOT_SECT {declared!r} sections, but {sections_file} has "
            f"{len(sections)} records",
        )
    details, details_file, fields = _read(directory, DETAILS)
    rounds = frozenset(f for f in fields if _ROUND_FIELD.fullmatch(f))
    files = ((header_file, 1), (sections_file, len(sections)), (details_file, len(details)))
    return UschessReport(headers[0], sections, details, details_file, rounds, files)


def _file(directory: Path, name: str) -> Path:
    """The file `name` in `directory`, its name in any case."""
    path = next((p for p in directory.iterdir() if p.name.upper() == name), None)
    if path is None:
        raise InvalidCommand((), f"{directory}: no {name}")
    return path


def _read(directory: Path, name: str) -> tuple[tuple[Record, ...], str, list[str]]:
    path = _file(directory, name)
    try:
        table = DBF(str(path), encoding="latin-1", raw=True, ignore_missing_memofile=True)
    except (OSError, ValueError, struct.error) as exc:
        raise InvalidCommand((), f"{path}: not a readable DBF file ({exc})") from None
    _check_layout(path, table)
    table.load()
    fields = [f.upper() for f in table.field_names]
    missing = [f for f in REQUIRED[name] if f not in fields]
    if missing:
        raise InvalidCommand((), f"{path}: no field {missing[0]}")
    records = tuple(
        Record(
            f"{path} record {n}",
            {k.upper(): v.decode("latin-1").strip() for k, v in raw.items()},
        )
        for n, raw in enumerate(table.records, start=1)
    )
    if not records:
        raise InvalidCommand((), f"{path}: no records")
    return records, str(path), fields


def _check_layout(path: Path, table: DBF) -> None:
    """The header's record count and length match the file's size and the fields' widths,
    and each field the import reads has a type it can read."""
    header = table.header
    widths = 1 + sum(f.length for f in table.fields)  # the deletion flag, then the fields
    if widths != header.recordlen:
        raise InvalidCommand(
            (),
            f"{path}: the fields take {widths} bytes a record but the header says "
            f"{header.recordlen}; damaged",
        )
    body = path.stat().st_size - header.headerlen
    expected = header.numrecords * header.recordlen
    if body not in (expected, expected + 1):  # + 1: the end-of-file marker 0x1A
        raise InvalidCommand(
            (),
            f"{path}: the header says {header.numrecords} records of {header.recordlen} bytes "
            f"({expected:,} bytes), the file has {body:,} after the header; truncated or damaged",
        )
    for f in table.fields:
        name = f.name.upper()
        allowed = _types(name)
        if allowed is not None and f.type not in allowed:
            raise InvalidCommand(
                (),
                f"{path}: field {name} has type {f.type!r}; expected "
                + " or ".join(repr(t) for t in sorted(allowed)),
            )


def _types(name: str) -> frozenset[str] | None:
    """The dBase types a field the import reads may have; None for a field it ignores."""
    if name in NUMBER_FIELDS:
        return NUMBER
    if name.endswith("_DATE"):
        return DAY
    if name in ("H_NAME", "H_EVENT_ID", "S_SEC_NAME", "S_TIMECTL", "S_TRN_TYPE"):
        return TEXT
    return TEXT if _ROUND_FIELD.fullmatch(name) else None


def to_sections(
    report: UschessReport,
    *,
    tournament_id: str | None = None,
    time_control: str | None = None,
    online: bool = False,
) -> list[Imported]:
    """The section file content of every section of the report, in TSEXPORT order."""
    header = report.header
    name = header.get("H_NAME")
    if not name:
        raise InvalidCommand((), f"{header.where}: H_NAME is blank")
    if tournament_id is None:
        tournament_id = header.get("H_EVENT_ID") or derived_id(
            _event_date(header, "H_BEG_DATE"), name
        )
    entrants = _entrants_by_section(report)
    imported = []
    for record in report.sections:
        number = record.get("S_SEC_NUM")
        where = f"{record.where} (section {number})"
        if not number:
            raise InvalidCommand((), f"{record.where}: S_SEC_NUM is blank")
        kind = record.get("S_TRN_TYPE").upper()
        if kind not in SWISS_FORM:
            raise InvalidCommand(
                (),
                f"{where}: S_TRN_TYPE {kind!r} ({TRN_TYPES.get(kind, 'unknown')}) is not read; "
                "report the section in Swiss form ('S'), by rounds",
            )
        origins: dict[FieldPath, str] = {
            ("time_control",): "--time-control" if time_control else f"{where} S_TIMECTL",
        }
        control = time_control or record.get("S_TIMECTL")
        if not control:
            raise InvalidCommand((), f"{where}: S_TIMECTL is blank; give --time-control")
        start, origins[("start_date",)] = _section_date(record, where, "S_BEG_DATE", header)
        finish, origins[("end_date",)] = _section_date(record, where, "S_END_DATE", header)
        players = entrants.pop(number, None)
        if players is None:
            raise InvalidCommand((), f"{where}: no players in {report.details_file}")
        rounds = _rounds(record, where, report)
        grid = [_entrant(r, rounds, report) for r in players]
        for i, e in enumerate(grid):
            origins[("players", i)] = e.where
        games, byes = grid_to_section(grid, rounds, USCHESS_CODES, origins)
        section = record.get("S_SEC_NAME")
        data: dict[str, Any] = {
            "section_id": f"{tournament_id}-{number}",
            "tournament_id": tournament_id,
            "event_name": f"{name} — {section}" if section else name,
            "online": online,
            "time_control": control,
            "start_date": start.isoformat(),
            "end_date": finish.isoformat(),
            "players": [{"id": e.member} for e in grid],
            "games": games,
            "byes": byes,
        }
        imported.append(Imported(data, where, origins))
    if entrants:
        number, players = next(iter(entrants.items()))
        raise InvalidCommand(
            (), f"{players[0].where}: D_SEC_NUM {number!r} is not a section of TSEXPORT.DBF"
        )
    return imported


def _entrants_by_section(report: UschessReport) -> dict[str, list[Record]]:
    """TDEXPORT's records by section number, each section's in pair-number order."""
    by_section: dict[str, dict[int, Record]] = {}
    for record in report.details:
        pair = record.get("D_PAIR_NUM")
        if not digits(pair) or int(pair) == 0:
            raise InvalidCommand((), f"{record.where}: D_PAIR_NUM {pair!r} is not 1-9999")
        section = by_section.setdefault(record.get("D_SEC_NUM"), {})
        if int(pair) in section:
            raise InvalidCommand(
                (),
                f"{record.where}: pair {pair} of section {record.get('D_SEC_NUM')} is also "
                f"{section[int(pair)].where}",
            )
        section[int(pair)] = record
    return {s: [players[p] for p in sorted(players)] for s, players in by_section.items()}


def _rounds(record: Record, where: str, report: UschessReport) -> int:
    text = record.get("S_TOT_RNDS")
    if not digits(text) or int(text) == 0:
        raise InvalidCommand((), f"{where}: S_TOT_RNDS {text!r} is not a number of rounds")
    rounds = int(text)
    fields = (r for r in range(1, rounds + 1) if f"D_RND{r:02d}" not in report.round_fields)
    missing = next(fields, 0)  # the first only: a huge S_TOT_RNDS is not counted through
    if missing:
        raise InvalidCommand(
            (),
            f"{report.details_file}: no field D_RND{missing:02d} for section "
            f"{record.get('S_SEC_NUM')}'s {rounds} rounds",
        )
    return rounds


def _entrant(record: Record, rounds: int, report: UschessReport) -> Entrant:
    pair = int(record.get("D_PAIR_NUM"))
    where = f"{record.where} (section {record.get('D_SEC_NUM')}, pair {pair})"
    member = record.get("D_MEM_ID")
    if not member.strip("0"):
        raise InvalidCommand((), f"{where}: D_MEM_ID {member!r} is not a US Chess id")
    entries = []
    for field in sorted(report.round_fields, key=lambda f: int(f[5:])):
        number = int(field[5:])
        entry = _cell(record.get(field), number, f"{where}: {field}")
        if number <= rounds:
            entries.append(entry)
        elif entry.code != "U" or entry.opponent is not None:
            raise InvalidCommand(
                (), f"{where}: {field} {record.get(field)!r} is after the section's {rounds} rounds"
            )
    return Entrant(pair, member, where, tuple(sorted(entries, key=lambda e: e.round)))


def _cell(text: str, number: int, where: str) -> Entry:
    cell = text.upper()
    if cell in UNPAIRED:
        return Entry(number, None, None, "U")
    match = _CELL.fullmatch(cell)
    code = match["code"] if match else ""
    if code in INCONSISTENT:
        raise InvalidCommand(
            (),
            f"{where} {text!r} is an inconsistent but ratable {INCONSISTENT[code]}: the ledger "
            "records one result per game; correct the report",
        )
    known = code in USCHESS_CODES.opponent or code in USCHESS_CODES.no_opponent
    if match is None or not known:
        raise InvalidCommand((), f"{where} {text!r} is not a US Chess result code")
    opponent = int(match["opponent"]) if match["opponent"] else 0
    return Entry(number, opponent or None, match["colour"].lower() or None, code)


def _date(record: Record, field: str) -> date | None:
    text = record.get(field)
    if not text:
        return None
    for form in DATE_FORMATS:
        try:
            return datetime.strptime(text, form).date()
        except ValueError:
            continue
    raise InvalidCommand((), f"{record.where}: {field} {text!r} is not a date (YYYYMMDD)")


def _event_date(header: Record, field: str) -> date:
    value = _date(header, field)
    if value is None:
        raise InvalidCommand((), f"{header.where}: {field} is blank")
    return value


def _section_date(record: Record, where: str, field: str, header: Record) -> tuple[date, str]:
    """A section's S_BEG_DATE (S_END_DATE), else the event's H_BEG_DATE (H_END_DATE)."""
    value = _date(record, field)
    if value is not None:
        return value, f"{where} {field}"
    event_field = "H" + field[1:]
    return _event_date(header, event_field), f"{header.where} {event_field}"
