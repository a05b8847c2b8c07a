"""`estimate` under the ICU's rules: the version in force on the start date or named."""

from __future__ import annotations

from typing import Any

from ledger.errors import InputError
from ledger.estimate import EstimateSection, output, scores
from ledger.rules.icu import section as icu
from ledger.rules.icu import versions
from ledger.rules.icu.family import SYSTEM


def estimate(section: EstimateSection, name: str | None, explain: bool) -> dict[str, Any]:
    """The contract's section rated as an ICU tournament."""
    players = tuple(
        icu.Player(p.id, p.rating, p.games or 0, p.birth_date, p.playing_since)
        for p in section.players
    )
    try:
        outcome = versions.resolve(section.start_date, name).rate(
            icu.Section(section.start_date, section.end_date, players, scores(section))
        )
    except ValueError as exc:
        raise InputError("section", str(exc)) from None
    return output(section, outcome, explain, SYSTEM)
