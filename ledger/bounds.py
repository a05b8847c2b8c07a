"""Every bound on a number, date, text or size the ledger records: the one table of thresholds,
and the read side's checks against it.

A quantity may have two bounds, which mean different things (docs/decisions.md, "Plausibility
at the door" and "Poisoned entries"):

- `door`: what a write may say. The command models (ledger/commands.py, with the checks in
  ledger/plausibility.py) refuse anything outside it before it is appended.
- `read`: what a stored entry may hold and still be rated (ledger/events.py and the
  `plausible_*` checks below). No rating text sets it; it keeps a poisoned entry (NaN, 1e300,
  year 1, round 10^12) from breaking a read: past it an entry becomes a "not rated" problem
  row. It lies outside the door, so no accepted write ever becomes a problem row.
"""

from __future__ import annotations

import math
from datetime import date
from typing import NamedTuple


class Bound(NamedTuple):
    """The most a write may say (`door`) and the most a stored entry may hold (`read`)."""

    door: int
    read: float | int


# Numbers with both bounds
RATING = Bound(3_500, 10_000.0)  # ratings, peaks, floors, ceilings, prize limits; FIDE, CFC
GAMES = Bound(100_000, 10_000_000)  # a player's game counts (N, wins, draws, losses, OLM games)
ROUND = Bound(20_000, 1_000_000)  # a round (or a match's game) number
START = Bound(9_999, 1_000_000)  # a player's start number (TRF16's starting rank: 1-9999)
PRIZE = Bound(10_000_000, 1e12)  # a cash prize in dollars (money floors, §5)
BONUS_MULTIPLIER = Bound(50, 100.0)  # the bonus multiplier B (§4.2), 6–14 in every version

# Numbers and sizes at the door only
MAX_INTEGER = 2**62  # a ledger position, or any count a command takes (a 64-bit row id)
MAX_SECTION_GAMES = 20_000  # games in one section or match (the largest opens play ~7,000)
MAX_SECTION_PLAYERS = 5_000  # players in one section
MAX_CONVERSION_SLOPE = 5  # a rating conversion's slope; intercepts lie within ±RATING.door


class InputLimit(NamedTuple):
    """The most bytes one input may hold: past it, it is refused unread (ledger/inputs.py)."""

    what: str  # what the input is, as the refusal names it
    size: int  # bytes


KIB = 1024
MIB = 1024 * KIB
# Inputs, each refused by its size before anything else is read of it (README: Reliability)
INPUT_LIMITS = {
    "json": InputLimit("a JSON file", 8 * MIB),  # command, estimate, proof, anchor files
    "trf": InputLimit("a TRF file", 8 * MIB),
    "dbf": InputLimit("a US Chess DBF file", 8 * MIB),  # each of THEXPORT, TSEXPORT, TDEXPORT
    # FIDE's combined list (issue 30): some 1.1 million rows of 162 bytes, about 180 MiB
    "fide-list": InputLimit("a FIDE rating-list file", 256 * MIB),
    "map": InputLimit("a --map file", 8 * MIB),
    "key": InputLimit("a key, trust or checkpoint file", 64 * KIB),  # a PEM key: 119 bytes
    "query": InputLimit("a web query string", 8 * KIB),  # a longer one is 414
}


def size_text(size: int) -> str:
    """8388608 → '8 MiB', 65536 → '64 KiB' (a limit as the README writes it)."""
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size:,} bytes"


def limits_sentence() -> str:
    """The README's sentence on the input limits, made from `INPUT_LIMITS`
    (tests/test_input_limits.py checks the README holds it)."""
    by_size: dict[int, list[str]] = {}
    for limit in INPUT_LIMITS.values():
        by_size.setdefault(limit.size, []).append(limit.what)
    parts = [f"{size_text(size)} for {_listed(whats)}" for size, whats in by_size.items()]
    return "Inputs over their size limit (" + "; ".join(parts) + ")"


def _listed(whats: list[str]) -> str:
    return whats[0] if len(whats) == 1 else ", ".join(whats[:-1]) + " or " + whats[-1]


# Numbers on the read side only
MAX_PARAMETER = 1e6  # any other number in a rules amendment's value

# Dates at the door (today is read by ledger/plausibility.py, never here or in the rules)
EARLIEST_DATE = date(1900, 1, 1)
YEARS_AHEAD = 1  # the latest date of a write: a year after today
MEMBERSHIP_YEARS_AHEAD = 10  # a membership may be paid for that far ahead
MAX_EVENT_DAYS = 365  # a section or match ends at most this many days after it starts
# A recorded time may lie this far before an earlier entry's (writers decide concurrently, on
# clocks a little apart) or after `verify`'s clock; past it an entry is misdated
MAX_CLOCK_SKEW_SECONDS = 3600

# Dates on the read side: YYYY-MM-DD with the year in FIRST_YEAR..LAST_YEAR (the day itself is
# checked when parsed)
FIRST_YEAR, LAST_YEAR = 1800, 2199
DATE_PATTERN = r"^(1[89]|2[01])\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"

# Texts at the door
MAX_NAME = 200  # names, event names, time controls, opponent ids
MAX_ACTOR = 100  # actors and role holders
MAX_REASON = 1000  # reasons of corrections, withdrawals, overrides and amendments


def plausible_rating(value: float | None) -> bool:
    """A rating the read model can store: None (unrated) or finite in 0..RATING.read."""
    # (int, float), not int | float: compiled, two type checks rather than a union made per call
    return value is None or (isinstance(value, (int, float)) and 0.0 <= value <= RATING.read)


def plausible_parameter(value: object, name: str | None = None) -> bool:
    """Every number in an amendment's value finite and within ±MAX_PARAMETER (a bonus
    multiplier within BONUS_MULTIPLIER.read)."""
    if name == "bonus_multiplier" and isinstance(value, int | float):
        return math.isfinite(value) and abs(value) <= BONUS_MULTIPLIER.read
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return math.isfinite(value) and abs(value) <= MAX_PARAMETER
    if isinstance(value, dict):
        return all(plausible_parameter(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(plausible_parameter(v) for v in value)
    return True


def finite_numbers(value: object) -> bool:
    """True when every number in a JSON-like value is finite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(finite_numbers(v) for v in value)
    return True
