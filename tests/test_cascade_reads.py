"""The cascade's reads (issues 21, 33): the stored rows of the items it re-rates only, and its
standings read many at a time, give what reading them one by one gives; a rebuild's records
handed to its writer in chunks, while it rates, give the model a rebuild in one piece gives."""

from contextlib import closing
from datetime import date
from pathlib import Path

import pytest

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.log import LedgerEntry, read_entries
from projections import batch, cascade, queries, ratings_writer, rebuild, writer
from projections.projector import View
from projections.rating import history_layout
from projections.schema import INDEXES
from projections.standing import UNRATED
from tests.test_projection_identity import generator, with_merges


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    """A generated ledger with late sections, corrections, a withdrawal and an amendment."""
    store = f"sqlite:///{tmp_path_factory.mktemp('gen') / 'ledger.db'}"
    generator().generate(store, 60, 3000, 5, date(2023, 1, 1), 3)
    app = RatingsLedger(store)
    try:
        yield list(read_entries(app))
    finally:
        app.close()


@pytest.mark.parametrize("parts", [3, 5, 11])
def test_a_cascade_reading_only_the_rows_of_the_items_it_re_rates_equals_a_full_replay(
    entries, tmp_path, parts
):
    # Issue 21: "any chunking of catch-ups gives the rebuild's digest"; issue 33: "a
    # correction re-rates only what its cascade reaches": the cascade reads the stored rows
    # of the items it re-rates only, and forgets what it held of the players an item it
    # passes over names (merges included: a merged record's rows leave the items that named
    # him).
    plain = [
        LedgerEntry(e.position, e.type, e.recorded_at, e.actor, e.aggregate_id, e.payload)
        for e in entries
    ]
    log, _ = with_merges(plain)
    incremental = View(tmp_path / "incremental.db")
    size = len(log) // parts + 1
    for start in range(0, len(log), size):
        incremental.catch_up(log[start : start + size])
    full = View(tmp_path / "full.db")
    full.rebuild(log)
    assert incremental.digest() == full.digest()


@pytest.mark.patches
def test_a_correction_reaching_few_of_the_items_after_it_equals_a_full_replay(
    tmp_path, monkeypatch
):
    # Issue 33: "a correction re-rates only what its cascade reaches": with many players who
    # each play little, a correction's cascade passes over items after its start, each
    # dropping what it held of the players it names (in every system), and re-rates the
    # items its players reach; the model is the replay's.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    generator().generate(store, 600, 3000, 11, date(2023, 1, 1), 3)
    dropped = []  # players an item passed over named whose standings the cascade held
    real = cascade._Standings.passed

    def passed(self, players):
        dropped.extend(p for p in players if p in self.stored)
        real(self, players)

    monkeypatch.setattr(cascade._Standings, "passed", passed)
    with closing(RatingsLedger(store)) as app:
        incremental = View(tmp_path / "incremental.db")
        incremental.catch_up(read_entries(app))
        sections = flip_a_result(app, incremental, 2)
        rated = incremental.catch_up(read_entries(app, incremental.last_position)).items_rated
        full = View(tmp_path / "full.db")
        full.rebuild(read_entries(app))
    assert dropped and rated < sections
    assert incremental.digest() == full.digest()


def test_standings_read_many_at_a_time_are_those_read_one_by_one(entries, tmp_path):
    # `Layout.standings_before` answers, in one query, what `queries.standing_before`
    # answers for each (player, system) pair: his standing after his last row before the
    # sort key, or UNRATED if he has none (a pair with no rows at all included).
    view = View(tmp_path / "view.db")
    view.rebuild(entries)
    keys = [k for (k,) in view.db.execute("select sort_key from items order by sort_key")]
    players = [p for (p,) in view.db.execute("select distinct player from history")][:40]
    systems = [s for (s,) in view.db.execute("select distinct system from history")]
    pairs = [(p, s) for p in players for s in systems] + [("nobody", systems[0])]
    for sort_key in (keys[0], keys[len(keys) // 2], keys[-1] + "~"):
        found = history_layout(view.family).standings_before(view.db.conn, pairs, sort_key)
        assert found == {(p, s): queries.standing_before(view, p, s, sort_key) for p, s in pairs}
        assert found[("nobody", systems[0])] is UNRATED
    assert any(v is not UNRATED for v in found.values())


@pytest.mark.parametrize("chunk", [1, 3])
def test_a_rebuild_handing_its_records_over_a_few_at_a_time_has_the_same_digest(
    entries, tmp_path, monkeypatch, chunk
):
    # Issue 21: "its memory does not grow with the ledger's length": a rebuild hands the
    # writer its items, their players, its other records and its ratings rows a chunk at a
    # time, and the read model is the same, byte for byte, whatever the chunk.
    whole = View(tmp_path / "whole.db")
    whole.rebuild(entries)
    expected = whole.digest()
    whole.close()
    monkeypatch.setattr(batch, "ITEMS_CHUNK", chunk)
    monkeypatch.setattr(batch, "WRITE_CHUNK", chunk)
    monkeypatch.setattr(ratings_writer, "RATINGS_CHUNK", chunk)
    chunked = View(tmp_path / "chunked.db")
    chunked.rebuild(entries)
    assert chunked.digest() == expected
    chunked.close()


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

    def recorded(path, items, shared):
        opened.append(len(seen))
        monkeypatch.setenv("RATINGS_LEDGER_WRITER", "process")  # even on one core
        return open_writer(path, items, shared)

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


def test_a_rebuild_keeps_the_history_item_index_while_it_loads_the_rows(
    entries, tmp_path, monkeypatch
):
    # Issue 33 (docs/decisions.md, "The history's item index kept while the rows are
    # loaded"): the rebuild neither drops nor builds the history's item index, which its new
    # file has from its schema; the writer keeps it as the rows come, and every secondary
    # index is there at the end.
    sent: list[str] = []
    execute = writer.LocalWriter.execute

    def recorded(self, sql, args=()):
        sent.append(sql)
        execute(self, sql, args)

    monkeypatch.setattr(writer.LocalWriter, "execute", recorded)
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", "local")
    view = View(tmp_path / "model.db")
    view.rebuild(entries)
    assert [s for s in sent if "drop index" in s]  # the others are dropped
    assert not [s for s in sent if "idx_history_item_key" in s]
    found = {r[0] for r in view.db.execute("select name from sqlite_master where type = 'index'")}
    assert set(INDEXES) <= found
    view.close()


@pytest.fixture
def corrected(tmp_path):
    """A generated ledger, its model staged before a correction (a result a third of the way
    through flipped), and the digest of the ledger's replay after it."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    generator().generate(store, 200, 3000, 11, date(2023, 1, 1), 3)
    with closing(RatingsLedger(store)) as app:
        staged = View(tmp_path / "staged.db")
        staged.rebuild(read_entries(app))
        flip_a_result(app, staged, 3)
        staged.close()
        full = View(tmp_path / "full.db")
        full.rebuild(read_entries(app))
        yield app, Path(staged.path), full.digest()
        full.close()


def caught_up(app, staged, path):
    """A copy of the staged model at `path`, caught up with the ledger: the view, its stats."""
    path.write_bytes(staged.read_bytes())
    view = View(path, checkpoint_every=0)
    return view, view.catch_up(read_entries(app, view.last_position))


@pytest.mark.patches
def test_a_cascade_writing_its_rows_as_it_goes_keeps_the_model_and_record_of_one_write(
    corrected, tmp_path, monkeypatch
):
    # Issue 33: "memory stays flat": a correction's cascade writes the rows it holds once it
    # holds WRITE_EVERY of them, between two items, rather than all at its end; the model
    # is the replay's, and the record of what it knew before (history_past) and the
    # ratings rows' before → after are those of one write at the end.
    app, staged, replayed = corrected
    seen = {}
    real = cascade._Rewrites.write
    for every in (10**9, 1, 7):
        writes = []

        def write(self, *args, writes=writes):
            writes.append(self.held())
            real(self, *args)

        monkeypatch.setattr(cascade._Rewrites, "write", write)
        monkeypatch.setattr(cascade, "WRITE_EVERY", every)
        view, stats = caught_up(app, staged, tmp_path / f"every-{every}.db")
        past = view.db.execute(
            "select * from history_past order by player, system, sort_key, known_until"
        ).fetchall()
        seen[every] = (view.digest(), past, stats.changes, stats.rows, len(writes))
        view.close()
    (digest, past, changes, rows, once), *others = seen.values()
    assert digest == replayed and past and changes and once == 1
    for other in others:
        assert other[:4] == (digest, past, changes, rows)
        assert other[4] > 10  # written many times as the cascade went


def test_a_catch_up_writing_its_ratings_rows_a_chunk_at_a_time_keeps_the_model_and_changes(
    corrected, tmp_path, monkeypatch
):
    # Issue 33: "memory stays flat": a catch-up compares and writes its ratings rows
    # RATINGS_CHUNK keys at a time, in key order, rather than all at once; the model is the
    # replay's, and the rows' before → after are those of one chunk.
    app, staged, replayed = corrected
    seen = {}
    for chunk in (10**9, 1, 7):
        monkeypatch.setattr(ratings_writer, "RATINGS_CHUNK", chunk)
        view, stats = caught_up(app, staged, tmp_path / f"chunk-{chunk}.db")
        seen[chunk] = (view.digest(), stats.changes)
        view.close()
    (digest, changes), *others = seen.values()
    assert digest == replayed and len(changes) > 7 * 3  # several chunks of 7
    assert all(other == (digest, changes) for other in others)


def flip_a_result(app: RatingsLedger, view: View, part: int) -> int:
    """The section `1/part` of the way through the model's (in rating order) corrected by the
    ratings office: its first decided game's result flipped. The model's sections, counted."""
    sections = view.db.execute(
        "select key from items where kind = 'section' order by sort_key"
    ).fetchall()
    payload = queries.item(view, sections[len(sections) // part][0]).payload
    game = next(g for g in payload["games"] if g["result"] in ("1-0", "0-1"))
    game["result"] = "0-1" if game["result"] == "1-0" else "1-0"
    data = {k: payload[k] for k in SubmitSection.model_fields if k in payload}
    app.sections.correct(parse(SubmitSection, data), reason="a flip", actor="ratings-office")
    return len(sections)
