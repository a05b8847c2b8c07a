"""The read side's front door: every read of the read model, one named function each.

The command line, the web page, the exports and `explain` all read through here; the only other
SQL against the read model is the projector's own bookkeeping.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ledger import events
from ledger.events import PlayerRegistered
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import Amendment
from projections.items import KIND_FACTS, Item
from projections.rating import parse_amendments
from projections.schema import STATE_SELECT, ReadModel, rating_row
from projections.standing import STATE_COLUMNS, UNRATED, Standing

SUPPLEMENT_STANDING = ("post_rating", "games_after", *STATE_COLUMNS)


def system_order(system: str) -> tuple[int, str]:
    """US Chess systems in their usual order (OTBR, OTBQ, …), then any other by name."""
    order = [str(s) for s in System]
    return (order.index(system), "") if system in order else (len(order), system)


# Players


def player(view: ReadModel, player_id: str) -> dict[str, Any] | None:
    """A player's name and current ratings row in every system; None if unknown."""
    rows = list(view.db["ratings"].rows_where("player = ?", [player_id], order_by="system"))
    profile = view.db.execute("select profile from players where id = ?", [player_id]).fetchone()
    if profile is None and not rows:
        return None
    ratings = {}
    for r in rows:
        r = dict(r)
        system = r.pop("system")
        r["established"] = None if r["established"] is None else bool(r["established"])
        r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        ratings[system] = {k: v for k, v in r.items() if k != "player"}
    out: dict[str, Any] = {"id": player_id}
    if profile is not None:
        out["name"] = json.loads(profile[0]).get("name")
    out["ratings"] = ratings
    return out


def profiles(view: ReadModel) -> dict[str, dict[str, Any]]:
    """Every player's profile, by member id."""
    return {r["id"]: json.loads(r["profile"]) for r in view.db["players"].rows}


def profile_facts(view: ReadModel) -> dict[str, PlayerRegistered]:
    """Every player's profile as the typed fact the raters read, by member id."""
    out = {}
    for member_id, profile in view.db.execute("select id, profile from players"):
        fact = events.decode(
            "PlayerRegistered", payload={"member_id": member_id, **json.loads(profile)}
        )
        out[member_id] = fact
    return out


def profile_position(view: ReadModel, player_id: str) -> int | None:
    """The ledger position of a player's latest profile."""
    row = view.db.execute("select position from players where id = ?", [player_id]).fetchone()
    return None if row is None else row[0]


def names(view: ReadModel, ids: Sequence[str]) -> dict[str, str]:
    """The names of those of `ids` that have one."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(f"select id, profile from players where id in ({marks})", list(ids))
    return {pid: name for pid, profile in rows if (name := _name(profile))}


def search_players(view: ReadModel, text: str, limit: int) -> list[dict[str, Any]]:
    """Players whose id starts with `text` or whose name contains it, in id order."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = view.db.execute(
        "select id, json_extract(profile, '$.name') from players "
        "where id like ? escape '\\' or json_extract(profile, '$.name') like ? escape '\\' "
        "order by id limit ?",
        [escaped + "%", "%" + escaped + "%", limit],
    ).fetchall()
    return [{"id": pid, "name": name} for pid, name in rows]


# History and ratings as of a day


def systems_of(view: ReadModel, player_id: str) -> list[str]:
    """The systems a player has history in, in the usual order."""
    rows = view.db.execute(
        "select distinct system from history where player = ?", [player_id]
    ).fetchall()
    return sorted((r[0] for r in rows), key=system_order)


def history(view: ReadModel, player_id: str, system: str) -> list[dict[str, Any]]:
    """Every history row of a player in one system, in rating order."""
    return [
        _history_out(r)
        for r in view.db["history"].rows_where(
            "player = ? and system = ?", [player_id, system], order_by="sort_key"
        )
    ]


def history_row(view: ReadModel, player_id: str, system: str, item_key: str) -> dict | None:
    """The history row one item wrote for a player in one system."""
    rows = list(
        view.db["history"].rows_where(
            "player = ? and system = ? and item_key = ?", [player_id, system, item_key]
        )
    )
    return rows[0] if rows else None


def previous_change(
    view: ReadModel, player_id: str, system: str, sort_key: str
) -> tuple[str, int, int] | None:
    """(item key, position, revision) of the last change before `sort_key`."""
    return view.db.execute(
        "select item_key, position, revision from history where player = ? and system = ? "
        "and sort_key < ? order by sort_key desc limit 1",
        [player_id, system, sort_key],
    ).fetchone()


def standing_before(view: ReadModel, player_id: str, system: str, sort_key: str) -> Standing:
    """A player's standing just before the item at `sort_key`, from the history rows."""
    row = view.db.execute(
        f"select {STATE_SELECT} from history where player = ? and system = ? "
        "and sort_key < ? order by sort_key desc limit 1",
        [player_id, str(system), sort_key],
    ).fetchone()
    return UNRATED if row is None else Standing.from_columns(row)


def row_as_of(view: ReadModel, player_id: str, system: str, day: str) -> dict[str, Any] | None:
    """The history row in effect on `day`: the last item that ended on or before it."""
    rows = list(
        view.db["history"].rows_where(
            "player = ? and system = ? and end_date <= ?",
            [player_id, system, day],
            order_by="sort_key desc",
            limit=1,
        )
    )
    return rows[0] if rows else None


def rating_as_of(view: ReadModel, player_id: str, system: str, day: str) -> dict[str, Any] | None:
    """The rating in effect on `day`: after every item that ended on or before it."""
    r = row_as_of(view, player_id, system, day)
    if r is None:
        return None
    return {
        "id": player_id,
        "system": system,
        "as_of": day,
        "rating": r["post_rating"],
        "official_rating": r["official_rating"],
        "games": r["games_after"],
        "from": r["item_key"],
    }


def ratings_as_of(view: ReadModel, player_id: str, day: str) -> dict[str, dict[str, Any]]:
    """Each system's ratings row after every item that ended on or before `day`."""
    out = {}
    columns = ", ".join(("post_rating", "games_after", *STATE_COLUMNS))
    for system in systems_of(view, player_id):
        row = view.db.execute(
            f"select {columns} from history where player = ? and system = ? and end_date <= ? "
            "and post_rating is not null order by sort_key desc limit 1",
            [player_id, system, day],
        ).fetchone()
        if row is None:
            continue
        r = rating_row(player_id, system, Standing.from_columns(row), view.family == "uschess")
        r["established"] = None if r["established"] is None else bool(r["established"])
        r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        out[system] = {k: v for k, v in r.items() if k not in ("player", "system")}
    return out


def supplement(view: ReadModel, system: str, day: str) -> list[tuple[str, dict, str | None]]:
    """(member id, ratings row, profile JSON) of every player rated in `system` on `day`,
    after every item that ended on or before it, in member-id order."""
    columns = ", ".join(f"h.{c}" for c in SUPPLEMENT_STANDING)
    rows = view.db.execute(
        f"select h.player, p.profile, {columns} from history h "
        "join (select player, max(sort_key) as sort_key from history "
        "where system = ? and end_date <= ? group by player) latest "
        "on latest.player = h.player and latest.sort_key = h.sort_key "
        "left join players p on p.id = h.player "
        "where h.system = ? order by h.player",
        [system, day, system],
    ).fetchall()
    out = []
    for player_id, profile, *state in rows:
        if state[0] is None:
            continue
        standing = Standing.from_columns(state)
        out.append(
            (player_id, rating_row(player_id, system, standing, view.family == "uschess"), profile)
        )
    return out


# Items, sections and amendments


def item(view: ReadModel, key: str) -> Item | None:
    """A rated item as it stands now (its latest revision)."""
    row = view.db.execute(
        "select key, kind, start, end, position, revision, payload from items where key = ?",
        [key],
    ).fetchone()
    if row is None:
        return None
    return Item(*row[:6], events.decode(KIND_FACTS[row[1]].__name__, row[6].encode()))


def section_status(view: ReadModel, section_id: str) -> str | None:
    """`submitted`, `corrected` or `withdrawn`; None for a section not in the ledger."""
    row = view.db.execute(
        "select status from sections where section_id = ?", [section_id]
    ).fetchone()
    return None if row is None else row[0]


def section_report(view: ReadModel, section_id: str) -> dict[str, Any] | None:
    """A rated section's report as it stands now; None if it is not rated."""
    found = view.db.execute(
        "select payload from items where key = ?", ["section:" + section_id]
    ).fetchone()
    return None if found is None else json.loads(found[0])


def section_changes(view: ReadModel, section_id: str) -> list[tuple[Any, ...]]:
    """(player, system, pre, post, official, N before, N after) of every row a section wrote."""
    return view.db.execute(
        "select player, system, pre_rating, post_rating, official_rating, games_before, "
        "games_after from history where item_key = ?",
        ["section:" + section_id],
    ).fetchall()


def amendment_rows(view: ReadModel) -> list[dict[str, Any]]:
    """Every recorded rules amendment, in ledger order, as stored."""
    return list(view.db["amendments"].rows_where(order_by="position"))


def amendments(view: ReadModel) -> tuple[Amendment, ...]:
    """Every recorded rules amendment, parsed, in ledger order."""
    return parse_amendments(
        [
            {
                "parameter": r["parameter"],
                "value": json.loads(r["value"]),
                "effective": r["effective"],
                "until": r["until"],
            }
            for r in amendment_rows(view)
        ]
    )


# Problems


def problems(view: ReadModel) -> list[dict[str, Any]]:
    """Every entry the read model could not use ("not rated: reason"), in ledger order:
    position, item_key, kind, reason."""
    return [
        {"position": p, "item_key": k, "kind": kind, "reason": reason}
        for p, k, kind, reason in view.db.execute(
            "select position, item_key, kind, reason from problems order by position, item_key"
        )
    ]


# Two read models side by side


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


def _history_out(r: dict[str, Any]) -> dict[str, Any]:
    r = dict(r)
    r["detail"] = json.loads(r["detail"])
    return r


def _name(profile: str | None) -> str | None:
    return None if profile is None else json.loads(profile).get("name")
