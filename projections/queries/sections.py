"""Sections: their status and records, those a player played, a crosstable's rows."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from projections.names import words
from projections.queries.common import system_order
from projections.queries.players import HISTORY_MARKS, merges, person
from projections.queries.search import matches

if TYPE_CHECKING:
    from projections.schema import ReadModel


def section_status(view: ReadModel, section_id: str) -> str | None:
    """`submitted`, `corrected` or `withdrawn`; None for a section not in the ledger."""
    row = view.db.execute(
        "select status from sections where section_id = ?", [section_id]
    ).fetchone()
    return None if row is None else row[0]


def sections(
    view: ReadModel,
    *,
    player: str | None = None,
    start: str | None = None,
    end: str | None = None,
    text: str = "",
    limit: int = -1,
    offset: int = 0,
) -> dict[str, Any]:
    """Sections newest first (by end date): id, event name, dates, status, players, and
    `total`; only those `player` played in, ending on or after `start`, starting on or
    before `end`, whose id or event name holds every word of `text` (accents ignored)."""
    where, args = [], []
    if player is not None:
        where.append(
            "'section:' || s.section_id in (select item_key from item_players where player = ?)"
        )
        args.append(player)
    if start is not None:
        where.append("s.end_date >= ?")
        args.append(start)
    if end is not None:
        where.append("s.start_date <= ?")
        args.append(end)
    chosen = " where " + " and ".join(where) if where else ""
    order = " order by s.end_date desc, s.start_date desc, s.section_id"
    players = "(select count(*) from item_players p where p.item_key = 'section:' || s.section_id)"
    if words(text):  # the words are matched here, on every section the rest chose
        rows = view.db.execute(
            "select s.section_id, s.event_name, s.start_date, s.end_date, s.status, "
            f"{players} from sections s{chosen}{order}",
            args,
        ).fetchall()
        rows = [r for r in rows if matches(text, f"{r[0]} {r[1] or ''}")]
        total = len(rows)
        page = rows[offset:] if limit < 0 else rows[offset : offset + limit]
    else:  # only the page's rows read, and counted (issue 33: the home page read them all)
        total = view.db.execute(f"select count(*) from sections s{chosen}", args).fetchone()[0]
        page = view.db.execute(
            f"select s.section_id, s.event_name, s.start_date, s.end_date, s.status, {players} "
            "from (select section_id, event_name, start_date, end_date, status from sections s"
            f"{chosen}{order} limit ? offset ?) s{order}",
            [*args, limit, offset],
        ).fetchall()
    return {
        "total": total,
        "sections": [
            {
                "section_id": sid,
                "event_name": name,
                "start_date": first,
                "end_date": last,
                "status": status,
                "players": None if status == "withdrawn" else count,
            }
            for sid, name, first, last, status, count in page
        ],
    }


def section_record(view: ReadModel, section_id: str) -> dict[str, Any] | None:
    """A section's row as the ledger last left it (also when withdrawn): status, reason,
    dates and the position of its latest entry."""
    rows = list(view.db["sections"].rows_where("section_id = ?", [section_id]))
    return rows[0] if rows else None


def player_sections(view: ReadModel, player_id: str) -> list[dict[str, Any]]:
    """The rated sections a player played, newest first: event, dates, the player's score
    and games, and per system the rating before and after (`played_sections`)."""
    history = view.db.execute(HISTORY_MARKS, [player_id]).fetchall()
    return played_sections(view, player_id, person(view, player_id), history)


def played_sections(
    view: ReadModel, player_id: str, ids: set[str], history: list[tuple[Any, ...]]
) -> list[dict[str, Any]]:
    """`player_sections` of a player whose records are `ids` (his and those merged into his)
    and whose history rows (`players.HISTORY_MARKS`) were read: his sections in one query,
    each report's games indexed by player once (`played_items`: a report read before is not
    read again; one read as bytes, which SQLite hands over as they are stored)."""
    from projections.queries.played import played_items

    rows = view.db.execute(
        "select i.key, i.start, i.end, i.position, i.revision, "
        "(select value from meta where key = 'ledger_id') from item_players p "
        "join items i on i.key = p.item_key "
        "where p.player = ? and i.kind = 'section' order by i.sort_key desc",
        [player_id],
    ).fetchall()
    reports = played_items(view, rows[0][5] if rows else None, [r[:1] + r[3:5] for r in rows])
    by_system: dict[str, list[tuple[Any, ...]]] = {}
    for row in history:  # in the systems' order of the family, then as read
        by_system.setdefault(row[1], []).append(row)
    changes: dict[str, list[tuple[Any, ...]]] = {}
    for system in sorted(by_system, key=system_order(view)):
        for row in by_system[system]:
            changes.setdefault(row[0], []).append(row)
    out = []
    for key, first, last, *_ in rows:
        report = reports[key]
        score, games = report.score(ids)
        out.append(
            {
                "section_id": key.removeprefix("section:"),
                "event_name": report.event_name,
                "start_date": first,
                "end_date": last,
                "score": score,
                "games": games,
                "ratings": {
                    system: _played_rating(pre, post, official, detail)
                    for _, system, _, _, _, pre, post, official, detail in changes.get(key, ())
                },
            }
        )
    return out


def _played_rating(
    pre: float | None, post: float | None, official: int | None, detail: str | None
) -> dict[str, Any]:
    """A section's rating before and after; a change that waits for the next list (FIDE
    10.65, 8.3.2: rated from Ro, summed onto the list) also as `pending_change` (ΔR)."""
    out = {"before": pre, "after": post, "official_after": official}
    if pre is None or pre != post:  # only an unchanged rating may wait for a list
        return out
    waiting = json.loads(detail or "{}")
    if "list" in waiting:
        out["pending_change"] = waiting.get("rating_change", 0.0)  # 0.0 is left out
    return out


def section_report(view: ReadModel, section_id: str) -> dict[str, Any] | None:
    """A rated section's report as it stands now, as rated (a record merged away named as the
    one it joined); None if it is not rated."""
    found = view.db.execute(
        "select payload from items where key = ?", ["section:" + section_id]
    ).fetchone()
    if found is None:
        return None
    merged = merges(view)
    if merged is None:
        report: dict[str, Any] = json.loads(found[0])
        return report
    from projections.merges import renamed_report

    return renamed_report(json.loads(found[0]), merged)


def section_changes(view: ReadModel, section_id: str) -> list[tuple[Any, ...]]:
    """(player, system, pre, post, official, N before, N after, K, detail) of every row a
    section wrote."""
    return view.db.execute(
        "select player, system, pre_rating, post_rating, official_rating, games_before, "
        "games_after, k, detail from history where item_key = ?",
        ["section:" + section_id],
    ).fetchall()
