"""A player's standing in one rating system: everything later ratings depend on."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from ledger.rules.uschess.floors import FloorState
from ledger.rules.uschess.history import history_after as rules_history_after

NO_FLOORS = FloorState()


class Standing(NamedTuple):
    """Rating (None while unrated), N, results, floors and the dates later rules need.

    A tuple (docs/decisions.md, "compact standings"): a replay makes one per player and item.
    """

    rating: float | None = None
    games: int = 0
    losses: int = 0
    history: str = "mixed"
    rated_on: str | None = None
    olm_title_date: str | None = None
    floors: FloorState = NO_FLOORS
    match_changes: tuple[tuple[str, float], ...] = ()
    pending_request: tuple[int, float] | None = None  # (new floor, rating if granted)
    extra: str | None = None  # a rule family's own state, as JSON (FIDE 10.3 performances…)

    @property
    def wins(self) -> int:
        return self.floors.wins

    @property
    def draws(self) -> int:
        return self.floors.draws

    def columns(self) -> tuple[Any, ...]:
        """The standing as the history table's state columns (STATE_COLUMNS order).

        The rating and N are the row's own `post_rating` and `games_after`.
        """
        f = self.floors
        return (
            f.wins,
            f.draws,
            self.losses,
            self.history,
            self.rated_on,
            f.sections_of_three,
            f.peak,
            f.olm_games,
            self.olm_title_date,
            f.money_floor,
            f.director_floor,
            f.ceiling,
            f.floor_lowerings,
            json.dumps(self.match_changes) if self.match_changes else None,
            None if self.pending_request is None else json.dumps(self.pending_request),
            self.extra,
        )

    @classmethod
    def from_columns(cls, values: Sequence[Any]) -> Standing:
        """From a row's `post_rating`, `games_after` and STATE_COLUMNS."""
        (
            rating,
            games,
            wins,
            draws,
            losses,
            history,
            rated_on,
            sections_of_three,
            peak,
            olm_games,
            olm_date,
            money,
            director,
            ceiling,
            lowerings,
            changes,
            pending,
            extra,
        ) = values
        return cls(
            rating,
            games,
            losses,
            history,
            rated_on,
            olm_date,
            FloorState(
                wins,
                draws,
                sections_of_three,
                peak,
                olm_games,
                money,
                director,
                ceiling,
                lowerings,
            ),
            () if changes is None else tuple((d, c) for d, c in json.loads(changes)),
            None if pending is None else tuple(json.loads(pending)),
            extra,
        )

    def with_floors(self, **changes: object) -> Standing:
        return self._replace(floors=self.floors._replace(**changes))


STATE_COLUMNS = (
    "s_wins",
    "s_draws",
    "s_losses",
    "s_history",
    "s_rated_on",
    "s_sections_of_three",
    "s_peak",
    "s_olm_games",
    "s_olm_title_date",
    "s_money_floor",
    "s_director_floor",
    "s_ceiling",
    "s_floor_lowerings",
    "s_match_changes",
    "s_pending_request",
    "s_extra",
)
UNRATED = Standing()


def history_after(pre: Standing, m: int, wins: int, losses: int) -> str:
    """§4.1's "all wins / all losses" status after m more games (ledger/rules/uschess/history)."""
    return rules_history_after(
        pre.rating is not None and pre.games > 0, pre.history, m, wins, losses
    )
