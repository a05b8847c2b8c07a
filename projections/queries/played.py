"""What a page of a player's sections reads of each report: its games by player (msgspec,
imported only when such a page is asked for, so the fast `player` path never loads it)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import msgspec


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
    """A section's report as `player_sections` reads it: its name, each game's (white,
    result), and for each player the indexes of his games and his byes."""

    event_name: str | None
    games: list[tuple[str | None, str]]
    games_of: dict[str | None, list[int]]
    byes_of: dict[str | None, list[str]]


@functools.lru_cache(maxsize=SECTIONS_REMEMBERED)
def played(payload: str) -> Played:
    """A report's games by player, remembered by its stored JSON (a corrected report is
    another text, so never an old answer); a page of a player's sections reads only his."""
    report = _REPORT.decode(payload)
    games_of: dict[str | None, list[int]] = {}
    for n, g in enumerate(report.games):
        games_of.setdefault(g.white, []).append(n)
        if g.black != g.white:
            games_of.setdefault(g.black, []).append(n)
    byes_of: dict[str | None, list[str]] = {}
    for b in report.byes:
        byes_of.setdefault(b.player, []).append(b.bye)
    games = [(g.white, g.result) for g in report.games]
    return Played(report.event_name, games, games_of, byes_of)
