"""A rater's result: one player's new standing in one system and its history row."""

from __future__ import annotations

from typing import Any, NamedTuple

from ledger.events import encode_value
from ledger.rules.rounding import round_half_up
from projections.items import Item
from projections.standing import Standing


class Change(NamedTuple):
    """One player's new standing in one system and its history row (`schema.history_columns`
    order: the row's columns, then the family's figures and state columns)."""

    player: str
    system: str
    standing: Standing[object]
    row: tuple[Any, ...]


def change(
    item: Item,
    player: str,
    system: str,
    rules: str,
    pre: Standing[object],
    post: Standing[object],
    figures: tuple[Any, ...],
    state: tuple[Any, ...],
    formula: str,
    m: int = 0,
    score: float | None = None,
    k: float | None = None,
    expected: float | None = None,
    official: int | None = None,
    **detail: Any,
) -> Change:
    """A player's new standing after `item` and its history row; `figures`: the row's values of
    the family's `Rater.figure_columns`, `state`: the new standing's state columns (its
    `Rater.columns`)."""
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
        formula,
        pre.rating,
        post.rating,
        official,
        pre.games,
        post.games,
        m,
        score,
        k,
        expected,
        encode_value(detail).decode() if detail else "{}",
        *figures,
        *state,
    )
    return Change(player, system, post, row)
