"""Money floors: MoneyFloorAwarded records a large prize and its rating limit (§5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import AwardMoneyFloor, parse
from ledger.errors import InvalidCommand
from ledger.log import read_entries

AWARD = {"player": "12345678", "amount": 4000, "limit": 1800, "date": "2024-05-05"}


def test_an_award_records_the_prize_its_limit_date_and_default_system_otbr(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "MoneyFloorAwarded: player, prize amount, the prize's rating limit (e.g. 1800 for
    # under-1800), date, system (default OTBR)".
    register_players("12345678")
    [entry] = ledger.decisions.award_money_floor(parse(AwardMoneyFloor, AWARD), actor="director")
    assert (entry.type, entry.payload) == (
        "MoneyFloorAwarded",
        {
            "member_id": "12345678",
            "amount": 4000.0,
            "limit": 1800,
            "date": "2024-05-05",
            "system": "OTBR",
        },
    )


def test_two_awards_to_one_player_are_two_facts(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "one per FIDE adjustment/award/override (uuid4 is fine)": prizes do not collide.
    register_players("12345678")
    first = ledger.decisions.award_money_floor(parse(AwardMoneyFloor, AWARD), actor="director")
    second = ledger.decisions.award_money_floor(parse(AwardMoneyFloor, AWARD), actor="director")
    assert first[0].aggregate_id != second[0].aggregate_id
    assert [e.type for e in read_entries(ledger)].count("MoneyFloorAwarded") == 2


def test_an_award_to_an_unregistered_player_is_rejected(ledger: RatingsLedger) -> None:
    # Brief: bad input includes an "unregistered player".
    with pytest.raises(InvalidCommand, match="^player: '12345678' is not a registered player"):
        ledger.decisions.award_money_floor(parse(AwardMoneyFloor, AWARD), actor="director")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"amount": 0}, "amount: 0: input should be greater than 0"),
        ({"amount": -4000}, "amount: -4000: input should be greater than 0"),
        ({"limit": 1800.5}, "limit: 1800.5: input should be a valid integer"),
        ({"limit": 0}, "limit: 0: input should be greater than 0"),
        ({"system": "BLITZ"}, "system: 'BLITZ' is not one of OTBR"),
        ({"date": "yesterday"}, "date: 'yesterday' is not a date (YYYY-MM-DD)"),
    ],
)
def test_a_malformed_award_is_rejected(changes: dict[str, Any], message: str) -> None:
    # Brief: "wrong type", "negative" numbers are bad input naming the field and value.
    with pytest.raises(InvalidCommand) as e:
        parse(AwardMoneyFloor, {**AWARD, **changes})
    assert str(e.value).startswith(message)
