"""Reads of a read model file by its path, for two models side by side (projections/compare.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from projections.queries.players import _name


def rating_values(path: str, system: str | None) -> dict[tuple[str, str], tuple[float, int, int]]:
    """(player, system) → (rating, official rating, N) from a read model file's ratings."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        query = "select player, system, rating, official_rating, games from ratings"
        rows = db.execute(
            query + (" where system = ?" if system else ""), [system] if system else []
        ).fetchall()
    finally:
        db.close()
    return {(p, s): (r, o, g) for p, s, r, o, g in rows}


def bonus_values(path: str, system: str | None) -> dict[tuple[str, str, str], float]:
    """(player, system, item key) → the bonus points of that change, from a read model file."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        query = "select player, system, item_key, bonus from history where bonus is not null"
        rows = db.execute(
            query + (" and system = ?" if system else ""), [system] if system else []
        ).fetchall()
    finally:
        db.close()
    return {(p, s, i): b for p, s, i, b in rows}


def names_in(path: str, ids: Sequence[str]) -> dict[str, str]:
    """The names of those of `ids` that have one, from a read model file."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        marks = ", ".join("?" for _ in ids)
        rows = db.execute(f"select id, profile from players where id in ({marks})", list(ids))
        return {pid: name for pid, profile in rows if (name := _name(profile))}
    finally:
        db.close()
