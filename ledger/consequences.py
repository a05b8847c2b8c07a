"""What a correction, withdrawal, override or amendment did (or would do) to the ratings."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

from ledger.log import LedgerEntry, read_verified_entries

FIELDS = ("rating", "official_rating", "games", "floor", "ceiling")


def consequences(
    ledger: Any, view_path: Path, entries: list[LedgerEntry], dry_run: bool
) -> dict[str, Any]:
    """Catch the read model up with `entries` (rolled back when `dry_run`) and report every
    player and system whose rating, N, floor or history changed, before → after."""
    from projections.view import View

    with closing(View(view_path)) as view:
        if dry_run:
            view.catch_up(read_verified_entries(ledger, view.last_position))
        else:
            view.catch_up(
                e
                for e in read_verified_entries(ledger, view.last_position)
                if e.position < entries[0].position
            )
        stats = view.catch_up(entries, dry_run=dry_run)
    changed = []
    keys = sorted(set(stats.changes) | set(stats.history_changed))
    for player, system in keys:
        before, after = stats.changes.get((player, system), (None, None))
        b = {f: before[f] for f in FIELDS} if before else None
        a = {f: after[f] for f in FIELDS} if after else None
        if b == a and not stats.history_changed.get((player, system)):
            continue
        changed.append(
            {
                "player": player,
                "system": system,
                "before": b,
                "after": a,
                "history_rows_changed": stats.history_changed.get((player, system), 0),
            }
        )
    return {
        "dry_run": dry_run,
        "entries": [{"position": e.position, "type": e.type} for e in entries],
        "items_re_rated": stats.items_rated,
        "changed": changed,
    }


def render(report: dict[str, Any]) -> str:
    head = "would change" if report["dry_run"] else "changed"
    lines = [
        f"{len(report['changed'])} ratings {head} ({report['items_re_rated']} items re-rated):"
    ]
    for c in report["changed"]:
        b, a = c["before"], c["after"]
        lines.append(
            f"  {c['player']} {c['system']:<5} {_state(b)} -> {_state(a)}"
            f"  ({c['history_rows_changed']} history rows)"
        )
    return "\n".join(lines)


def _state(s: dict[str, Any] | None) -> str:
    if s is None:
        return "unrated"
    return f"{s['rating']:.2f} ({s['official_rating']}) N={s['games']} floor={s['floor']}"
