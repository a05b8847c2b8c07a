"""US Chess's own standing (a reader module: it builds the read side's `Standing`): the §4.1
history, the OLM title date, the §5 floors, the §7 match changes and a pending floor request,
as the `history` table's state columns and the `ratings` row's floor columns."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import date
from typing import Any, NamedTuple

from ledger.rules.uschess import floors
from ledger.rules.uschess.floors import FloorState
from ledger.rules.uschess.history import history_after as rules_history_after
from ledger.rules.uschess.systems import System, is_established
from ledger.rules.uschess.versions import Rules, RuleVersion, resolve
from projections.change import Change, change
from projections.items import Item
from projections.standing import Standing

NO_FLOORS = FloorState()


class UsChessState(NamedTuple):
    """What US Chess keeps of a player in one system beyond rating, N and results. The floor
    state holds the wins and draws too (the floor rules count them); `Standing`'s are the same."""

    history: str = "mixed"
    olm_title_date: str | None = None
    floors: FloorState = NO_FLOORS
    match_changes: tuple[tuple[str, float], ...] = ()
    pending_request: tuple[int, float] | None = None  # (new floor, rating if granted)


NO_STATE = UsChessState()
UsStanding = Standing[UsChessState]

# The values a history row adds (§1 Steps 3–5, §3 N', the §8 bonus and its multiplier, the
# §5 bound that held the rating), after its `detail`.
FIGURE_COLUMNS: dict[str, type] = {
    "bonus_multiplier": float,
    "n_eff": float,
    "bonus": float,
    "step3": float,
    "step4": float,
    "step5": float,
    "floor_bound": str,
}
# The history table's state columns, in the order they were stored before issue 29 (its
# digests unchanged); `s_extra` held another family's state and is always NULL here.
STATE_COLUMNS: dict[str, type] = {
    "s_wins": int,
    "s_draws": int,
    "s_losses": int,
    "s_history": str,
    "s_rated_on": str,
    "s_sections_of_three": int,
    "s_peak": float,
    "s_olm_games": int,
    "s_olm_title_date": str,
    "s_money_floor": int,
    "s_director_floor": int,
    "s_ceiling": float,
    "s_floor_lowerings": int,
    "s_match_changes": str,
    "s_pending_request": str,
    "s_extra": str,
}
# The history's columns in the order the digest has read them since before issue 29.
HISTORY_ORDER = (
    "item_key",
    "player",
    "system",
    "sort_key",
    "kind",
    "end_date",
    "position",
    "revision",
    "rules",
    "bonus_multiplier",
    "formula",
    "pre_rating",
    "post_rating",
    "official_rating",
    "games_before",
    "games_after",
    "m",
    "score",
    "n_eff",
    "k",
    "expected",
    "bonus",
    "step3",
    "step4",
    "step5",
    "floor_bound",
    "detail",
    *STATE_COLUMNS,
)
RATING_COLUMNS: dict[str, type] = {
    "established": int,
    "history": str,
    "sections_of_three": int,
    "peak": float,
    "olm_games": int,
    "olm_title_date": str,
    "floor": int,
    "floor_bound": str,
    "floor_absolute": int,
    "floor_peak": int,
    "floor_olm": int,
    "floor_money": int,
    "floor_director": int,
    "floor_lowerings": int,
    "ceiling": float,
    "pending_floor_request": str,
}


def us(s: Standing[UsChessState]) -> UsChessState:
    """A standing's US Chess state (that of an unrated player: none yet)."""
    state: UsChessState | None = s.state
    return NO_STATE if state is None else state


def states(standings: Sequence[Standing[UsChessState]]) -> list[UsChessState]:
    """Each standing's `us` state: a section's players at once (one call per item)."""
    return [NO_STATE if s.state is None else s.state for s in standings]


def standing(
    rating: float | None, games: int, losses: int, rated_on: str | None, state: UsChessState
) -> UsStanding:
    """A standing whose wins and draws are its floor state's."""
    f = state.floors
    return Standing(rating, games, f.wins, f.draws, losses, rated_on, state)


def updated(s: Standing[UsChessState], **changes: Any) -> UsStanding:
    """`s` with some of its fields (`Standing`'s or `UsChessState`'s) replaced."""
    own = {k: changes.pop(k) for k in UsChessState._fields if k in changes}
    state = us(s)._replace(**own)
    return standing(
        changes.get("rating", s.rating),
        changes.get("games", s.games),
        changes.get("losses", s.losses),
        changes.get("rated_on", s.rated_on),
        state,
    )


def columns(s: Standing[UsChessState]) -> tuple[Any, ...]:
    """The standing as its state columns (STATE_COLUMNS order); the rating and N are the
    row's own `post_rating` and `games_after`."""
    state = s.state
    if state is None:  # `us` inlined: a row's state columns are built once per player
        state = NO_STATE
    f = state.floors
    return (
        f.wins,
        f.draws,
        s.losses,
        state.history,
        s.rated_on,
        f.sections_of_three,
        f.peak,
        f.olm_games,
        state.olm_title_date,
        f.money_floor,
        f.director_floor,
        f.ceiling,
        f.floor_lowerings,
        json.dumps(state.match_changes) if state.match_changes else None,
        None if state.pending_request is None else json.dumps(state.pending_request),
        None,
    )


def standing_of(values: Sequence[Any]) -> UsStanding:
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
        _,
    ) = values
    # tuple.__new__: a NamedTuple's own __new__ costs a Python call, here three for each
    # standing a catch-up reads (projections/history_store.py, `Layout.standings_before`)
    fl = tuple.__new__(
        FloorState,
        (wins, draws, sections_of_three, peak, olm_games, money, director, ceiling, lowerings),
    )
    state = tuple.__new__(
        UsChessState,
        (
            history,
            olm_date,
            fl,
            () if changes is None else tuple((d, c) for d, c in json.loads(changes)),
            None if pending is None else tuple(json.loads(pending)),
        ),
    )
    return tuple.__new__(Standing, (rating, games, wins, draws, losses, rated_on, state))


@functools.lru_cache(maxsize=4096)
def _version_on(day: str) -> RuleVersion:
    return resolve(date.fromisoformat(day)).version


@functools.lru_cache(maxsize=4096)
def _floor_systems(day: str, system: str) -> tuple[bool, bool]:
    """floors.floor_systems of `system` under the rules version in force on `day`."""
    return floors.floor_systems(System(system), _version_on(day))


def rating_fields(system: str, s: Standing[UsChessState]) -> dict[str, Any]:
    """The `ratings` row's US Chess columns (RATING_COLUMNS): each floor component, whether
    established, the OLM and the office's values."""
    state = us(s)
    f = state.floors
    personal, olm = _floor_systems(s.rated_on, system)
    floor, kind = floors.floor_of(f, personal, olm)
    return {
        "established": int(is_established(s.games)),
        "history": state.history,
        "sections_of_three": f.sections_of_three,
        "peak": f.peak,
        "olm_games": f.olm_games,
        "olm_title_date": state.olm_title_date,
        "floor": floor,
        "floor_bound": str(kind),
        # each component (floors.components_of), without the dictionary
        "floor_absolute": floors.personal_absolute_floor(f, personal),
        "floor_peak": floors.peak_floor(f.peak),
        "floor_olm": floors.olm_floor_of(f, olm),
        "floor_money": f.money_floor,
        "floor_director": f.director_floor,
        "floor_lowerings": f.floor_lowerings,
        "ceiling": f.ceiling,
        "pending_floor_request": None
        if state.pending_request is None
        else json.dumps(
            {"new_floor": state.pending_request[0], "rating_if_granted": state.pending_request[1]}
        ),
    }


def history_after(pre: Standing[UsChessState], m: int, wins: int, losses: int) -> str:
    """§4.1's "all wins / all losses" status after m more games (ledger/rules/uschess/history)."""
    return rules_history_after(
        pre.rating is not None and pre.games > 0, us(pre).history, m, wins, losses
    )


def change_row(
    item: Item,
    player: str,
    system: str,
    rules: Rules,
    pre: Standing[UsChessState],
    post: Standing[UsChessState],
    formula: str,
    **values: Any,
) -> Change:
    """A US Chess change and its history row: the rules version's name, its figures (the §8
    bonus multiplier, N', the bonus, Steps 3–5, the floor bound) and the state columns of
    `post`."""
    figures = (
        rules.bonus_multiplier,
        *(values.pop(c, None) for c in ("n_eff", "bonus", "step3", "step4", "step5")),
        values.pop("floor_bound", None),
    )
    state = columns(post)
    return change(item, player, system, rules.name, pre, post, figures, state, formula, **values)
