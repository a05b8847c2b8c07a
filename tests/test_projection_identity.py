"""Incremental catch-up in arbitrary chunks equals a full replay, on a generated ledger."""

import importlib.util
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from ledger.application import RatingsLedger
from ledger.log import LedgerEntry, read_entries
from projections import queries
from projections.projector import View

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "generate.py"


def generator():
    spec = importlib.util.spec_from_file_location("generate_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_script", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    """A generated ledger with late sections, corrections, a withdrawal and an amendment."""
    store = f"sqlite:///{tmp_path_factory.mktemp('gen') / 'ledger.db'}"
    generator().generate(store, 120, 6000, 5, date(2023, 1, 1), 3)
    app = RatingsLedger(store)
    try:
        yield list(read_entries(app))
    finally:
        app.close()


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
    here = View(tmp_path / "here.db")
    here.rebuild(entries)
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", "process")
    there = View(tmp_path / "there.db")
    there.rebuild(entries)
    assert there.digest() == here.digest()
