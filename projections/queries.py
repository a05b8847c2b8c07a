"""The read side's front door: every read of the read model, one named function each.

The command line, the web page, the exports and `explain` all read through here; the only other
SQL against the read model is the projector's own bookkeeping. The rules and the projector's
modules are imported by the functions that need them: a `player` query on a read model already
up to date imports nothing else (issue 21, ledger/entrypoints/quick.py).
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ledger.rules.rounding import round_half_up
from ledger.rules.uschess.systems import System

if TYPE_CHECKING:
    from ledger.rules.family import Family
    from ledger.rules.uschess.versions import Amendment
    from projections.items import Item
    from projections.merges import Merges
    from projections.periods import PublishedList
    from projections.schema import ReadModel
    from projections.standing import Standing

BYE_POINTS = {"full": 1.0, "half": 0.5, "zero": 0.0}


def system_order(system: str) -> tuple[int, str]:
    """US Chess systems in their usual order (OTBR, OTBQ, …), then any other by name."""
    order = [str(s) for s in System]
    return (order.index(system), "") if system in order else (len(order), system)


def _family(view: ReadModel) -> Family:
    """The view's rules family, imported when first asked for."""
    from ledger.rules.families import family

    return family(view.family)


# Players


def player(view: ReadModel, player_id: str) -> dict[str, Any] | None:
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
        r["established"] = None if r["established"] is None else bool(r["established"])
        r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        # FIDE 10.641 / 8.3.3, ICU: the K of his last change. A row with US Chess floors says
        # whether it is established, so only a row without asks its family (and loads it).
        if r["established"] is None and _family(view).last_k:
            r["k"] = _last_k(view, player_id, system)
        ratings[system] = {k: v for k, v in r.items() if k != "player"}
    out: dict[str, Any] = {"id": player_id}
    if profile is not None:
        out["name"] = json.loads(profile[0]).get("name")
    out["ratings"] = ratings
    found = merges(view)
    if found is not None and (joined := found.merged_into(player_id)) is not None:
        out["merged_into"] = joined | {"name": _name_of(view, joined["id"])}
    if found is not None and (absorbed := found.absorbed(player_id)):
        out["merged"] = absorbed
    return out


def merges(view: ReadModel) -> Merges | None:
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


def player_card(view: ReadModel, player_id: str) -> dict[str, Any] | None:
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


def _last_k(view: ReadModel, player_id: str, system: str) -> float | None:
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


def names(view: ReadModel, ids: Sequence[str]) -> dict[str, str]:
    """The names of those of `ids` that have one."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(f"select id, profile from players where id in ({marks})", list(ids))
    return {pid: name for pid, profile in rows if (name := _name(profile))}


def search_players(view: ReadModel, text: str, limit: int, offset: int = 0) -> dict[str, Any]:
    """Players whose id starts with `text` or whose name holds every word of it, ignoring
    accents, transliteration, case and word order ("muller, hans" and "Mueller" find
    "Hans Müller"; `spellings`): `total` and one page of `players`, each with its current
    ratings; id matches first, then by name."""
    words = query_words(text)
    wanted = text.strip()
    if not words and not wanted:
        return {"total": 0, "players": []}
    found = []
    for pid, keys, name in _name_index(view):
        if wanted and pid.startswith(wanted):
            found.append((0 if pid == wanted else 1, "", pid, name))
        elif words and matches(words, keys):
            starts = all(
                any(t.startswith(f) for key in keys for t in key.split() for f in forms)
                for forms in words
            )
            found.append((2 if starts else 3, keys[0], pid, name))
    merged = merges(view)
    if merged is not None:  # a record merged away is found as the one it joined
        kept: dict[str, tuple[Any, ...]] = {}
        for rank, sort, pid, name in found:
            into = merged.resolve(pid)
            if into != pid:
                rank, sort, pid, name = rank, sort, into, _name_of(view, into)
            if pid not in kept or (rank, sort) < kept[pid][:2]:
                kept[pid] = (rank, sort, pid, name)
        found = list(kept.values())
    found.sort()
    page = found[offset : offset + limit] if limit >= 0 else []
    ratings = current_ratings(view, [pid for _, _, pid, _ in page])
    return {
        "total": len(found),
        "players": [
            {"id": pid, "name": name, "ratings": ratings.get(pid, {})} for _, _, pid, name in page
        ],
    }


def _name_of(view: ReadModel, player_id: str) -> str | None:
    return names(view, [player_id]).get(player_id)


def folded(text: str) -> str:
    """`text` for matching: accents dropped, case folded, punctuation as spaces."""
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in plain).split())


# A name's letters written two ways (docs/decisions.md, issue 20): transliterated as German
# and Nordic names are in Latin letters (Müller → Mueller, Ødegaard → Oedegaard, Åberg →
# Aaberg) and bare (Muller, Odegaard, Aberg); letters with no decomposition mapped in both.
_BOTH = {"æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ð": "d", "đ": "d", "ł": "l", "ı": "i"}
TRANSLITERATED = str.maketrans(_BOTH | {"ä": "ae", "ö": "oe", "ü": "ue", "ø": "oe", "å": "aa"})
BARE = str.maketrans(_BOTH | {"ø": "o"})


def spellings(text: str) -> tuple[str, ...]:
    """`text` folded (`folded`) in each of its spellings, transliterated and bare (one when
    they are the same)."""
    low = unicodedata.normalize("NFC", text).casefold()
    return tuple(dict.fromkeys(folded(low.translate(table)) for table in (TRANSLITERATED, BARE)))


def query_words(text: str) -> list[tuple[str, ...]]:
    """Each word of a search in each of its spellings."""
    return list(zip(*(s.split() for s in spellings(text)), strict=True))


def matches(words: Sequence[tuple[str, ...]], keys: Sequence[str]) -> bool:
    """Every word (in one of its spellings) is in one of a name's spellings `keys`."""
    return all(any(f in key for f in forms for key in keys) for forms in words)


_INDEXES: dict[tuple[str, str], list[tuple[str, tuple[str, ...], str | None]]] = {}


def _name_index(view: ReadModel) -> list[tuple[str, tuple[str, ...], str | None]]:
    """(id, the name's spellings, name) of every player, cached per read model file and
    position."""
    path = view.db.execute("pragma database_list").fetchone()[2]
    position = view.db.execute("select value from meta where key = 'last_position'").fetchone()
    key = (path, position[0] if position else "")
    index = _INDEXES.get(key) if path else None
    if index is None:
        rows = view.db.execute(
            "select id, json_extract(profile, '$.name') from players order by id"
        ).fetchall()
        index = [(pid, spellings(name or ""), name) for pid, name in rows]
        _INDEXES.clear()
        _INDEXES[key] = index
    return index


def current_ratings(view: ReadModel, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Member id → system → rating, official rating and N now, for those of `ids` rated."""
    marks = ", ".join("?" for _ in ids)
    rows = view.db.execute(
        f"select player, system, rating, official_rating, games from ratings "
        f"where player in ({marks}) and rating is not null",
        list(ids),
    ).fetchall()
    out: dict[str, dict[str, Any]] = {}
    for pid, system, rating, official, games in sorted(
        rows, key=lambda r: (r[0], system_order(r[1]))
    ):
        out.setdefault(pid, {})[system] = {
            "rating": rating,
            "official_rating": official,
            "games": games,
        }
    return out


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


def standing_before(
    view: ReadModel, player_id: str, system: str, sort_key: str, kind: str | None = None
) -> Standing:
    """A player's standing just before the item at `sort_key`, from the history rows (of one
    `kind` only, if given)."""
    from projections.schema import STATE_SELECT
    from projections.standing import UNRATED, Standing

    row = view.db.execute(
        f"select {STATE_SELECT} from history where player = ? and system = ? "
        + ("and kind = ? " if kind else "")
        + "and sort_key < ? order by sort_key desc limit 1",
        [player_id, str(system), *([kind] if kind else []), sort_key],
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
    from projections.schema import rating_row
    from projections.standing import STATE_COLUMNS, Standing

    out = {}
    columns = ", ".join(("post_rating", "games_after", *STATE_COLUMNS))
    floors = _family(view).floors
    for system in systems_of(view, player_id):
        row = view.db.execute(
            f"select {columns} from history where player = ? and system = ? and end_date <= ? "
            "and post_rating is not null order by sort_key desc limit 1",
            [player_id, system, day],
        ).fetchone()
        if row is None:
            continue
        r = rating_row(player_id, system, Standing.from_columns(row), floors)
        r["established"] = None if r["established"] is None else bool(r["established"])
        r["pending_floor_request"] = json.loads(r["pending_floor_request"] or "null")
        out[system] = {k: v for k, v in r.items() if k not in ("player", "system")}
    return out


def supplement(view: ReadModel, system: str, day: str) -> list[tuple[str, dict, str | None]]:
    """(member id, ratings row, profile JSON) of every player rated in `system` on `day`,
    after every item that ended on or before it, in member-id order."""
    return _supplement(view, system, "end_date <= ?", day)


def list_supplement(
    view: ReadModel, system: str, list_name: str
) -> list[tuple[str, dict, str | None]]:
    """`supplement` as the list `list_name` of the view's family said it, `view` being the
    read model as known at the list (projections.timetravel.list_view)."""
    found = published_list(view, list_name)
    return [] if found is None else _supplement(view, system, "sort_key <= ?", found.sort_key)


def _supplement(
    view: ReadModel, system: str, until: str, value: str
) -> list[tuple[str, dict, str | None]]:
    from projections.schema import rating_row
    from projections.standing import STATE_COLUMNS, Standing

    columns = ", ".join(f"h.{c}" for c in ("post_rating", "games_after", *STATE_COLUMNS))
    rows = view.db.execute(
        f"select h.player, p.profile, {columns} from history h "
        "join (select player, max(sort_key) as sort_key from history "
        f"where system = ? and {until} group by player) latest "
        "on latest.player = h.player and latest.sort_key = h.sort_key "
        "left join players p on p.id = h.player "
        "where h.system = ? order by h.player",
        [system, value, system],
    ).fetchall()
    out = []
    floors = _family(view).floors
    for player_id, profile, *state in rows:
        if state[0] is None:
            continue
        standing = Standing.from_columns(state)
        out.append((player_id, rating_row(player_id, system, standing, floors), profile))
    return out


def list_systems(view: ReadModel, list_name: str) -> list[str]:
    """The systems in which the list `list_name` of the view's family rates anyone, in their
    usual order (`view` as known at the list: projections.timetravel.list_view)."""
    found = published_list(view, list_name)
    if found is None:
        return []
    rows = view.db.execute(
        "select distinct system from history where sort_key <= ? and post_rating is not null",
        [found.sort_key],
    ).fetchall()
    return sorted((r[0] for r in rows), key=system_order)


def list_entries(view: ReadModel, system: str, list_name: str) -> list[dict[str, Any]]:
    """Every row of the list `list_name` in `system`, highest rating first (then member id):
    the player's card fields, his rating as published, the exact one and his games."""
    rows = [
        {"id": pid, **card(json.loads(profile) if profile else {}), **_list_values(r)}
        for pid, r, profile in list_supplement(view, system, list_name)
    ]
    return sorted(rows, key=lambda r: (-(r["rating"] or 0), r["id"]))


def _list_values(row: dict[str, Any]) -> dict[str, Any]:
    """The rating as published, the exact one, the games and (US Chess §1, where the family
    says) whether it is established: a provisional one is printed `1234P12`."""
    established = None if row["established"] is None else bool(row["established"])
    return {
        "rating": row["official_rating"],
        "exact": row["rating"],
        "games": row["games"],
        "established": established,
    }


def awaiting_admin(view: ReadModel) -> list[dict[str, Any]]:
    """What awaits the office: pending floor-lowering requests (§7) and ceilings set below the
    floor, with the player's name, in player and system order."""
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


# Published lists


def published_lists(view: ReadModel, family: str | None = None) -> list[PublishedList]:
    """The published lists (of `family`), each family's in the order published."""
    from projections.periods import PublishedList

    where = "" if family is None else "where family = ? "
    rows = view.db.execute(
        "select family, number, name, as_of, cutoff_position, position from lists "
        + where
        + "order by family, number",
        [] if family is None else [family],
    ).fetchall()
    return [PublishedList(*r) for r in rows]


def published_list(view: ReadModel, name: str) -> PublishedList | None:
    """The list of the view's rules family named `name`."""
    return next((x for x in published_lists(view, view.family) if x.name == name), None)


def list_rating(
    view: ReadModel, player_id: str, system: str, list_name: str
) -> dict[str, Any] | None:
    """What the list `list_name` said of a player: `view` is the read model as known at the
    list (projections.timetravel.list_view), read after every item the list rates."""
    found = published_list(view, list_name)
    if found is None:
        return None
    row = view.db.execute(
        "select post_rating, official_rating, games_after, item_key from history "
        "where player = ? and system = ? and sort_key <= ? order by sort_key desc limit 1",
        [player_id, system, found.sort_key],
    ).fetchone()
    if row is None or row[0] is None:
        return None
    return {
        "id": player_id,
        "system": system,
        "list": found.name,
        "as_of": found.as_of,
        "rating": row[0],
        "official_rating": row[1],
        "games": row[2],
        "from": row[3],
    }


def rates_by_lists(view: ReadModel) -> bool:
    """Whether the view's family rates by its published lists (projections.periods)."""
    from projections.periods import in_periods

    return in_periods(view.family, published_lists(view, view.family))


def published_and_pending(
    view: ReadModel, player_id: str, system: str, day: str
) -> dict[str, Any] | None:
    """Under FIDE periods: the rating published on the last list in force on `day` (before
    any list: the rating he came with), and the change of his sections ended by `day` that
    no list in force yet rates (ΣΔR, 10.65), or his Ru results waiting for a first rating."""
    from ledger.rules.fide.rated import period_sum

    lists = {x.name: x for x in published_lists(view, view.family)}
    rows = view.db.execute(
        "select kind, pre_rating, post_rating, official_rating, item_key, detail, games_after "
        "from history where player = ? and system = ? and end_date <= ? "
        "order by sort_key",
        [player_id, system, day],
    ).fetchall()
    if not rows:
        return None
    published = None
    changes: list[float] = []
    results = 0
    for kind, pre, post, official, key, detail, _ in rows:
        on = json.loads(detail).get("list")
        if kind not in ("section", "match"):  # a list's row (in force: it ended by `day`)
            published = {"list": on, "rating": post, "official_rating": official, "from": key}
        elif on is None or lists[on].as_of > day:
            if pre is None:
                results += 1
            else:  # 0.0 is left out of the detail
                changes.append(json.loads(detail).get("rating_change", 0.0))
    if published is None and rows[0][1] is not None:
        published = {"list": None, "rating": rows[0][1], "official_rating": None, "from": None}
    if published is not None and published["official_rating"] is None:
        published["official_rating"] = _official(published["rating"])
    return {
        "id": player_id,
        "system": system,
        "as_of": day,
        "published": published,
        "pending_change": period_sum(changes),
        "pending_sections": len(changes),
        "pending_results": results,
        "games": rows[-1][6],
    }


def items_in_order(view: ReadModel) -> list[Item]:
    """Every rated item as it stands now, in rating order."""
    from projections.items import Item

    rows = view.db.execute(
        "select key, kind, start, end, position, revision, payload from items order by sort_key"
    ).fetchall()
    return [Item(*r[:6], json.loads(r[6])) for r in rows]


# Items, sections and amendments


def item(view: ReadModel, key: str) -> Item | None:
    """A rated item as it stands now (its latest revision)."""
    from ledger import events
    from projections.items import KIND_FACTS, Item

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
    rows = view.db.execute(
        "select s.section_id, s.event_name, s.start_date, s.end_date, s.status, "
        "(select count(*) from item_players p where p.item_key = 'section:' || s.section_id) "
        "from sections s"
        + (" where " + " and ".join(where) if where else "")
        + " order by s.end_date desc, s.start_date desc, s.section_id",
        args,
    ).fetchall()
    words = query_words(text)
    if words:
        rows = [r for r in rows if matches(words, spellings(f"{r[0]} {r[1] or ''}"))]
    page = rows[offset:] if limit < 0 else rows[offset : offset + limit]
    return {
        "total": len(rows),
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
    and games, and per system the rating before and after."""
    rows = view.db.execute(
        "select i.key, i.start, i.end, i.payload from item_players p "
        "join items i on i.key = p.item_key "
        "where p.player = ? and i.kind = 'section' order by i.sort_key desc",
        [player_id],
    ).fetchall()
    out = []
    ids = person(view, player_id)  # a record merged into his plays as him
    for key, first, last, payload in rows:
        report = json.loads(payload)
        score, games = 0.0, 0
        for g in report.get("games", ()):
            if ids & {g.get("white"), g.get("black")}:
                result = g.get("result", "")
                score += _points(result, g.get("white") in ids)
                games += "F" not in result
        for b in report.get("byes", ()):
            if b.get("player") in ids:
                score += BYE_POINTS.get(b.get("bye"), 0.0)
        changes = view.db.execute(
            "select system, pre_rating, post_rating, official_rating, detail from history "
            "where player = ? and item_key = ?",
            [player_id, key],
        ).fetchall()
        out.append(
            {
                "section_id": key.removeprefix("section:"),
                "event_name": report.get("event_name"),
                "start_date": first,
                "end_date": last,
                "score": score,
                "games": games,
                "ratings": {
                    system: _played_rating(pre, post, official, detail)
                    for system, pre, post, official, detail in sorted(
                        changes, key=lambda c: system_order(c[0])
                    )
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
    waiting = json.loads(detail or "{}")
    if pre is not None and pre == post and "list" in waiting:
        out["pending_change"] = waiting.get("rating_change", 0.0)  # 0.0 is left out
    return out


def _points(result: str, white: bool) -> float:
    """The player's points from a result string; a forfeit counts as its result."""
    left, _, right = result.replace("½", "1/2").replace("F", "").partition("-")
    return {"1": 1.0, "1/2": 0.5}.get(left if white else right, 0.0)


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
        return json.loads(found[0])
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


def amendment_rows(view: ReadModel) -> list[dict[str, Any]]:
    """Every recorded rules amendment, in ledger order, as stored."""
    return list(view.db["amendments"].rows_where(order_by="position"))


def amendments(view: ReadModel) -> tuple[Amendment, ...]:
    """Every recorded rules amendment, parsed, in ledger order."""
    from projections.raters.uschess import parse_amendments

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


def _history_out(r: dict[str, Any]) -> dict[str, Any]:
    r = dict(r)
    r["detail"] = json.loads(r["detail"])
    return r


def _official(rating: float | None) -> int | None:
    return None if rating is None else round_half_up(rating)


def _name(profile: str | None) -> str | None:
    return None if profile is None else json.loads(profile).get("name")
