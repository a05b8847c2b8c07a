"""Incremental catch-up in arbitrary chunks equals a full replay, on a generated ledger."""

import itertools
from dataclasses import replace
from datetime import date

import pytest
from projection_helpers import generated_entries, generator

from ledger.application import RatingsLedger
from ledger.log import LedgerEntry, read_entries
from projections import queries
from projections.projector import View
from projections.schema import NAME_TABLES


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    """A generated ledger with late sections, corrections, a withdrawal and an amendment."""
    return generated_entries(tmp_path_factory.mktemp("gen"))


@pytest.mark.parametrize("chunks", [2, 7, 31])
def test_catching_up_in_chunks_equals_a_full_replay(entries, tmp_path, chunks):
    # Issue contract: "incremental re-rate equal to full replay after a correction"; the
    # generated log has late-arriving sections, corrections, a withdrawal and a retroactive
    # bonus-multiplier amendment, so chunk boundaries fall before and after each of them.
    kinds = {e.type for e in entries}
    assert {"SectionCorrected", "SectionWithdrawn", "RulesAmended"} <= kinds
    incremental = View(tmp_path / "incremental.db")
    size = len(entries) // chunks + 1
    for start in range(0, len(entries), size):
        incremental.catch_up(entries[start : start + size])
    full = View(tmp_path / "full.db")
    full.rebuild(entries)
    assert incremental.digest() == full.digest()


def with_lists(entries, family):
    """The log with two `family` lists published into it, each taking items up to a cutoff
    before its own place, so the sections in between arrive late for it."""
    entries = [
        LedgerEntry(e.position, e.type, e.recorded_at, e.actor, e.aggregate_id, dict(e.payload))
        for e in entries
    ]
    n = len(entries)
    # (index of the entry it follows, cutoff: index of the last entry it takes, as-of date)
    lists = [(n // 3, n // 4, "2024-01-01"), (2 * n // 3, n // 2, "2025-01-01")]
    out = []
    for i, e in enumerate(entries):
        out.append(e)
        for number, (after, cutoff, as_of) in enumerate(lists, start=1):
            if i == after:
                payload = {
                    "family": family,
                    "number": number,
                    "list_name": as_of[:7],
                    "as_of": as_of,
                    "cutoff_position": cutoff,  # an index for now: renumbered below
                }
                out.append(replace(e, type="ListPublished", payload=payload))
    renumbered = {id(e): position for position, e in enumerate(out, start=1)}
    for e in out:
        if e.type == "ListPublished":
            e.payload["cutoff_position"] = renumbered[id(entries[e.payload["cutoff_position"]])]
    return [replace(e, position=renumbered[id(e)]) for e in out]


@pytest.mark.parametrize("family", ["fide", "icu"])
@pytest.mark.parametrize("chunks", [3, 7])
def test_catching_up_with_published_lists_equals_a_full_replay(entries, tmp_path, family, chunks):
    # Issue 12: a ListPublished entry, or a late item, re-rates from the affected period on,
    # and "the incremental catch-up must still equal a full replay byte for byte".
    log = with_lists(entries, family)
    incremental = View(tmp_path / "incremental.db", family)
    size = len(log) // chunks + 1
    for start in range(0, len(log), size):
        incremental.catch_up(log[start : start + size])
    full = View(tmp_path / "full.db", family)
    full.rebuild(log)
    assert incremental.digest() == full.digest()
    assert len(queries.published_lists(full, family)) == 2


def with_merges(entries):
    """The log with merges of players into others (issue 20): one who never met the other,
    then the survivor into a third (a chain), a forged merge of two who played each other
    (their shared items become problem rows), a void of the first and a merge again."""
    met: dict[str, set[str]] = {}
    for e in entries:
        ids = [p["id"] for p in e.payload.get("players", ())] if "players" in e.payload else []
        for p in ids:
            met.setdefault(p, set()).update(ids)
    players = [e.payload["member_id"] for e in entries if e.type == "PlayerRegistered"]
    a, b, c = next(
        (x, y, z)
        for x, y, z in itertools.combinations(players, 3)
        if not {y, z} & met.get(x, set()) and z not in met.get(y, set())
    )
    p, q = next(
        (x, y) for x in players for y in sorted(met.get(x, ())) if y != x and not {x, y} & {a, b, c}
    )
    n = len(entries)
    first = {"member_id": a, "into": b, "reason": "one person", "force": False}
    inserts = {  # index of the entry each follows → the entry (type, payload)
        n // 4: ("PlayersMerged", first),
        n // 2: ("PlayersMerged", {**first, "member_id": b, "into": c}),
        n // 2 + 3: ("PlayersMerged", {**first, "member_id": p, "into": q}),
        3 * n // 4: ("EntryVoided", {"position": first, "reason": "two people"}),
        5 * n // 6: ("PlayersMerged", {**first, "into": c}),
    }
    out = []
    for i, e in enumerate(entries):
        out.append(replace(e, payload=dict(e.payload)))
        if i in inserts:
            type_, payload = inserts[i]
            out.append(replace(e, type=type_, payload=dict(payload)))
    renumbered = {id(e): position for position, e in enumerate(out, start=1)}
    merged = next(e for e in out if e.payload is not first and e.payload == first)
    for e in out:
        if e.type == "EntryVoided":
            e.payload["position"] = renumbered[id(merged)]
    return [replace(e, position=renumbered[id(e)]) for e in out], (a, c, p)


@pytest.mark.parametrize("chunks", [3, 7, 31])
def test_catching_up_with_merged_players_equals_a_full_replay(entries, tmp_path, chunks):
    # Issue 20: a merge re-rates the survivor's history from the merged record's earliest item
    # (and his opponents'); a void takes it back. Any chunking of catch-ups equals the rebuild.
    plain = [
        LedgerEntry(e.position, e.type, e.recorded_at, e.actor, e.aggregate_id, e.payload)
        for e in entries
    ]
    log, (gone, survivor, forged) = with_merges(plain)
    incremental = View(tmp_path / "incremental.db")
    size = len(log) // chunks + 1
    for start in range(0, len(log), size):
        incremental.catch_up(log[start : start + size])
    full = View(tmp_path / "full.db")
    full.rebuild(log)
    assert incremental.digest() == full.digest()
    assert queries.player(full, gone)["ratings"] == {}
    assert gone in queries.player(full, survivor)["merged"]
    assert any("cannot play himself" in r["reason"] for r in queries.problems(full))
    assert queries.player(full, forged)["merged_into"]["position"] > 0


@pytest.mark.parametrize("chunks", [3, 17])
def test_identity_holds_on_each_store(store_url, tmp_path, chunks):
    # The same check on a ledger generated into each store (SQLite, PostgreSQL): what the
    # projector reads from either store gives byte-identical read models.
    generator().generate(store_url, 60, 1500, 11, date(2023, 1, 1), 2)
    app = RatingsLedger(store_url)
    try:
        entries = list(read_entries(app))
    finally:
        app.close()
    incremental = View(tmp_path / "incremental.db")
    size = len(entries) // chunks + 1
    for start in range(0, len(entries), size):
        incremental.catch_up(entries[start : start + size])
    full = View(tmp_path / "full.db")
    full.rebuild(entries)
    assert incremental.digest() == full.digest()


def test_a_rebuild_written_by_another_process_is_the_same(entries, tmp_path, monkeypatch):
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", "local")
    here = View(tmp_path / "here.db")
    here.rebuild(entries)
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", "process")
    there = View(tmp_path / "there.db")
    there.rebuild(entries)
    assert there.digest() == here.digest()
    # issue 33: the name tables (outside the digest) are made in the writer's process
    for table in NAME_TABLES:
        found = [
            v.db.execute(f"select * from {table} order by 1, 2").fetchall() for v in (here, there)
        ]
        assert found[0] == found[1] and found[0], table


def test_merged_players_in_a_family_rating_by_lists_equal_a_full_replay(entries, tmp_path):
    # Issue 20 with issue 12's periods: FIDE re-rates by its lists, a merge among them.
    plain = [
        LedgerEntry(e.position, e.type, e.recorded_at, e.actor, e.aggregate_id, e.payload)
        for e in entries
    ]
    log = with_lists(with_merges(plain)[0], "fide")
    incremental = View(tmp_path / "incremental.db", "fide")
    size = len(log) // 7 + 1
    for start in range(0, len(log), size):
        incremental.catch_up(log[start : start + size])
    full = View(tmp_path / "full.db", "fide")
    full.rebuild(log)
    assert incremental.digest() == full.digest()
