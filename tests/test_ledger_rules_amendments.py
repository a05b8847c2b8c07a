"""Rules amendments: RulesAmended records a parameter's value from a date, with a reason."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import AmendRules, parse
from ledger.errors import InvalidCommand
from ledger.rules.uschess.versions import Amendment, resolve

CONVERSION = {"split": 2000, "low": [-1000, 1.5], "high": [20, 1.02]}


def amendment(**changes: Any) -> AmendRules:
    data = {
        "parameter": "bonus_multiplier",
        "value": 10,
        "effective": "2025-01-01",
        "reason": "board motion 2024-12",
        **changes,
    }
    return parse(AmendRules, data)


def test_an_amendment_records_parameter_value_dates_and_reason(ledger: RatingsLedger) -> None:
    # Brief: "RulesAmended: a named parameter ..., value, effective date, optional until date,
    # reason; recorded later than it takes effect".
    [entry] = ledger.decisions.amend_rules(amendment(until="2026-01-01"), actor="director")
    assert (entry.type, entry.payload) == (
        "RulesAmended",
        {
            "parameter": "bonus_multiplier",
            "value": 10.0,
            "effective": "2025-01-01",
            "until": "2026-01-01",
            "reason": "board motion 2024-12",
        },
    )


def test_a_recorded_conversion_amendment_resolves_to_the_rules_it_states(
    ledger: RatingsLedger,
) -> None:
    # Brief: "validate with ledger.rules.uschess.parameters.parse_parameter_value": the stored
    # value is one the rules accept unchanged, in force from its effective date.
    [entry] = ledger.decisions.amend_rules(
        amendment(parameter="fide_conversion", value=CONVERSION), actor="director"
    )
    p = entry.payload
    assert p["value"] == {"split": 2000.0, "low": [-1000.0, 1.5], "high": [20.0, 1.02]}
    stated = Amendment(p["parameter"], p["value"], date.fromisoformat(p["effective"]))
    assert resolve(date(2025, 3, 1), amendments=[stated]).fide_conversion(1000) == 500.0
    assert resolve(date(2024, 12, 31), amendments=[stated]).fide_conversion(1000) != 500.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"parameter": "k_factor"}, "parameter: 'k_factor' is not one of bonus_multiplier"),
        ({"value": -1}, "value: bonus_multiplier must be a number >= 0, got -1"),
        ({"value": "ten"}, "value: bonus_multiplier must be a number >= 0, got 'ten'"),
        ({"parameter": "cfc_conversion", "value": 3}, "value: cfc_conversion must be {split,"),
        ({"until": "2025-01-01"}, "until: 2025-01-01 is not after effective 2025-01-01"),
        ({"reason": " "}, "reason: must not be empty"),
    ],
)
def test_a_malformed_amendment_is_rejected(changes: dict[str, Any], message: str) -> None:
    # Brief: "validate with ledger.rules.uschess.parameters.parse_parameter_value".
    with pytest.raises(InvalidCommand) as e:
        amendment(**changes)
    assert str(e.value).startswith(message)
