"""What a write did (or would do) to the ratings: who changed, before → after, and why a write
that changes no rating changes none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ledger import events
from ledger.log import LedgerEntry
from ledger.reading import Readable
from ledger.text import counted
from projections.schema import ratings_table
from projections.session import ReadSession

FIELDS = ("rating", "official_rating", "games", "floor", "ceiling")
NEW_ITEMS = {name for name, kind in events.KINDS.items() if kind.item and kind.item.why}


def consequences(
    ledger: Readable, view_path: Path, entries: list[LedgerEntry], dry_run: bool, family: str
) -> dict[str, Any]:
    """Catch the read model (of `family`) up with `entries` (rolled back when `dry_run`) and
    report every player and system whose rating, N, floor or history changed, before → after."""
    # One walk into the read side, beside the write's own ledger: the binding checked (a
    # restored or forked ledger's model is refused, not used), caught up, the entries applied.
    with ReadSession.beside(ledger, view_path, family) as session:
        effect = session.effect(entries, dry_run, [e for e in entries if e.type in NEW_ITEMS])
    stats, names = effect.stats, effect.names
    why = [
        {"player": r.player, "system": r.system, "item": r.item, **said}
        for r in effect.rerated
        if (said := _said(r.detail))
    ]
    keys = sorted(set(stats.changes) | set(stats.history_changed))
    # where each of FIELDS is in a row's values (floor and ceiling are US Chess's columns:
    # None in a family without them)
    columns = ratings_table(family).names
    at = [columns.index(f) if f in columns else None for f in FIELDS]
    changed = []
    for player, system in keys:
        before, after = stats.changes.get((player, system), (None, None))
        b, a = _fields(before, at), _fields(after, at)
        if b == a and not stats.history_changed.get((player, system)):
            continue
        changed.append(
            {
                "player": player,
                "name": names.get(player),
                "system": system,
                "before": b,
                "after": a,
                "history_rows_changed": stats.history_changed.get((player, system), 0),
            }
        )
    return {
        "dry_run": dry_run,
        "family": family,
        "entries": [{"position": e.position, "type": e.type} for e in entries],
        "items_re_rated": stats.items_rated,
        "changed": changed,
        "why": [{**w, "name": names.get(w["player"])} for w in why],
    }


def render(report: dict[str, Any]) -> str:
    """The report as text: a head line (`2 ratings changed (1 item re-rated):`, or `no rating
    changed`), then a line for each rating changed and each reason the rules gave."""
    lines = []
    for c in report["changed"]:
        b, a = c["before"], c["after"]
        lines.append(
            f"  {_who(c)} {c['system']:<5} {_state(b)} → {_state(a)}"
            f"  ({c['history_rows_changed']} history rows)"
        )
    for w in report.get("why", ()):
        for key in ("warning", "reason"):
            if w.get(key):
                label = "warning" if key == "warning" else "not rated"
                lines.append(f"  {label}: {_who(w)} {w['system']} ({w['item']}): {w[key]}")
    verb = "would change" if report["dry_run"] else "changed"
    items = report["items_re_rated"]
    changed = len(report["changed"])
    head = f"{counted(changed, 'rating')} {verb}" if changed else f"no rating {verb}"
    head += (f" ({counted(items, 'item')} re-rated)" if items else "") + (":" if lines else "")
    return "\n".join([head, *lines])


def _who(c: dict[str, Any]) -> str:
    return f"{c['player']} {c['name']}" if c.get("name") else c["player"]


def _fields(row: tuple[Any, ...] | None, at: list[int | None]) -> dict[str, Any] | None:
    """FIELDS of a `ratings` row's values (`at`: where each is in them), None for no row."""
    if row is None:
        return None
    return {f: None if i is None else row[i] for f, i in zip(FIELDS, at, strict=True)}


def _said(detail: str) -> dict[str, str]:
    """The rules' reason a row changed nothing, and any warning, from a history row's detail."""
    d = json.loads(detail)
    said = {"warning": d.get("warning")} if d.get("warning") else {}
    if d.get("reason") and "value" not in d:  # an override's reason is the director's, not why
        said["reason"] = d["reason"]
    return said


def _state(s: dict[str, Any] | None) -> str:
    if s is None:
        return "unrated"
    return f"{s['rating']:.2f} ({s['official_rating']}) N={s['games']} floor={s['floor']}"
