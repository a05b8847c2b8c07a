"""A revised report beside the current one, game by game and bye by bye (issue 20: "a revised
TRF of an existing section becomes a dry-runnable correction with a per-game diff")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Key = tuple[int, frozenset[str]]


def _games(report: Mapping[str, Any]) -> dict[Key, str]:
    return {
        (
            g["round"],
            frozenset((g["white"], g["black"])),
        ): f"{g['white']} {g['result']} {g['black']}"
        for g in report.get("games", [])
    }


def _byes(report: Mapping[str, Any]) -> dict[Key, str]:
    return {
        (b["round"], frozenset((b["player"],))): f"{b['player']} {b['bye']} bye"
        for b in report.get("byes", [])
    }


FIELDS = ("event_name", "online", "time_control", "start_date", "end_date", "rules", "system")


def diff(current: Mapping[str, Any], revised: Mapping[str, Any]) -> list[str]:
    """One line per change: a section field, a game or bye changed (`round 2: A 1-0 B → A 0-1
    B`), added (`+`) or removed (`-`), and players added or removed; in round order."""
    lines = [
        f"{name}: {current.get(name)!r} → {revised.get(name)!r}"
        for name in FIELDS
        if current.get(name) != revised.get(name)
    ]
    before = {p["id"] for p in current.get("players", [])}
    after = {p["id"] for p in revised.get("players", [])}
    lines += [f"+ player {p}" for p in sorted(after - before)]
    lines += [f"- player {p}" for p in sorted(before - after)]
    old, new = _games(current) | _byes(current), _games(revised) | _byes(revised)
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[0], sorted(k[1]))):
        was, now = old.get(key), new.get(key)
        if was == now:
            continue
        if was is None:
            lines.append(f"+ round {key[0]}: {now}")
        elif now is None:
            lines.append(f"- round {key[0]}: {was}")
        else:
            lines.append(f"round {key[0]}: {was} → {now}")
    return lines


def tally(lines: list[str]) -> str:
    """What `diff` found, counted: `1 changed, 2 added, 0 removed` (none: what it compares)."""
    if not lines:
        return "no field, player, game or bye changed"
    added = sum(line.startswith("+ ") for line in lines)
    removed = sum(line.startswith("- ") for line in lines)
    return f"{len(lines) - added - removed} changed, {added} added, {removed} removed"
