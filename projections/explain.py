"""`explain`: every number behind one rating change, recomputed from the stored standings."""

from __future__ import annotations

import json
from typing import Any

from ledger.results import RATED_RESULTS, white_score
from ledger.rules.expectancy import winning_expectancy
from ledger.rules.families import family as rules_family
from ledger.text import shown
from projections import period_explain, periods, queries, unrated
from projections.items import Item
from projections.merges import Merges, renamed
from projections.projector import View
from projections.rating import Rater, rater_class
from projections.schema import ROW_COLUMNS

DETAIL = ROW_COLUMNS.index("detail")
POST = ROW_COLUMNS.index("post_rating")


class NotFound(LookupError):
    """No rating change matches the request."""


def find_row(
    view: View, player: str, system: str, section: str | None = None, as_of: str | None = None
) -> dict[str, Any]:
    """The history row of `section` (or the last one in effect on `as_of`)."""
    if section is not None:
        key = section if ":" in section else "section:" + section
        found = queries.history_row(view, player, system, key)
        if found is None:
            raise NotFound(f"{player} has no {system} rating change from {key}")
        return found
    row = queries.row_as_of(view, player, system, as_of or "")
    if row is None:
        raise NotFound(f"{player} had no {system} rating on {as_of}")
    return row


def explain(
    view: View, player: str, system: str, section: str | None = None, as_of: str | None = None
) -> dict[str, Any]:
    """The explanation of one history row, recomputed through the rules; for a player of the
    section who has no row, why he is not rated (`not_rated`)."""
    if section is not None and section.removeprefix("section:").count(":") == 0:
        section = section.removeprefix("section:")
        not_rated = _not_rated(view, player, system, section)
        if not_rated is not None:
            return not_rated
    row = find_row(view, player, system, section, as_of)
    item = queries.item(view, row["item_key"])
    if item is None:
        raise NotFound(f"{row['item_key']} is no longer in the ledger")
    merged = queries.merges(view)
    cited = [] if merged is None else [m for m in item.players if m in merged.into]
    if merged is not None:  # the item as rated: records merged away named as their survivors
        item = renamed(item, merged)
    stored = json.loads(row["detail"]) if isinstance(row["detail"], str) else row["detail"] or {}
    if item.kind == "uplift":
        return period_explain.explain_uplift(view, item, row, stored, _fed_by)
    family = rules_family(view.family)
    reader = rater_class(view.family)
    by_period = periods.rates_from_previous_list(view.family) and item.kind in ("section", "match")
    bound = period_explain.period_bound(view, stored) if by_period else None
    earlier = period_explain.earlier_bound(view, stored) if by_period else None
    again = view.rerate(item) if bound is None else view.rerate(item, *bound, earlier)
    change = next(c for c in again if c.player == player and str(c.system) == system)
    detail = json.loads(change.row[DETAIL])
    recomputed = change.row[POST]
    recomputes = recomputed == row["post_rating"]
    if bound is not None:  # 10.65 / 7.1: the section keeps Ro; its ΔR goes on the list
        pre = ROW_COLUMNS.index("pre_rating")
        recomputes = period_explain.same(stored, detail, row, (change.row[pre],))
        recomputed = row["post_rating"] if recomputes else recomputed
    previous = queries.previous_change(view, player, system, item.sort_key)
    out: dict[str, Any] = {
        "player": player,
        "system": system,
        "item": {
            "key": item.key,
            "kind": item.kind,
            "start": item.start,
            "end": item.end,
            "event_name": item.payload.get("event_name"),
            "follows": family.explain_versions.get(row["rules"], "")
            if by_period
            else family.explain_sections.get(item.kind, ""),
        },
        "fed_by": sorted(
            _fed_by(view, item, previous, detail, player, system) + _merges(merged, cited),
            key=lambda f: f["position"],
        ),
        "rules": {"version": row["rules"], **reader.explain_rules(row, item.start)},
        "result": {
            "pre_rating": row["pre_rating"],
            "post_rating": row["post_rating"],
            "official_rating": row["official_rating"],
            "games_before": row["games_before"],
            "games_after": row["games_after"],
            "formula": row["formula"],
            "recomputed_post_rating": recomputed,
            "recomputes": recomputes,
            **_earlier_games(reader, row),
        },
    }
    if by_period:  # the period's part keeps its key, "fide", in the JSON
        out["fide"] = period_explain.explain_section(view, item, row, stored, detail)
    else:
        out |= _how(view, item, row, detail, player)
    return out


def _earlier_games(reader: type[Rater[Any]], row: dict[str, Any]) -> dict[str, Any]:
    """What the family's ratings row says of the player's games before the ledger after this
    row (FIDE: "not known" for a rating published without a count): N counts only the
    games rated."""
    state = [row[c] for c in ("post_rating", "games_after", *reader.state_columns)]
    said = reader.rating_fields(row["system"], reader.standing_of(state)).get("earlier_games")
    return {} if said is None else {"earlier_games": said}


def _not_rated(view: View, player: str, system: str, section: str) -> dict[str, Any] | None:
    """Why `player` of `section` has no row in it (None: he is rated there)."""
    why = unrated.reasons(view, section)
    if why is None or player not in why.players:
        return None
    return {
        "player": player,
        "system": system,
        "section": section,
        "not_rated": why.players[player],
    }


def _how(
    view: View, item: Item, row: dict[str, Any], detail: dict[str, Any], player: str
) -> dict[str, Any]:
    """How an item rated the row: its games and the family's steps, or, for a family that
    shows none, the row's values and the rater's detail."""
    steps = rater_class(view.family).explain_steps(item.kind, row, detail)
    if steps is not None:
        return {"games": _games(view, item.payload, player, detail), "steps": steps}
    values = {
        k: row[k]
        for k in ("m", "score", "n_eff", "k", "expected", "bonus", "floor_bound")
        if row.get(k) is not None  # n_eff, bonus, floor_bound: US Chess's figures
    }
    return {"values": values | dict(detail)}


def _games(
    view: View, report: dict[str, Any], player: str, detail: dict[str, Any]
) -> list[dict[str, Any]]:
    """One row per rated game, in the section's order: round, colour, opponent with the
    rating §1 step 5 used, result, and the winning expectancy against that rating (§4.2)."""
    opponents = detail["opponents"]
    ratings = detail["opponents_step5"]
    names = queries.names(view, list(dict.fromkeys(opponents)))
    own = detail["entrant"]["rating"]
    played = iter(
        g
        for g in report.get("games", ())
        if player in (g.get("white"), g.get("black")) and g.get("result") in RATED_RESULTS
    )
    out = []
    for opponent, rating in zip(opponents, ratings, strict=False):
        game = next((g for g in played if opponent in (g.get("white"), g.get("black"))), None)
        if game is None:
            break
        white = game["white"] == player
        score = white_score(game["result"])
        out.append(
            {
                "round": game.get("round"),
                "colour": "white" if white else "black",
                "opponent": opponent,
                "opponent_name": names.get(opponent),
                "opponent_rating": rating,
                "result": score if white else 1.0 - score,
                "expected": winning_expectancy(own, rating),
            }
        )
    return out


def _fed_by(
    view: View,
    item: Item,
    previous: tuple[str, int, int] | None,
    detail: dict[str, Any],
    player: str,
    system: str,
) -> list[dict[str, Any]]:
    fed: list[dict[str, Any]] = [
        {"position": item.position, "what": f"{item.kind} {item.key} submitted"}
    ]
    if item.revision != item.position:
        fed.append({"position": item.revision, "what": f"{item.key} corrected (rated as now)"})
    if previous is not None:
        fed.append({"position": previous[2], "what": f"pre-event standing after {previous[0]}"})
    for opponent in dict.fromkeys(detail.get("opponents", ())):
        before = queries.previous_change(view, opponent, system, item.sort_key)
        if before is not None:
            fed.append(
                {"position": before[2], "what": f"opponent {opponent}'s standing after {before[0]}"}
            )
    profile = queries.profile_position(view, player)
    if profile is not None:
        fed.append({"position": profile, "what": "player profile"})
    for a in queries.amendment_rows(view):
        if a["effective"] <= item.start and (a["until"] is None or item.start < a["until"]):
            fed.append(
                {"position": a["position"], "what": f"RulesAmended {a['parameter']} = {a['value']}"}
            )
    return sorted(fed, key=lambda f: f["position"])


def _merges(merged: Merges | None, cited: list[str]) -> list[dict[str, Any]]:
    """The merges that name a record of the item as the one it joined (issue 20); `cited`
    names records merged away (none without merges)."""
    if merged is None:
        return []
    out = []
    for m in cited:
        joined = merged.merged_into(m)
        assert joined is not None  # a cited record was merged away
        out.append(
            {
                "position": joined["position"],
                "what": f"PlayersMerged {m} into {joined['id']}: {m}'s games here are "
                f"{joined['id']}'s" + (f" ({joined['reason']})" if joined["reason"] else ""),
            }
        )
    return out


def render(x: dict[str, Any]) -> str:
    """The explanation as text for a person."""
    if "not_rated" in x:
        return f"{x['player']} in {x['section']}: not rated in {x['system']}: {x['not_rated']}"
    it, res = x["item"], x["result"]
    head = f"{_r(res['pre_rating'])} → {_r(res['post_rating'])} (official {res['official_rating']})"
    period = (x.get("fide") or {}).get("period")
    if x.get("fide") and res["pre_rating"] is not None and period is not None:
        change = x["fide"].get("ΔR", 0.0)
        ro_list = x["fide"].get("Ro_list")
        ro = _r(res["pre_rating"]) + ("" if ro_list is None else f" (list {ro_list})")
        head = f"Ro {ro}, ΔR {change:+.2f} (K {x['fide'].get('K')})"
        if period.get("published") is not None:
            head += f", on list {period['list']}: {period['published']}"
    lines = [
        f"{x['player']} {x['system']}: {head}, N {res['games_before']} → {res['games_after']}"
        + (f" (earlier games {res['earlier_games']})" if "earlier_games" in res else ""),
        f"from {it['key']} ({it.get('event_name') or it['kind']}), {it['start']}..{it['end']}; "
        f"follows {it['follows']}",
        f"rules {x['rules']['version']}"
        + (
            f", B = {x['rules']['bonus_multiplier']} ({x['rules']['bonus_multiplier_from']})"
            if "bonus_multiplier" in x["rules"]
            else ""
        ),
        "fed by ledger positions:",
        *[f"  {f['position']:>8}  {f['what']}" for f in x["fed_by"]],
    ]
    for name, step in x.get("steps", {}).items():
        lines.append(f"{name} [{step.get('follows', '')}]")
        for k, v in step.items():
            if k != "follows" and v is not None:
                lines.append(f"  {k}: {json.dumps(v, default=str, ensure_ascii=False)}")
    for k, v in x.get("values", {}).items():
        lines.append(f"  {k}: {json.dumps(v, default=str, ensure_ascii=False)}")
    lines += _fide_lines(x.get("fide"))
    lines.append(
        f"recomputed: {_r(res['recomputed_post_rating'])} "
        f"({'equals' if res['recomputes'] else 'DIFFERS FROM'} the stored rating)"
    )
    return "\n".join(map(shown, lines))  # a stored text cannot forge a line


def _fide_lines(f: dict[str, Any] | None) -> list[str]:
    """The FIDE block: each game (opponent, Ropp, D, PD, score, ΔR), K, ΣΔR, and the period."""
    if not f:
        return []
    lines = [f"FIDE [{f.pop('follows')}], rules chosen by {f.pop('selected_by')}"]
    for g in f.pop("games", []):
        who = f"{g['opponent']} {g.get('name') or ''}".rstrip()
        cells = [f"vs {who}", f"Ropp {g['Ropp']:g}"]
        if "D" in g:
            cells += [f"D {g['D']:g}", f"PD {g['PD']:.2f}"]
        cells.append(f"score {g['score']:g}")
        if "ΔR" in g:
            cells.append(f"ΔR {g['ΔR']:+.2f}")
        lines.append("  game: " + "  ".join(cells))
    for g in f.pop("not_counted", []):
        who = f"{g['opponent']} {g.get('name') or ''}".rstrip()
        score = "" if g["score"] is None else f" score {g['score']:g}"
        lines.append(f"  not counted: round {g['round']} vs {who}{score}: {g['why']}")
    period = f.pop("period", None)
    for k, v in f.items():
        lines.append(f"  {k}: {json.dumps(v, default=str, ensure_ascii=False)}")
    if period is not None:
        lines.append(f"period (list {period.get('list')}):")
        for k, v in period.items():
            if k != "list":
                lines.append(f"  {k}: {json.dumps(v, default=str, ensure_ascii=False)}")
    return lines


def _r(value: float | None) -> str:
    return "unrated" if value is None else f"{value:.4f}"
