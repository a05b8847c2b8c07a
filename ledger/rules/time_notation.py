"""Time controls as pairing programs and FIDE write them, in the ledger's notation.

Swiss-Manager and Vega write `90+30`, `90'+30''`, `90 min + 30 s/move`, `90'/40+30'+30''`,
`120/40+60`, `15 minutes plus 10 sec per move` (`plus` is a `+`), and FIDE `Standard: 90
minutes with 30 second increment from move 1` (`with` is a `+`); the ledger writes
`G/90;+30` and `40/90, SD/30;+30`, which `ledger.rules.time_controls` reads. Text the
ledger already reads the same way is kept. Pieces are separated by `+`, `,` or `;`: periods
(`40/90`, `90'/40`, `G/90`, `90'`), then at most one delay or increment (`30''`, `30s`, `d5`).
"""

from __future__ import annotations

import re

from ledger.rules.time_controls import parse_time_control

_MOVES = r"(?:moves?|mv)"
_MINUTES = r"(?:minutes?|mins?|m|')"
_HOURS = r"(?:hours?|hrs?|h)"
_SECONDS = r"(?:seconds?|secs?|s|\"|'')"
_DELAY = r"(?:delay|d)"
_INCREMENT = r"(?:/\s*(?:move|mv)|(?:increment\s+)?per\s+move|increment|incr?|bonus)"
_UNIT = rf"(?:{_MOVES}|{_HOURS}|{_MINUTES})"
_PIECE = re.compile(r"(?P<separators>[\s+,;]*)(?P<piece>[^+,;]+)")
_SUDDEN_DEATH = re.compile(rf"(?:game|g|sd)\s*/\s*(?P<time>\d+)\s*(?P<unit>{_HOURS}|{_MINUTES})?")
_PERIOD = re.compile(
    rf"(?P<a>\d+)\s*(?P<unit_a>{_UNIT})?\s*(?:/|\bin\b|x|×)\s*(?P<b>\d+)\s*(?P<unit_b>{_UNIT})?"
)
_BARE = re.compile(rf"(?P<time>\d+)\s*(?P<unit>{_HOURS}|{_MINUTES})?")
_BONUS_AFTER = re.compile(
    rf"(?P<seconds>\d+)\s*(?P<unit>{_SECONDS})?\s*(?P<kind>{_INCREMENT}|{_DELAY})?"
)
_BONUS_BEFORE = re.compile(
    rf"(?P<kind>{_DELAY}|{_INCREMENT})\s*/?\s*(?P<seconds>\d+)\s*{_SECONDS}?"
)
_QUOTES = str.maketrans({"’": "'", "′": "'", "″": '"', "”": '"'})
_PLUS = re.compile(r"\s+(?:plus|with)\s+", re.I)  # `15 minutes plus 10 sec per move`
# FIDE's wording (`Standard: 90 minutes with 30 second increment from move 1`): the category
# before a colon says nothing the times do not, and an increment is from move 1 unless said.
_WORDING = re.compile(
    r"^\s*(?:standard|classical|rapid|blitz)\s*:\s*|\s*(?:starting\s+)?from\s+move\s+1\s*$", re.I
)


def ledger_time_control(text: str) -> str:
    """`text` in the ledger's notation: as written when the ledger reads it the same way (so
    `G/90+30` stays), else converted (`120/40+60`: 120 minutes per 40 moves, then 60);
    ValueError when it is neither a pairing program's notation nor the ledger's."""
    try:
        converted = _converted(_PLUS.sub(" + ", _WORDING.sub("", text.translate(_QUOTES))))
    except ValueError:
        try:
            parse_time_control(text)
        except ValueError:
            raise ValueError(
                f"time control {text!r} is not a notation the ledger reads "
                "(90+30, 90'/40+30'+30'', 40/90+30+30s, G/90;d30…)"
            ) from None
        return text
    try:
        meant = parse_time_control(converted)
    except ValueError as exc:
        reason = str(exc).rsplit(": ", 1)[-1]
        raise ValueError(f"time control {text!r} ({converted}): {reason}") from None
    try:
        return text if parse_time_control(text) == meant else converted
    except ValueError:
        return converted


def _converted(text: str) -> str:
    periods: list[tuple[int | None, int]] = []  # (moves, or None for sudden death; minutes)
    bonus: str | None = None
    end = 0
    for match in _PIECE.finditer(text):
        end = match.end()
        piece = match["piece"].strip().lower()
        if bonus is not None or not piece:
            raise ValueError(f"cannot read {piece!r}")
        after_sudden_death = bool(periods) and periods[-1][0] is None
        if ";" in match["separators"] or after_sudden_death:
            bonus = _bonus(piece, bare=True)
        elif (period := _period(piece)) is not None:
            periods.append(period)
        elif periods:
            bonus = _bonus(piece, bare=False)
        else:
            raise ValueError(f"cannot read {piece!r}")
    if not periods or text[end:].strip(" +,;"):
        raise ValueError("no period")
    parts = [
        f"{moves}/{minutes}" if moves is not None else f"{'SD' if i else 'G'}/{minutes}"
        for i, (moves, minutes) in enumerate(periods)
    ]
    return ", ".join(parts) + (f";{bonus}" if bonus else "")


def _period(piece: str) -> tuple[int | None, int] | None:
    """A period: `40/90` or `90'/40` (moves and minutes), `G/90`, `90'` or `90` (sudden death).

    Without units, `A/B` is minutes per moves when A > B (`120/40`), else moves per minutes.
    """
    if match := _SUDDEN_DEATH.fullmatch(piece):
        return None, _minutes(match["time"], match["unit"])
    if match := _PERIOD.fullmatch(piece):
        a, b, unit_a, unit_b = match["a"], match["b"], match["unit_a"], match["unit_b"]
        if _is_time(unit_a) or _is_moves(unit_b) or (unit_a is unit_b is None and int(a) > int(b)):
            return int(b), _minutes(a, unit_a)
        return int(a), _minutes(b, unit_b)
    if match := _BARE.fullmatch(piece):
        return None, _minutes(match["time"], match["unit"])
    return None


def _bonus(piece: str, bare: bool) -> str:
    """`30''`, `30 s/move`, `30s`, `d5`, `inc 30`; a bare `30` only after sudden death or `;`."""
    match = _BONUS_AFTER.fullmatch(piece) or _BONUS_BEFORE.fullmatch(piece)
    if match is None:
        raise ValueError(f"cannot read {piece!r}")
    kind = match["kind"]
    if not bare and kind is None and match.groupdict().get("unit") is None:
        raise ValueError(f"cannot read {piece!r}")
    return f"{'d' if kind and re.fullmatch(_DELAY, kind) else '+'}{int(match['seconds'])}"


def _minutes(amount: str, unit: str | None) -> int:
    return int(amount) * (60 if unit and re.fullmatch(_HOURS, unit) else 1)


def _is_time(unit: str | None) -> bool:
    return unit is not None and not re.fullmatch(_MOVES, unit)


def _is_moves(unit: str | None) -> bool:
    return unit is not None and re.fullmatch(_MOVES, unit) is not None
