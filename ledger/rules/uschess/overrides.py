"""§7: the Executive Director's decisions about one player's rating in one system."""

from __future__ import annotations

from ledger.rules.uschess.floors import FloorState

ACTIONS = ("impose_ceiling", "lift_ceiling", "set_floor", "grant_floor_lowering", "adjust_rating")


def apply_override(
    action: str,
    value: float | None,
    rating: float | None,
    floors: FloorState,
    pending: tuple[int, float] | None,
) -> tuple[float | None, FloorState, tuple[int, float] | None, bool]:
    """(rating, floor record, pending floor request, rated now) after the decision.

    A ceiling caps the rating at once; a director's floor lifts it at once; a granted floor
    lowering (§7, matches) takes the rating the request named; `adjust_rating` sets it (and
    counts as the date the player was last rated).
    """
    if action == "impose_ceiling":
        floors = floors._replace(ceiling=value)
        if rating is not None and value is not None and rating > value:
            rating = float(value)
    elif action == "lift_ceiling":
        floors = floors._replace(ceiling=None)
    elif action == "set_floor":
        floors = floors._replace(director_floor=None if value is None else int(value))
        if rating is not None and value is not None and rating < value:
            rating = float(value)
    elif action == "grant_floor_lowering":
        floors = floors._replace(floor_lowerings=floors.floor_lowerings + 1)
        if pending is not None:
            rating = pending[1]
        pending = None
    elif action == "adjust_rating":
        if value is None:
            raise ValueError("adjust_rating needs a value")
        return float(value), floors, pending, True
    else:
        raise ValueError(f"unknown override action {action!r}; known: {', '.join(ACTIONS)}")
    return rating, floors, pending, False
