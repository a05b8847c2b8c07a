"""The history's stored layout (issue 21, "a lean read-model layout: history rows narrow,
detail and snapshots only where they exist, apart; only changed rows rewritten by a
catch-up"): the rows the raters make, stored split, read back the same."""

import json
import sqlite3
from collections.abc import Callable

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.log import read_entries
from ledger.rules.families import DEFAULT
from projections import SCHEMA_VERSION, history_store, timetravel
from projections.projector import View
from projections.rating import history_layout, rater_class
from projections.schema import ROW_TYPES, history_columns
from projections.schema import content as family_content
from projections.seals import Seals
from projections.writer import LocalWriter, parts

A, B, C, D, E = "20000001", "20000002", "20000003", "20000004", "20000005"
# The default family's layout (issue 29: each family's history keeps its own state columns).
CONTENT = family_content(DEFAULT)
HISTORY_COLUMNS = history_columns(DEFAULT)
HISTORY_TYPES = {
    **ROW_TYPES,
    **rater_class(DEFAULT).figure_columns,
    **rater_class(DEFAULT).state_columns,
}
LAYOUT = history_layout(DEFAULT)


@pytest.fixture
def ledger(tmp_path):
    """Established A and B (opening balances: rows with no detail) and unrated C, D, E (their
    first rows keep their initialization in `detail`); two later sections."""
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ledger.register(A, B, C, D, E, adult=True)
    ledger.opening(A, "OTBR", 1800, 40)
    ledger.opening(B, "OTBR", 1700, 40)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.submit(round_robin("FEB", [A, B], "2024-02-06"))
    ledger.submit(round_robin("MAR", [D, E], "2024-03-06"))
    yield ledger
    ledger.app.close()


def content(view: View, table: str = "history") -> list[str]:
    """A content table's rows as the digest hashes them."""
    return [json.dumps(r, default=str) for r in view.db.execute(CONTENT[table])]


def test_a_history_row_without_detail_stores_no_detail_row(ledger, tmp_path):
    # "detail ... only where they exist, apart": a row whose detail is empty ("{}") has no
    # row in history_detail, one with a detail has exactly one, and the view gives both back.
    view = ledger.rebuilt(tmp_path / "view.db")
    rows = view.db.execute(
        "select h.id, v.detail, d.detail from history_rows h "
        "join history v on v.player = h.player and v.system = h.system "
        "and v.sort_key = h.sort_key left join history_detail d on d.id = h.id"
    ).fetchall()
    empty = [r for r in rows if r[1] == "{}"]
    kept = [r for r in rows if r[1] != "{}"]
    assert empty and kept  # the ledger has rows of both kinds
    assert all(stored is None for _, _, stored in empty)
    assert all(stored == shown for _, shown, stored in kept)
    count = view.db.execute("select count(*) from history_detail").fetchone()[0]
    assert count == len(kept) < len(rows)


def test_a_history_row_keeps_its_standing_apart_and_only_with_a_value():
    # "the per-row standing snapshot ... only where they exist": a rater's row is split into
    # a narrow row, a standing only if some state column has a value, a detail only if any.
    narrow = (0,) * len(history_store.NARROW_COLUMNS)
    with_all = (*narrow, '{"init": 1}', *range(len(LAYOUT.no_standing)))
    bare = (*narrow, "{}", *LAYOUT.no_standing)
    stored = [(7, history_store.printed(with_all)), (8, history_store.printed(bare))]
    rows, standing, detail = parts(stored, LAYOUT.split)
    assert [r[0] for r in rows] == [7, 8]
    assert rows[1] == (8, *narrow, history_store.fingerprint(bare))
    assert standing == [(7, *range(len(LAYOUT.no_standing)))]
    assert detail == [(7, '{"init": 1}')]


OLD_LAYOUT = (  # schema version 2: one WITHOUT ROWID table, every column in every row
    "create table history ("
    + ", ".join(
        f"[{c}] {({int: 'INTEGER', float: 'FLOAT'}).get(HISTORY_TYPES.get(c), 'TEXT')}"
        for c in HISTORY_COLUMNS
    )
    + ", primary key (player, system, sort_key)) without rowid"
)


def test_rows_split_by_the_writer_are_stored_as_parts_gives_them(tmp_path):
    # Issue 33 (the writer's CPU): rows bound once into a temporary table and copied by SQL
    # into their tables, two chunks numbered 1-2 and 3-4, store what `parts` makes of them.
    narrow = (0,) * len(history_store.NARROW_COLUMNS)
    with_all = (*narrow, '{"init": 1}', *range(len(LAYOUT.no_standing)))
    bare = (*narrow, "{}", *LAYOUT.no_standing)
    chunks = [[with_all, bare], [bare, with_all]]
    path = tmp_path / "model.db"
    conn = sqlite3.connect(path)
    LAYOUT.create(conn, {c: "" for c in HISTORY_COLUMNS})
    conn.commit()
    conn.close()
    writer = LocalWriter(str(path))
    for first, chunk in ((1, chunks[0]), (3, chunks[1])):
        LAYOUT.append(writer, list(chunk), first)
    writer.close()
    conn = sqlite3.connect(path)
    stored = [
        conn.execute(f"select * from {t} order by id").fetchall() for t in history_store.TABLES
    ]
    made = parts(enumerate(map(history_store.printed, [*chunks[0], *chunks[1]]), 1), LAYOUT.split)
    assert stored == [[tuple(r) for r in part] for part in made]
    assert [len(part) for part in stored] == [4, 2, 2]


@pytest.mark.patches  # Layout.append, compiled: run from source (scripts/test)
def test_the_history_content_is_the_same_as_in_the_layout_before(ledger, tmp_path, monkeypatch):
    # "the content the digest hashes must still give the same rows": the rows the raters
    # made, stored in the layout before this one (schema version 2), read by the digest's
    # content query give what the split layout gives.
    made = []
    append = history_store.Layout.append

    def keep(self, conn, rows, first):
        made.extend(rows)
        return append(self, conn, rows, first)

    monkeypatch.setattr(history_store.Layout, "append", keep)
    view = ledger.rebuilt(tmp_path / "view.db")
    old = sqlite3.connect(tmp_path / "old.db")
    old.execute(OLD_LAYOUT)
    old.executemany(f"insert into history values ({', '.join('?' * len(HISTORY_COLUMNS))})", made)
    before = [json.dumps(r, default=str) for r in old.execute(CONTENT["history"])]
    assert len(made) == 2 + 3 + 2 + 2  # opening balances, JAN, FEB, MAR
    assert content(view) == before


def test_a_catch_up_ends_with_the_digest_of_a_rebuild(ledger, tmp_path):
    # Rebuild identity across the new layout: a model caught up entry by entry, through a
    # correction that moves rows (new dates) and changes results, equals a rebuild.
    incremental = View(tmp_path / "incremental.db")
    for entry in read_entries(ledger.app):
        incremental.catch_up([entry])
    ledger.correct(round_robin("JAN", [A, B, C], "2024-01-07", results={(A, C): "0-1"}))
    ledger.catch_up(incremental)
    rebuilt = ledger.rebuilt(tmp_path / "rebuilt.db")
    assert incremental.digest() == rebuilt.digest()
    assert content(incremental) == content(rebuilt)


def written(view: View) -> Callable[[], list[tuple[str, str]]]:
    """A log of the rows written to the ratings and the history's narrow rows from now on:
    (table, the row's player and item), by temporary triggers."""
    view.db.execute("create temp table writes (tbl TEXT, what TEXT)")
    named = {
        "ratings": "{}.player",
        "history_rows": "{}.player || ' ' || {}.item_key",
    }
    for table, what in named.items():
        for event, row in (("insert", "new"), ("update", "new"), ("delete", "old")):
            view.db.execute(
                f"create temp trigger log_{table}_{event} after {event} on main.{table} "
                f"begin insert into writes values ('{table}', {what.format(row, row)}); end"
            )
    return lambda: view.db.execute("select tbl, what from writes").fetchall()


def test_a_correction_rewrites_only_the_rows_that_changed(ledger, tmp_path):
    # "A catch-up rewrites only rows that changed (compare before writing)": a correction of
    # JAN that changes no result (its name only) changes JAN's rows (their revision), each
    # written once in place; no standing changes, so FEB is not re-rated, and neither its
    # rows nor any rating is written.
    view = ledger.rebuilt(tmp_path / "view.db")
    log = written(view)
    ratings = {r[0]: r for r in view.db.execute("select * from ratings")}
    jan = round_robin("JAN", [A, B, C], "2024-01-06") | {"event_name": "January"}
    ledger.correct(jan)
    stats = ledger.catch_up(view)
    rows = sorted(w for t, w in log() if t == "history_rows")
    assert rows == [f"{p} section:JAN" for p in (A, B, C)]
    assert stats.rows == 3 and stats.items_rated == 1
    assert [w for t, w in log() if t == "ratings"] == []
    assert {r[0]: r for r in view.db.execute("select * from ratings")} == ratings


def test_a_read_model_of_the_layout_before_is_rebuilt_when_opened(ledger, tmp_path):
    # "Bump SCHEMA_VERSION if the layout changes; an old read model must then be rebuilt
    # automatically": a model of schema version 2 (one wide history table) has the digest of
    # this layout's, is dropped when opened and built again in this layout on the next
    # catch-up, to the same content.
    path = tmp_path / "view.db"
    view = ledger.rebuilt(path)
    digest = view.digest()
    # the rows in the layout's column order (issue 29: the digest reads US Chess's in its own)
    rows = view.db.execute(f"select {', '.join(HISTORY_COLUMNS)} from history").fetchall()
    db = view.db.conn
    db.execute("drop view history")
    for table in history_store.TABLES:
        db.execute(f"drop table {table}")
    db.execute(OLD_LAYOUT)
    db.executemany(f"insert into history values ({', '.join('?' * len(HISTORY_COLUMNS))})", rows)
    db.execute("update meta set value = '2' where key = 'schema'")
    db.commit()
    assert view.digest() == digest  # the same content in the layout before: the same digest
    view.close()
    reopened = View(path)
    assert reopened.last_position == 0  # emptied: the older layout is not read
    ledger.catch_up(reopened)
    tables = {r[0] for r in reopened.db.execute("select name, type from sqlite_master")}
    assert set(history_store.TABLES) <= tables
    # 4: the name tables (issue 33); 5: the reviews table, the office's queue (issue 32); 6:
    # the record of what the model knew when (issue 33, projections/knowledge.py); 7: each
    # narrow row's fingerprint, the record a rowid table (issue 33)
    assert reopened.db["meta"].get("schema")["value"] == SCHEMA_VERSION == "7"
    assert reopened.digest() == digest


W, X, Y, Z = "50000001", "50000002", "50000003", "50000004"


def test_a_catch_up_by_lists_rewrites_only_the_rows_that_changed(tmp_path):
    # The same for a family rating by lists (FIDE), which rates every item again on a
    # catch-up: of its rows and ratings only those whose values differ are written.
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    for pid, rating in ((W, 1500), (X, 1700), (Y, 1900), (Z, 2100)):
        fide = {"rating": rating, "date": "2024-01-01", "games": 100, "federation": "USA"}
        ledger.register(pid, adult=True, fide=fide)
    ledger.submit(round_robin("FEB", [W, X, Y, Z], "2024-02-10", "2024-02-11"))
    ledger.app.lists.publish(
        parse(PublishList, {"family": "fide", "name": "2024-03", "as_of": "2024-03-01"}),
        actor="director",
    )
    ledger.submit(round_robin("MAR", [X, Y], "2024-03-10", "2024-03-11"))
    view = View(tmp_path / "fide.db", "fide")
    ledger.catch_up(view)
    history = {tuple(r[1:4]): r for r in view.db.execute(family_content("fide")["history"])}
    ratings = {r[:2]: r for r in view.db.execute(family_content("fide")["ratings"])}
    log = written(view)
    ledger.correct(round_robin("MAR", [X, Y], "2024-03-10", "2024-03-11", results={(X, Y): "0-1"}))
    ledger.catch_up(view)
    after = {tuple(r[1:4]): r for r in view.db.execute(family_content("fide")["history"])}
    changed = sorted(f"{k[0]} {r[0]}" for k, r in after.items() if history.get(k) != r)
    assert changed and len(changed) < len(after)
    assert sorted(w for t, w in log() if t == "history_rows") == changed
    new = {r[:2]: r for r in view.db.execute(family_content("fide")["ratings"])}
    differ = sorted(k[0] for k, r in new.items() if ratings.get(k) != r)
    assert differ and len(differ) < len(new)
    assert sorted({w for t, w in log() if t == "ratings"}) == differ  # (replace: delete, insert)
    ledger.app.close()


def test_an_as_known_at_read_never_starts_from_a_checkpoint_of_the_layout_before(ledger, tmp_path):
    # A model rebuilt for a new layout drops its checkpoints: one of the older layout would be
    # emptied when opened, and caught up only from its position (a past without the entries
    # before it). Every past read after the upgrade equals a replay up to that position.
    path = tmp_path / "view.db"
    view = View(path, checkpoint_every=2)
    for entry in read_entries(ledger.app):
        view.catch_up([entry])
    view.wait_for_checkpoint()
    checkpoints = sorted(view.checkpoints_dir.glob("*.db"))
    assert len(checkpoints) >= 3
    for db in [view.db.conn, *(sqlite3.connect(f) for f in checkpoints)]:
        db.execute("update meta set value = '2' where key = 'schema'")  # as the old code wrote
        db.commit()
        db.close()
    upgraded = View(path, checkpoint_every=2)
    upgraded.seals = seals = Seals(ledger.app)
    ledger.catch_up(upgraded)
    for position in range(1, upgraded.last_position + 1, 3):
        past = timetravel.at_position(
            upgraded,
            lambda after: read_entries(ledger.app, after),
            position,
            tmp_path / "p.db",
            seals,
        )
        fresh = View(tmp_path / f"fresh-{position}.db")
        fresh.catch_up(e for e in read_entries(ledger.app) if e.position <= position)
        assert past.digest() == fresh.digest(), position
        past.close()
