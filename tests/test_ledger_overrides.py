"""Director overrides: DirectorOverride records an action, its value, date and reason (§7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import DirectorOverride, parse
from ledger.errors import InvalidCommand

BASE = {"player": "12345678", "effective": "2024-07-01", "reason": "sandbagging review"}


def decision(**changes: Any) -> DirectorOverride:
    return parse(DirectorOverride, {**BASE, **changes})


@pytest.mark.parametrize(
    ("action", "value"),
    [
        ("impose_ceiling", 1900.0),
        ("lift_ceiling", None),
        ("set_floor", 1700.0),
        ("grant_floor_lowering", None),
        ("adjust_rating", 1843.5),
    ],
)
def test_each_director_action_is_recorded_with_its_value_and_reason(
    ledger: RatingsLedger, register_players: Callable[..., None], action: str, value: float | None
) -> None:
    # Brief: "DirectorOverride: action ∈ impose_ceiling | lift_ceiling | set_floor |
    # grant_floor_lowering | adjust_rating, system, value, effective date, reason".
    register_players("12345678")
    changes = {"action": action} if value is None else {"action": action, "value": value}
    [entry] = ledger.decisions.override(decision(**changes, system="OTBQ"), actor="director")
    assert (entry.type, entry.actor) == ("DirectorOverride", "director")
    assert entry.payload == {
        "member_id": "12345678",
        "action": action,
        "system": "OTBQ",
        "value": value,
        "effective": "2024-07-01",
        "reason": "sandbagging review",
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"action": "impose_ceiling"}, "value: is required to impose ceiling"),
        ({"action": "set_floor"}, "value: is required to set floor"),
        ({"action": "adjust_rating"}, "value: is required to adjust rating"),
        ({"action": "lift_ceiling", "value": 1900}, "value: 1900.0 is not used by lift_ceiling"),
        ({"action": "grant_floor_lowering", "value": 1}, "value: 1.0 is not used by grant_floor"),
        ({"action": "set_floor", "value": -100}, "value: -100: input should be greater than or"),
        ({"action": "ban", "value": 1}, "action: 'ban': input should be 'impose_ceiling'"),
        ({"action": "lift_ceiling", "reason": ""}, "reason: must not be empty"),
    ],
)
def test_an_override_missing_its_value_or_reason_is_rejected(
    changes: dict[str, Any], message: str
) -> None:
    # Brief: "corrections/overrides a reason"; a ceiling, floor or rating needs its value.
    with pytest.raises(InvalidCommand) as e:
        decision(**changes)
    assert str(e.value).startswith(message)


def test_an_override_for_an_unregistered_player_is_rejected(ledger: RatingsLedger) -> None:
    # Brief: bad input includes an "unregistered player".
    with pytest.raises(InvalidCommand, match="^player: '12345678' is not a registered player"):
        ledger.decisions.override(decision(action="lift_ceiling"), actor="director")
