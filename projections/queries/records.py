"""Rated items and rules amendments as they stand now, problems, what awaits the office."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from projections.items import Item
    from projections.rating import AmendmentRow
    from projections.schema import ReadModel


def items_in_order(view: ReadModel) -> list[Item]:
    """Every rated item as it stands now, in rating order."""
    from projections.items import Item

    rows = view.db.execute(
        "select key, kind, start, end, position, revision, payload from items order by sort_key"
    ).fetchall()
    return [
        Item(key, kind, s, e, at, rev, json.loads(fact)) for key, kind, s, e, at, rev, fact in rows
    ]


def item(view: ReadModel, key: str) -> Item | None:
    """A rated item as it stands now (its latest revision)."""
    from projections.items import Item, stored_fact

    row = view.db.execute(
        "select key, kind, start, end, position, revision, payload from items where key = ?",
        [key],
    ).fetchone()
    if row is None:
        return None
    key, kind, start, end, position, revision, payload = row
    return Item(key, kind, start, end, position, revision, stored_fact(kind, payload.encode()))


def amendment_rows(view: ReadModel) -> list[dict[str, Any]]:
    """Every recorded rules amendment, in ledger order, as stored."""
    return list(view.db["amendments"].rows_where(order_by="position"))


def amendments(view: ReadModel) -> list[AmendmentRow]:
    """Every recorded rules amendment, its value decoded, in ledger order (the family's
    rater parses those it takes, `Rater.open`)."""
    return [
        {
            "parameter": r["parameter"],
            "value": json.loads(r["value"]),
            "effective": r["effective"],
            "until": r["until"],
        }
        for r in amendment_rows(view)
    ]


def problems(view: ReadModel) -> list[dict[str, Any]]:
    """Every entry the read model could not use ("not rated: reason"), in ledger order:
    position, item_key, kind, reason."""
    return [
        {"position": p, "item_key": k, "kind": kind, "reason": reason}
        for p, k, kind, reason in view.db.execute(
            "select position, item_key, kind, reason from problems order by position, item_key"
        )
    ]


def item_problem(view: ReadModel, key: str) -> str | None:
    """Why the read model could not use the item `key` (its problem row's reason), or None."""
    row = view.db.execute(
        "select reason from problems where item_key = ? order by position desc limit 1", [key]
    ).fetchone()
    return None if row is None else str(row[0])


def awaiting_admin(view: ReadModel) -> list[dict[str, Any]]:
    """What awaits the office: pending floor-lowering requests (§7) and ceilings set below the
    floor, with the player's name, in player and system order (none in a family whose ratings
    have no floor columns: `Rater.rating_columns`); then the sections tournament directors
    uploaded that await its review (issue 32)."""
    return _floor_requests(view) + uploads_awaiting_review(view)


def uploads_awaiting_review(view: ReadModel) -> list[dict[str, Any]]:
    """Sections submitted by an actor outside the office (projections/uploads.py), still as
    submitted (not voided) and neither reviewed, corrected nor withdrawn, in section order."""
    rows = view.db.execute(
        "select s.section_id, s.event_name, json_extract(r.value, '$.actor'), "
        "s.submitted_position from reviews r join sections s "
        "on s.section_id = substr(r.key, length('upload:') + 1) "
        "where r.key like 'upload:%' and s.status = 'submitted' "
        "and s.submitted_position = json_extract(r.value, '$.position') order by s.section_id"
    ).fetchall()
    return [
        {
            "kind": "upload_awaiting_review",
            "section": section_id,
            "name": name,
            "uploaded_by": actor,
            "position": position,
        }
        for section_id, name, actor, position in rows
    ]


def _floor_requests(view: ReadModel) -> list[dict[str, Any]]:
    from projections.schema import rating_columns

    if "pending_floor_request" not in rating_columns(view.family):
        return []
    rows = view.db.execute(
        "select r.player, json_extract(p.profile, '$.name'), r.system, r.official_rating, "
        "r.floor, r.ceiling, r.pending_floor_request from ratings r "
        "left join players p on p.id = r.player "
        "where r.pending_floor_request is not null or r.ceiling < r.floor "
        "order by r.player, r.system"
    ).fetchall()
    out = []
    for player_id, name, system, official, floor, ceiling, pending in rows:
        base = {"player": player_id, "name": name, "system": system, "rating": official}
        if pending is not None:
            request = json.loads(pending)
            out.append(
                base
                | {
                    "kind": "floor_lowering_request",
                    "floor": floor,
                    "new_floor": request["new_floor"],
                    "rating_if_granted": request["rating_if_granted"],
                }
            )
        if ceiling is not None and ceiling < floor:
            out.append(base | {"kind": "ceiling_below_floor", "floor": floor, "ceiling": ceiling})
    return out
