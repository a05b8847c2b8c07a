"""The read model's digest is over its content (issue 21: "the read model's digest ... is the same
just before and just after" the speed work, which changes the layout)."""

import hashlib
import json
import sqlite3

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.log import read_entries
from ledger.rules.families import DEFAULT
from projections import history_store, projector
from projections.projector import View
from projections.schema import NAME_TABLES, OUTSIDE_CONTENT, content

A, B, C = "20000001", "20000002", "20000003"
CONTENT = content(DEFAULT)  # the default family's (issue 29: each family's own columns)


@pytest.fixture
def view(tmp_path):
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ledger.register(A, B, C, adult=True)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.correct(round_robin("JAN", [A, B, C], "2024-01-06", results={(A, B): "0-1"}))
    v = View(tmp_path / "view.db")
    v.rebuild(read_entries(ledger.app))
    ledger.app.close()
    yield v
    v.close()


def stored_columns(db: sqlite3.Connection) -> set[tuple[str, str]]:
    tables = [r[0] for r in db.execute("select name from sqlite_master where type = 'table'")]
    return {(t, r[1]) for t in tables for r in db.execute(f"pragma table_info([{t}])")}


def test_every_stored_value_is_in_the_content(view):
    # "Rebuild identity" and `verify --view` rest on the digest: a column left out of it
    # could be edited unseen. Each stored column is named in its table's content query; a
    # column of the history's tables (projections/history_store.py) is a column of the view
    # `history` that its content query names, or the row id the view joins them on. The name
    # tables are made from the `players` rows alone (issue 33: tests/test_search_scale.py
    # checks a catch-up's are a rebuild's), so they are not content; nor is a history row's
    # fingerprint, made from its values (docs/decisions.md, "A stored row known by its
    # fingerprint (issue 33)").
    db = view.db.conn
    joined = {r[1] for r in db.execute("pragma table_info(history)")}
    on = db.execute("select sql from sqlite_master where name = 'history'").fetchone()[0]
    missing = set()
    for table, column in stored_columns(db):
        if table in NAME_TABLES or (table, column) == ("history_rows", "fingerprint"):
            continue
        if table in history_store.TABLES:
            seen = f"{column} = " in on if column == "id" else column in joined
            named = seen and (column == "id" or column in CONTENT["history"])
        elif table in OUTSIDE_CONTENT:
            named = True  # the office's review queue, kept out on purpose (issue 32)
        else:
            named = table in CONTENT and column in CONTENT[table]
        if not named:
            missing.add((table, column))
    assert missing == set()


@pytest.mark.parametrize(
    ("table", "column"),
    [
        ("history_detail", "detail"),
        ("history_standing", "s_peak"),
        ("history_rows", "post_rating"),
        ("ratings", "rating"),
        ("items", "payload"),
        ("revisions", "revisions"),
        ("sections", "status"),
    ],
)
def test_an_edited_value_changes_the_digest(view, table, column):
    # An edited row is seen (docs/decisions.md, "Edited rows"), whichever table holds it.
    before = view.digest()
    view.db.execute(f"update [{table}] set [{column}] = 'edited'")
    assert view.digest() != before


def test_the_layout_version_is_not_content(view):
    # A new layout of the same content keeps the digest: the version it is stored under is
    # not part of it.
    before = view.digest()
    view.db.execute("update meta set value = 'another' where key = 'schema'")
    assert view.digest() == before


@pytest.mark.parametrize("table", history_store.TABLES)
def test_a_history_part_moved_to_another_row_changes_the_digest(view, table):
    # The history's parts are joined on their row id: a part moved to another row (its id
    # edited) is another content, so the digest sees it.
    before = view.digest()
    top = view.db.execute(f"select max(id) from [{table}]").fetchone()[0]
    view.db.execute(f"update [{table}] set id = id + ? where id = ?", [top, top])
    assert view.digest() != before


def test_a_digest_reads_with_a_small_page_cache_and_keeps_the_catch_ups(view, monkeypatch):
    # Issue 33: "Memory stays flat in the number of games": the catch-up's 256 MiB page cache
    # filled as a digest read the whole model (a million-game rebuild's process 170-210 MiB
    # more). The digest reads under SCAN_CACHE_KIB, and the catch-up's cache is set again.
    before = view.db.execute("PRAGMA cache_size").fetchone()[0]
    monkeypatch.setattr(
        projector, "content", lambda family: {"c": "select * from pragma_cache_size"}
    )
    seen = hashlib.sha256(b"c" + json.dumps([projector.SCAN_CACHE_KIB]).encode()).hexdigest()
    assert view.digest() == seen
    assert view.db.execute("PRAGMA cache_size").fetchone()[0] == before != projector.SCAN_CACHE_KIB
