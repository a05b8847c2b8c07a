"""No stored entry can break a read (issue 10): poison written straight into the store, past
the commands, becomes a "not rated" problem row; the rest of the ledger is rated as if it were
not there; a correction, withdrawal or void takes it out."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from projection_helpers import Ledger, round_robin
from tamper_helpers import insert

from ledger.application import RatingsLedger
from ledger.entrypoints.interchange.exports import rating_supplement
from ledger.evidence.signing import Keyring
from ledger.log import read_entries
from projections import queries
from projections.explain import explain
from projections.projector import View

A, B, C, D, E = "30000001", "30000002", "30000003", "30000004", "30000005"


def raw(app: RatingsLedger, type_: str, payload: Any, actor: str = "director") -> int:
    """Append an entry straight into the store, signed by `actor` and sealed, bypassing every
    command and check (as an older version might have written it); a str payload is stored
    as it is (not JSON at all). Returns its position."""
    if isinstance(payload, str):
        state = payload.encode()
    else:
        stamp = {"_type_": "datetime_iso", "_data_": datetime.now(UTC).isoformat()}
        state = json.dumps({"timestamp": stamp, **payload, "actor": actor}).encode()
    key = Keyring().private_key(actor)
    return insert(app.store, uuid.uuid4(), 1, "ratings-ledger:" + type_, state, key, seal=True)


def section(section_id: str, players: list[str], start: str, **changes: Any) -> dict[str, Any]:
    data = round_robin(section_id, players, start)
    data.update({"tournament_id": None, "system": None, "rules": None, "byes": []})
    data.update(changes)
    return data


POISON: dict[str, tuple[str, Any]] = {
    "nan_amendment": (
        "RulesAmended",
        {
            "parameter": "bonus_multiplier",
            "value": float("nan"),
            "effective": "2024-01-01",
            "until": None,
            "reason": "poison",
        },
    ),
    "huge_amendment": (
        "RulesAmended",
        {
            "parameter": "bonus_multiplier",
            "value": 1e300,
            "effective": "2024-01-01",
            "until": None,
            "reason": "poison",
        },
    ),
    "huge_opening": (
        "OpeningBalanceRecorded",
        {
            "member_id": E,
            "system": "OTBR",
            "as_of": "2024-01-01",
            "rating": 1e300,
            "games": 30,
            "wins": None,
            "draws": None,
            "losses": None,
            "sections_of_three": None,
            "history": "mixed",
            "peak": None,
            "olm_games": None,
            "money_floor": None,
            "director_floor": None,
            "ceiling": None,
        },
    ),
    "huge_override": (
        "DirectorOverride",
        {
            "member_id": A,
            "action": "adjust_rating",
            "system": "OTBR",
            "value": 1e300,
            "effective": "2024-03-01",
            "reason": "poison",
        },
    ),
    "huge_profile": (
        "PlayerProfileUpdated",
        {
            "member_id": B,
            "name": "B",
            "birth_date": None,
            "adult": None,
            "fide": {"rating": 1e308, "date": None, "games": None, "federation": None},
            "cfc": None,
            "fide_adjustment_opt_in": None,
            "membership_expires": None,
            "playing_since": None,
        },
    ),
    "year_one": ("SectionSubmitted", section("Y1", [A, B, C], "0001-01-01")),
    "year_2999": ("SectionSubmitted", section("Y2999", [A, B, C], "2999-01-01")),
    "thousand_years": (
        "SectionSubmitted",
        section("LONG", [A, B, C], "1999-01-01", end_date="2999-01-01"),
    ),
    "round_10_12": (
        "SectionSubmitted",
        section(
            "ROUND",
            [A, B],
            "2024-04-01",
            games=[{"round": 10**12, "white": A, "black": B, "result": "1-0"}],
        ),
    ),
    "not_json": ("SectionSubmitted", "this is not JSON {"),
    "no_such_day": ("SectionSubmitted", section("FEB30", [A, B, C], "2024-02-30")),
}


@pytest.fixture
def poisoned(ledger: RatingsLedger) -> tuple[Ledger, dict[str, int], list[int]]:
    """A ledger with good sections before and after every kind of poison; returns the helper,
    the poison's positions by name and the good entries' positions."""
    led = Ledger(ledger)
    led.register(A, B, C, D)
    led.opening(A, "OTBR", 1800.0, 40)
    led.submit(round_robin("JAN", [A, B, C, D], "2024-01-10"))
    positions = {name: raw(ledger, t, p) for name, (t, p) in POISON.items()}
    led.submit(round_robin("MAY", [A, B, C, D], "2024-05-10", results={(A, B): "0-1"}))
    good = [e.position for e in read_entries(ledger) if e.position not in positions.values()]
    return led, positions, good


def clean_view(app: RatingsLedger, path: Any, keep: set[int]) -> View:
    view = View(path)
    view.rebuild(e for e in read_entries(app) if e.position in keep)
    return view


def ratings(view: View) -> dict[str, Any]:
    return {p: (queries.player(view, p) or {}).get("ratings") for p in (A, B, C, D, E)}


def test_poison_becomes_problem_rows_and_the_rest_is_rated_as_without_it(poisoned, tmp_path):
    led, positions, good = poisoned
    view = led.rebuilt(tmp_path / "view.db")
    found = {p["position"]: p for p in queries.problems(view)}
    assert set(positions.values()) == set(found), found
    for row in found.values():
        assert row["reason"].startswith(("not rated", "not applied")), row
        assert set(row) == {"position", "item_key", "kind", "reason"}
    assert found[positions["nan_amendment"]]["kind"] == "amendment"
    assert found[positions["huge_profile"]]["kind"] == "profile"
    assert found[positions["no_such_day"]]["item_key"] == "section:FEB30"
    assert "a date YYYY-MM-DD" in found[positions["year_2999"]]["reason"]
    # Ratings are those of the ledger without the poison.
    clean = clean_view(led.app, tmp_path / "clean.db", set(good))
    assert ratings(view) == ratings(clean)
    assert queries.problems(clean) == []


def test_an_incremental_catch_up_in_any_chunks_equals_the_rebuild(poisoned, tmp_path):
    led, _, _ = poisoned
    entries = list(read_entries(led.app))
    full = led.rebuilt(tmp_path / "full.db")
    for size in (1, 3, 7):
        view = View(tmp_path / f"chunks-{size}.db")
        for start in range(0, len(entries), size):
            view.catch_up(entries[start : start + size])
        assert view.digest() == full.digest(), size


def test_reads_keep_working_on_a_poisoned_ledger(poisoned, tmp_path):
    led, _, _ = poisoned
    view = led.rebuilt(tmp_path / "view.db")
    assert queries.player(view, A)["ratings"]["OTBR"]["rating"] > 0
    x = explain(view, A, "OTBR", "MAY")
    assert x["result"]["recomputes"]
    assert [r["id"] for r in rating_supplement(view, "OTBR", "2024-12-31")][:4] == [A, B, C, D]
    assert [e.type for e in read_entries(led.app)]  # the log itself reads
    assert len(queries.history(view, A, "OTBR")) >= 3


def test_a_void_takes_out_the_entry_and_its_problem_row(poisoned, tmp_path):
    led, positions, good = poisoned
    view = View(tmp_path / "view.db")
    led.catch_up(view)
    target = positions["no_such_day"]
    assert target in {p["position"] for p in queries.problems(view)}
    void = raw(led.app, "EntryVoided", {"position": target, "reason": "typo"})
    led.catch_up(view)
    assert target not in {p["position"] for p in queries.problems(view)}
    # Voiding a good section takes its effect out, and the cascade re-rates its players.
    jan = next(e.position for e in read_entries(led.app) if e.payload.get("section_id") == "JAN")
    raw(led.app, "EntryVoided", {"position": jan, "reason": "never played"})
    led.catch_up(view)
    assert queries.section_status(view, "JAN") is None
    assert [r["item_key"] for r in queries.history(view, B, "OTBR")][0] != "section:JAN"
    keep = set(good) - {jan}
    clean = clean_view(led.app, tmp_path / "clean.db", keep)
    assert ratings(view) == ratings(clean)
    rebuilt = led.rebuilt(tmp_path / "rebuilt.db")
    assert rebuilt.digest() == view.digest()
    assert void not in {p["position"] for p in queries.problems(view)}


def test_a_correction_or_withdrawal_takes_a_poisoned_section_out(poisoned, tmp_path):
    led, positions, _ = poisoned
    view = View(tmp_path / "view.db")
    led.catch_up(view)
    keys = {p["item_key"] for p in queries.problems(view)}
    assert "section:FEB30" in keys
    fixed = section("FEB30", [A, B, C], "2024-02-28")
    raw(led.app, "SectionCorrected", {**fixed, "reason": "the date"})
    led.catch_up(view)
    assert "section:FEB30" not in {p["item_key"] for p in queries.problems(view)}
    assert "section:FEB30" in {r["item_key"] for r in queries.history(view, A, "OTBR")}
    raw(led.app, "SectionWithdrawn", {"section_id": "ROUND", "reason": "bad report"})
    led.catch_up(view)
    assert "section:ROUND" not in {p["item_key"] for p in queries.problems(view)}
    assert led.rebuilt(tmp_path / "rebuilt.db").digest() == view.digest()


def test_a_void_of_a_correction_restores_the_revision_before_it(poisoned, tmp_path):
    led, _, _ = poisoned
    view = View(tmp_path / "view.db")
    led.catch_up(view)
    before = ratings(view)
    led.correct(round_robin("MAY", [A, B, C, D], "2024-05-10"))
    led.catch_up(view)
    assert ratings(view) != before
    correction = max(e.position for e in read_entries(led.app))
    raw(led.app, "EntryVoided", {"position": correction, "reason": "wrong file"})
    led.catch_up(view)
    assert ratings(view) == before
    assert queries.section_status(view, "MAY") == "submitted"
    assert led.rebuilt(tmp_path / "rebuilt.db").digest() == view.digest()
