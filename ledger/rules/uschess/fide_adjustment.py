"""Updating the US Chess regular rating from a foreign FIDE tournament (§6)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.standard_formula import bonus_eligible, k_factor, standard_rating
from ledger.rules.uschess.systems import is_established
from ledger.rules.uschess.versions import Rules, RuleVersion

AUTOMATIC_FIDE_RATING = 2200  # §6: "Members with a FIDE rating of at least 2200 with a 'USA flag'"
NO_OTBR_RATING = "no US Chess regular (OTBR) rating to update"


@dataclass(frozen=True)
class FidePlayer:
    """A US player in a foreign FIDE tournament; `opted_in` means before that tournament."""

    otbr_rating: float | None
    otbr_games: int
    member: bool
    usa_flag: bool
    fide_rating: float | None
    opted_in: bool = False


@dataclass(frozen=True)
class FideGame:
    """One game: the opponent's FIDE rating (None if unrated), the player's score, an id."""

    opponent_fide: float | None
    score: float
    opponent_id: str | None = None


@dataclass(frozen=True)
class NotEligible:
    reason: str


@dataclass(frozen=True)
class FideAdjustment:
    """Every value in one adjustment; `rating` and `games_after` are the new OTBR rating and N."""

    automatic: bool
    youth: bool
    ignored_games: int
    opponents_fide: tuple[float, ...]
    opponents_converted: tuple[float, ...]
    m: int
    score: float
    pre_rating: float
    games_before: int
    n_eff: float
    k: float
    expected: float
    most_meetings: int
    bonus_eligible: bool
    bonus_multiplier: float | None
    bonus: float
    rating: float
    games_after: int


def is_automatic(player: FidePlayer) -> bool:
    """§6: FIDE rating at least 2200 with a USA flag (membership is checked separately)."""
    return (
        player.usa_flag
        and player.fide_rating is not None
        and player.fide_rating >= AUTOMATIC_FIDE_RATING
    )


def ineligibility(player: FidePlayer, version: RuleVersion) -> str | None:
    """Why the player's OTBR rating is not adjusted under `version`, or None if it is."""
    # §6 (2020+): "Only current US Chess members are eligible for FIDE adjustments."
    if version.fide_adjustment_needs_membership and not player.member:
        return "not a current US Chess member"
    if player.otbr_rating is None:
        return NO_OTBR_RATING
    # §6 (2020+): "Only players with an established US Chess regular rating are eligible"
    if version.fide_adjustment_needs_established and not is_established(player.otbr_games):
        return f"the US Chess regular rating is not established ({player.otbr_games} games)"
    # §6: players under 2200 FIDE or without a FIDE rating "must opt-in ... in advance"
    if not is_automatic(player) and not player.opted_in:
        return "not automatic (FIDE rating of at least 2200 with a USA flag) and not opted in"
    return None


def most_meetings(games: Sequence[FideGame]) -> int:
    """Most games against one opponent; games without an opponent id count as distinct."""
    counts = Counter(g.opponent_id for g in games if g.opponent_id is not None)
    return max(counts.values(), default=1 if games else 0)


def adjust_for_fide_event(
    player: FidePlayer, games: Sequence[FideGame], rules: Rules, youth: bool = False
) -> FideAdjustment | NotEligible:
    """§6: one pass of the standard formula (with bonus) against converted FIDE opponents."""
    reason = ineligibility(player, rules.version)
    r0 = player.otbr_rating
    if reason is not None or r0 is None:
        return NotEligible(reason or NO_OTBR_RATING)
    # §6: "Opponents who do not have a FIDE rating are ignored."
    rated = [g for g in games if g.opponent_fide is not None]
    if not rated:
        return NotEligible("no game against a FIDE-rated opponent")
    # §6: the §2.1 conversion, or the youth conversion "for all opponents" of a youth event.
    conversion = rules.youth_conversion if youth else rules.fide_conversion
    fide = tuple(float(g.opponent_fide) for g in rated if g.opponent_fide is not None)
    converted = tuple(conversion(r) for r in fide)
    m = len(rated)
    score = sum(g.score for g in rated)
    n_eff = effective_games(player.otbr_games, r0)
    k = k_factor(n_eff, m, r0)
    meetings = most_meetings(rated)
    eligible = bonus_eligible(m, meetings, rules.version.bonus_needs_distinct_opponents_at_three)
    multiplier = rules.bonus_multiplier if eligible else None
    # §6: "The standard formula is applied only once, as opposed to twice"
    result = standard_rating(r0, converted, score, k, multiplier)
    return FideAdjustment(
        automatic=is_automatic(player),
        youth=youth,
        ignored_games=len(games) - m,
        opponents_fide=fide,
        opponents_converted=converted,
        m=m,
        score=score,
        pre_rating=r0,
        games_before=player.otbr_games,
        n_eff=n_eff,
        k=k,
        expected=result.expected,
        most_meetings=meetings,
        bonus_eligible=eligible,
        bonus_multiplier=multiplier,
        bonus=result.bonus,
        rating=result.rating,
        # §7: "each players' value of N is incremented by m"
        games_after=player.otbr_games + m,
    )
