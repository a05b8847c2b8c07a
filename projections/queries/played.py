"""What a page of a player's sections reads of each report: its games by player (msgspec,
imported only when such a page is asked for, so the fast `player` path never loads it)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from projections.schema import ReadModel


class _Game(msgspec.Struct):
    white: str | None = None
    black: str | None = None
    result: str = ""


class _Bye(msgspec.Struct):
    player: str | None = None
    bye: str = ""


class _Report(msgspec.Struct):
    """What `player_sections` reads of a section's report (msgspec skips the rest unread)."""

    event_name: str | None = None
    games: list[_Game] = []
    byes: list[_Bye] = []


_REPORT = msgspec.json.Decoder(_Report)
SECTIONS_REMEMBERED = 8192  # reports whose games by player `played` keeps (a few MB at most)


@dataclass(frozen=True)
class Played:
    """A section's report as `player_sections` reads it: its name, its games and byes, and
    each player's score and games counted once, in one pass (`totals`: what a page of one
    record reads, with no loop of its own)."""

    event_name: str | None
    games: list[_Game]
    byes: list[_Bye]
    totals: dict[str, tuple[float, int]]

    def score(self, ids: set[str]) -> tuple[float, int]:
        """The points and the games (a forfeit is no game) of the records `ids` of one
        person: a game between two of them counted once, a bye at its value."""
        if len(ids) == 1:
            return self.totals.get(next(iter(ids)), (0.0, 0))
        score, games = 0.0, 0
        for g in self.games:
            if g.white in ids or g.black in ids:
                white, black, counts = outcome(g.result)
                score += white if g.white in ids else black
                games += counts
        return score + sum(BYE_POINTS.get(b.bye, 0.0) for b in self.byes if b.player in ids), games


BYE_POINTS = {"full": 1.0, "half": 0.5, "zero": 0.0}


def points(result: str, white: bool) -> float:
    """The player's points from a result string; a forfeit counts as its result."""
    left, _, right = result.replace("½", "1/2").replace("F", "").partition("-")
    return {"1": 1.0, "1/2": 0.5}.get(left if white else right, 0.0)


@functools.lru_cache(maxsize=256)
def outcome(result: str) -> tuple[float, float, int]:
    """A result string's points for White and for Black, and 1 if it is a game played (0 for
    a forfeit); a report has a handful of distinct results, each read once."""
    return points(result, True), points(result, False), int("F" not in result)


@functools.lru_cache(maxsize=SECTIONS_REMEMBERED)
def played(payload: bytes | str) -> Played:
    """A report's games and each player's totals, remembered by its stored JSON (a corrected
    report is another text, so never an old answer): its games walked once (issue 33: a
    section's first page is most of a cold page's cost)."""
    report = _REPORT.decode(payload)
    totals: dict[str, tuple[float, int]] = {}
    for g in report.games:
        white, black, counts = outcome(g.result)
        if g.white is not None:
            score, games = totals.get(g.white, (0.0, 0))
            totals[g.white] = (score + white, games + counts)
        if g.black is not None and g.black != g.white:
            score, games = totals.get(g.black, (0.0, 0))
            totals[g.black] = (score + black, games + counts)
    byes: dict[str, float] = {}
    for b in report.byes:
        if b.player is not None:
            byes[b.player] = byes.get(b.player, 0.0) + BYE_POINTS.get(b.bye, 0.0)
    for player, extra in byes.items():
        score, games = totals.get(player, (0.0, 0))
        totals[player] = (score + extra, games)
    return Played(report.event_name, report.games, report.byes, totals)


# A section's `Played`, by its read model's ledger (`meta`'s ledger_id: a digest of its first
# entry) and the item's key, position and revision: an item's stored report is its revision's
# at that position of that ledger, so a page reads no report it has read before (issue 33: a
# player's reports were 270 KB a page on the 100k ledger, 0.4 ms of copying).
_KNOWN: dict[tuple[str, str, int, int], Played] = {}


def played_items(
    view: ReadModel, ledger: str | None, items: list[tuple[str, int, int]]
) -> dict[str, Played]:
    """Each of `items`' (key, position, revision) `Played`: those read before remembered
    (`_KNOWN`, never for a model bound to no ledger), the others' reports read in one query."""
    found: dict[str, Played] = {}
    missing = []
    for key, position, revision in items:
        known = None if ledger is None else _KNOWN.get((ledger, key, position, revision))
        if known is None:
            missing.append(key)
        else:
            found[key] = known
    if not missing:
        return found
    if len(_KNOWN) >= SECTIONS_REMEMBERED:
        _KNOWN.clear()
    rows = view.db.execute(
        "select key, position, revision, cast(payload as blob) from items "
        f"where key in ({', '.join('?' for _ in missing)})",
        missing,
    )
    for key, position, revision, payload in rows:
        found[key] = played(payload)
        if ledger is not None:
            _KNOWN[(ledger, key, position, revision)] = found[key]
    return found
