"""What the FIDE and ICU estimators share: a section's games as scores, and an outcome in the
contract's words."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ledger.estimate import EstimateSection
from ledger.results import white_score
from ledger.rules.fide.section import SectionOutcome


def scores(section: EstimateSection) -> tuple[tuple[str, str, float], ...]:
    """(white, black, white's score) of each game."""
    return tuple((g.white, g.black, white_score(g.result)) for g in section.games)


def output(section: EstimateSection, outcome: SectionOutcome, explain: bool) -> dict:
    """A FIDE or ICU outcome in the contract: rating_change, performance, published_rating."""
    players = []
    for p, o in zip(section.players, outcome.players, strict=True):
        out: dict[str, Any] = {
            "id": p.id,
            "pre_rating": o.pre,
            "post_rating": o.post,
            "official_rating": o.official,
            "games_before": p.games or 0,
            "games_after": (p.games or 0) + o.games,
            "formula": "performance" if o.performance is not None else "continuous",
            "rating_change": o.rating_change,
        }
        if o.performance is not None or o.reason is not None:
            out["performance"] = o.performance
            out["published_rating"] = o.published_rating
            if o.reason is not None:  # FIDE 7.1.4: why no initial rating yet
                out["reason"] = o.reason
        if explain:
            out["explain"] = {k: v for k, v in asdict(o).items() if k != "player"}
        players.append(out)
    result: dict[str, Any] = {
        "rules": outcome.rules,
        "system": section.system or "standard",
        "rated": outcome.rated,
        "players": players,
    }
    if outcome.reason:
        result["reason"] = outcome.reason
    if explain:
        result["tournament"] = {"rar": outcome.rar, "dpa": outcome.dpa, "ra": outcome.ra}
    return result
