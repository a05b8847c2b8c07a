"""Federations' tournament files read as section submissions, and the rating exports.

Both report formats hold a pairing grid: for each player and round, the opponent, the colour
and a result code. `grid_to_section` turns a grid into the games and byes of a section file,
checking that the two lines of every pairing agree. `Imported` keeps, for each player, game and
bye, the place in the source file it came from, so that an error found by the same validation
as `submit` (or by the ledger) names the line or record it concerns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from anyascii import anyascii

from ledger.commands import SubmitSection, parse
from ledger.errors import InvalidCommand, field_path

FieldPath = tuple[int | str, ...]
RECORD_ID_LENGTH = 100
_NOT_ID = re.compile(r"[^A-Za-z0-9]+")
_NON_LATIN = 0x370  # Greek and every script after it in Unicode


@dataclass(frozen=True)
class Imported:
    """One section's submission data and where its parts came from in the source file.

    `origins` maps a path prefix (`("players", 2)`, `("games", 5)`, `("time_control",)`) to a
    place such as `game.trf line 9 (player 3)`; `where` is the section's own place.
    """

    data: dict[str, Any]
    where: str
    origins: Mapping[FieldPath, str]

    def locate(self, error: InvalidCommand) -> InvalidCommand:
        """`error` (about this section's data) as one message naming the source place."""
        path = error.path
        place = next(
            (self.origins[path[:n]] for n in range(len(path), 0, -1) if path[:n] in self.origins),
            self.where,
        )
        detail = f"{field_path(path)}: {error.message}" if path else error.message
        return InvalidCommand((), f"{place}: {detail}")


def validated(imported: Imported) -> SubmitSection:
    """The section as `submit` would accept it, or InvalidCommand naming the source place."""
    try:
        return parse(SubmitSection, imported.data)
    except InvalidCommand as exc:
        raise imported.locate(exc) from None


def locate_submission(error: InvalidCommand, sections: Sequence[Imported]) -> InvalidCommand:
    """A ledger refusal of a batch of imported sections, located in its source file.

    Errors that are not about a section's content (the actor, say) are returned unchanged.
    """
    if not error.path or error.path[0] not in SubmitSection.model_fields:
        return error
    return sections[error.index or 0].locate(error)


def derived_id(start: date, name: str) -> str:
    """A record id from a date and a name: `2024-05-04-may-grand-prix`. Letters of a script
    other than Latin (Greek, Cyrillic…) are written in Latin letters first (`ΚΥΠΕΛΛΟ` →
    `kypello`); Latin letters outside ASCII are dropped as before, so ids stay as they were."""
    latin = "".join(anyascii(c) if ord(c) >= _NON_LATIN else c for c in name)
    slug = _NOT_ID.sub("-", latin).strip("-").lower()
    return f"{start.isoformat()}-{slug}"[:RECORD_ID_LENGTH].rstrip("-")


def start_numbers(report: Mapping[str, Any]) -> dict[str, int]:
    """Each player's number in a section report (plain JSON): the pairing program's start
    number where the report keeps it (`start`), else the place in its list of players."""
    players = report["players"]
    return {p["id"]: p.get("start") or n for n, p in enumerate(players, start=1)}


@dataclass(frozen=True)
class Entry:
    """One cell of the grid: opponent's number (None: none), colour (`w`, `b`, None), code."""

    round: int
    opponent: int | None
    colour: str | None
    code: str


@dataclass(frozen=True)
class Entrant:
    """A player's line: number in the file, member id, where it is, one entry per round."""

    number: int
    member: str
    where: str
    entries: tuple[Entry, ...]

    def entry(self, number: int, blank: str) -> Entry:
        if number <= len(self.entries):
            return self.entries[number - 1]
        return Entry(number, None, None, blank)


@dataclass(frozen=True)
class ResultCodes:
    """A format's result codes: what each means for the game, the score and the rating."""

    blank: str  # the code of an empty cell
    opponent: Mapping[str, str]  # a code against an opponent → the code their line must give
    white_result: Mapping[str, str]  # white's code → the ledger's result
    both_byes: Mapping[tuple[str, str], str]  # both codes → the bye each player gets instead
    no_opponent: Mapping[str, str]  # a code without an opponent → the bye
    needs_colour: frozenset[str]
    absent: frozenset[str] = frozenset()  # codes without an opponent: not played, no bye


def grid_to_section(
    entrants: Sequence[Entrant],
    rounds: int,
    codes: ResultCodes,
    origins: dict[FieldPath, str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each pairing once (from the lower-numbered line) as a game, or as two byes when the
    ledger has no result for it; each round without an opponent as a bye.

    A pairing without colours (a forfeit) gets the lower-numbered player as white.
    """
    by_number = {e.number: e for e in entrants}
    games: list[dict[str, Any]] = []
    byes: list[dict[str, Any]] = []

    def bye(number: int, entrant: Entrant, kind: str) -> None:
        origins[("byes", len(byes))] = entrant.where
        byes.append({"round": number, "player": entrant.member, "bye": kind})

    for number in range(1, rounds + 1):
        for entrant in entrants:
            entry = entrant.entry(number, codes.blank)
            where = f"{entrant.where}: round {number}"
            if entry.opponent is None:
                if entry.code in codes.absent:
                    continue
                if entry.code not in codes.no_opponent:
                    raise InvalidCommand((), f"{where} result {entry.code!r} needs an opponent")
                bye(number, entrant, codes.no_opponent[entry.code])
                continue
            opponent = _opponent(by_number, entry, entrant, codes, where)
            other = opponent.entry(number, codes.blank)
            _check_pairing(entry, other, entrant, codes, where)
            if entrant.number > opponent.number:
                continue
            both = codes.both_byes.get((entry.code, other.code))
            if both is not None:
                bye(number, entrant, both)
                bye(number, opponent, both)
                continue
            white, code = (opponent, other.code) if entry.colour == "b" else (entrant, entry.code)
            black = entrant if white is opponent else opponent
            origins[("games", len(games))] = where
            result = codes.white_result[code]
            games.append(
                {"round": number, "white": white.member, "black": black.member, "result": result}
            )
    return games, byes


def _opponent(
    by_number: Mapping[int, Entrant],
    entry: Entry,
    entrant: Entrant,
    codes: ResultCodes,
    where: str,
) -> Entrant:
    if entry.code not in codes.opponent:
        raise InvalidCommand(
            (), f"{where} result {entry.code!r} is a bye but names opponent {entry.opponent}"
        )
    if entry.opponent == entrant.number:
        raise InvalidCommand((), f"{where} opponent {entry.opponent} is the player themselves")
    if entry.opponent is None or entry.opponent not in by_number:
        raise InvalidCommand((), f"{where} opponent {entry.opponent} is not a player of the file")
    return by_number[entry.opponent]


def _check_pairing(
    entry: Entry, other: Entry, entrant: Entrant, codes: ResultCodes, where: str
) -> None:
    """The opponent's line gives the same pairing, the other colour and the matching result."""
    opponent = entry.opponent
    if other.opponent != entrant.number:
        theirs = "no opponent" if other.opponent is None else f"opponent {other.opponent}"
        raise InvalidCommand((), f"{where}: opponent {opponent}'s line gives {theirs}")
    pair = (entry.code, other.code)
    if other.code != codes.opponent[entry.code] and pair not in codes.both_byes:
        raise InvalidCommand(
            (),
            f"{where} result {entry.code!r} does not match {other.code!r} on opponent "
            f"{opponent}'s line",
        )
    if entry.code in codes.needs_colour and entry.colour is None:
        raise InvalidCommand((), f"{where} result {entry.code!r} needs a colour")
    if (entry.colour is None) != (other.colour is None) or (
        entry.colour is not None and entry.colour == other.colour
    ):
        raise InvalidCommand(
            (),
            f"{where} colour {entry.colour or '-'!r} does not match "
            f"{other.colour or '-'!r} on opponent {opponent}'s line",
        )
