"""How US Chess explains a history row (`explain`): the §8 rules version and bonus multiplier
it was rated under, and a section's Steps 1–5 and floors (§1–§5) from its explain detail."""

from __future__ import annotations

from datetime import date
from typing import Any

from ledger.rules.uschess.versions import VERSIONS, timelines


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
