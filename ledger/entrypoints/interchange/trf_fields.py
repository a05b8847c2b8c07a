"""What a `001` line says of the player besides his games (sex, title, federation, birth date),
read as real programs write it: a value the ledger does not record (an online arena's `LM`, a
two-letter federation, a birth date whose day and month cannot be told apart) is no value and
never a reason to refuse the file (issue 31); each reader also returns the text it could not
read, for the import's one note line.
"""

from __future__ import annotations

import re
from datetime import date

from ledger.entrypoints.interchange import trf_header as header

# TRF16 titles: "GM=g, IM=m, WGM=wg, FM=f, WIM=wm, CM=c, WFM=wf, WCM=wc" (also written long).
TITLES = {"g": "GM", "m": "IM", "wg": "WGM", "f": "FM", "wm": "WIM", "c": "CM", "wf": "WFM"}
TITLES |= {"wc": "WCM"} | {
    t.lower(): t for t in ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")
}
SEXES = {"m": "m", "w": "w", "f": "w", "u": None}  # TRF16 m/w; `f` female; `u` unknown
_FEDERATION = re.compile(r"[A-Z]{3}")
_YEAR = re.compile(r"(\d{4})(?:[/.-]?0{1,2}[/.-]?0{1,2})?")  # `1988`, `1988/00/00`, `19880000`
_YEAR_FIRST = re.compile(r"(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})")
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})")  # `19880512`, as some programs write it
# Day first with a four-digit year: `12.05.1988` (dots: day first, as everywhere they are
# written so), `12/05/1988`, `12-05-1988` (day or month first: see `birth`).
_DAY_FIRST = re.compile(r"(\d{1,2})\s*([/.-])\s*(\d{1,2})\s*\2\s*(\d{4})")

Unread = tuple[str, str] | None  # (what the column holds, as written), when not read


def rating(line: str) -> str:
    """Columns 49-52, the FIDE rating; a program that writes it one column off (`1850` in
    48-51 or 50-53) puts it into the blank columns either side (48, 53), and then the one
    number over 48-53 is the rating (fixed columns alone would read `850` or `185`). A line
    in TRF16's columns has those blank, so it reads the same either way."""
    window = line[47:53].strip()
    if window.isdigit() and len(window) <= 4:
        return window
    return line[48:52].strip()


def sex(text: str) -> tuple[str | None, Unread]:
    """Column 10: `m`, `w` (or `f`); `u` and blank are unknown, and so is anything else."""
    key = text.strip().lower()
    if not key or key in SEXES:
        return SEXES.get(key), None
    return None, ("sex", key)


def title(text: str) -> tuple[str | None, Unread]:
    """Columns 11-13: a FIDE title, short (`g`, `wg`) or long (`GM`, `wgm`); another title
    (an online arena's `LM`, `BOT`, `NM`, `AGM`) is no title."""
    key = text.strip().lower()
    if not key or key in TITLES:
        return TITLES.get(key), None
    return None, ("title", text.strip())


def federation(text: str) -> tuple[str | None, Unread]:
    """Columns 54-56: a FIDE federation's three letters (in any case); two letters (`DE`),
    digits or a placeholder (`---`, blank) are unknown: the ledger records FIDE's codes."""
    code = text.strip().upper()
    if _FEDERATION.fullmatch(code):
        return code, None
    return None, None if header.unknown(code) else ("federation", text.strip())


def birth(text: str) -> tuple[date | None, int | None, Unread]:
    """Columns 70-79: the birth date and year. TRF16's `YYYY/MM/DD` (also `.` or `-`), the
    same without separators (`19880512`), a year alone (`1988`, `1988/00/00`: the year, not a
    date), day first with dots (`12.05.1988`); with `/` or `-` day first when the first
    number is over 12, month first when the second is (`05/13/1988`), and when both could be
    the month (`05/06/1988`) only the year is kept. What programs write for none (blank,
    `0000/00/00`) is unknown; so is anything else, noted."""
    text = text.strip()
    if header.unknown(text):
        return None, None, None
    if found := _YEAR.fullmatch(text):
        return None, int(found[1]), None
    parts: tuple[int, int, int] | None = None
    if found := _YEAR_FIRST.fullmatch(text) or _COMPACT.fullmatch(text):
        parts = int(found[1]), int(found[2]), int(found[3])
    elif found := _DAY_FIRST.fullmatch(text):
        first, second, year = int(found[1]), int(found[3]), int(found[4])
        if found[2] == "." or first > 12 or first == second:
            parts = year, second, first
        elif second > 12:
            parts = year, first, second
        else:
            return None, year, ("birth date (its year kept)", text)  # day, month ambiguous
    try:
        born = date(*parts) if parts else None
    except ValueError:
        born = None
    if born is None:
        return None, None, ("birth date", text)
    return born, born.year, None
