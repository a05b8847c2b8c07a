"""A player's history and ratings as the ledger said them at a past position, read from the
record of what the model knew when (projections/knowledge.py) without building a past model:
each of the player's keys (system, item's sort key) as the row standing now, unless a row kept
from before a later entry replaced it is the one that stood at the position, and none if that
row's item was revised after the position (issue 33)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from projections.queries.common import system_order
from projections.queries.history import history_out, rating_of_row

if TYPE_CHECKING:
    from projections.schema import ReadModel


class NotRecorded(LookupError):
    """The model's record does not reach that position: read a past model instead."""


@functools.cache
def _selects(family: str) -> tuple[str, str]:
    """The rows of one player (in some systems, a JSON list) as known at a position: those
    standing now that no kept row says came later, then the kept rows that stood then; of
    either, only a row of an item's revision at or before the position."""
    from projections.schema import history_columns

    columns = ", ".join(f"[{c}]" for c in history_columns(family))
    later = (
        "select 1 from history_past p where p.player = h.player and p.system = h.system "
        "and p.sort_key = h.sort_key and p.known_until > :at"
    )
    first_after = (
        "select min(q.known_until) from history_past q where q.player = p.player "
        "and q.system = p.system and q.sort_key = p.sort_key and q.known_until > :at"
    )
    rows = (
        f"select {columns} from history h where h.player = :player and h.system in "
        f"(select value from json_each(:systems)) and h.revision <= :at and not exists ({later}) "
        f"union all select {columns} from history_past p where p.player = :player "
        "and p.system in (select value from json_each(:systems)) and p.present "
        f"and p.revision <= :at and p.known_until = ({first_after})"
    )
    systems = (
        "select system from history where player = :player union "
        "select system from history_past where player = :player"
    )
    return rows, systems


def recorded(view: ReadModel, position: int) -> None:
    """NotRecorded unless the model's record answers `position` (from its start to the
    model's last position)."""
    from projections.knowledge import since

    start = since(view.db.conn)
    last = int(view.db.execute("select value from meta where key = 'last_position'").fetchone()[0])
    if start is None or not start <= position <= last:
        raise NotRecorded(position)


def history_known_at(
    view: ReadModel, player_id: str, position: int, systems: list[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Each system's history rows of a player (of `systems`, else every one he has rows in)
    as the ledger said them at `position`, in rating order, systems in the usual order: what
    `queries.history` reads of a past model (NotRecorded if the record does not reach it)."""
    import json

    recorded(view, position)
    rows_sql, systems_sql = _selects(view.family)
    if systems is None:
        found = view.db.execute(systems_sql, {"player": player_id}).fetchall()
        systems = [r[0] for r in found]
    args = {"player": player_id, "at": position, "systems": json.dumps(systems)}
    cursor = view.db.execute(rows_sql, args)
    names = [d[0] for d in cursor.description]
    out: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(cursor.fetchall(), key=lambda r: r[3]):  # sort_key
        out.setdefault(row[2], []).append(history_out(dict(zip(names, row, strict=True))))
    return {s: out[s] for s in sorted(out, key=system_order(view))}


def rating_known_at(
    view: ReadModel, player_id: str, system: str, day: str, position: int
) -> dict[str, Any] | None:
    """The rating in effect on `day` as the ledger said it at `position`: what
    `queries.rating_as_of` reads of a past model."""
    rows = history_known_at(view, player_id, position, [system]).get(system, [])
    before = [r for r in rows if r["end_date"] <= day]
    if not before:
        return None
    return rating_of_row(before[-1], player_id, system, day)


def answers(view: ReadModel, player_id: str, position: int, profile: bool = False) -> bool:
    """Whether the record answers `player_id`'s reads as known at `position`: it reaches it,
    he was never merged into another record (so his history was his own then too), and a
    profile he has had is his now (none voided); with `profile`, his profile now is the one he
    had then (recorded at or before `position`: his name on a page)."""
    try:
        recorded(view, position)
    except NotRecorded:
        return False
    db = view.db
    merged = db.execute("select 1 from entries where key = ?", ["merge:" + player_id])
    if merged.fetchone() is not None:
        return False
    had = db.execute("select 1 from entries where key = ?", ["player:" + player_id]).fetchone()
    has = db.execute("select position from players where id = ?", [player_id]).fetchone()
    if profile and has is not None and has[0] > position:
        return False
    return had is None or has is not None


def player_known_at(view: ReadModel, player_id: str, position: int) -> bool:
    """Whether the ledger knew the player at `position` (`queries.player` not None in a past
    model): a profile recorded by then, or a history row then (`answers` must hold)."""
    first = view.db.execute(
        "select min(position) from entries where key = ?", ["player:" + player_id]
    ).fetchone()[0]
    return (first is not None and first <= position) or bool(
        history_known_at(view, player_id, position)
    )
