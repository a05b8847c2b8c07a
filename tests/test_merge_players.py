"""`merge-players` (issue 20): "a later `merge-players` joins two records of one person with the
history re-rated" — the record merged away counts as the one it joins (docs/decisions.md,
"Merging players")."""

from __future__ import annotations

import json
from wsgiref.util import setup_testing_defaults

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import MergePlayers, VoidEntry, parse
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.errors import Contradiction, InvalidCommand, UnknownRecord
from ledger.roles import RECORDED_BY, Verb, lacks_authority
from projections.consequences import consequences
from projections.merges import MergedProfiles, Merges
from projections.profiles import ProfilesOnDemand
from projections.projector import View

A, B, C, D, X = "20000001", "20000002", "20000003", "20000004", "X0000000A"
ROWS = {
    "history": "select * from history order by player, system, sort_key",
    "ratings": "select * from ratings order by player, system",
}


def sections(x: str) -> list[dict]:
    """Three sections in rating order; `x` plays the second (before and after A's games)."""
    return [
        round_robin("S1", [A, B, C], "2024-01-06"),
        round_robin("S2", [x, C, D], "2024-02-06", results={(C, D): "1/2-1/2"}),
        round_robin("S3", [A, D, C], "2024-03-06", results={(A, D): "0-1"}),
    ]


def merge(ledger: Ledger, source: str, into: str, **more) -> list:
    data = {"player": source, "into": into, "reason": "one person, two records", **more}
    return ledger.app.players.merge(parse(MergePlayers, data), actor="admin")


def rows(view: View) -> dict[str, list]:
    return {name: view.db.execute(q).fetchall() for name, q in ROWS.items()}


@pytest.fixture
def ledger(tmp_path):
    found = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    found.register(A, B, C, D, adult=True)
    found.register(X, adult=True, fide_id="1234567")
    yield found
    found.app.close()


@pytest.fixture
def reference(tmp_path):
    """The ledger where A played X's games from the start (A registered with the profile
    fields A lacks from X's; one more player, who plays nothing, keeps the positions)."""
    found = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'reference.db'}"))
    found.register(B, C, D, adult=True)
    found.register(A, adult=True, fide_id="1234567")
    found.register("20000009", adult=True)
    found.submit(*sections(A))
    view = found.rebuilt(tmp_path / "reference.view.db")
    yield view
    view.close()
    found.app.close()


def test_a_merged_history_equals_the_ledger_where_into_played_from_the_start(
    ledger, reference, tmp_path
):
    # "joins two records of one person with the history re-rated": the rows of the ledger
    # with the merge, rebuilt or caught up, are those of the ledger without X, byte for byte.
    view = View(tmp_path / "view.db")
    ledger.submit(*sections(X))
    ledger.catch_up(view)
    before = rows(view)
    merge(ledger, X, A)
    ledger.catch_up(view)
    full = ledger.rebuilt(tmp_path / "full.db")
    assert rows(full) == rows(reference) != before
    assert rows(view) == rows(reference)
    assert view.digest() == full.digest()


def test_facts_about_the_merged_record_after_the_merge_count_as_into_s(tmp_path, reference):
    # "from the merge on, every fact about FROM counts as INTO's": X's section reported after
    # the merge is rated as A's (an unrelated registration keeps the positions equal).
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'later.db'}"))
    ledger.register(A, B, C, D, adult=True)
    ledger.register(X, adult=True, fide_id="1234567")
    view = View(tmp_path / "view.db")
    ledger.catch_up(view)
    first, second, third = sections(X)
    ledger.submit(first)
    merge(ledger, X, A)
    ledger.catch_up(view)
    ledger.submit(second, third)
    ledger.catch_up(view)
    assert rows(view)["ratings"] == rows(reference)["ratings"]
    assert [r[1] for r in rows(view)["history"]] == [r[1] for r in rows(reference)["history"]]
    assert view.digest() == ledger.rebuilt(tmp_path / "full.db").digest()


def test_a_void_of_the_merge_rates_both_records_back(ledger, tmp_path):
    # "`void` of a merge entry undoes it (re-rated back)": the rows after the void are those
    # before the merge, caught up or rebuilt.
    view = View(tmp_path / "view.db")
    ledger.submit(*sections(X))
    ledger.catch_up(view)
    before = rows(view)
    position = merge(ledger, X, A)[0].position
    ledger.catch_up(view)
    assert rows(view) != before
    ledger.app.decisions.void(
        parse(VoidEntry, {"position": position, "reason": "two people"}), actor="director"
    )
    ledger.catch_up(view)
    assert rows(view) == before
    assert view.digest() == ledger.rebuilt(tmp_path / "full.db").digest()
    merge(ledger, X, A)  # merged again after the void: in force again
    ledger.catch_up(view)
    assert {r[0] for r in rows(view)["ratings"]} == {A, B, C, D}


def test_a_refused_merge_appends_nothing(ledger):
    # "Refusals (one line, nothing appended)": an unknown record, a record merged into
    # itself, into a record merged away, two records who play in one section, two FIDE ids.
    ledger.register("X0000000B", adult=True, fide_id="7654321")
    ledger.submit(round_robin("S1", [A, B, C], "2024-01-06"))
    merge(ledger, X, D)
    head = ledger.app.recorder.max_notification_id()
    with pytest.raises(UnknownRecord):
        merge(ledger, "X00000FFF", A)
    with pytest.raises(InvalidCommand):
        merge(ledger, A, A)
    with pytest.raises(Contradiction, match="merged into '20000004' already; merge into"):
        merge(ledger, B, X)
    with pytest.raises(Contradiction, match="merged into '20000004' already"):
        merge(ledger, X, B)
    with pytest.raises(Contradiction, match="both play in section 'S1'"):
        merge(ledger, B, A)
    with pytest.raises(Contradiction, match="fide_id 7654321 ≠ 1234567"):
        merge(ledger, "X0000000B", D)  # D holds X's FIDE id since X was merged into D
    assert ledger.app.recorder.max_notification_id() == head


def test_force_merges_over_a_profile_conflict_and_into_s_fields_stand(ledger, tmp_path):
    # "unless --force": recorded over the conflict, with `force` in the fact; the survivor's
    # own FIDE id is the one its profile keeps (docs/decisions.md, "Merging players").
    ledger.register("X0000000B", adult=True, fide_id="7654321")
    entries = merge(ledger, "X0000000B", X, force=True)
    assert entries[0].payload["force"] is True
    view = View(tmp_path / "view.db")
    ledger.catch_up(view)
    profiles = MergedProfiles(ProfilesOnDemand(view), Merges.stored(view.db.conn))
    assert profiles[X].fide_id == "1234567"


def test_a_dry_run_reports_the_cascade_and_appends_nothing(ledger, tmp_path):
    # "`--dry-run` shows it without appending": the report names X (→ unrated), A and the
    # opponent whose expectancy changed, before → after, and the ledger keeps its length.
    ledger.submit(*sections(X))
    view = tmp_path / "view.db"
    ledger.catch_up(View(view))  # the model is up to date before the preview
    head = ledger.app.recorder.max_notification_id()
    data = {"player": X, "into": A, "reason": "one person"}
    preview = RatingsLedger(ledger.app.store, preview=True)
    entries = preview.players.merge(parse(MergePlayers, data), actor="admin")
    report = consequences(preview, view, entries, dry_run=True, family="uschess")
    changed = {c["player"]: c for c in report["changed"]}
    assert changed[X]["after"] is None and changed[X]["before"] is not None
    assert changed[A]["before"]["games"] + changed[X]["before"]["games"] == 6
    assert changed[A]["after"]["games"] == 6
    assert D in changed  # X beat D in S2: D's expectancy against A is not against an unrated
    assert ledger.app.recorder.max_notification_id() == head
    preview.close()


def cli(tmp_path, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--store", f"sqlite:///{tmp_path / 'ledger.db'}"])


@pytest.mark.parametrize(
    ("source", "into", "code", "message"),
    [
        ("X00000FFF", A, 1, "'X00000FFF' is not a registered player"),
        (A, A, 2, "into: '20000001' cannot be merged into itself"),
        (B, A, 2, "both play in section 'S1'"),
        (X, A, 0, ""),
    ],
)
def test_the_command_exits_as_the_refusal_says(ledger, tmp_path, source, into, code, message):
    # "Refusals (one line, nothing appended): unknown record (exit 1) … (exit 2)"; issue 31: "a
    # refused merge exits 3, which the README reserves for write races". A merge
    # that is accepted prints what it recorded and the ratings it changed.
    ledger.submit(*sections(X))
    head = ledger.app.recorder.max_notification_id()
    result = cli(tmp_path, "merge-players", source, into, "--reason", "same", "--actor", "admin")
    assert result.exit_code == code
    if code:
        assert result.stderr.count("\n") == 1 and message in result.stderr
        assert ledger.app.recorder.max_notification_id() == head
    else:
        assert "recorded PlayersMerged at position" in result.stdout
        assert f"{X} " in result.stdout and "→ unrated" in result.stdout


def test_player_says_where_a_merged_record_went_and_history_shows_its_games(ledger, tmp_path):
    # "`player FROM` says 'merged into INTO' (exit 0)"; "`history INTO` shows FROM's games".
    ledger.submit(*sections(X))
    merge(ledger, X, A)
    shown = cli(tmp_path, "player", X)
    assert shown.exit_code == 0
    assert f"merged into {A} at position" in shown.stdout
    assert json.loads(cli(tmp_path, "player", X, "--json").stdout)["merged_into"]["id"] == A
    history = cli(tmp_path, "history", A, "--system", "OTBR", "--json").stdout
    assert [r["item_key"] for r in json.loads(history)] == [
        "section:S1",
        "section:S2",
        "section:S3",
    ]
    found = json.loads(cli(tmp_path, "search", "X0000000A", "--json").stdout)
    assert [p["id"] for p in found["players"]] == [A]


def test_history_and_rating_of_a_merged_record_show_the_record_it_joined(ledger, tmp_path):
    # "from the merge on, every fact about FROM counts as INTO's": asking for FROM's history
    # or rating shows INTO's, with one line saying so.
    ledger.submit(*sections(X))
    merge(ledger, X, A)
    shown = cli(tmp_path, "history", X, "--system", "OTBR", "--json")
    assert shown.exit_code == 0
    assert shown.stdout == cli(tmp_path, "history", A, "--system", "OTBR", "--json").stdout
    assert f"{X} was merged into {A}" in shown.stderr
    day = ("--system", "OTBR", "--as-of", "2024-12-31", "--json")
    assert cli(tmp_path, "rating", X, *day).stdout == cli(tmp_path, "rating", A, *day).stdout


def test_the_page_of_a_merged_record_links_the_one_it_joined(ledger, tmp_path):
    # "the web player page of FROM says so and links INTO (and its JSON twin says so)".
    ledger.submit(*sections(X))
    merge(ledger, X, A)
    site = Site(ledger.app.store)
    page = fetch(site, f"/players/{X}")
    assert f"Merged into <a href='/players/{A}'>" in page
    assert json.loads(fetch(site, f"/api/players/{X}"))["merged_into"]["id"] == A
    assert f"<a href='/players/{X}'>{X}</a>" in fetch(site, f"/players/{A}")


def fetch(site: Site, path: str) -> str:
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING="", REQUEST_METHOD="GET")
    return b"".join(site(environ, lambda status, headers: None)).decode()


def test_the_supplement_lists_the_surviving_record_only(ledger, tmp_path):
    # "lists and supplements list only INTO": X's games are A's, so X has no row.
    ledger.submit(*sections(X))
    merge(ledger, X, A)
    shown = cli(tmp_path, "supplement", "--as-of", "2024-12-31", "--json")
    assert [m["id"] for m in json.loads(shown.stdout)["players"]] == [A, B, C, D]


def test_the_authority_tables_take_the_new_kind_from_its_verb():
    # "Check ledger/chain.py / ledger/signing.py's authority tables pick the new kind up from
    # its `verb`": a PlayersMerged entry is the office's or a director's to sign, not a TD's.
    assert RECORDED_BY["PlayersMerged"] is Verb.MERGE_PLAYERS
    assert lacks_authority("PlayersMerged", {"ratings_admin"}) is None
    assert "merge-players takes" in lacks_authority("PlayersMerged", {"tournament_director"})


def test_the_survivor_is_rated_with_the_profile_fields_he_lacks_from_the_merged_record(tmp_path):
    # "every fact about FROM counts as INTO's: its games, items, profile fields INTO lacks":
    # A gave no birth date, X did; A is rated as the member born then, as if registered so.
    def built(name: str, records: list[tuple[str, dict]], x: str) -> View:
        found = Ledger(RatingsLedger(f"sqlite:///{tmp_path / name}.db"))
        for member, profile in records:
            found.register(member, **profile)
        found.submit(*sections(x))
        if x == X:
            merge(found, X, A)
        return found.rebuilt(tmp_path / f"{name}.view.db")

    young = {"birth_date": "2012-05-01"}
    merged = built("merged", [(B, {}), (C, {}), (D, {}), (A, {}), (X, young)], X)
    reference = built("reference", [(B, {}), (C, {}), (D, {}), (A, young), ("20000009", {})], A)
    without = built("without", [(B, {}), (C, {}), (D, {}), (A, {}), ("20000009", {})], A)
    assert rows(merged)["history"] != rows(without)["history"]  # the birth date counts
    assert rows(merged) == rows(reference)
