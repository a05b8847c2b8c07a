"""`merge-players` (issue 20): "a later `merge-players` joins two records of one person with the
history re-rated" — the record merged away counts as the one it joins (docs/decisions.md,
"Merging players")."""

from __future__ import annotations

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.commands import MergePlayers, VoidEntry, parse
from ledger.errors import Contradiction, InvalidCommand, UnknownRecord
from projections.merges import MergedProfiles, Merges
from projections.projector import ProfilesOnDemand, View

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
    return ledger.app.merge_players(parse(MergePlayers, data), actor="admin")


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
    ledger.app.void(
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
