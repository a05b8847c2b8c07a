"""Reading the log: `read_entries` yields LedgerEntry in ledger order — the projections' input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import RatingsLedger
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    parse,
)
from ledger.log import LedgerEntry, read_entries

EVERY_TYPE = [
    "LedgerInitialized",
    "RoleGranted",
    "RoleGranted",
    "RoleGranted",
    "PlayerRegistered",
    "PlayerRegistered",
    "PlayerRegistered",
    "PlayerRegistered",
    "PlayerProfileUpdated",
    "OpeningBalanceRecorded",
    "SectionSubmitted",
    "SectionCorrected",
    "FideAdjustmentSubmitted",
    "MoneyFloorAwarded",
    "MatchResultSubmitted",
    "DirectorOverride",
    "RulesAmended",
    "SectionWithdrawn",
    "RoleRevoked",
]


@pytest.fixture
def full_ledger(
    ledger: RatingsLedger, section_ready: Callable[..., SubmitSection]
) -> RatingsLedger:
    """One entry of every type, in the order of EVERY_TYPE (the `ledger` fixture sets up the
    roles, section_ready registers four)."""
    ledger.players.register(
        parse(RegisterPlayer, {"id": "12345678", "adult": True}), actor="office"
    )
    ledger.players.record_opening_balance(
        parse(
            RecordOpeningBalance,
            {
                "player": "12345678",
                "system": "OTBR",
                "as_of": "2024-01-01",
                "rating": 1850,
                "games": 40,
            },
        ),
        actor="office",
    )
    ledger.sections.submit(section_ready(), actor="td")
    ledger.sections.correct(
        section_ready(event_name="Grand Prix 2024"), reason="name", actor="office"
    )
    ledger.decisions.submit_fide_adjustment(
        parse(
            SubmitFideAdjustment,
            {
                "player": "12345678",
                "rating_list": "2024-06-01",
                "games": [{"opponent_rating": 2100, "score": 1}],
            },
        ),
        actor="office",
    )
    ledger.decisions.award_money_floor(
        parse(
            AwardMoneyFloor,
            {"player": "12345678", "amount": 5000, "limit": 1800, "date": "2024-05-05"},
        ),
        actor="director",
    )
    ledger.sections.submit_match(
        parse(
            SubmitMatch,
            {
                "match_id": "M1",
                "online": False,
                "time_control": "G/60",
                "start_date": "2024-06-01",
                "end_date": "2024-06-01",
                "players": [{"id": "12345678"}, {"id": "30000001"}],
                "games": [{"round": 1, "white": "12345678", "black": "30000001", "result": "1-0"}],
            },
        ),
        actor="td",
    )
    ledger.decisions.override(
        parse(
            DirectorOverride,
            {
                "player": "12345678",
                "action": "impose_ceiling",
                "value": 2000,
                "effective": "2024-07-01",
                "reason": "review",
            },
        ),
        actor="director",
    )
    ledger.decisions.amend_rules(
        parse(
            AmendRules,
            {
                "parameter": "bonus_multiplier",
                "value": 10,
                "effective": "2025-01-01",
                "reason": "vote",
            },
        ),
        actor="director",
    )
    ledger.sections.withdraw("2024-05-GP-OPEN", reason="not rated", actor="office")
    ledger.roles.revoke("td", "tournament_director", actor="director")
    return ledger


def test_entries_come_in_ledger_order_with_each_fact_type_named(full_ledger: RatingsLedger) -> None:
    # Brief: "read_entries(...) -> Iterator[LedgerEntry] ... in ledger order"; "The ledger
    # position of an entry is its notification id (global order)".
    entries = list(read_entries(full_ledger))
    assert [e.type for e in entries] == EVERY_TYPE
    assert [e.position for e in entries] == list(range(1, len(EVERY_TYPE) + 1))


def test_every_entry_has_an_iso_timestamp_an_actor_and_a_plain_json_payload(
    full_ledger: RatingsLedger,
) -> None:
    # Brief: "LedgerEntry ... (position: int, type: str, recorded_at: str ISO, actor: str,
    # aggregate_id, payload: dict)"; payloads are "plain JSON-compatible".
    for entry in read_entries(full_ledger):
        assert isinstance(entry, LedgerEntry)
        assert datetime.fromisoformat(entry.recorded_at).tzinfo is not None
        assert entry.actor
        assert json.loads(json.dumps(entry.payload)) == entry.payload
        assert "timestamp" not in entry.payload and "originator_topic" not in entry.payload


def test_an_entry_is_immutable(full_ledger: RatingsLedger) -> None:
    # Brief: "LedgerEntry is a frozen dataclass".
    entry = next(read_entries(full_ledger))
    with pytest.raises(AttributeError):
        entry.position = 99  # type: ignore[misc]


def test_the_recorder_reads_the_same_entries_as_the_application(
    full_ledger: RatingsLedger,
) -> None:
    # Brief: "read_entries(app_or_recorder, ...)".
    assert list(read_entries(full_ledger.recorder)) == list(read_entries(full_ledger))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(after=st.integers(0, len(EVERY_TYPE) + 2), batch=st.integers(1, len(EVERY_TYPE) + 2))
def test_reading_after_a_position_in_any_batch_size_yields_exactly_the_later_entries(
    full_ledger: RatingsLedger, after: int, batch: int
) -> None:
    # Brief: "read_entries(app_or_recorder, after_position=0, batch=5000)": the batch size is
    # a reading detail; the entries after a position are the same whatever it is.
    everything = list(read_entries(full_ledger))
    assert list(read_entries(full_ledger, after, batch)) == everything[after:]


def test_another_process_rebuilds_recorded_aggregates_from_the_stored_topics(
    full_ledger: RatingsLedger,
) -> None:
    # Brief: the log is read by other tools and processes; a new process must resolve every
    # recorded fact (here: reconstruct the roles, then the withdrawn section to refuse another
    # withdrawal).
    code = (
        "import sys\n"
        "from ledger.application import RatingsLedger\n"
        "from ledger.domain import InvalidCommand\n"
        "app = RatingsLedger(sys.argv[1])\n"
        "try:\n"
        "    app.sections.withdraw('2024-05-GP-OPEN', reason='again', actor='office')\n"
        "except InvalidCommand as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, full_ledger.store], capture_output=True, text=True, check=True
    )
    assert (
        out.stdout.strip()
        == "section_id: section '2024-05-GP-OPEN' was withdrawn; it cannot change"
    )
