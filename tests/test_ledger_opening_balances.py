"""Opening balances: a player's record per system when a federation moves onto the ledger."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import RecordOpeningBalance, parse
from ledger.errors import InvalidCommand
from ledger.log import read_entries

BALANCE = {
    "player": "12345678",
    "system": "OTBR",
    "as_of": "2024-01-01",
    "rating": 1850.25,
    "games": 40,
    "wins": 20,
    "draws": 8,
    "losses": 12,
    "sections_of_three": 9,
    "history": "mixed",
    "peak": 1901.5,
    "olm_games": 0,
    "money_floor": 1800,
}


def balance(**changes: Any) -> RecordOpeningBalance:
    return parse(RecordOpeningBalance, {**BALANCE, **changes})


def test_an_opening_balance_records_every_given_number_of_the_player_in_that_system(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "OpeningBalanceRecorded: ... per system (OTBR/...): rating, N, wins/draws/losses,
    # events with ≥ 3 games, all-wins/all-losses status, peak established rating, OLM game
    # count, floors (money floor, director floor, ceiling), as of a date."
    register_players("12345678")
    [entry] = ledger.players.record_opening_balance(balance(), actor="office")
    assert entry.type == "OpeningBalanceRecorded"
    assert entry.payload == {
        "member_id": "12345678",
        "system": "OTBR",
        "as_of": "2024-01-01",
        "rating": 1850.25,
        "games": 40,
        "wins": 20,
        "draws": 8,
        "losses": 12,
        "sections_of_three": 9,
        "history": "mixed",
        "peak": 1901.5,
        "olm_games": 0,
        "money_floor": 1800,
        "director_floor": None,
        "ceiling": None,
        "k": None,  # issue 30: FIDE's K, not given
    }


def test_an_opening_balance_for_an_unregistered_player_is_rejected(
    ledger: RatingsLedger,
) -> None:
    # Brief: bad input includes an "unregistered player"; nothing appended.
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="^player: '12345678' is not a registered player"):
        ledger.players.record_opening_balance(balance(), actor="office")
    assert list(read_entries(ledger)) == before


def test_a_second_opening_balance_in_the_same_system_is_rejected_but_another_system_is_not(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: the opening balance is the state "when a federation moves onto the ledger": once.
    register_players("12345678")
    ledger.players.record_opening_balance(balance(), actor="office")
    with pytest.raises(InvalidCommand, match="already has an opening balance in OTBR"):
        ledger.players.record_opening_balance(balance(rating=1700), actor="office")
    [entry] = ledger.players.record_opening_balance(balance(system="OTBQ"), actor="office")
    assert entry.payload["system"] == "OTBQ"


def test_a_batch_of_balances_is_all_or_nothing(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "a list is all-or-nothing: validate every item before appending any".
    register_players("12345678")
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand) as e:
        ledger.players.record_opening_balance(
            balance(), balance(player="99999999", system="OTBB"), actor="office"
        )
    assert (e.value.index, str(e.value)) == (1, "player: '99999999' is not a registered player")
    assert list(read_entries(ledger)) == before


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rating": -1}, "rating: -1: input should be greater than or equal to 0"),
        (
            {"system": "OTBX"},
            "system: 'OTBX' is not one of OTBR, OTBQ, OTBB, OLR, OLQ, OLB, FIDE, FIDE_RAPID, "
            "FIDE_BLITZ, ICU",
        ),
        ({"games": 30}, "games: 30 is fewer than wins + draws + losses (40)"),
        ({"history": "all_wins"}, "draws: 8 contradicts history 'all_wins'"),
        ({"history": "all_losses"}, "wins: 20 contradicts history 'all_losses'"),
        (
            {"history": "sometimes"},
            "history: 'sometimes': input should be 'mixed', 'all_wins' or 'all_losses'",
        ),
        ({"games": 4.5}, "games: 4.5: input should be a valid integer"),
        ({"as_of": None}, "as_of: None is not a date (YYYY-MM-DD)"),
        ({"ceiling": float("inf")}, "ceiling: inf: input should be a finite number"),
    ],
)
def test_a_contradictory_or_malformed_balance_is_rejected(
    changes: dict[str, Any], message: str
) -> None:
    # Brief: "Every command validates fully before it appends"; all-wins/all-losses status
    # means no other outcome, and N counts every rated game won, drawn or lost.
    with pytest.raises(InvalidCommand) as e:
        balance(**changes)
    assert str(e.value) == message
