"""`explain` for a family that rates in list periods (`Family.periods`, FIDE 10.65): the games,
the opponents' ratings, K, ΔR and the period's list, in its words (Ro, Rc, D, PD, ΔR, K, Ru, Ra,
dp; FIDE 10.6 / 8.3), recomputed as the period rates."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from ledger.events import FideUpliftRecorded
from ledger.results import RATED_RESULTS
from ledger.rules.families import family as rules_family
from ledger.rules.family import PeriodRules, PeriodVersion
from ledger.rules.rounding import round_half_up
from projections import queries
from projections.items import Item
from projections.projector import View

# what fed a history row, as `explain` lists it: (view, item, previous change, detail, player,
# system) → [{position, what}] (projections/explain.py)
FedBy = Callable[
    [View, Item, tuple[str, int, int] | None, dict[str, Any], str, str], list[dict[str, Any]]
]


def _period_rules(family: str) -> PeriodRules[PeriodVersion, object]:
    """The period rules of the family explained (one rating in list periods: FIDE 10.65)."""
    found = rules_family(family).periods
    assert found is not None  # explained by periods only under such a family (explain.py)
    return found


def period_bound(view: View, detail: dict[str, Any]) -> tuple[str, str | None] | None:
    """The standings a period rates from (10.65 / 7.1): (sort key bound, row kind) for the
    rows up to the previous list; None when the section is not rated in a period."""
    if "list" not in detail:
        return None
    lists = queries.published_lists(view, view.family)
    names = [x.name for x in lists]
    at = names.index(detail["list"]) if detail["list"] in names else len(lists)
    if at == 0:
        return "~", "opening"  # the first list's period: only opening balances before it
    return lists[at - 1].sort_key + "|", None


def earlier_bound(view: View, detail: dict[str, Any]) -> str | None:
    """The bound of the older list a section that started under it was rated from (its
    `ro_list`, projections/periods.py); None for one rated from its period's opening list."""
    lists = {x.name: x for x in queries.published_lists(view, view.family)}
    found = lists.get(detail.get("ro_list") or "")
    return None if found is None else found.sort_key + "|"


def explain_section(
    view: View, item: Item, row: dict[str, Any], stored: dict[str, Any], found: dict[str, Any]
) -> dict[str, Any]:
    """The period part of an explanation: games, K, ΔR (or Ru), and the list that sums them."""
    rules = _period_rules(view.family)
    version = rules.by_name.get(row["rules"])
    names = queries.names(view, [g[0] for g in found.get("games", ()) if isinstance(g[0], str)])
    games = []
    for g in found.get("games", ()):
        if len(g) == 6:
            who, rating, d, pd, score, delta = g
            games.append(
                {"opponent": who, "name": names.get(who), "Ropp": rating, "D": d, "PD": pd}
                | {"score": score, "ΔR": delta}
            )
        else:
            who, rating, score = g
            games.append({"opponent": who, "name": names.get(who), "Ropp": rating, "score": score})
    out: dict[str, Any] = {
        "follows": rules_family(view.family).explain_versions.get(row["rules"], row["rules"]),
        "selected_by": f"section end date {item.end}",
        "games": games,
        "not_counted": _not_counted(view, item, row["player"], games) or None,
        "Ro": row["pre_rating"],
        "Ro_list": stored.get("ro_list"),  # a section that started under an older list
        "Ro_from": _ro_from(view, item, row, stored),
        "K": found.get("k", row["k"]),
        "K_before_limit": found.get("k_base"),
        "ΣΔR": found.get("sum_delta"),
        "ΔR": found.get("rating_change"),
        "Rc": found.get("rc"),
        "D": found.get("d"),
        "PD": found.get("pd"),
        "We": row["expected"],
        "W": row["score"],
    }
    if row["pre_rating"] is None:
        out |= {"Ru": found.get("performance"), "Ra": found.get("rc"), "p": found.get("p")}
        out |= {"dp": found.get("dp"), "published": found.get("published_rating")}
        out |= {"not_yet": found.get("reason")}
    if version is not None and version.per_game and row["pre_rating"] is not None:
        out["K_rule"] = rules.k_rule
    listed = stored.get("list", False)
    if listed is not False:
        out["period"] = _period(view, row["player"], row["system"], listed)
    return {k: v for k, v in out.items() if v is not None}


def _ro_from(view: View, item: Item, row: dict[str, Any], stored: dict[str, Any]) -> str | None:
    """The list row a rated player's Ro is taken from (issue 30: "the list row the tournament
    is rated from"): the older list he started under, the period's opening list, or, before
    he has a row on any list, his opening balance or the rating his profile publishes (a TRF
    file's FIDE rating); None for an unrated player."""
    if row["pre_rating"] is None:
        return None
    if stored.get("ro_list"):
        return f"list {stored['ro_list']}"
    bound = period_bound(view, stored)
    if bound is not None:
        on_list = queries.standing_before(view, row["player"], row["system"], bound[0], "list")
        lists = {x.sort_key: x.name for x in queries.published_lists(view, view.family)}
        if on_list.rating == row["pre_rating"] and bound[0][:-1] in lists:
            return f"list {lists[bound[0][:-1]]}"
    opening = queries.standing_before(view, row["player"], row["system"], item.sort_key, "opening")
    if opening.rating == row["pre_rating"]:
        return "his opening balance"
    return "the FIDE rating his profile publishes"


def _not_counted(
    view: View, item: Item, player: str, counted: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The player's games in the section that the calculation leaves out, and why: a game not
    played over the board (a forfeit) or against an opponent without a rating (FIDE 8.3.1:
    "for each game played against a rated player"; 8.2.2: "the player's rated opponents")."""
    me = queries.person(view, player)
    left = Counter(g["opponent"] for g in counted)
    out = []
    for g in item.payload.get("games", ()):
        if g["white"] not in me and g["black"] not in me:
            continue
        who = g["black"] if g["white"] in me else g["white"]
        if g["result"] not in RATED_RESULTS:
            why = "not played (forfeit)"
        elif left[who] > 0:
            left[who] -= 1
            continue
        else:
            why = "opponent without a rating"
        white = RATED_RESULTS.get(g["result"])
        score = None if white is None else white if g["white"] in me else 1.0 - white
        out.append({"round": g.get("round"), "opponent": who, "score": score, "why": why})
    names = queries.names(view, [g["opponent"] for g in out])
    return [g | {"name": names.get(g["opponent"])} for g in out]


def _period(view: View, player: str, system: str, name: str | None) -> dict[str, Any]:
    """The list row that sums the period (10.65; 8.3.2 c–d, 8.3.4), or pending."""
    if name is None:
        return {"list": None, "status": "pending: no list has this period yet"}
    found = queries.published_list(view, name)
    row = (
        None
        if found is None
        else queries.history_row(view, player, system, f"list:{view.family}:{found.number}")
    )
    if row is None:
        return {"list": name, "status": "no rating published on this list (results carry on)"}
    detail = json.loads(row["detail"]) if isinstance(row["detail"], str) else row["detail"]
    return {
        "list": name,
        "rules": row["rules"],
        "Ro": row["pre_rating"],
        "Rn": row["post_rating"],
        "published": row["official_rating"],
        "K": row["k"],
        "formula": row["formula"],
        **{k: v for k, v in detail.items() if k != "list"},
    }


def explain_uplift(
    view: View, item: Item, row: dict[str, Any], stored: dict[str, Any], fed_by: FedBy
) -> dict[str, Any]:
    """A one-time uplift of a list (FIDE's): R + share × (ceiling − R) below the ceiling."""
    fact = item.fact_as(FideUpliftRecorded)
    rules = _period_rules(view.family)
    again = rules.uplifted(round_half_up(row["pre_rating"]), fact.ceiling, fact.share)
    return {
        "player": row["player"],
        "system": row["system"],
        "item": {
            "key": item.key,
            "kind": item.kind,
            "start": item.start,
            "end": item.end,
            "event_name": f"{rules_family(view.family).words.federation} uplift of the list "
            f"{stored.get('list')}",
            "follows": rules.uplift_text,
        },
        "fed_by": fed_by(view, item, None, {}, row["player"], row["system"]),
        "rules": {"version": row["rules"]},
        "result": {
            "pre_rating": row["pre_rating"],
            "post_rating": row["post_rating"],
            "official_rating": row["official_rating"],
            "games_before": row["games_before"],
            "games_after": row["games_after"],
            "formula": row["formula"],
            "recomputed_post_rating": float(again),
            "recomputes": again == row["official_rating"],
        },
        "values": {
            "ceiling": fact.ceiling,
            "share": fact.share,
            "list": stored.get("list"),
            "reason": fact.reason,
        },
    }


def same(
    stored: dict[str, Any], found: dict[str, Any], row: dict[str, Any], again: tuple[Any, ...]
) -> bool:
    """Whether the recomputation gives the stored values of a section rated in a period: the
    same Ro and ΔR (rated), or the same Ru (unrated)."""
    keys = ("rating_change", "performance", "hundredths", "published_rating")
    return all(stored.get(k) == found.get(k) for k in keys) and row["pre_rating"] == again[0]
