"""A crosstable as federations publish it: players in place order (score, then pair number;
equal scores share a place, "2–3"), each with his title and federation and, where his
family's text defines one, his performance in each system."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ledger.entrypoints.interchange.exports import Crosstable, CrosstableRow
from ledger.rules.family import Words

PLAYED = re.compile(r"([WDL])(\d+)")  # a game played over the board: result, opponent's pair
POINTS = {"W": 1.0, "D": 0.5, "L": 0.0}


@dataclass(frozen=True)
class Cell:
    text: str  # as the crosstable prints it: W4, L2, D3, X5, B--
    opponent: str | None  # the member id of the player met, if any
    opponent_name: str | None


@dataclass(frozen=True)
class Standing:
    place: str
    row: CrosstableRow
    card: dict[str, Any]
    cells: tuple[Cell, ...]
    performance: dict[str, float]  # by system; only where the family defines one


def standings(table: Crosstable, cards: dict[str, dict[str, Any]], words: Words) -> list[Standing]:
    """The rows in place order (see the module's docstring)."""
    by_pair = {r.pair: r for r in table.rows}
    ordered = sorted(table.rows, key=lambda r: (-r.total, r.pair))
    out = []
    for r in ordered:
        first = 1 + sum(1 for o in ordered if o.total > r.total)
        last = sum(1 for o in ordered if o.total >= r.total)
        cells = tuple(_cell(c, by_pair) for c in r.cells)
        out.append(
            Standing(
                str(first) if first == last else f"{first}–{last}",
                r,
                cards.get(r.player, {}),
                cells,
                _performance(r, by_pair, table.systems, words),
            )
        )
    return out


def _cell(text: str, by_pair: dict[int, CrosstableRow]) -> Cell:
    found = re.fullmatch(r"[WDLXF](\d+)", text)
    opponent = by_pair.get(int(found.group(1))) if found else None
    if opponent is None:
        return Cell(text, None, None)
    return Cell(text, opponent.player, opponent.name)


def _performance(
    row: CrosstableRow, by_pair: dict[int, CrosstableRow], systems: tuple[str, ...], words: Words
) -> dict[str, float]:
    """Per system, `words.performance` over the games played against opponents rated in it
    before the section (a forfeit, a bye and a game against an unrated player do not count)."""
    if words.performance is None:
        return {}
    out = {}
    for system in systems:
        ratings, score = [], 0.0
        for text in row.cells:
            found = PLAYED.fullmatch(text)
            if found is None:
                continue
            change = by_pair[int(found.group(2))].ratings.get(system)
            if change is None or change.pre is None:
                continue
            ratings.append(change.pre)
            score += POINTS[found.group(1)]
        if ratings:
            out[system] = words.performance(ratings, score)
    return out


def standings_data(rows: list[Standing]) -> list[dict[str, Any]]:
    """The JSON twin's `standings`: place, pair, member id, card, total, performance."""
    return [
        {
            "place": s.place,
            "pair": s.row.pair,
            "player": s.row.player,
            "title": s.card.get("title"),
            "federation": s.card.get("federation"),
            "total": s.row.total,
            "performance": s.performance,
        }
        for s in rows
    ]
