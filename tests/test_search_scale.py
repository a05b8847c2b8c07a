"""Issue 33, "a site that holds list day" at 200,000 players, for issue 31's search: the names'
forms are stored in the read model as the profiles are written, so a search is a few index range
scans rather than an index rebuilt in memory after each profile change (docs/decisions.md,
"Search as people type names")."""

from __future__ import annotations

import pytest
from projection_helpers import Ledger

from ledger.application import RatingsLedger
from ledger.commands import MergePlayers, VoidEntry, parse
from ledger.log import read_entries
from projections.projector import View
from projections.queries import search_players
from projections.schema import NAME_TABLES

A, B, C, D = "50000001", "50000002", "50000003", "50000004"


def name_rows(view: View) -> dict[str, list]:
    return {t: sorted(view.db.execute(f"select * from {t}").fetchall()) for t in NAME_TABLES}


@pytest.fixture
def ledger(tmp_path):
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    yield ledger
    ledger.app.close()


def found(view: View, text: str) -> list[tuple[str, str]]:
    return [(p["id"], p["match"]) for p in search_players(view, text, 10)["players"]]


def test_a_catch_up_keeps_the_name_tables_a_rebuild_makes(ledger, tmp_path):
    # The tables are made from the profiles alone: registered, renamed, a rename voided, a
    # record merged away, each caught up one entry at a time, they are a rebuild's.
    view = View(tmp_path / "live.db")
    ledger.register(A, name="Hans Müller")
    ledger.register(B, name="Ana Vasquez")
    ledger.register(C, name="Иванов Сергей")
    ledger.catch_up(view)
    assert found(view, "vasques") == [(B, "one slip")]
    ledger.register(B, name="Ana Lovelace")
    ledger.catch_up(view)
    assert found(view, "vasques") == []  # her old name's words and keys are gone
    assert found(view, "lace") == [(B, "inside a word")]
    last = list(read_entries(ledger.app))[-1].position
    ledger.app.decisions.void(
        parse(VoidEntry, {"position": last, "reason": "recorded in error"}), actor="director"
    )
    ledger.catch_up(view)
    assert found(view, "vasquez") == [(B, "exact")]  # the rename taken back
    ledger.register(D, name="Sergei Ivanov")
    data = {"player": C, "into": D, "reason": "one person, two records"}
    ledger.app.players.merge(parse(MergePlayers, data), actor="admin")
    ledger.catch_up(view)
    rebuilt = ledger.rebuilt(tmp_path / "rebuilt.db")
    assert name_rows(view) == name_rows(rebuilt)
    assert name_rows(view)["names"] == [
        (A, "hans muller"),
        (B, "ana vasquez"),
        (C, "иванов сергеи"),
        (D, "sergei ivanov"),
    ]


def test_the_name_tables_are_not_in_the_digest(ledger, tmp_path):
    # "Read-model digests unchanged by all of it" (issue 33): the tables emptied, the digest
    # is the same; the profiles they are made from are content.
    ledger.register(A, name="Hans Müller")
    view = ledger.rebuilt(tmp_path / "view.db")
    digest = view.digest()
    for table in NAME_TABLES:
        view.db.execute(f"delete from {table}")
    assert view.digest() == digest
    view.db.execute('update players set profile = \'{"name": "Hans Muller"}\'')
    assert view.digest() != digest


@pytest.mark.parametrize("text", ["muller", "Müller Hans", "lace", "vasques", "5000", "a"])
def test_each_lookup_of_a_search_is_an_index_range_scan(ledger, tmp_path, text):
    # "Every page, search included, well under 50 ms" at 200,000 players (issue 33): each
    # statement a search runs reads the name tables and the players through an index, no
    # table scan (SQLite's plan says SEARCH, not SCAN, for each of them).
    ledger.register(A, name="Hans Müller")
    ledger.register(B, name="Ana Lovelace")
    view = ledger.rebuilt(tmp_path / "view.db")
    statements: list[str] = []
    view.db.conn.set_trace_callback(statements.append)
    search_players(view, text, 10)
    view.db.conn.set_trace_callback(None)
    read = [s for s in statements if any(f" {t} " in s for t in (*NAME_TABLES, "players"))]
    assert len(read) >= 3
    for sql in read:
        plan = [r[3] for r in view.db.execute(f"explain query plan {sql}")]
        tables = [p for p in plan if p.startswith("SCAN ") and "json_each" not in p]
        assert tables == [], (sql, plan)
