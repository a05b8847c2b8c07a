"""FIDE's own rating-list file, as ratings.fide.com publishes it (issue 30): the fixed-width TXT
of the combined list (`players_list_foa.txt`: `ID Number  Name  Fed Sex Tit WTit OTit FOA SRtng
SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag`) or of one list (`standard_…frl.txt`: `… FOA SEP26
Gms K B-day Flag`). Each column starts where its heading does (the file's own header line), so
both layouts, with or without FOA, read the same. Pure reading: the import is
ledger/entrypoints/cli/fide_list.py."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from ledger.errors import InvalidCommand
from ledger.inputs import read_bytes

# FIDE's lists, as the family names them (ledger/rules/fide/rate_of_play.py)
STANDARD, RAPID, BLITZ = "FIDE", "FIDE_RAPID", "FIDE_BLITZ"
# the combined list: each list's (rating, games, K) headings
COMBINED = {
    STANDARD: ("SRtng", "SGm", "SK"),
    RAPID: ("RRtng", "RGm", "Rk"),
    BLITZ: ("BRtng", "BGm", "BK"),
}
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_HEADING = re.compile(r"^(" + "|".join(MONTHS) + r")(\d\d)$", re.IGNORECASE)
FILE_DATE = re.compile(r"(" + "|".join(MONTHS) + r")(\d\d)frl", re.IGNORECASE)
TITLES = {"GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"}
FLAGS = {"i", "w", "wi"}  # FIDE's list: inactive (7.2.2), woman, both


@dataclass(frozen=True)
class Listed:
    """One list's row of a player: rating, games in the period, K (8.3.3)."""

    rating: int
    games: int
    k: int | None


@dataclass(frozen=True)
class ListRow:
    line: int
    fide_id: str
    name: str
    federation: str | None
    sex: str | None  # m, w (the ledger's) from FIDE's M, F
    title: str | None
    birth_year: int | None
    flags: str | None
    lists: dict[str, Listed] = field(default_factory=dict)


@dataclass(frozen=True)
class RatingList:
    as_of: date | None  # read from the header's month column or the file name
    rows: tuple[ListRow, ...]
    warnings: tuple[str, ...]


def read_list(path: Path) -> RatingList:
    """The rows of a FIDE rating-list file; its size first (INPUT_LIMITS['fide-list'])."""
    data = read_bytes(path, "fide-list")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # FIDE's older files
    lines = text.splitlines()
    if not lines or not lines[0].startswith("ID Number"):
        raise InvalidCommand((), f"{path}:1: not a FIDE rating list (no 'ID Number' header)")
    columns = _columns(lines[0])
    lists, as_of = _lists(columns, path)
    if not lists:
        raise InvalidCommand((), f"{path}:1: no rating column (SRtng, or a month such as SEP26)")
    rows: list[ListRow] = []
    warnings: list[str] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        row = _row(line, number, columns, lists, f"{path}:{number}")
        if row is None:
            warnings.append(f"{path}:{number}: no FIDE id; line skipped")
        else:
            rows.append(row)
    return RatingList(as_of, tuple(rows), tuple(warnings))


def _columns(header: str) -> dict[str, tuple[int, int | None]]:
    """Each heading's span: from where it starts to where the next one does."""
    found = [
        (m.group(), m.start())
        for m in re.finditer(r"\S+", header.replace("ID Number", "ID_Number"))
    ]
    return {
        name: (start, found[i + 1][1] if i + 1 < len(found) else None)
        for i, (name, start) in enumerate(found)
    }


def _lists(
    columns: dict[str, tuple[int, int | None]], path: Path
) -> tuple[dict[str, tuple[str, str, str]], date | None]:
    """The lists the file holds (each list's rating, games and K headings) and its date."""
    named = FILE_DATE.search(path.name)
    as_of = None if named is None else _month(named.group(1), named.group(2))
    if "SRtng" in columns:
        return {s: h for s, h in COMBINED.items() if h[0] in columns}, as_of
    month = next((c for c in columns if MONTH_HEADING.match(c)), None)
    if month is None:
        return {}, as_of
    found = MONTH_HEADING.match(month)
    assert found is not None
    name = path.name.lower()
    system = RAPID if name.startswith("rapid") else BLITZ if name.startswith("blitz") else STANDARD
    return {system: (month, "Gms", "K")}, as_of or _month(found.group(1), found.group(2))


def _month(name: str, year: str) -> date:
    return date(2000 + int(year), MONTHS.index(name.lower()) + 1, 1)


def _row(
    line: str,
    number: int,
    columns: dict[str, tuple[int, int | None]],
    lists: dict[str, tuple[str, str, str]],
    where: str,
) -> ListRow | None:
    def cell(name: str) -> str:
        span = columns.get(name)
        return "" if span is None else line[span[0] : span[1]].strip()

    fide_id = cell("ID_Number")
    if not fide_id:
        return None
    if not fide_id.isdigit():
        raise InvalidCommand((), f"{where}: ID Number {fide_id!r} is not a FIDE id")
    listed = {}
    for system, (rating, games, k) in lists.items():
        value = _number(cell(rating), where, rating)
        if value:  # 0 or blank: not on this list
            listed[system] = Listed(
                value, _number(cell(games), where, games) or 0, _number(cell(k), where, k)
            )
    sex = {"M": "m", "F": "w"}.get(cell("Sex"))
    title = cell("Tit").upper()
    born = _number(cell("B-day"), where, "B-day")
    flags = cell("Flag").lower()
    if flags and flags not in FLAGS:
        raise InvalidCommand((), f"{where}: Flag {flags!r} is not one of i, w, wi")
    return ListRow(
        number,
        fide_id,
        cell("Name"),
        cell("Fed") or None,
        sex,
        title if title in TITLES else None,
        born or None,
        flags or None,
        listed,
    )


def _number(text: str, where: str, column: str) -> int | None:
    if not text:
        return None
    if not text.isdigit():
        raise InvalidCommand((), f"{where}: {column} {text!r} is not a number")
    return int(text)


@dataclass
class Plan:
    """What an import of a list records: profiles (new players' and known players' changed
    K and flags) and opening balances; and the rows it leaves, with why."""

    register: list[dict[str, object]] = field(default_factory=list)
    balances: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, object]] = field(default_factory=list)
    matched: int = 0


def plan(
    rows: tuple[ListRow, ...],
    as_of: date,
    members: dict[str, str],
    profiles: dict[str, dict[str, object]],
    balances: dict[str, set[str]],
    register: bool,
) -> Plan:
    """`members`: FIDE id → member id of the players the ledger knows; `profiles`: their
    profiles; `balances`: the systems each already has an opening balance in (kept: at most
    one per system). A player the ledger does not know is registered as his FIDE id with
    `register`, else left."""
    out = Plan()
    for row in rows:
        member = members.get(row.fide_id)
        if member is None and not register:
            out.skipped.append(
                {"line": row.line, "fide_id": row.fide_id, "why": "not in the ledger"}
            )
            continue
        listed = {
            "fide_k": row.lists[STANDARD].k if STANDARD in row.lists else None,
            "fide_flags": row.flags,
        }
        if member is None:
            member = row.fide_id
            out.register.append({"id": member, **_profile(row), **_given(listed)})
        else:
            out.matched += 1
            old = profiles.get(member, {})
            if any(old.get(k) != v for k, v in listed.items()):
                out.register.append({"id": member, **listed})
        for system, entry in row.lists.items():
            if system in balances.get(member, set()):
                out.skipped.append(
                    {
                        "line": row.line,
                        "fide_id": row.fide_id,
                        "why": f"already has an opening balance in {system}",
                    }
                )
                continue
            balance: dict[str, object] = {"player": member, "system": system}
            balance |= {"as_of": as_of.isoformat(), "rating": entry.rating, "games": entry.games}
            out.balances.append(balance | _given({"k": entry.k}))
    return out


def _profile(row: ListRow) -> dict[str, object]:
    """A new player's `register` item from his row."""
    return _given(
        {
            "name": row.name or None,
            "fide_id": row.fide_id,
            "federation": row.federation,
            "sex": row.sex,
            "title": row.title,
            "birth_year": row.birth_year,
        }
    )


def _given(fields: Mapping[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if v is not None}
