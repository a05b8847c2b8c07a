"""Which FIDE list a section's games go to, and which standard games may be rated (B.02 1.1 of
the 2022 and 2024 texts; rapid and blitz: B.02 rapid and blitz regulations, 1.1–1.2).

The minutes for a game of 60 moves are the main time plus 60 × the increment (in seconds), i.e.
`TimeControl.total` (mm + ss).
"""

from __future__ import annotations

from ledger.rules.fide.versions import FideVersion
from ledger.rules.time_controls import TimeControl, parse_time_control
from ledger.rules.time_notation import ledger_time_control

STANDARD, RAPID, BLITZ = "FIDE", "FIDE_RAPID", "FIDE_BLITZ"
SYSTEMS = (STANDARD, RAPID, BLITZ)
REGULAR_FROM = 30  # fide-2003: the slowest US Chess range, "Regular" (docs/decisions.md)
BLITZ_UP_TO = 10  # rapid and blitz 1.2: "10 minutes or less for each player" is blitz
STANDARD_FROM = 60  # 1.1: "each player must have a minimum of 60 minutes" (both under 1800)


def fide_time_control(text: str) -> TimeControl | None:
    """The time control as FIDE and its pairing programs write it (`90/40+30`: 90 minutes for
    40 moves, then 30; `90'/40m+30'+30"`; `G/90+30`), None when not given or not read."""
    try:
        return parse_time_control(ledger_time_control(text))
    except ValueError:
        return None


def in_ledger_notation(text: str) -> str:
    """A time control FIDE reads, in the ledger's notation (`90/40+30` → `40/90, SD/30`); one
    it does not read, as written."""
    try:
        return ledger_time_control(text)
    except ValueError:
        return text


def list_for_time(version: FideVersion, minutes_for_60_moves: int) -> str | None:
    """The list a section at this rate of play is rated on (None: not rated)."""
    if not version.rapid_blitz:
        return STANDARD if minutes_for_60_moves >= REGULAR_FROM else None
    if minutes_for_60_moves >= STANDARD_FROM:
        return STANDARD
    return BLITZ if minutes_for_60_moves <= BLITZ_UP_TO else RAPID


def standard_minimum(white: float | None, black: float | None) -> int:
    """1.1: 120 minutes "where at least one of the players ... has a rating of 2400 or higher",
    90 where one is rated 1800 or higher, 60 where both are rated below 1800."""
    top = max((r for r in (white, black) if r is not None), default=0.0)
    return 120 if top >= 2400 else 90 if top >= 1800 else 60


def below_minimum(minutes: int, games: int) -> str:
    """Why none of a section's `games` is rated when each falls below 1.1's minimum."""
    return (
        f"{minutes} minutes for 60 moves: under 1.1's minimum for the players of each of "
        f"its {games} games (60, 90 or 120 minutes by their ratings)"
    )


def section_not_rated(total: float | None, online: bool, version: FideVersion) -> str | None:
    """Why FIDE rates a section on no list (None: it is rated)."""
    if online:
        return "played online: FIDE's lists rate over-the-board games (B.02 1.1)"
    if total is None:
        return "the report gives no time control: FIDE's lists go by the rate of play"
    if list_for_time(version, int(total)) is None:
        return (
            f"{total:g} minutes for 60 moves: under {version.name}'s minimum of "
            f"{REGULAR_FROM} for a rated game"
        )
    return None
