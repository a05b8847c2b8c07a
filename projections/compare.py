"""Comparing two read models: who changes and by how much (what-if replays, amendments)."""

from __future__ import annotations

import statistics
from typing import Any

from projections.queries import rating_values

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
                "system": s,
                "a": ra[0],
                "b": rb[0],
                "change": d,
                "official": f"{ra[1]} -> {rb[1]}",
                "games": rb[2],
            }
            for (p, s), d, ra, rb in top
        ],
    }


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
            f"  {x['player']} {x['system']:<5} {x['a']:9.2f} -> {x['b']:9.2f} "
            f"({x['change']:+.2f}; official {x['official']})"
            for x in d["largest"]
        ],
    ]
    return "\n".join(lines)
