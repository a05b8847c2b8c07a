"""How US Chess explains a history row (`explain`): the §8 rules version and bonus multiplier
it was rated under, a section's detail when rated again to explain it, and its Steps 1–5 and
floors (§1–§5) from that detail."""

from __future__ import annotations

from datetime import date
from typing import Any

from ledger.rules.uschess import floors
from ledger.rules.uschess.effective_games import n_star
from ledger.rules.uschess.floors import FloorState
from ledger.rules.uschess.section import Entrant, Game, Rated
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import VERSIONS, RuleVersion, timelines


def explain_rules(row: dict[str, Any], start: str) -> dict[str, Any]:
    """The version's bonus multiplier and whether an amendment set it (§8)."""
    if row["rules"] not in VERSIONS:
        return {}
    base = timelines()["bonus_multiplier"].at(date.fromisoformat(start))
    amended = row["bonus_multiplier"] != base
    return {
        "bonus_multiplier": row["bonus_multiplier"],
        "bonus_multiplier_from": "a RulesAmended entry" if amended else "§8 timeline",
        "selected_by": f"section start date {start} (§8)",
    }


def explain_steps(kind: str, row: dict[str, Any], d: dict[str, Any]) -> dict[str, Any] | None:
    """A section's Steps 1–5 and floors for one player (None: not a section's row with the
    explain detail)."""
    if kind != "section" or "entrant" not in d:
        return None
    e = d["entrant"]
    steps: dict[str, Any] = {}
    if e["unrated"]:
        steps["step1"] = {
            "follows": "§1 Step 1, §2 (initialization)",
            "rating": e["rating"],
            "games": e["games"],
            "initialization": d.get("initialization"),
        }
    else:
        steps["step1"] = {
            "follows": "§1 Step 1 (rated players keep their pre-event rating)",
            "rating": e["rating"],
            "games": e["games"],
            "history": e["history"],
        }
    steps["step2"] = {
        "follows": "§3: N' = min(N, N*)",
        "N": e["games"],
        "N*": d["n_star"],
        "N'": row["n_eff"],
    }
    if row["step3"] is not None:
        steps["step3"] = {
            "follows": "§1 Step 3: special formula with N' = 1 (§4.1)",
            "rating": row["step3"],
            "knots": d["special"].get("step3"),
        }
    standard = row["formula"] == "standard"
    formula = "standard formula §4.2" if standard else "special formula §4.1"
    for n, opponents in ((4, d["opponents_step4"]), (5, d["opponents_step5"])):
        steps[f"step{n}"] = {
            "follows": f"§1 Step {n}: {formula}",
            "rating": row[f"step{n}"],
            "opponents": dict(zip(d["opponents"], opponents, strict=False))
            if len(set(d["opponents"])) == len(d["opponents"])
            else list(zip(d["opponents"], opponents, strict=False)),
            "knots": d["special"].get(f"step{n}"),
        }
    if standard:
        dual = d["dual_rated_k"] and e["rating"] > 2200
        steps["standard"] = {
            "follows": "§4.2",
            "K": row["k"],
            "K_rule": "dual-rated OTBR K for R > 2200" if dual else "K = 800/(N' + m)",
            "m": row["m"],
            "S": row["score"],
            "E": row["expected"],
            "bonus": row["bonus"],
            "bonus_eligible": d["bonus_eligible"],
            "bonus_rule": "max(0, K(S − E) − B√max(m, 4)) when eligible",
        }
    steps["floors"] = {
        "follows": "§5",
        "components": d["floor_components"],
        "floor": d["floor_before"],
        "bound": row["floor_bound"],
    }
    return steps


def section_detail(
    e: Entrant,
    r: Rated,
    fl: FloorState,
    system: System,
    version: RuleVersion,
    dual: bool,
    games: list[Game],
    n: int,
    players: list[str],
) -> dict[str, Any]:
    """Everything behind one player's result in a section (`fl`: his floor state before it),
    for `explain` (not stored in rows): what `explain_steps` reads."""
    opponents = [
        players[g.black if g.white == n else g.white] for g in games if n in (g.white, g.black)
    ]
    floor, kind = floors.effective_floor(fl, system, version)
    return {
        "entrant": {
            "rating": e.rating,
            "games": e.games,
            "unrated": e.unrated,
            "history": e.history,
        },
        "n_star": n_star(e.rating),
        "dual_rated_k": dual,
        "bonus_eligible": r.bonus_eligible,
        "opponents": opponents,
        "opponents_step4": r.opponents_step4,
        "opponents_step5": r.opponents_step5,
        "special": {
            f"step{k}": {
                "path": [list(p) for p in sp.path],
                "adjusted_prior": sp.adjusted_prior,
                "adjusted_score": sp.adjusted_score,
                "p": sp.p,
            }
            for k, sp in ((3, r.special_step3), (4, r.special_step4), (5, r.special_step5))
            if sp is not None
        },
        "floor_components": {
            str(b): level for b, level in floors.floor_components(fl, system, version).items()
        },
        "floor_before": floor,
        "floor_kind": str(kind),
        "wins": r.wins,
        "draws": r.draws,
        "losses": r.losses,
    }
