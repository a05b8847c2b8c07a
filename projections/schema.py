"""The read model's tables: columns, types and inserts, all in one place."""

from __future__ import annotations

import functools
import json
from datetime import date
from typing import TYPE_CHECKING, Any, Protocol

from ledger.rules.rounding import round_half_up
from ledger.rules.uschess import floors
from ledger.rules.uschess.systems import System, is_established
from ledger.rules.uschess.versions import RuleVersion, resolve
from projections import SCHEMA_VERSION, history_store
from projections.history_store import NARROW_COLUMNS
from projections.standing import STATE_COLUMNS, Standing

if TYPE_CHECKING:
    import sqlite_utils

# A rater's history row (projections/change.py); stored split (projections/history_store).
HISTORY_COLUMNS = (*NARROW_COLUMNS, "detail", *STATE_COLUMNS)
STATE = slice(len(HISTORY_COLUMNS) - len(STATE_COLUMNS), len(HISTORY_COLUMNS))
POST_RATING = HISTORY_COLUMNS.index("post_rating")
PRE_RATING = HISTORY_COLUMNS.index("pre_rating")
GAMES_AFTER = HISTORY_COLUMNS.index("games_after")
STATE_SELECT = ", ".join(("post_rating", "games_after", *STATE_COLUMNS))

HISTORY_TYPES = {
    "s_wins": int,
    "s_draws": int,
    "s_losses": int,
    "s_sections_of_three": int,
    "s_peak": float,
    "s_olm_games": int,
    "s_money_floor": int,
    "s_director_floor": int,
    "s_ceiling": float,
    "s_floor_lowerings": int,
    "position": int,
    "revision": int,
    "bonus_multiplier": float,
    "pre_rating": float,
    "post_rating": float,
    "official_rating": int,
    "games_before": int,
    "games_after": int,
    "m": int,
    "score": float,
    "n_eff": float,
    "k": float,
    "expected": float,
    "bonus": float,
    "step3": float,
    "step4": float,
    "step5": float,
}
RATING_COLUMNS = {
    "player": str,
    "system": str,
    "rating": float,
    "official_rating": int,
    "games": int,
    "wins": int,
    "draws": int,
    "losses": int,
    "established": int,
    "history": str,
    "sections_of_three": int,
    "peak": float,
    "olm_games": int,
    "olm_title_date": str,
    "floor": int,
    "floor_bound": str,
    "floor_absolute": int,
    "floor_peak": int,
    "floor_olm": int,
    "floor_money": int,
    "floor_director": int,
    "floor_lowerings": int,
    "ceiling": float,
    "pending_floor_request": str,
    "rated_on": str,
}


SECTION_COLUMNS = (
    "section_id",
    "event_name",
    "status",
    "start_date",
    "end_date",
    "submitted_position",
    "latest_position",
    "reason",
)
LIST_COLUMNS = ("family", "number", "name", "as_of", "cutoff_position", "position")
# The secondary indexes: a rebuild drops them and builds them once every row is in (issue 21).
INDEXES = {
    "idx_items_sort_key": "create index idx_items_sort_key on items (sort_key)",
    "idx_item_players_player": "create index idx_item_players_player on item_players (player)",
    "idx_history_key": "create unique index idx_history_key "
    "on history_rows (player, system, sort_key)",
    "idx_history_item_key": "create index idx_history_item_key on history_rows (item_key)",
    "idx_problems_item_key": "create index idx_problems_item_key on problems (item_key)",
}
# The indexes on the records a rebuild writes before it rates (projections/batch.py): its
# writer builds them while the items are rated; the others once every row is in.
BEFORE_RATING = ("idx_items_sort_key", "idx_item_players_player")
AFTER_RATING = tuple(name for name in INDEXES if name not in BEFORE_RATING)
RATINGS_INSERT = (
    f"insert or replace into ratings ({', '.join(RATING_COLUMNS)}) "
    f"values ({', '.join('?' for _ in RATING_COLUMNS)})"
)


# The read model's logical content, whatever its layout: each table as a query answers it, in
# key order, its columns named. `View.digest` hashes these, so a layout change (a table split,
# an index, another version) that loses or changes no value keeps the digest (docs/decisions.md,
# "A digest of the content"). The layout's version (meta `schema`) is not content.
CONTENT = {
    "amendments": "select position, parameter, value, effective, until, reason from amendments "
    "order by position",
    "entries": "select position, key from entries order by position",
    "history": f"select {', '.join(HISTORY_COLUMNS)} from history "
    "order by player, system, sort_key",
    "item_players": "select item_key, player from item_players order by item_key, player",
    "items": "select key, kind, sort_key, start, end, position, revision, payload from items "
    "order by key",
    "lists": f"select {', '.join(LIST_COLUMNS)} from lists order by family, number",
    "meta": "select key, value from meta where key != 'schema' order by key",
    "players": "select id, profile, position from players order by id",
    "problems": "select position, item_key, kind, reason from problems order by position, item_key",
    "ratings": f"select {', '.join(RATING_COLUMNS)} from ratings order by player, system",
    "revisions": "select key, revisions from revisions order by key",
    "sections": f"select {', '.join(SECTION_COLUMNS)} from sections order by section_id",
}


def create(db: sqlite_utils.Database, family: str, what_if: str | None) -> bool:
    """Every table of an empty read model (nothing if complete; a half-made one, or one of
    another schema version, starts again: a read model is rebuilt from the ledger); whether
    it made them."""
    names = db.table_names()
    if "ratings" in names and _schema(db) == SCHEMA_VERSION:  # created last: complete
        return False
    for index in [r[0] for r in db.execute("select name from sqlite_master where type = 'index'")]:
        if not index.startswith("sqlite_"):
            db.execute(f"drop index if exists [{index}]")
    for view in db.view_names():
        db.execute(f"drop view [{view}]")
    for table in names:  # a creation killed half-way, or an older layout: start again
        db[table].drop()
    with db.conn:
        db["meta"].create({"key": str, "value": str}, pk="key")
        db["meta"].insert_all(
            [
                {"key": "schema", "value": SCHEMA_VERSION},
                {"key": "last_position", "value": "0"},
                {"key": "rules_family", "value": family},
            ]
            + ([{"key": "what_if", "value": what_if}] if what_if else [])
        )
        db["players"].create({"id": str, "profile": str, "position": int}, pk="id")
        db["items"].create(
            {
                "key": str,
                "kind": str,
                "sort_key": str,
                "start": str,
                "end": str,
                "position": int,
                "revision": int,
                "payload": str,
            },
            pk="key",
        )
        db.execute(
            "create table item_players (item_key TEXT, player TEXT, "
            "primary key (item_key, player)) without rowid"
        )
        db["sections"].create(
            {
                "section_id": str,
                "event_name": str,
                "status": str,
                "start_date": str,
                "end_date": str,
                "submitted_position": int,
                "latest_position": int,
                "reason": str,
            },
            pk="section_id",
        )
        db["amendments"].create(
            {
                "position": int,
                "parameter": str,
                "value": str,
                "effective": str,
                "until": str,
                "reason": str,
            },
            pk="position",
        )
        db["lists"].create(
            {
                "family": str,
                "number": int,
                "name": str,
                "as_of": str,
                "cutoff_position": int,
                "position": int,
            },
            pk=("family", "number"),
        )
        # Narrow rows, their standings and details apart (projections/history_store.py).
        types = {int: "INTEGER", float: "FLOAT", str: "TEXT"}
        history_store.create(
            db.conn, {c: types[HISTORY_TYPES.get(c, str)] for c in HISTORY_COLUMNS}
        )
        # Entries the projection could not use: "not rated: reason" (issue 10).
        db.execute(
            "create table problems (position INTEGER, item_key TEXT, kind TEXT, reason TEXT, "
            "primary key (position, item_key))"
        )
        # Which record (item key, `player:ID`, `amendment:POS`) each entry changed, and every
        # revision of a record changed more than once: what a void (EntryVoided) takes back.
        db["entries"].create({"position": int, "key": str}, pk="position")
        db["revisions"].create({"key": str, "revisions": str}, pk="key")
        db["ratings"].create(RATING_COLUMNS, pk=("player", "system"))
        for index in INDEXES.values():
            db.execute(index)
    return True


def _schema(db: sqlite_utils.Database) -> str | None:
    if "meta" not in db.table_names():
        return None
    row = db.execute("select value from meta where key = 'schema'").fetchone()
    return None if row is None else row[0]


@functools.lru_cache(maxsize=4096)
def _version_on(day: str) -> RuleVersion:
    return resolve(date.fromisoformat(day)).version


@functools.lru_cache(maxsize=4096)
def _floor_systems(day: str, system: str) -> tuple[bool, bool]:
    """floors.floor_systems of `system` under the rules version in force on `day`."""
    return floors.floor_systems(System(system), _version_on(day))


def rating_row(player: str, system: str, s: Standing, with_floors: bool = True) -> dict[str, Any]:
    """The `ratings` row for a standing: rating, N, results, ceiling; with US Chess floors
    (`with_floors`, `Family.floors`) each floor component and whether established."""
    f = s.floors
    floor = bound = absolute = peak = olm_level = money = director = None
    if with_floors:
        personal, olm = _floor_systems(s.rated_on, system)
        floor, kind = floors.floor_of(f, personal, olm)
        bound = str(kind)
        # each component (floors.components_of), without the dictionary
        absolute = floors.personal_absolute_floor(f, personal)
        peak = floors.peak_floor(f.peak)
        olm_level = floors.olm_floor_of(f, olm)
        money, director = f.money_floor, f.director_floor
    return {
        "player": player,
        "system": str(system),
        "rating": s.rating,
        "official_rating": round_half_up(s.rating),
        "games": s.games,
        "wins": f.wins,
        "draws": f.draws,
        "losses": s.losses,
        "established": int(is_established(s.games)) if with_floors else None,
        "history": s.history,
        "sections_of_three": f.sections_of_three,
        "peak": f.peak,
        "olm_games": f.olm_games,
        "olm_title_date": s.olm_title_date,
        "floor": floor,
        "floor_bound": bound,
        "floor_absolute": absolute,
        "floor_peak": peak,
        "floor_olm": olm_level,
        "floor_money": money,
        "floor_director": director,
        "floor_lowerings": s.floors.floor_lowerings,
        "ceiling": s.floors.ceiling,
        "pending_floor_request": None
        if s.pending_request is None
        else json.dumps(
            {"new_floor": s.pending_request[0], "rating_if_granted": s.pending_request[1]}
        ),
        "rated_on": s.rated_on,
    }


class ReadModel(Protocol):
    """What a query needs of an open read model: its database and its rules family."""

    db: sqlite_utils.Database
    family: str
