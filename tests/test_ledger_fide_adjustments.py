"""FIDE adjustments: a player's games against FIDE-rated opponents for one rating list (§6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import uuid5

import pytest

from ledger.application import RatingsLedger
from ledger.commands import SubmitFideAdjustment, parse
from ledger.domain import NAMESPACE
from ledger.errors import InvalidCommand

GAMES = [
    {"opponent_rating": 2105, "opponent_id": "FIDE 5012345", "score": 1},
    {"opponent_rating": 1980.5, "score": 0.5},
    {"opponent_rating": 2250, "score": 0},
]


def adjustment(**changes: Any) -> SubmitFideAdjustment:
    data = {"player": "12345678", "rating_list": "2024-06-01", "games": GAMES, **changes}
    return parse(SubmitFideAdjustment, data)


def test_a_fide_adjustment_records_the_list_date_youth_flag_and_each_game(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "FideAdjustmentSubmitted: player, FIDE rating-list date, youth-event flag, games
    # against FIDE-rated opponents (opponent FIDE rating, optional opponent id, score)".
    register_players("12345678")
    [entry] = ledger.decisions.submit_fide_adjustment(adjustment(youth_event=True), actor="office")
    assert entry.type == "FideAdjustmentSubmitted"
    assert entry.payload == {
        "member_id": "12345678",
        "rating_list": "2024-06-01",
        "youth_event": True,
        "games": [
            {"opponent_rating": 2105.0, "opponent_id": "FIDE 5012345", "score": 1.0},
            {"opponent_rating": 1980.5, "opponent_id": None, "score": 0.5},
            {"opponent_rating": 2250.0, "opponent_id": None, "score": 0.0},
        ],
    }
    assert entry.aggregate_id == str(uuid5(NAMESPACE, "fide-adjustment:12345678:2024-06-01"))


def test_a_second_adjustment_for_the_same_player_and_list_is_rejected(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # §6: "The standard formula is applied only once" per FIDE rating list and player.
    register_players("12345678")
    ledger.decisions.submit_fide_adjustment(adjustment(), actor="office")
    with pytest.raises(InvalidCommand, match="already has a FIDE adjustment for the 2024-06-01"):
        ledger.decisions.submit_fide_adjustment(adjustment(youth_event=True), actor="office")
    [entry] = ledger.decisions.submit_fide_adjustment(
        adjustment(rating_list="2024-07-01"), actor="office"
    )
    assert entry.payload["rating_list"] == "2024-07-01"


def test_an_adjustment_for_an_unregistered_player_is_rejected(ledger: RatingsLedger) -> None:
    # Brief: bad input includes an "unregistered player".
    with pytest.raises(InvalidCommand, match="^player: '12345678' is not a registered player"):
        ledger.decisions.submit_fide_adjustment(adjustment(), actor="office")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"games": []}, "games: []: list should have at least 1 item"),
        ({"games": [{"score": 1}]}, "games[0].opponent_rating: is required"),
        ({"games": [{"opponent_rating": 0, "score": 1}]}, "games[0].opponent_rating: 0: input"),
        ({"games": [{"opponent_rating": 2000, "score": 2}]}, "games[0].score: 2 is not one of"),
        ({"rating_list": "2024-06"}, "rating_list: '2024-06' is not a date (YYYY-MM-DD)"),
        ({"youth_event": "yes"}, "youth_event: 'yes': input should be a valid boolean"),
    ],
)
def test_a_malformed_adjustment_is_rejected(changes: dict[str, Any], message: str) -> None:
    # §6: "Opponents who do not have a FIDE rating are ignored", so every game needs one.
    with pytest.raises(InvalidCommand) as e:
        adjustment(**changes)
    assert str(e.value).startswith(message)
