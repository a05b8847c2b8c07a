"""The read model's tables: columns, types and inserts, all in one place."""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Any, Protocol

from ledger.rules.families import NAMES
from ledger.rules.rounding import round_half_up
from projections import SCHEMA_VERSION, knowledge, moments
from projections.history_store import NARROW_COLUMNS
from projections.rating import history_layout, rater_class
from projections.standing import Standing

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    import sqlite_utils

# A rater's history row (projections/change.py): these, then its family's own columns, its
# figures and its state (`Rater.figure_columns`, `Rater.state_columns`); stored split
# (projections/history_store).
ROW_COLUMNS = (*NARROW_COLUMNS, "detail")
STATE = slice(len(ROW_COLUMNS), None)  # a history row's own columns, whatever the family's
POST_RATING = ROW_COLUMNS.index("post_rating")
PRE_RATING = ROW_COLUMNS.index("pre_rating")
GAMES_AFTER = ROW_COLUMNS.index("games_after")
SORT_KEY = ROW_COLUMNS.index("sort_key")

ROW_TYPES = {
    "position": int,
    "revision": int,
    "pre_rating": float,
    "post_rating": float,
    "official_rating": int,
    "games_before": int,
    "games_after": int,
    "m": int,
    "score": float,
    "k": float,
    "expected": float,
}
# The `ratings` columns of every family: its own (`Rater.rating_columns`) come between these
# and `rated_on`.
RATING_HEAD = {
    "player": str,
    "system": str,
    "rating": float,
    "official_rating": int,
    "games": int,
    "wins": int,
    "draws": int,
    "losses": int,
}
RATING_TAIL = {"rated_on": str}


@functools.cache
def history_columns(family: str) -> tuple[str, ...]:
    """A history row's columns in family `family`'s read model, as its rater makes it."""
    reader = rater_class(family)
    return (*ROW_COLUMNS, *reader.figure_columns, *reader.state_columns)


def state_select(family: str) -> str:
    """The columns a standing is read from (`Rater.standing_of`): rating, N, state."""
    return ", ".join(("post_rating", "games_after", *rater_class(family).state_columns))


@functools.cache
def rating_columns(family: str) -> dict[str, type]:
    """The `ratings` columns of family `family`'s read model, in order."""
    return {**RATING_HEAD, **rater_class(family).rating_columns, **RATING_TAIL}


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
# writer builds them while the items are rated; the others once every row is in, but for
# those it keeps while the history is loaded (`LOADED`).
BEFORE_RATING = ("idx_items_sort_key", "idx_item_players_player")
# Kept, not dropped, by a rebuild: its history rows come an item at a time, so each item's
# entries go to one place of this index, kept by the writer while the items are rated (its
# other core) rather than sorted after the last, when the rebuild waits for it
# (docs/decisions.md, "The history's item index kept while the rows are loaded").
LOADED = ("idx_history_item_key",)
AFTER_RATING = tuple(name for name in INDEXES if name not in BEFORE_RATING + LOADED)


class RatingsTable:
    """The `ratings` table of one family's read model: its columns and statements."""

    def __init__(self, columns: dict[str, type]) -> None:
        self.columns = columns
        self.names = names = tuple(columns)
        self.values = operator.itemgetter(*names)  # a row's values, in column order
        self.insert = (
            f"insert or replace into ratings ({', '.join(names)}) "
            f"values ({', '.join('?' for _ in names)})"
        )
        self.update = (
            f"update ratings set {', '.join(f'{c} = ?' for c in names[2:])} "
            "where player = ? and system = ?"
        )
        # The rows of (player, system) keys given as JSON ([[player, system], ...], each key
        # once): each key's row found by the table's key, joined (an `in` of the keys first
        # built them an index of their own: 9 % dearer for a correction's 1,856).
        self.of_keys = (
            f"select {', '.join(f'r.{c}' for c in names)} from json_each(?) k join ratings r "
            "on r.player = json_extract(k.value, '$[0]') "
            "and r.system = json_extract(k.value, '$[1]')"
        )


@functools.cache
def ratings_table(family: str) -> RatingsTable:
    return RatingsTable(rating_columns(family))


# The read model's logical content, whatever its layout: each table as a query answers it, in
# key order, its columns named (`{history}` and `{ratings}`: the family's, `content`).
# `View.digest` hashes these, so a layout change (a table split, an index, another version) that
# loses or changes no value keeps the digest (docs/decisions.md, "A digest of the content").
# The layout's version (meta `schema`) is not content.
CONTENT = {
    "amendments": "select position, parameter, value, effective, until, reason from amendments "
    "order by position",
    "entries": "select position, key from entries order by position",
    "history": "select {history} from history order by player, system, sort_key",
    "item_players": "select item_key, player from item_players order by item_key, player",
    "items": "select key, kind, sort_key, start, end, position, revision, payload from items "
    "order by key",
    "lists": f"select {', '.join(LIST_COLUMNS)} from lists order by family, number",
    # the ledger's family is the ledger's fact, not the model's content (projections/binding.py)
    # nor are the times the model's entries were recorded at (projections/moments.py)
    "meta": "select key, value from meta "
    f"where key not in ('schema', 'ledger_family', '{moments.KEY}') order by key",
    "players": "select id, profile, position from players order by id",
    "problems": "select position, item_key, kind, reason from problems order by position, item_key",
    "ratings": "select {ratings} from ratings order by player, system",
    "revisions": "select key, revisions from revisions order by key",
    "sections": f"select {', '.join(SECTION_COLUMNS)} from sections order by section_id",
}


@functools.cache
def content(family: str) -> dict[str, str]:
    """`CONTENT` of family `family`'s read model: its history and ratings columns named."""
    history = ", ".join(rater_class(family).history_order or history_columns(family))
    ratings = ", ".join(rating_columns(family))
    return {
        t: q.replace("{history}", history).replace("{ratings}", ratings) for t, q in CONTENT.items()
    }


# The players' names in the forms a search reads them (projections/names.py): made from the
# `players` rows by the batches that write them, and not content (`CONTENT`: the digest is the
# profiles'); each lookup of a search is a range scan of a primary key (issue 33).
NAME_TABLES = {
    "names": "create table names (player TEXT primary key, sort_name TEXT) without rowid",
    "name_words": "create table name_words (form INTEGER, word TEXT, player TEXT, "
    "primary key (form, word, player)) without rowid",
    "name_keys": "create table name_keys (kind INTEGER, key TEXT, word TEXT, "
    "primary key (kind, key, word)) without rowid",
}

# The tables of the ledger's records (the rated tables follow the family: `_create_rated`):
# each one's columns and primary key, in the order they are made.
RECORD_TABLES: dict[str, tuple[dict[str, type], str | tuple[str, ...]]] = {
    "meta": ({"key": str, "value": str}, "key"),
    "players": ({"id": str, "profile": str, "position": int}, "id"),
    "items": (
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
        "key",
    ),
    "sections": (
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
        "section_id",
    ),
    "amendments": (
        {
            "position": int,
            "parameter": str,
            "value": str,
            "effective": str,
            "until": str,
            "reason": str,
        },
        "position",
    ),
    "lists": (
        {
            "family": str,
            "number": int,
            "name": str,
            "as_of": str,
            "cutoff_position": int,
            "position": int,
        },
        ("family", "number"),
    ),
    # Which record (item key, `player:ID`, `amendment:POS`) each entry changed, and every
    # revision of a record changed more than once: what a void (EntryVoided) takes back.
    "entries": ({"position": int, "key": str}, "position"),
    "revisions": ({"key": str, "revisions": str}, "key"),
    # The office's review queue (issue 32, projections/uploads.py): `roles:ACTOR` and
    # `upload:SECTION_ID` notes, outside the content (`OUTSIDE_CONTENT`).
    "reviews": ({"key": str, "value": str}, "key"),
}
OUTSIDE_CONTENT = ("reviews", *knowledge.TABLES)
"""Tables `content` leaves out, so no digest changes with them: the office's review queue is its
work list, not a rating (docs/decisions.md, "The write door (issue 32)"); the record of what the
model knew when is its catch-ups' history, which a rebuild does not have (projections/
knowledge.py; docs/decisions.md, "As known at, from the record")."""


def create(db: sqlite_utils.Database, family: str, what_if: str | None) -> bool:
    """Every table of an empty read model (nothing if complete; a half-made one, one of
    another schema version, or one without its family's columns starts again: a read model
    is rebuilt from the ledger); whether it made them."""
    names = db.table_names()
    if "ratings" in names and _schema(db) == SCHEMA_VERSION and _family_columns(db):
        return False  # the ratings table is created last: complete
    _clear(db, names)
    with db.conn:
        for name, (columns, pk) in RECORD_TABLES.items():
            db.table(name).create(columns, pk=pk)
        meta = {"schema": SCHEMA_VERSION, "last_position": "0", "rules_family": family}
        meta |= {"what_if": what_if} if what_if else {}
        db.table("meta").insert_all([{"key": k, "value": v} for k, v in meta.items()])
        db.execute(
            "create table item_players (item_key TEXT, player TEXT, "
            "primary key (item_key, player)) without rowid"
        )
        for table in NAME_TABLES.values():
            db.execute(table)
        _create_rated(db, family)
        for index in INDEXES.values():
            db.execute(index)
    return True


def _clear(db: sqlite_utils.Database, names: list[str]) -> None:
    """A creation killed half-way, or an older layout: every index, view and table goes."""
    for index in [r[0] for r in db.execute("select name from sqlite_master where type = 'index'")]:
        if not index.startswith("sqlite_"):
            db.execute(f"drop index if exists [{index}]")
    for view in db.view_names():
        db.execute(f"drop view [{view}]")
    for table in names:
        db[table].drop()


def _create_rated(db: sqlite_utils.Database, family: str) -> None:
    """The tables of what the family's rater makes: the history (narrow rows, standings and
    details apart, projections/history_store.py), the problems and, last, the ratings."""
    types = {int: "INTEGER", float: "FLOAT", str: "TEXT"}
    reader = rater_class(family)
    column_types = {**ROW_TYPES, **reader.figure_columns, **reader.state_columns}
    history_types = {c: types[column_types.get(c, str)] for c in history_columns(family)}
    history_layout(family).create(db.conn, history_types)
    knowledge.create(db.conn, history_types)  # what the model knew when: not content
    # Entries the projection could not use: "not rated: reason" (issue 10).
    db.execute(
        "create table problems (position INTEGER, item_key TEXT, kind TEXT, reason TEXT, "
        "primary key (position, item_key))"
    )
    db.table("ratings").create(rating_columns(family), pk=("player", "system"))


def _family_columns(db: sqlite_utils.Database) -> bool:
    """Whether the model's tables have its family's columns: one made before issue 29 has US
    Chess's in every family, its figures among the narrow rows (`SCHEMA_VERSION` stays: a
    model's content, and so its digest, is the same)."""
    row = db.execute("select value from meta where key = 'rules_family'").fetchone()
    if row is None or row[0] not in NAMES:
        return True  # not a family's model: the view refuses it by its name
    ratings = [r[1] for r in db.execute("pragma table_info(ratings)")]
    own = [r[1] for r in db.execute("pragma table_info(history_standing)")][1:]
    return ratings == list(rating_columns(row[0])) and own == list(
        history_layout(row[0]).own_columns
    )


def _schema(db: sqlite_utils.Database) -> str | None:
    if "meta" not in db.table_names():
        return None
    row = db.execute("select value from meta where key = 'schema'").fetchone()
    return None if row is None else row[0]


def rating_row(family: str, player: str, system: str, s: Standing[object]) -> dict[str, Any]:
    """The `ratings` row of a standing in family `family`'s read model: rating, N, results,
    the family's own columns (`Rater.rating_fields`), the day last rated."""
    return {
        "player": player,
        "system": str(system),
        "rating": s.rating,
        "official_rating": None if s.rating is None else round_half_up(s.rating),
        "games": s.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        **rater_class(family).rating_fields(system, s),
        "rated_on": s.rated_on,
    }


class ReadModel(Protocol):
    """What a query needs of an open read model: its database and its rules family."""

    db: sqlite_utils.Database
    family: str


class Executes(Protocol):
    """A connection as a query that only runs SQL uses it: sqlite3's or sqlite_utils'."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> sqlite3.Cursor: ...


class SqlModel(Protocol):
    """What a query that only runs SQL needs of a read model: the fast read path
    (ledger/entrypoints/quick.py) gives it a sqlite3 connection, without sqlite_utils."""

    @property
    def db(self) -> Executes: ...

    @property
    def family(self) -> str: ...
