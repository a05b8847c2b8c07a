"""A player's history: its rows, his standing before an item, his ratings as of a day."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from projections.queries.common import system_order

if TYPE_CHECKING:
    from projections.schema import ReadModel
    from projections.standing import Standing


def systems_of(view: ReadModel, player_id: str) -> list[str]:
    """The systems a player has history in, in the usual order."""
    rows = view.db.execute(
        "select distinct system from history where player = ?", [player_id]
    ).fetchall()
    return sorted((r[0] for r in rows), key=system_order(view))


def history(view: ReadModel, player_id: str, system: str) -> list[dict[str, Any]]:
    """Every history row of a player in one system, in rating order."""
    return [
        history_out(r)
        for r in view.db["history"].rows_where(
            "player = ? and system = ?", [player_id, system], order_by="sort_key"
        )
    ]


def history_row(
    view: ReadModel, player_id: str, system: str, item_key: str
) -> dict[str, Any] | None:
    """The history row one item wrote for a player in one system."""
    rows = list(
        view.db["history"].rows_where(
            "player = ? and system = ? and item_key = ?", [player_id, system, item_key]
        )
    )
    return rows[0] if rows else None


def previous_change(
    view: ReadModel, player_id: str, system: str, sort_key: str
) -> tuple[str, int, int] | None:
    """(item key, position, revision) of the last change before `sort_key`."""
    found: tuple[str, int, int] | None = view.db.execute(
        "select item_key, position, revision from history where player = ? and system = ? "
        "and sort_key < ? order by sort_key desc limit 1",
        [player_id, system, sort_key],
    ).fetchone()
    return found


def standing_before(
    view: ReadModel, player_id: str, system: str, sort_key: str, kind: str | None = None
) -> Standing[object]:
    """A player's standing just before the item at `sort_key`, from the history rows (of one
    `kind` only, if given)."""
    from projections.rating import rater_class
    from projections.schema import state_select
    from projections.standing import UNRATED

    row = view.db.execute(
        f"select {state_select(view.family)} from history where player = ? and system = ? "
        + ("and kind = ? " if kind else "")
        + "and sort_key < ? order by sort_key desc limit 1",
        [player_id, str(system), *([kind] if kind else []), sort_key],
    ).fetchone()
    return UNRATED if row is None else rater_class(view.family).standing_of(row)


def row_as_of(view: ReadModel, player_id: str, system: str, day: str) -> dict[str, Any] | None:
    """The history row in effect on `day`: the last item that ended on or before it."""
    rows = list(
        view.db["history"].rows_where(
            "player = ? and system = ? and end_date <= ?",
            [player_id, system, day],
            order_by="sort_key desc",
            limit=1,
        )
    )
    return rows[0] if rows else None


def rating_as_of(view: ReadModel, player_id: str, system: str, day: str) -> dict[str, Any] | None:
    """The rating in effect on `day`: after every item that ended on or before it."""
    r = row_as_of(view, player_id, system, day)
    return None if r is None else rating_of_row(r, player_id, system, day)


def rating_of_row(r: dict[str, Any], player_id: str, system: str, day: str) -> dict[str, Any]:
    """The rating as of `day` that the history row `r` (the last in effect then) gives."""
    return {
        "id": player_id,
        "system": system,
        "as_of": day,
        "rating": r["post_rating"],
        "official_rating": r["official_rating"],
        "games": r["games_after"],
        "from": r["item_key"],
    }


def ratings_as_of(view: ReadModel, player_id: str, day: str) -> dict[str, dict[str, Any]]:
    """Each system's ratings row after every item that ended on or before `day`."""
    from projections.rating import rater_class
    from projections.schema import rating_row, state_select

    out = {}
    columns = state_select(view.family)
    standing_of = rater_class(view.family).standing_of
    for system in systems_of(view, player_id):
        row = view.db.execute(
            f"select {columns} from history where player = ? and system = ? and end_date <= ? "
            "and post_rating is not null order by sort_key desc limit 1",
            [player_id, system, day],
        ).fetchone()
        if row is None:
            continue
        r = rating_row(view.family, player_id, system, standing_of(row))
        if "established" in r:  # the US Chess columns (`Rater.rating_columns`)
            r["established"] = bool(r["established"])
            r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        out[system] = {k: v for k, v in r.items() if k not in ("player", "system")}
    return out


def history_out(r: dict[str, Any]) -> dict[str, Any]:
    r = dict(r)
    r["detail"] = json.loads(r["detail"])
    return r
