"""Reads of published lists and supplements: what a list or a day's supplement says of whom."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ledger.rules.families import family as rules_family
from ledger.rules.rounding import round_half_up
from projections.queries.common import system_order
from projections.queries.players import card, unrated_below

if TYPE_CHECKING:
    from projections.periods import PublishedList
    from projections.schema import ReadModel


def published_lists(view: ReadModel, family: str | None = None) -> list[PublishedList]:
    """The published lists (of `family`), each family's in the order published."""
    from projections.periods import PublishedList

    where = "" if family is None else "where family = ? "
    rows = view.db.execute(
        "select family, number, name, as_of, cutoff_position, position from lists "
        + where
        + "order by family, number",
        [] if family is None else [family],
    ).fetchall()
    return [PublishedList(*r) for r in rows]


def published_list(view: ReadModel, name: str) -> PublishedList | None:
    """The list of the view's rules family named `name`."""
    return next((x for x in published_lists(view, view.family) if x.name == name), None)


def list_rating(
    view: ReadModel, player_id: str, system: str, list_name: str
) -> dict[str, Any] | None:
    """What the list `list_name` said of a player: `view` is the read model as known at the
    list (projections.timetravel.list_view), read after every item the list rates."""
    found = published_list(view, list_name)
    if found is None:
        return None
    row = view.db.execute(
        "select post_rating, official_rating, games_after, item_key from history "
        "where player = ? and system = ? and sort_key <= ? order by sort_key desc limit 1",
        [player_id, system, found.sort_key],
    ).fetchone()
    if row is None or row[0] is None:
        return None
    return {
        "id": player_id,
        "system": system,
        "list": found.name,
        "as_of": found.as_of,
        "rating": row[0],
        "official_rating": row[1],
        "games": row[2],
        "from": row[3],
    }


def rates_by_lists(view: ReadModel) -> bool:
    """Whether the view's family rates by its published lists (projections.periods)."""
    from projections.periods import in_periods

    return in_periods(view.family, published_lists(view, view.family))


def published_and_pending(
    view: ReadModel, player_id: str, system: str, day: str
) -> dict[str, Any] | None:
    """Under FIDE periods: the rating published on the last list in force on `day` (before
    any list: the rating he came with), and the change of his sections ended by `day` that
    no list in force yet rates (ΣΔR, 10.65), or his Ru results waiting for a first rating."""
    rules = rules_family(view.family).periods
    if rules is None:
        return None
    lists = {x.name: x for x in published_lists(view, view.family)}
    rows = view.db.execute(
        "select kind, pre_rating, post_rating, official_rating, item_key, detail, games_after "
        "from history where player = ? and system = ? and end_date <= ? "
        "order by sort_key",
        [player_id, system, day],
    ).fetchall()
    if not rows:
        return None
    published = None
    changes: list[float] = []
    results = 0
    for kind, pre, post, official, key, detail, _ in rows:
        on = json.loads(detail).get("list")
        if kind not in ("section", "match"):  # a list's row (in force: it ended by `day`)
            published = {"list": on, "rating": post, "official_rating": official, "from": key}
        elif on is None or lists[on].as_of > day:
            if pre is None:
                results += 1
            else:  # 0.0 is left out of the detail
                changes.append(json.loads(detail).get("rating_change", 0.0))
    if published is None and rows[0][1] is not None:
        published = {"list": None, "rating": rows[0][1], "official_rating": None, "from": None}
    if published is not None and published["official_rating"] is None:
        published["official_rating"] = _official(published["rating"])
    return {
        "id": player_id,
        "system": system,
        "as_of": day,
        "published": published,
        "pending_change": rules.change_sum(changes),
        "pending_sections": len(changes),
        "pending_results": results,
        "games": rows[-1][6],
    }


def supplement(
    view: ReadModel, system: str, day: str
) -> list[tuple[str, dict[str, Any], str | None]]:
    """(member id, ratings row, profile JSON) of every player rated in `system` on `day`,
    after every item that ended on or before it, in member-id order."""
    return _supplement(view, system, "end_date <= ?", day)


def list_supplement(
    view: ReadModel, system: str, list_name: str
) -> list[tuple[str, dict[str, Any], str | None]]:
    """`supplement` as the list `list_name` of the view's family said it, `view` being the
    read model as known at the list (projections.timetravel.list_view)."""
    found = published_list(view, list_name)
    return [] if found is None else _supplement(view, system, "sort_key <= ?", found.sort_key)


def _supplement(
    view: ReadModel, system: str, until: str, value: str
) -> list[tuple[str, dict[str, Any], str | None]]:
    from projections.rating import rater_class
    from projections.schema import rating_row, state_select

    columns = ", ".join(f"h.{c}" for c in state_select(view.family).split(", "))
    rows = view.db.execute(
        f"select h.player, p.profile, {columns} from history h "
        "join (select player, max(sort_key) as sort_key from history "
        f"where system = ? and {until} group by player) latest "
        "on latest.player = h.player and latest.sort_key = h.sort_key "
        "left join players p on p.id = h.player "
        "where h.system = ? order by h.player",
        [system, value, system],
    ).fetchall()
    out = []
    standing_of = rater_class(view.family).standing_of
    for player_id, profile, *state in rows:
        if state[0] is None:
            continue
        row = rating_row(view.family, player_id, system, standing_of(state))
        out.append((player_id, row, profile))
    return out


def list_systems(view: ReadModel, list_name: str) -> list[str]:
    """The systems in which the list `list_name` of the view's family rates anyone, in their
    usual order (`view` as known at the list: projections.timetravel.list_view)."""
    found = published_list(view, list_name)
    if found is None:
        return []
    rows = view.db.execute(
        "select distinct system from history where sort_key <= ? and post_rating is not null",
        [found.sort_key],
    ).fetchall()
    return sorted((r[0] for r in rows), key=system_order(view))


def list_entries(view: ReadModel, system: str, list_name: str) -> list[dict[str, Any]]:
    """Every row of the list `list_name` in `system`, highest rating first (then member id):
    the player's card fields, his rating as published, the exact one and his games."""
    rows = [
        {"id": pid, **card(json.loads(profile) if profile else {}), **_list_values(r)}
        for pid, r, profile in list_supplement(view, system, list_name)
    ]
    return sorted(rows, key=lambda r: (-(r["rating"] or 0), r["id"]))


def list_unrated(view: ReadModel, system: str, list_name: str) -> list[dict[str, Any]]:
    """The players the list `list_name` shows as unrated in `system` for falling below its
    floor (FIDE 7.2.1), in member-id order: id, card fields and "unrated (below 1400)"."""
    found = published_list(view, list_name)
    if found is None:
        return []
    rows = view.db.execute(
        "select h.player, p.profile, h.detail from history h "
        "left join players p on p.id = h.player "
        "where h.system = ? and h.sort_key = ? and h.formula = 'below_floor' order by h.player",
        [system, found.sort_key],
    ).fetchall()
    return [
        {
            "id": pid,
            **card(json.loads(profile) if profile else {}),
            "shown": unrated_below(json.loads(detail)["below"]),
        }
        for pid, profile, detail in rows
    ]


def _list_values(row: dict[str, Any]) -> dict[str, Any]:
    """The rating as published, the exact one, the games and (US Chess §1, where the family
    says) whether it is established: a provisional one is printed `1234P12`."""
    established = row.get("established")  # a US Chess column (`Rater.rating_columns`)
    established = None if established is None else bool(established)
    return {
        "rating": row["official_rating"],
        "exact": row["rating"],
        "games": row["games"],
        "established": established,
        # FIDE: "not known" for a rating published without a count (`Rater.rating_columns`)
        **({"earlier_games": row["earlier_games"]} if row.get("earlier_games") else {}),
    }


def _official(rating: float | None) -> int | None:
    return None if rating is None else round_half_up(rating)
