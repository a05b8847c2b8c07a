"""scripts/generate.py: a deterministic, realistic synthetic ledger appended through the verbs."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.evidence.signing import Keyring
from ledger.log import LedgerEntry, read_entries
from ledger.rules.time_controls import parse_time_control
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import (
    is_dual_rated_time_control,
    rated_systems,
)
from ledger.rules.uschess.versions import resolve

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "generate.py"
SIZE = {"players": 400, "games": 5000, "seed": 3, "start": date(2023, 1, 1), "years": 3}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while executing it
    spec.loader.exec_module(module)
    return module


generate = _load()


def _run(path: Path, keyring: Keyring, **changes: Any) -> tuple[dict[str, Any], list[LedgerEntry]]:
    settings = SIZE | changes
    url = f"sqlite:///{path}"
    counts = generate.generate(url, **settings, keyring=keyring)
    app = RatingsLedger(url)
    try:
        return counts, list(read_entries(app))
    finally:
        app.close()


@pytest.fixture(scope="module")
def ledger(
    tmp_path_factory: pytest.TempPathFactory, shared_keyring: Keyring
) -> tuple[dict[str, Any], list[LedgerEntry]]:
    return _run(tmp_path_factory.mktemp("generated") / "ledger.db", shared_keyring)


def _sections(entries: list[LedgerEntry]) -> list[dict[str, Any]]:
    return [e.payload for e in entries if e.type == "SectionSubmitted"]


def _content(entries: list[LedgerEntry]) -> list[tuple[Any, ...]]:
    """What the seed determines: overrides, awards and amendments get random aggregate ids."""
    return [(e.position, e.type, e.actor, e.payload) for e in entries]


def test_the_same_seed_appends_the_same_entries_apart_from_recorded_at(
    ledger: tuple[dict[str, Any], list[LedgerEntry]], tmp_path: Path, keyring: Keyring
) -> None:
    # Brief: "same seed → same ledger content, apart from recorded_at timestamps" (and the
    # actors' keys, random: here the same keyring).
    counts, entries = _run(tmp_path / "again.db", keyring)
    assert _content(entries) == _content(ledger[1])
    assert {k: v for k, v in counts.items() if k != "seconds"} == {
        k: v for k, v in ledger[0].items() if k != "seconds"
    }


def test_another_seed_appends_a_different_ledger(
    ledger: tuple[dict[str, Any], list[LedgerEntry]], tmp_path: Path, keyring: Keyring
) -> None:
    # Brief: the ledger is determined by the seed, so a different seed draws different sections.
    _, entries = _run(tmp_path / "other.db", keyring, seed=4)
    assert _sections(entries) != _sections(ledger[1])


def test_every_kind_of_entry_appears_in_a_moderate_ledger(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: players, opening balances, sections, FIDE adjustments, money floors, matches,
    # overrides, corrections, a withdrawal and the rules amendment; roles: "The first actor set
    # up at init is the director", and writes need roles, so the roles come first.
    counts, entries = ledger
    types = Counter(e.type for e in entries)
    setup = ["LedgerInitialized"] + ["RoleGranted"] * (1 + len(generate.STAFF))
    assert [e.type for e in entries[: len(setup)]] == setup
    assert set(types) == {
        "LedgerInitialized",
        "RoleGranted",
        "PlayerRegistered",
        "OpeningBalanceRecorded",
        "SectionSubmitted",
        "SectionCorrected",
        "SectionWithdrawn",
        "FideAdjustmentSubmitted",
        "MoneyFloorAwarded",
        "MatchResultSubmitted",
        "DirectorOverride",
        "RulesAmended",
    }
    assert types["PlayerRegistered"] == counts["players"] == SIZE["players"]
    assert types["SectionSubmitted"] == counts["sections"]
    assert types["SectionCorrected"] == counts["corrections"] >= 1
    assert types["SectionWithdrawn"] == counts["withdrawals"] == 1
    assert types["FideAdjustmentSubmitted"] == counts["fide_adjustments"]
    assert types["MoneyFloorAwarded"] == counts["money_floors"]
    assert types["MatchResultSubmitted"] == counts["matches"]
    assert types["DirectorOverride"] == counts["overrides"]
    assert types["RulesAmended"] == counts["amendments"] == 1


def test_about_a_fifth_of_the_players_start_with_opening_balances(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "about a fifth have an opening balance (established OTBR and sometimes OTBQ/OTBB)".
    balances = [e.payload for e in ledger[1] if e.type == "OpeningBalanceRecorded"]
    otbr = [b for b in balances if b["system"] == "OTBR"]
    assert len(otbr) == SIZE["players"] // 5
    assert all(b["games"] > 25 and b["as_of"] == "2023-01-01" for b in otbr)
    assert {b["system"] for b in balances} == {"OTBR", "OTBQ", "OTBB"}
    for b in balances:
        if b["wins"] is not None:
            assert b["wins"] + b["draws"] + b["losses"] == b["games"]


def test_profiles_include_kids_adults_fide_cfc_and_opt_ins(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "kids and adults, some with FIDE (with federation "USA" for some, dates) or CFC
    # ratings, some opted in to FIDE adjustments, membership expiry dates".
    profiles = [e.payload for e in ledger[1] if e.type == "PlayerRegistered"]
    assert {p["adult"] for p in profiles} == {True, False}
    fide = [p["fide"] for p in profiles if p["fide"]]
    assert fide and all(f["date"] for f in fide)
    assert any(f.get("federation") == "USA" for f in fide)
    assert any(p["cfc"] for p in profiles)
    assert any(p["fide_adjustment_opt_in"] for p in profiles)
    assert any(p["membership_expires"] for p in profiles)


def test_the_rated_game_count_is_within_three_percent_of_the_target(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "--games M is the total number of rated games in sections (within a few percent)".
    counts, entries = ledger
    rated = sum(
        1
        for s in _sections(entries)
        for g in s["games"]
        if g["result"] in ("1-0", "0-1", "1/2-1/2")
    )
    assert rated == counts["games"]
    assert abs(rated - SIZE["games"]) <= 0.03 * SIZE["games"]


def test_every_generated_section_was_appended_and_validates_again(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "every generated section passes the ledger's validation (it did append)".
    sections = _sections(ledger[1])
    assert len(sections) == ledger[0]["sections"] > 0
    for payload in sections:
        parse(SubmitSection, payload)


def test_sections_cover_all_six_systems_and_dual_rating(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "time controls covering all six systems and dual rating".
    systems: set[System] = set()
    dual = 0
    for s in _sections(ledger[1]):
        total = parse_time_control(s["time_control"]).total
        version = resolve(date.fromisoformat(s["start_date"])).version
        rated = rated_systems(total, s["online"], version)
        assert rated, f"{s['time_control']} is rated in no system"
        systems |= rated
        dual += not s["online"] and is_dual_rated_time_control(total)
    assert systems == set(System)
    assert dual > 0


def test_swiss_round_robin_and_quad_sections_are_paired_like_real_ones(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "Swiss (random pairings avoiding repeats are fine), round robins (everyone plays
    # everyone) and quads (4 players, 3 rounds)".
    kinds = Counter()
    for s in _sections(ledger[1]):
        pairs = Counter(frozenset((g["white"], g["black"])) for g in s["games"])
        kind = s["section_id"].split("-")[-2]
        kinds["swiss" if kind not in ("Quad", "RoundRobin") else kind] += 1
        if kind == "Quad":
            assert len(s["players"]) == 4 and {g["round"] for g in s["games"]} == {1, 2, 3}
        if kind in ("Quad", "RoundRobin"):
            n = len(s["players"])
            assert len(pairs) == n * (n - 1) // 2 and set(pairs.values()) == {1}
        else:
            assert max(pairs.values()) == 1
    assert kinds["swiss"] and kinds["Quad"] and kinds["RoundRobin"]


def test_results_include_draws_forfeits_and_every_kind_of_bye(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "Results drawn from the latent strengths (with draws), a few forfeits and byes".
    results = Counter(g["result"] for s in _sections(ledger[1]) for g in s["games"])
    byes = Counter(b["bye"] for s in _sections(ledger[1]) for b in s["byes"])
    assert results["1/2-1/2"] > 0
    assert 0 < results["1F-0F"] + results["0F-1F"] < 0.02 * sum(results.values())
    assert set(byes) == {"full", "half", "zero"}


def test_sections_arrive_in_date_order_with_a_few_late_ones(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "submitted roughly in date order with some late arrivals: a few sections submitted
    # after later-dated ones".
    latest = ""
    late = 0
    sections = _sections(ledger[1])
    for s in sections:
        late += s["end_date"] < latest
        latest = max(latest, s["end_date"])
    assert 0 < late <= 0.05 * len(sections)


def test_unrated_newcomers_keep_registering_between_sections(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "Unrated newcomers keep joining over time".
    types = [e.type for e in ledger[1]]
    first, last = (
        types.index("SectionSubmitted"),
        len(types) - types[::-1].index("SectionSubmitted"),
    )
    assert types[first:last].count("PlayerRegistered") > SIZE["players"] // 2


def test_the_2025_bonus_multiplier_is_recorded_after_some_2025_sections(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "bonus_multiplier 10 for 2025 sections (effective 2025-01-01, until 2026-01-01),
    # recorded after some 2025 sections".
    entries = ledger[1]
    [at] = [i for i, e in enumerate(entries) if e.type == "RulesAmended"]
    payload = entries[at].payload
    assert (payload["parameter"], payload["value"]) == ("bonus_multiplier", 10.0)
    assert (payload["effective"], payload["until"]) == ("2025-01-01", "2026-01-01")
    assert any(s["start_date"] >= "2025-01-01" for s in _sections(entries[:at]))


def test_overrides_matches_and_money_floors_follow_the_rules(
    ledger: tuple[dict[str, Any], list[LedgerEntry]],
) -> None:
    # Brief: "money floor awards (amount ≥ $4,000 with an under-X limit), a few matches between
    # established players within 400 points, director overrides (a ceiling, a set floor, an
    # adjust_rating)".
    entries = ledger[1]
    actions = {e.payload["action"] for e in entries if e.type == "DirectorOverride"}
    assert actions == {"impose_ceiling", "set_floor", "adjust_rating"}
    assert all(
        e.payload["amount"] >= 4000 and e.payload["limit"] > 0
        for e in entries
        if e.type == "MoneyFloorAwarded"
    )
    ratings = {
        e.payload["member_id"]: e.payload["rating"]
        for e in entries
        if e.type == "OpeningBalanceRecorded" and e.payload["system"] == "OTBR"
    }
    for e in entries:
        if e.type == "MatchResultSubmitted":
            a, b = (p["id"] for p in e.payload["players"])
            assert abs(ratings[a] - ratings[b]) <= 400


def test_the_command_prints_one_json_line_and_refuses_a_store_that_is_not_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Brief: "appends … to the store … and prints one JSON line with counts"; appending the same
    # ids to a ledger that already has entries would fail half-way, so it is refused up front.
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    argv = ["--players", "40", "--games", "300", "--seed", "1", "--store", url, "--years", "1"]
    assert generate.main(argv) == 0
    line = capsys.readouterr().out.strip()
    counts = json.loads(line)
    assert counts["players"] == 40 and "seconds" in counts and "\n" not in line
    assert generate.main(argv) == 1
    assert "is not empty" in capsys.readouterr().err
