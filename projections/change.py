"""A rater's result: one player's new standing in one system and its history row."""

from __future__ import annotations

from typing import Any, NamedTuple

from ledger.events import encode_value
from ledger.rules.rounding import round_half_up
from projections.items import Item
from projections.standing import Standing


class Change(NamedTuple):
    """One player's new standing in one system and its history row (`schema.history_columns`
    order: the row's columns, then the standing's state columns)."""

    player: str
    system: str
    standing: Standing[Any]
    row: tuple[Any, ...]


def change(
    item: Item,
    player: str,
    system: str,
    rules: str,
    bonus_multiplier: float | None,
    pre: Standing[Any],
    post: Standing[Any],
    state: tuple[Any, ...],
    formula: str,
    m: int = 0,
    score: float | None = None,
    n_eff: float | None = None,
    k: float | None = None,
    expected: float | None = None,
    bonus: float | None = None,
    step3: float | None = None,
    step4: float | None = None,
    step5: float | None = None,
    floor_bound: str | None = None,
    official: int | None = None,
    **detail: Any,
) -> Change:
    """A player's new standing after `item` and its history row; `state`: the new standing's
    state columns (the family's `Rater.columns`)."""
    if official is None and post.rating is not None:
        official = round_half_up(post.rating)
    row = (
        item.key,
        player,
        str(system),
        item.sort_key,
        item.kind,
        item.end,
        item.position,
        item.revision,
        rules,
        bonus_multiplier,
        formula,
        pre.rating,
        post.rating,
        official,
        pre.games,
        post.games,
        m,
        score,
        n_eff,
        k,
        expected,
        bonus,
        step3,
        step4,
        step5,
        floor_bound,
        encode_value(detail).decode() if detail else "{}",
        *state,
    )
    return Change(player, system, post, row)
