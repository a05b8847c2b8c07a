"""A rebuild's writer fed while it rates (issue 21): started while the log is still read, the
items' rows handed over a chunk at a time as items are rated, the same model either way."""

from datetime import date

import pytest

from ledger.application import RatingsLedger
from ledger.log import read_entries
from projections import batch, rebuild
from projections.projector import View
from tests.test_projection_identity import generator


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    store = f"sqlite:///{tmp_path_factory.mktemp('gen') / 'ledger.db'}"
    generator().generate(store, 60, 3000, 5, date(2023, 1, 1), 3)
    app = RatingsLedger(store)
    try:
        yield list(read_entries(app))
    finally:
        app.close()


def counted(entries, seen):
    for entry in entries:
        seen.append(entry.position)
        yield entry


@pytest.mark.parametrize("chunk", [1, 4])
def test_a_writer_process_started_while_the_log_is_read_builds_the_same_model(
    entries, tmp_path, monkeypatch, chunk
):
    # Issue 21: "the speed work changes no figure": a writer process that starts once the
    # batch holds LARGE items (here 10), before the last entry is read, and takes the items'
    # rows a chunk at a time between rated items, stores what a rebuild in one process does.
    here = View(tmp_path / "here.db")
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", "local")
    here.rebuild(entries)
    monkeypatch.delenv("RATINGS_LEDGER_WRITER")
    monkeypatch.setattr(rebuild, "LARGE", 10)
    monkeypatch.setattr(batch, "ITEMS_CHUNK", chunk)
    monkeypatch.setattr(rebuild, "ITEMS_PACE", chunk)
    seen: list[int] = []
    opened: list[int] = []
    open_writer = rebuild.open_writer

    def recorded(path, items):
        opened.append(len(seen))
        monkeypatch.setenv("RATINGS_LEDGER_WRITER", "process")  # even on one core
        return open_writer(path, items)

    monkeypatch.setattr(rebuild, "open_writer", recorded)
    there = View(tmp_path / "there.db")
    there.rebuild(counted(entries, seen))
    assert opened and opened[0] < len(entries)
    assert there.digest() == here.digest()


def test_a_rebuild_failing_after_its_writer_started_leaves_no_build_behind(
    entries, tmp_path, monkeypatch
):
    # Crash safety (docs/decisions.md, "the read model's file behind a link"): a read that
    # fails after the writer started ends that writer and removes its file; the model stays
    # as it was (empty).
    monkeypatch.setattr(rebuild, "LARGE", 10)

    def broken():
        yield from entries[: len(entries) // 2]
        raise OSError("disk read error")

    view = View(tmp_path / "view.db")
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(OSError, match="disk read error"):
        view.rebuild(broken())
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert view.db.execute("select count(*) from items").fetchone()[0] == 0
