"""What a TRF's tournament lines say, as pairing programs and online sites write them: dates
(`2024/01/01`, `28. 07. 2005`, `24/09/2010`, `May 29, 2020`), the time control (122 in any
notation the ledger reads, else TRF-2026's encoded 222), whether the event was online, how many
rounds it has (XXR, TRF-2026's 142) and whether the file is a team file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from contextlib import suppress
from datetime import date

from ledger.rules.time_notation import ledger_time_control
from ledger.text import digits

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTHS = {m: i for i, m in enumerate(_MONTHS, 1)}
_YEAR_FIRST = re.compile(r"(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})")
# Two digits each: TRF's own short form, YY/MM/DD (as its 132 lines), before day-first.
_SHORT = re.compile(r"(\d{2})[/.-](\d{2})[/.-](\d{2})")
_DAY_FIRST = re.compile(r"(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{2}|\d{4})")
_MONTH_NAME = re.compile(r"([a-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})", re.I)
_DAY_MONTH_NAME = re.compile(r"(\d{1,2})\.?\s+([a-z]{3})[a-z]*\.?,?\s+(\d{4})", re.I)
# Words and addresses that say a tournament was played on a chess server.
_ONLINE = re.compile(r"lichess|chess\.com|chess24|playchess|\bonline\b|https?://", re.I)
# 1-½-0 as TRF-2026's 162 and JaVaFo's XXS label it: win, draw, loss (by colour: WW, BD…),
# forfeit win and loss, byes (pairing-allocated, full, half, zero point).
STANDARD_POINTS = {"W": 1.0, "D": 0.5, "L": 0.0, "FW": 1.0, "FL": 0.0}
STANDARD_POINTS |= {f"{c}{r}": STANDARD_POINTS[r] for c in "WB" for r in "WDL"}
STANDARD_POINTS |= {"PAB": 1.0, "FPB": 1.0, "HPB": 0.5, "ZPB": 0.0}
_SCORING = re.compile(r"\b([A-Z]{1,3})\s*=?\s*(\d{1,3}(?:\.\d+)?)\b")
_TEAM_TYPE = re.compile(r"team|olympiad", re.I)
_INDIVIDUAL = re.compile(r"individual", re.I)


def unknown(text: str) -> bool:
    """A value real programs write for "not known": blank, or zeros and separators only
    (`0000/00/00`, `0000-00-00`, `00000000`, `0000`, `0`)."""
    return not text.strip("0/.- ")


def read_date(text: str, rounds: Sequence[date] = ()) -> date:
    """A header date: year first (`2024/01/01`, `2012-02-06`), else day first (`28. 07. 2005`,
    `24/09/2010`), else with a month name (`May 29, 2020`, `29 May 2020`). A day-first date
    whose month is over 12 is read month first (`09/24/2010`). Three two-digit parts
    (`25/08/11`) are TRF's `YY/MM/DD`, as its 132 lines, unless that is no date or the file's
    round dates (`rounds`) are nearer the day-first reading. ValueError when it is none of
    these."""
    text = text.strip()
    if m := _YEAR_FIRST.fullmatch(text):
        return _day(text, int(m[1]), int(m[2]), int(m[3]))
    if m := _DAY_FIRST.fullmatch(text):
        readings = _readings(text, int(m[1]), int(m[2]), int(m[3]))
        first = min(rounds, default=None)
        if first is None:
            return readings[0]
        return min(readings, key=lambda day: abs((day - first).days))
    if m := _MONTH_NAME.fullmatch(text):
        return _day(text, int(m[3]), _month(m[1]), int(m[2]))
    if m := _DAY_MONTH_NAME.fullmatch(text):
        return _day(text, int(m[3]), _month(m[2]), int(m[1]))
    raise ValueError(f"{text!r} is not a date (2024/01/01, 28. 07. 2005, May 29, 2020…)")


def _readings(text: str, a: int, b: int, c: int) -> list[date]:
    """The days `a/b/c` may name, TRF's `YY/MM/DD` first (when all three have two digits),
    then day first (month first when the month is over 12); ValueError when none is a day."""
    found = []
    if _SHORT.fullmatch(text):
        with suppress(ValueError):
            found.append(date(2000 + a, b, c))
    day, month = (b, a) if b > 12 >= a else (a, b)
    try:
        found.append(_day(text, c + (2000 if c < 100 else 0), month, day))
    except ValueError:
        if not found:
            raise
    return found


def read_round_date(text: str) -> date:
    """A 132 round date: TRF16 and TRF-2026 write `YY/MM/DD`; other forms as `read_date`."""
    if m := _SHORT.fullmatch(text.strip()):
        return _day(text, 2000 + int(m[1]), int(m[2]), int(m[3]))
    return read_date(text)


def _day(text: str, year: int, month: int, day: int) -> date:
    """The day `text` names; ValueError naming `text` when there is no such day (`31/31/2020`)."""
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a date ({exc})") from None


def _month(name: str) -> int:
    if name.lower() not in MONTHS:
        raise ValueError(f"{name!r} is not a month")
    return MONTHS[name.lower()]


def encoded_time_control(text: str) -> str:
    """TRF-2026's 222 (`5400+30`, `40/6000+30:900+30`: seconds, periods joined by `:`;
    Armageddon `W300-B240` is read as white's) in the ledger's notation."""
    text = text.strip().split("-")[0].lstrip("W")
    periods: list[str] = []
    bonuses: set[int] = set()
    for i, period in enumerate(text.split(":")):
        m = re.fullmatch(r"(?:(\d{1,9})/)?(\d{1,9})(?:\+(\d{1,9}))?", period.strip())
        if m is None or int(m[2]) % 60:
            raise ValueError(f"time control {text!r} (222) cannot be read")
        minutes = int(m[2]) // 60
        periods.append(f"{m[1]}/{minutes}" if m[1] else f"{'SD' if i else 'G'}/{minutes}")
        bonuses |= {int(m[3])} if m[3] else set()
    if len(bonuses) > 1:
        raise ValueError(f"time control {text!r} (222): different increments")
    return ", ".join(periods) + (f";+{bonuses.pop()}" if bonuses else "")


def time_control(tags: Mapping[str, tuple[str, str]]) -> tuple[str, str] | None:
    """The time control and the line it is read from: 122 when it holds one (a 122 without a
    digit, such as the template text `moves/time, increment`, holds none), else 222; None when
    the file gives none. ValueError (naming the line) for a 122 or 222 the ledger cannot read."""
    text, where = tags.get("122", ("", ""))
    if re.search(r"\d", text):
        try:
            return ledger_time_control(text), where
        except ValueError as exc:
            if "222" not in tags:
                raise ValueError(f"{where}: {exc}") from None
    if "222" in tags:
        text, where = tags["222"]
        try:
            return encoded_time_control(text), where
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    return None


def online(tags: Mapping[str, tuple[str, str]]) -> str | None:
    """The tournament line that names a chess server (lichess, chess.com, a web address), if any."""
    for tag in ("012", "022", "032", "092", "102"):
        text, where = tags.get(tag, ("", ""))
        if _ONLINE.search(text):
            return f"{where} ({text})"
    return None


def rounds_announced(tags: Mapping[str, tuple[str, str]]) -> int | None:
    """The number of rounds the tournament has: XXR (TRF16's pairing extension) or 142."""
    for tag in ("142", "XXR"):
        text, _ = tags.get(tag, ("", ""))
        if digits(text.strip()):
            return int(text.strip())
    return None


def one_half_zero(tags: Mapping[str, tuple[str, str]]) -> bool:
    """Whether the file scores 1-½-0: it declares no other points (TRF-2026's 162, `W 1.0  D
    0.5  L 0.0`; JaVaFo's XXS, `WW=1 BW=1 WD=0.5 …`). A declaration's labels the ledger does
    not know are passed over."""
    declared = " ".join(tags.get(t, ("", ""))[0] for t in ("162", "XXS"))
    return all(
        STANDARD_POINTS.get(label, float(value)) == float(value)
        for label, value in _SCORING.findall(declared)
    )


def is_team_file(tags: Mapping[str, tuple[str, str]], team_lines: bool) -> bool:
    """A team tournament's file: team lines (013, 310), a number of teams (082), or a team
    type (092, 192); a type that says `individual` is not one, whatever its 082 says."""
    teams = tags.get("082", ("", ""))[0].strip()
    kind = tags.get("092", ("", ""))[0] + " " + tags.get("192", ("", ""))[0]
    if team_lines:
        return True
    if _INDIVIDUAL.search(kind):
        return False
    return (digits(teams) and int(teams) > 0) or bool(_TEAM_TYPE.search(kind))
