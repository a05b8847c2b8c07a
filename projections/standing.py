"""A player's standing in one rating system: everything later ratings depend on."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace

from ledger.rules.uschess.floors import FloorState


@dataclass(frozen=True)
class Standing:
    """Rating (None while unrated), N, results, floors and the dates later rules need."""

    rating: float | None = None
    games: int = 0
    losses: int = 0
    history: str = "mixed"
    rated_on: str | None = None
    olm_title_date: str | None = None
    floors: FloorState = field(default_factory=FloorState)
    match_changes: tuple[tuple[str, float], ...] = ()
    pending_request: tuple[int, float] | None = None  # (new floor, rating if granted)

    @property
    def wins(self) -> int:
        return self.floors.wins

    @property
    def draws(self) -> int:
        return self.floors.draws

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Standing:
        data = json.loads(text)
        data["floors"] = FloorState(**data["floors"])
        data["match_changes"] = tuple((d, c) for d, c in data["match_changes"])
        if data["pending_request"] is not None:
            data["pending_request"] = tuple(data["pending_request"])
        return cls(**data)

    def with_floors(self, **changes: object) -> Standing:
        return replace(self, floors=replace(self.floors, **changes))


UNRATED = Standing()


def history_after(pre: Standing, m: int, wins: int, losses: int) -> str:
    """§4.1's "all wins / all losses in all previous rated games" after m more games."""
    if pre.rating is None or pre.games == 0:
        return "all_wins" if wins == m else "all_losses" if losses == m else "mixed"
    if pre.history == "all_wins" and wins == m:
        return "all_wins"
    if pre.history == "all_losses" and losses == m:
        return "all_losses"
    return "mixed"
