"""Reads of players: a player's ratings row, his card and profile, names and merged records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ledger.rules.families import family as rules_family
from projections.queries.common import system_order

if TYPE_CHECKING:
    from projections.merges import Merges
    from projections.schema import ReadModel, SqlModel


def player(view: SqlModel, player_id: str) -> dict[str, Any] | None:
    """A player's name and current ratings row in every system; None if unknown."""
    cursor = view.db.execute("select * from ratings where player = ? order by system", [player_id])
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, row, strict=True)) for row in cursor]
    profile = view.db.execute("select profile from players where id = ?", [player_id]).fetchone()
    if profile is None and not rows:
        return None
    ratings = {}
    for r in rows:
        system = r.pop("system")
        # A family's own columns (`Rater.rating_columns`): a row with US Chess floors says
        # whether it is established; only a row without asks its family (and loads it) whether
        # its page shows K, FIDE 10.641 / 8.3.3 and the ICU's: the K of his last change.
        if "established" in r:
            r["established"] = bool(r["established"])
            r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        elif "k" in dict(rules_family(view.family).words.ratings):
            r["k"] = _last_k(view, player_id, system)
        ratings[system] = {k: v for k, v in r.items() if k != "player"}
    out: dict[str, Any] = {"id": player_id}
    if profile is not None:
        out["name"] = json.loads(profile[0]).get("name")
    out["ratings"] = ratings
    if dropped := below_floor(view, player_id, set(ratings)):
        out["unrated"] = dropped
    found = merges(view)
    if found is not None and (joined := found.merged_into(player_id)) is not None:
        out["merged_into"] = joined | {"name": _name_of(view, joined["id"])}
    if found is not None and (absorbed := found.absorbed(player_id)):
        out["merged"] = absorbed
    return out


def below_floor(view: SqlModel, player_id: str, rated: set[str]) -> dict[str, str]:
    """System → "unrated (below 1400)" where the last list that rated the player showed him
    unrated for falling below its floor (FIDE 7.2.1), or, before any list, his last drop did
    (the family's rater: its standing is the list it would publish), and he has no rating
    since."""
    rows = view.db.execute(
        "select h.system, h.formula, h.detail from history h join (select system, "
        "max(sort_key) as sort_key from history where player = ? and (kind = 'list' or "
        "formula = 'below_floor') group by system) last on last.system = h.system "
        "and last.sort_key = h.sort_key "
        "where h.player = ? order by h.system",
        [player_id, player_id],
    ).fetchall()
    return {
        system: unrated_below(json.loads(detail)["below"])
        for system, formula, detail in rows
        if formula == "below_floor" and system not in rated
    }


def unrated_below(floor: int) -> str:
    """How a page shows a player a list dropped below its floor (FIDE 7.2.1)."""
    return f"unrated (below {floor})"


def merges(view: SqlModel) -> Merges | None:
    """The merges in force (projections/merges.py); None when no record was merged away (a
    `player` query then imports nothing more)."""
    from projections.merges import Merges, records

    rows = records(view.db)
    return Merges.fold(rows) if rows else None


def survivor(view: ReadModel, player_id: str) -> str:
    """The record whose history holds `player_id`'s games: the one it was merged into, else
    itself."""
    found = merges(view)
    return player_id if found is None else found.resolve(player_id)


def person(view: ReadModel, player_id: str) -> set[str]:
    """A surviving record's id with those of the records merged into it."""
    found = merges(view)
    return {player_id} if found is None else {player_id, *found.absorbed(player_id)}


def player_card(view: SqlModel, player_id: str) -> dict[str, Any] | None:
    """What a federation prints at the head of a player's page, from his latest profile:
    name, title, federation (his FIDE record's flag), FIDE id, sex, birth year and club; a field
    the ledger does not hold is None. None for a player with no profile."""
    row = view.db.execute("select profile from players where id = ?", [player_id]).fetchone()
    if row is None:
        return None
    profile, found = json.loads(row[0]), merges(view)
    for other in found.absorbed(player_id) if found is not None else ():
        given = view.db.execute("select profile from players where id = ?", [other]).fetchone()
        for name, value in json.loads(given[0]).items() if given else ():
            if profile.get(name) is None:  # a field he lacks, from a record merged into his
                profile[name] = value
    return card(profile)


def cards(view: ReadModel, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The card (`player_card`) of each of `ids` that has a profile."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(f"select id, profile from players where id in ({marks})", list(ids))
    return {pid: card(json.loads(profile)) for pid, profile in rows}


def card(profile: dict[str, Any]) -> dict[str, Any]:
    """The card fields of one profile (see `player_card`)."""
    born = profile.get("birth_date")
    return {
        "name": profile.get("name"),
        "title": profile.get("title"),
        "federation": profile.get("federation") or (profile.get("fide") or {}).get("federation"),
        "fide_id": profile.get("fide_id"),
        "sex": profile.get("sex"),
        "birth_year": int(born[:4]) if born else profile.get("birth_year"),
        "club": profile.get("club"),
    }


def _last_k(view: SqlModel, player_id: str, system: str) -> float | None:
    found = view.db.execute(
        "select k from history where player = ? and system = ? and k is not null "
        "order by sort_key desc limit 1",
        [player_id, system],
    ).fetchone()
    return None if found is None else found[0]


def profiles(view: ReadModel) -> dict[str, dict[str, Any]]:
    """Every player's profile, by member id."""
    return {r["id"]: json.loads(r["profile"]) for r in view.db["players"].rows}


def profile_position(view: ReadModel, player_id: str) -> int | None:
    """The ledger position of a player's latest profile."""
    row = view.db.execute("select position from players where id = ?", [player_id]).fetchone()
    return None if row is None else row[0]


def names(view: SqlModel, ids: Sequence[str]) -> dict[str, str]:
    """The names of those of `ids` that have one."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(f"select id, profile from players where id in ({marks})", list(ids))
    return {pid: name for pid, profile in rows if (name := _name(profile))}


def _name_of(view: SqlModel, player_id: str) -> str | None:
    return names(view, [player_id]).get(player_id)


def current_ratings(view: ReadModel, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Member id → system → rating, official rating and N now, for those of `ids` rated."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(
        f"select player, system, rating, official_rating, games from ratings "
        f"where player in ({marks}) and rating is not null",
        list(ids),
    ).fetchall()
    out: dict[str, dict[str, Any]] = {}
    order = system_order(view)
    for pid, system, rating, official, games in sorted(rows, key=lambda r: (r[0], order(r[1]))):
        out.setdefault(pid, {})[system] = {
            "rating": rating,
            "official_rating": official,
            "games": games,
        }
    return out


def _name(profile: str | None) -> str | None:
    return None if profile is None else json.loads(profile).get("name")
