"""As known at a position, read from the read model's record (issue 33: "as-of and as-known-at
reads and a player page under 50 ms" at 10M games, "no temporary copy of a checkpoint per
request"): the fast read of every player equals the past model built the old way."""

import json
from wsgiref.util import setup_testing_defaults

import pytest
from projection_helpers import Ledger, counting, generated_entries, round_robin
from test_projection_identity import with_merges
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.log import LedgerEntry, read_entries
from projections import history_store, knowledge, queries, timetravel
from projections.cascade import Cascade
from projections.history_store import ID_OF_KEY
from projections.projector import View
from projections.rating import history_layout

A, B, C = "70000001", "70000002", "70000003"


@pytest.fixture(scope="module")
def entries(tmp_path_factory):
    """A generated ledger with late sections, corrections, a withdrawal and an amendment."""
    return generated_entries(tmp_path_factory.mktemp("gen"))


def late(entries):
    """The positions of sections that ended before one already in the log (late sections)."""
    out, last = [], ""
    for e in entries:
        if e.type == "SectionSubmitted":
            end = e.payload["end_date"]
            if end < last:
                out.append(e.position)
            last = max(last, end)
    return out


def test_as_known_at_from_the_record_equals_the_past_model(entries, tmp_path):
    # Issue 33: "as-of and as-known-at reads ... under 50 ms" at 10M games. The record the
    # catch-ups keep (projections/knowledge.py) answers a player's history and rating as
    # known at a position with index reads; for positions just before and at each correction,
    # the withdrawal, the amendment and late sections, every player's rows in every system
    # equal those of the model built from the entries up to that position (the reference).
    kinds = {e.type: [] for e in entries}
    for e in entries:
        kinds[e.type].append(e.position)
    changing = [
        *kinds["SectionCorrected"][:2],
        *kinds["SectionWithdrawn"][:1],
        *kinds["RulesAmended"][:1],
        *late(entries)[:2],
    ]
    assert len(changing) == 6
    model = same_as_past_models(entries, changing, tmp_path)
    start = min(changing) - 40
    with pytest.raises(queries.NotRecorded):  # before the rebuild the record starts from
        queries.history_known_at(model, "anyone", start - 1)
    assert not queries.answers(model, "anyone", start - 1)


def test_as_known_at_from_the_record_with_merged_players(entries, tmp_path):
    # Issue 20's merges and a void of one, read as known at positions around each: the
    # record answers every player but those merged away (read from a past model, whose
    # survivor then may not be theirs), and what it answers equals the past model's.
    plain = [
        LedgerEntry(e.position, e.type, e.recorded_at, e.actor, e.aggregate_id, e.payload)
        for e in entries
    ]
    log, (gone, _, forged) = with_merges(plain)
    changing = [e.position for e in log if e.type in ("PlayersMerged", "EntryVoided")]
    model = same_as_past_models(log, changing, tmp_path)
    assert not queries.answers(model, gone, log[-1].position)
    assert not queries.answers(model, forged, log[-1].position)


def test_the_record_keeps_exactly_the_rows_an_entry_changed_as_they_stood(entries, tmp_path):
    # projections/knowledge.py: the record keeps "each row as it stood before the run's first
    # entry changed it (`present` 1), or the mark that its key had no row before the entry
    # added one (`present` 0)". For a correction, a withdrawal and a late section, each caught
    # up alone after a rebuild of the entries before it: the rows kept at its position are the
    # stored rows it changed or removed, value for value, and the marks the keys it added whose
    # item was revised before it; nothing else.
    kinds = {t: [e.position for e in entries if e.type == t] for t in {e.type for e in entries}}
    chosen = [kinds["SectionCorrected"][0], kinds["SectionWithdrawn"][0], late(entries)[0]]
    for position in chosen:
        model = View(tmp_path / f"model-{position}.db", checkpoint_every=0)
        model.rebuild(e for e in entries if e.position < position)
        before = _rows_by_key(model, "select * from history")
        model.catch_up(e for e in entries if e.position == position)
        after = _rows_by_key(model, "select * from history")
        columns = ", ".join(f"[{c}]" for c in _columns(model))
        kept = _rows_by_key(
            model,
            f"select {columns} from history_past where known_until = ? and present = 1",
            [position],
        )
        marks = _rows_by_key(
            model,
            f"select {columns} from history_past where known_until = ? and present = 0",
            [position],
        )
        changed = {k: r for k, r in before.items() if after.get(k) != r}
        revision = _columns(model).index("revision")
        added = {k for k, r in after.items() if k not in before and r[revision] < position}
        assert changed, position  # each of them changes stored rows
        assert kept == changed, position
        assert set(marks) == added, position
        count = model.db.execute("select count(*) from history_past").fetchone()[0]
        assert count == len(kept) + len(marks)
        model.close()


def test_a_key_kept_at_a_position_is_kept_once_as_it_stood_first(entries, tmp_path):
    # projections/knowledge.py: "The first change of a key in an entry keeps it": a row an
    # entry deletes is kept as it stood (`present` 1); stored again under its key in the same
    # entry, it adds no mark that the key had no row (`present` 0), and kept again at that
    # position (the entry's run again: its settled ids forgotten), nothing more is kept.
    model = View(tmp_path / "model.db", checkpoint_every=0)
    model.rebuild(entries)
    conn, layout = model.db.conn, history_layout(model.family)
    position = model.last_position + 1
    before = conn.execute("select * from history order by player, system, sort_key").fetchone()
    (rid,) = conn.execute(ID_OF_KEY, before[1:4]).fetchone()
    knowledge.record(conn)
    knowledge.at(conn, position)
    record = knowledge.keeping(conn, layout.own_columns)
    assert record is not None
    history_store.delete_ids(conn, [rid], record)
    layout.replace(conn, [before], record)  # a new row of the same key
    (again,) = conn.execute(ID_OF_KEY, before[1:4]).fetchone()
    assert again != rid
    knowledge.at(conn, position)
    record.keep([again])
    kept = conn.execute(
        "select * from history_past where known_until = ? order by rowid", [position]
    ).fetchall()
    assert [(k[0], k[1]) for k in kept] == [(position, 1)]
    assert kept[0][2:] == tuple(before)
    model.close()


def _columns(model):
    return [d[0] for d in model.db.execute("select * from history limit 0").description]


def _rows_by_key(model, select, args=()):
    """Rows of the history's columns by key (player, system, sort key)."""
    return {tuple(r[1:4]): tuple(r) for r in model.db.execute(select, args)}


def same_as_past_models(entries, changing, tmp_path):
    """The model rebuilt a little before the first of `changing` (its record starts there),
    then caught up many entries at a time; at that start, the last position, and just before
    and at each of `changing`, every player the record answers reads as the model built from
    the entries up to the position (the reference)."""
    start = min(changing) - 40
    model = View(tmp_path / "model.db", checkpoint_every=0)
    model.rebuild(e for e in entries if e.position <= start)
    rest = [e for e in entries if e.position > start]
    for at in range(0, len(rest), 97):  # catch-ups of many entries each
        model.catch_up(rest[at : at + 97])
    positions = sorted({p + d for p in changing for d in (-1, 0)} | {start, entries[-1].position})
    for position in positions:
        past = View(tmp_path / f"past-{position}.db", checkpoint_every=0)
        past.rebuild(e for e in entries if e.position <= position)
        players = {r[0] for r in past.db.execute("select distinct player from history")}
        players |= {r[0] for r in model.db.execute("select distinct player from history")}
        players |= {r[0] for r in model.db.execute("select id from players")}
        answered = [p for p in sorted(players) if queries.answers(model, p, position)]
        assert len(answered) >= len(players) - 3  # all but those merged away
        for player in answered:
            known = queries.player(past, player) is not None
            assert queries.player_known_at(model, player, position) == known, (position, player)
            expected = {
                s: queries.history(past, player, s) for s in queries.systems_of(past, player)
            }
            found = queries.history_known_at(model, player, position)
            assert found == expected, (position, player)
            for system, rows in expected.items():
                day = rows[len(rows) // 2]["end_date"]
                assert queries.rating_known_at(
                    model, player, system, day, position
                ) == queries.rating_as_of(past, player, system, day)
        past.close()
    return model


def test_the_command_line_reads_one_player_as_known_at_from_the_record(tmp_path, monkeypatch):
    # Issue 33: "no temporary copy of a checkpoint per request". Once the read model exists,
    # `history` and `rating` as known at a position before a correction read its record: no
    # past model is built, and they print what the model built up to that position says.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, B, C, adult=True)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    runner = CliRunner()

    def cli(*args):
        out = runner.invoke(app, [*args, "--json", "--store", store])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    cli("history", A, "--system", "OTBR")  # the read model made, its record starting here
    site = Site(store)
    led.submit(round_robin("FEB", [A, B], "2024-02-03"))
    before = led.app.recorder.max_notification_id()
    led.correct(round_robin("JAN", [A, B, C], "2024-01-06", results={(A, B): "0-1"}))
    past = View(tmp_path / "past.db")
    past.catch_up(e for e in read_entries(led.app) if e.position <= before)
    led.app.close()

    def no_past_model(*args, **kwargs):
        raise AssertionError("a past model was built")

    monkeypatch.setattr(timetravel, "at_position", no_past_model)
    rows = cli("history", A, "--system", "OTBR", "--position", str(before))
    assert rows == queries.history(past, A, "OTBR") and len(rows) == 2
    asked = ("rating", A, "--system", "OTBR", "--as-of", "2024-01-31")
    rating = cli(*asked, "--position", str(before))
    assert rating == queries.rating_as_of(past, A, "OTBR", "2024-01-31")
    assert rating["rating"] > cli(*asked)["rating"]  # the correction made it a loss
    # the site's history page as known then: the same answer as the past model's
    history = (f"/api/players/{A}/history", f"system=OTBR&position={before}")
    answer = page(site, *history)
    assert answer == {"id": A, "system": "OTBR", "as_of": None, "history": answer["history"]}
    assert answer["history"] == json.loads(json.dumps(rows))
    monkeypatch.undo()
    past_site = Site(store, tmp_path / "other.view.db")  # a new model: its record starts now
    assert page(past_site, *history) == answer


def page(site, path, query):
    """A page's JSON twin, answered by the site in this process (200)."""
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD="GET")
    started = {}
    body = b"".join(site(environ, lambda status, headers: started.update(status=status)))
    assert started["status"].startswith("200"), body
    return json.loads(body)


def test_a_catch_up_in_runs_keeps_the_record_of_every_entry(tmp_path, monkeypatch):
    # Issue 33: a correction "costs little more per item than the replay"; a catch-up of many
    # entries goes in runs, split "only at entries that change or delete rows already stored".
    # In one catch-up, sections rated after every item of their players and a new player's
    # registration join the run before them; a late section, a correction, two profiles
    # changed and a withdrawal, each in the middle, start one. The record still answers every
    # position as the model built from the entries up to it does.
    D, E, F, G = "70000004", "70000005", "70000006", "70000007"
    led = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    led.submit(round_robin("FEB", [A, B, D], "2024-02-03"))
    model = led.rebuilt(tmp_path / "model.db")
    start = model.last_position
    led.submit(round_robin("MAR", [A, C, D], "2024-03-02"))
    led.register(E, adult=True)
    led.submit(round_robin("APR", [A, B, E], "2024-04-06"))
    led.submit(round_robin("LATE", [B, C, D], "2024-02-17"))  # before MAR and APR: a run
    led.submit(round_robin("MAY", [C, D, E], "2024-05-04"))
    led.correct(round_robin("MAR", [A, C, D], "2024-03-02", results={(A, C): "0-1"}))
    led.register(G, adult=True)
    led.submit(round_robin("JUN", [A, B, C, G], "2024-06-01"))
    profile = parse(RegisterPlayer, {"id": A, "birth_date": "2011-05-05"})
    led.app.players.register(profile, actor="admin")  # a profile of a player named: a run
    led.submit(round_robin("JUL", [A, D, G], "2024-07-06"))
    led.register(F, adult=True)
    led.submit(round_robin("AUG", [B, E, F], "2024-08-03"))
    led.app.players.register(
        parse(RegisterPlayer, {"id": E, "birth_date": "2010-01-01"}), actor="admin"
    )
    led.withdraw("APR")
    led.submit(round_robin("SEP", [A, B, C, D, E], "2024-09-07"))
    entries = list(read_entries(led.app))
    cascades = counting(monkeypatch, Cascade, "run")
    model.catch_up(entries)  # one catch-up of them all
    for position in range(start, entries[-1].position + 1):
        past = View(tmp_path / f"past-{position}.db", checkpoint_every=0)
        past.rebuild(e for e in entries if e.position <= position)
        for player in (A, B, C, D, E, F, G):
            assert queries.answers(model, player, position)
            expected = {
                s: queries.history(past, player, s) for s in queries.systems_of(past, player)
            }
            assert queries.history_known_at(model, player, position) == expected, position
        past.close()
    runs = [e.type for e in entries if e.position > start]
    assert len(cascades) == 6, runs  # MAR…, LATE…, the correction…, A's…, E's…, APR gone…
    led.app.close()
