"""Comparing two read models: who changes and by how much (what-if replays, amendments)."""

from __future__ import annotations

import statistics
from typing import Any

from projections.queries.files import bonus_values, names_in, rating_values

BUCKETS = (-100, -50, -10, -1, 0, 1, 10, 50, 100)


def diff(path_a: str, path_b: str, system: str | None = None, largest: int = 10) -> dict[str, Any]:
    """Counts, the largest changes and the distribution of B − A per player and system."""
    a, b = rating_values(path_a, system), rating_values(path_b, system)
    both = sorted(a.keys() & b.keys())
    changes = [(key, b[key][0] - a[key][0], a[key], b[key]) for key in both]
    moved = [c for c in changes if c[1] != 0.0]
    official = [c for c in changes if c[2][1] != c[3][1]]
    deltas = [d for _, d, _, _ in moved]
    histogram = {}
    for low, high in zip((float("-inf"), *BUCKETS), (*BUCKETS, float("inf")), strict=True):
        histogram[_bucket(low, high)] = sum(1 for d in deltas if low <= d < high and d != 0)
    top = sorted(moved, key=lambda c: (-abs(c[1]), c[0]))[:largest]
    bonuses = _bonuses(path_a, path_b, system)
    names = names_in(path_b, sorted({p for (p, _), *_ in top} | {x["player"] for x in bonuses}))
    return {
        "a": path_a,
        "b": path_b,
        "system": system,
        "compared": len(both),
        "only_in_a": len(a.keys() - b.keys()),
        "only_in_b": len(b.keys() - a.keys()),
        "changed": len(moved),
        "official_changed": len(official),
        "mean_change": statistics.fmean(deltas) if deltas else 0.0,
        "median_change": statistics.median(deltas) if deltas else 0.0,
        "distribution": histogram,
        "largest": [
            {
                "player": p,
                "name": names.get(p),
                "system": s,
                "a": ra[0],
                "b": rb[0],
                "change": d,
                "official": f"{ra[1]} → {rb[1]}",
                "games": rb[2],
            }
            for (p, s), d, ra, rb in top
        ],
        "bonuses_changed": len(bonuses),
        "players_gaining_a_bonus": len({x["player"] for x in bonuses if x["b"] > x["a"]}),
        "new_bonuses": sum(1 for x in bonuses if x["a"] == 0),
        "bonuses": [{**x, "name": names.get(x["player"])} for x in bonuses[:largest]],
    }


def _bonuses(path_a: str, path_b: str, system: str | None) -> list[dict[str, Any]]:
    """Each change whose bonus points differ (a change without one counts as 0), the largest
    difference first: who gained a bonus, in which section, and by how much."""
    a, b = bonus_values(path_a, system), bonus_values(path_b, system)
    out = [
        {"player": p, "system": s, "item": i, "a": a.get(k, 0.0), "b": b.get(k, 0.0)}
        for k in sorted(a.keys() | b.keys())
        for p, s, i in (k,)
        if a.get(k, 0.0) != b.get(k, 0.0)
    ]
    return sorted(out, key=lambda x: (-abs(x["b"] - x["a"]), x["player"], x["item"]))


def _bucket(low: float, high: float) -> str:
    if low == float("-inf"):
        return f"< {high:g}"
    if high == float("inf"):
        return f">= {low:g}"
    return f"[{low:g}, {high:g})"


def render(d: dict[str, Any]) -> str:
    lines = [
        f"{d['compared']} ratings compared ({d['system'] or 'all systems'}): "
        f"{d['changed']} changed, {d['official_changed']} official ratings changed; "
        f"only in A {d['only_in_a']}, only in B {d['only_in_b']}",
        f"mean change {d['mean_change']:+.3f}, median {d['median_change']:+.3f}",
        "distribution of B − A (changed ratings):",
        *[f"  {k:>14}  {v}" for k, v in d["distribution"].items()],
        "largest changes:",
        *[
            f"  {x['player']} {x.get('name') or ''} {x['system']:<5} "
            f"{x['a']:9.2f} → {x['b']:9.2f} "
            f"({x['change']:+.2f}; official {x['official']})"
            for x in d["largest"]
        ],
        f"bonuses: {d['bonuses_changed']} changed, "
        f"{d['players_gaining_a_bonus']} players gaining a bonus ({d['new_bonuses']} new):",
        *[
            f"  {x['player']} {x.get('name') or ''} {x['system']:<5} {x['item']}: "
            f"bonus {x['a']:.2f} → {x['b']:.2f} ({x['b'] - x['a']:+.2f})"
            for x in d["bonuses"]
        ],
    ]
    return "\n".join(lines)
