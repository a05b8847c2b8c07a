"""The logistic expected score of one game, as the US Chess and ICU texts both define it."""

from __future__ import annotations


def winning_expectancy(own: float, opponent: float) -> float:
    """US Chess §4.2: We(R, Ri) = 1 / (1 + 10^(−(R − Ri)/400)); the ICU's wg = 1/(1 + 10^(Rd/400))
    with Rd = the opponent's rating − his own."""
    odds: float = 10.0 ** ((opponent - own) / 400.0)  # typeshed: float ** float may be complex
    return 1.0 / (1.0 + odds)
