"""`estimate` under FIDE (B.02, 10.0 to 2024): the version in force on the end date or named."""

from __future__ import annotations

from typing import Any, cast

from ledger.errors import InputError
from ledger.estimate import EstimateSection, output, scores
from ledger.rules.fide import section as fide
from ledger.rules.fide import versions
from ledger.rules.fide.modern import rate
from ledger.rules.fide.rate_of_play import BLITZ, RAPID, STANDARD

# a section's `system` naming FIDE's rapid or blitz list (B.02 rapid and blitz regulations)
LISTS = {"rapid": RAPID, RAPID: RAPID, "blitz": BLITZ, BLITZ: BLITZ}


def estimate(section: EstimateSection, name: str | None, explain: bool) -> dict[str, Any]:
    """The contract's section rated as a FIDE section (unrated players as 10.3 / 8.2 say)."""
    try:
        version = versions.resolve(section.end_date, name)
    except ValueError as exc:
        raise InputError("rules", str(exc)) from None
    system = LISTS.get(section.system or "", STANDARD)
    players = tuple(
        fide.Player(
            p.id,
            p.rating if version.name == fide.RULES or not p.unrated else None,
            p.games or 0,
            p.reached_2400,
            birth=p.birth_date,
        )
        for p in section.players
    )
    try:
        outcome = rate(
            fide.Section(
                cast(fide.Format, section.format),  # the contract admits FIDE's (Family.formats)
                section.start_date,
                section.end_date,
                players,
                scores(section),
                rounds=section.rounds,
                rapid_blitz=system != STANDARD,
            ),
            version,
        )
    except ValueError as exc:
        raise InputError("section", str(exc)) from None
    return output(section, outcome, explain, system)
