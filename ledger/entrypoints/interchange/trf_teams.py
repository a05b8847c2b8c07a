"""The teams of a TRF team file, read beside its individual games (the ledger records no team).

TRF16's `013` line names a team and its players' starting ranks (name columns 5-36, then a
rank every 5 columns); TRF-2026's `310` line also gives federation, average rating, match and
game points and rank (name columns 9-40, the players' ranks from column 74); its `802` line
gives each round's opponent team and the team's game points in that match (`FPB`, `HPB`,
`PAB`, `ZPB`: a full-point, half-point, pairing-allocated or zero-point team bye); its `330`
line a match forfeited whole (round, white team, black team). The import
uses them to say what the file holds (teams, boards, team matches) and to check that the
file's own team points agree with its boards.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.entrypoints.interchange import Entry
from ledger.text import digits

# A player's points for a round's TRF result code (a board not fielded scores nothing).
POINTS = {"1": 1.0, "=": 0.5, "0": 0.0, "+": 1.0, "-": 0.0, "W": 1.0, "D": 0.5, "L": 0.0}
_ROUND_START, _ROUND_WIDTH = 27, 13  # 802: round 1 from column 28, 13 columns a round


@dataclass(frozen=True)
class Team:
    """A team line: its number (310) or place in the file (013), name and players by board."""

    number: int
    name: str
    players: tuple[int, ...]
    line: int
    game_points: float | None = None  # 310 GGGGGG


def read_teams(lines: Mapping[str, Sequence[tuple[int, str]]]) -> list[Team]:
    """The 310 team lines, else the 013 ones (a file that has both gives them twice);
    ValueError naming the line when a number in one is none."""
    if lines.get("310"):
        return [_team_310(n, text) for n, text in lines["310"]]
    return [
        Team(i, text[4:36].strip(), tuple(_number(s, n, "013 starting rank") for s in ranks), n)
        for i, (n, text) in enumerate(lines.get("013", ()), start=1)
        for ranks in [text[36:].split()]
    ]


def _team_310(number: int, text: str) -> Team:
    points = text[61:67].strip()
    return Team(
        _number(text[4:7], number, "310 team number"),
        text[8:40].strip(),
        tuple(_number(s, number, "310 starting rank") for s in text[72:].split()),
        number,
        float(points) if _is_number(points) else None,
    )


def _is_number(text: str) -> bool:
    return digits(text.replace(".", "", 1))


def _number(text: str, line: int, what: str) -> int:
    """A whole number a team line gives; ValueError naming the line when it is none."""
    if not digits(text.strip()):
        raise ValueError(f"line {line}: {what} {text.strip()!r} is not a number")
    return int(text)


def match_points(lines: Sequence[tuple[int, str]]) -> dict[tuple[int, int], tuple[str, float]]:
    """(team, round) → (opponent team or the bye's code, the team's game points), from 802."""
    found: dict[tuple[int, int], tuple[str, float]] = {}
    for line, text in lines:
        team = _number(text[4:7], line, "802 team number")
        column, number = _ROUND_START, 1
        while column < len(text.rstrip()):
            block = text[column : column + _ROUND_WIDTH]
            opponent, points = block[:3].strip(), block[6:12].strip().rstrip("f")
            if _is_number(points):
                found[(team, number)] = (opponent, float(points))
            column, number = column + _ROUND_WIDTH, number + 1
    return found


def forfeits(lines: Sequence[tuple[int, str]]) -> list[tuple[int, int, int]]:
    """(round, white team, black team) of each match forfeited whole, from TRF-2026's 330
    lines (`330 +-   4  23  33`: the result codes, round, white team, black team)."""
    found = []
    for _, text in lines:
        fields = text[3:].split()
        if len(fields) == 4 and all(digits(f) for f in fields[1:]):
            found.append((int(fields[1]), int(fields[2]), int(fields[3])))
    return found


def summary(
    teams: Sequence[Team],
    rounds: Mapping[int, Sequence[Entry]],
    stated: Mapping[tuple[int, int], tuple[str, float]],
    forfeited: Sequence[tuple[int, int, int]] = (),
) -> dict[str, Any]:
    """Teams, boards and team matches of the file, and where its 802 points disagree.

    `rounds` gives each starting rank's round entries (opponent, code); `stated` is
    `match_points`, `forfeited` is `forfeits`. A team match is two teams whose players met in
    a round, or that 802 or 330 pairs (a match forfeited whole has no game); its boards are
    the games between them.
    """
    team_of = {p: t.number for t in teams for p in t.players}
    boards: dict[tuple[int, int, int], int] = defaultdict(int)
    scored: dict[tuple[int, int], float] = defaultdict(float)
    for start, entries in rounds.items():
        for e in entries:
            if start in team_of:
                scored[(team_of[start], e.round)] += POINTS.get(e.code, 0.0)
            if e.opponent and start in team_of and e.opponent in team_of:
                pair = sorted((team_of[start], team_of[e.opponent]))
                boards[(e.round, pair[0], pair[1])] += 1
    paired = [(n, t, int(o)) for (t, n), (o, _) in stated.items() if digits(o)]
    for number, team, other in [*paired, *forfeited]:
        pair = sorted((team, other))
        boards.setdefault((number, pair[0], pair[1]), 0)
    disagree = [
        f"team {team} round {number}: the file's 802 gives {points:g}, its boards "
        f"{scored[(team, number)]:g}"
        for (team, number), (opponent, points) in sorted(stated.items())
        if digits(opponent) and abs(scored[(team, number)] - points) > 1e-9
    ]
    return {
        "teams": len(teams),
        "players_in_teams": len(team_of),
        "team_matches": len(boards),
        "forfeited_matches": sum(1 for n in boards.values() if n == 0),
        "boards": max((n // 2 for n in boards.values()), default=0),
        "team_rounds": max((r for r, _, _ in boards), default=0),
        "points_disagree": disagree,
    }
