"""Reads of players: a player's ratings row, his card and profile, names and merged records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ledger.rules.families import family as rules_family
from projections.queries.common import system_order

if TYPE_CHECKING:
    from projections.merges import Merges
    from projections.schema import ReadModel, SqlModel


# The columns a player's page reads of every one of his history rows, in one query (issue 33):
# his last list or drop below a floor in each system, the K of his last change, the changes
# of the sections he played (the unique index on (player, system, sort_key) in its order).
HISTORY_MARKS = (
    "select item_key, system, kind, formula, k, pre_rating, post_rating, official_rating, "
    "detail from history where player = ? order by system, sort_key"
)


@dataclass
class Reads:
    """What a player's page reads once (issue 33: as few queries as it needs): `player`'s
    answer, his profile (decoded; None without one), the merges in force and his history
    rows (`HISTORY_MARKS`)."""

    out: dict[str, Any]
    profile: dict[str, Any] | None
    merged: Merges | None
    history: list[tuple[Any, ...]]


def player(view: SqlModel, player_id: str) -> dict[str, Any] | None:
    """A player's name and current ratings row in every system; None if unknown."""
    found = player_reads(view, player_id)
    return None if found is None else found.out


def player_reads(view: SqlModel, player_id: str) -> Reads | None:
    """`player`'s answer with what else his page reads (`Reads`): his profile and ratings rows
    in one query, his history rows in another, the merges in a third; None if unknown."""
    cursor = view.db.execute(
        "select p.profile, r.* from (select ? as id) asked "
        "left join players p on p.id = asked.id left join ratings r on r.player = asked.id "
        "order by r.system",
        [player_id],
    )
    names = [d[0] for d in cursor.description][1:]
    rows = cursor.fetchall()
    profile = None if rows[0][0] is None else json.loads(rows[0][0])
    ratings_rows = [dict(zip(names, row[1:], strict=True)) for row in rows if row[1] is not None]
    if profile is None and not ratings_rows:
        return None
    history = view.db.execute(HISTORY_MARKS, [player_id]).fetchall()
    shows_k = "k" in dict(rules_family(view.family).words.ratings)
    ratings = {}
    for r in ratings_rows:
        system = r.pop("system")
        # A family's own columns (`Rater.rating_columns`): a row with US Chess floors says
        # whether it is established; only a row without asks its family (and loads it) whether
        # its page shows K, FIDE 10.641 / 8.3.3 and the ICU's: the K of his last change.
        if "established" in r:
            r["established"] = bool(r["established"])
            r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        elif shows_k:
            r["k"] = _last_k(history, system)
        ratings[system] = {k: v for k, v in r.items() if k != "player"}
    out: dict[str, Any] = {"id": player_id}
    if profile is not None:
        out["name"] = profile.get("name")
    out["ratings"] = ratings
    if dropped := _below_floor(history, set(ratings)):
        out["unrated"] = dropped
    found = merges(view)
    if found is not None and (joined := found.merged_into(player_id)) is not None:
        out["merged_into"] = joined | {"name": _name_of(view, joined["id"])}
    if found is not None and (absorbed := found.absorbed(player_id)):
        out["merged"] = absorbed
    return Reads(out, profile, found, history)


def _below_floor(history: list[tuple[Any, ...]], rated: set[str]) -> dict[str, str]:
    """System → "unrated (below 1400)" where the last list that rated the player showed him
    unrated for falling below its floor (FIDE 7.2.1), or, before any list, his last drop did
    (the family's rater: its standing is the list it would publish), and he has no rating
    since (`history`: his rows in `HISTORY_MARKS`' order, the last of a system its latest)."""
    last: dict[str, tuple[str | None, str]] = {}
    for _, system, kind, formula, *_, detail in history:
        if kind == "list" or formula == "below_floor":
            last[system] = (formula, detail)
    return {
        system: unrated_below(json.loads(detail)["below"])
        for system, (formula, detail) in sorted(last.items())
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
    return records_of(player_id, merges(view))


def records_of(player_id: str, found: Merges | None) -> set[str]:
    """`person` under the merges in force `found`."""
    return {player_id} if found is None else {player_id, *found.absorbed(player_id)}


def player_card(view: SqlModel, player_id: str) -> dict[str, Any] | None:
    """What a federation prints at the head of a player's page, from his latest profile:
    name, title, federation (his FIDE record's flag), FIDE id, sex, birth year and club; a field
    the ledger does not hold is None. None for a player with no profile."""
    row = view.db.execute("select profile from players where id = ?", [player_id]).fetchone()
    if row is None:
        return None
    return merged_card(view, player_id, json.loads(row[0]), merges(view))


def merged_card(
    view: SqlModel, player_id: str, profile: dict[str, Any], found: Merges | None
) -> dict[str, Any]:
    """`player_card` of his `profile` (decoded), a field he lacks taken from a record merged
    into his (`found`: the merges in force)."""
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


def _last_k(history: list[tuple[Any, ...]], system: str) -> float | None:
    """The K of the player's last change in `system` that has one (`HISTORY_MARKS`' rows)."""
    found = None
    for _, row_system, _, _, k, *_ in history:
        if row_system == system and k is not None:
            found = k
    return cast(float | None, found)


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
