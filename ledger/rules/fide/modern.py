"""A section under the 2022 and 2024 texts (B.02 8.2–8.3): each player's result, game by game.

Only games against rated opponents count, for rated and unrated players alike (8.2.2: "the
player's rated opponents"; 8.3.1: "For each game played against a rated player"); a player
rated meanwhile is rated with his current rating but counts as unrated for his opponents
(8.2.4). "Matches in which one player is unrated shall not be rated" (6.1).
"""

from __future__ import annotations

from ledger.rules.fide.initial import PoolEvent, initial_rating
from ledger.rules.fide.k_factor import k_factor, limited_k
from ledger.rules.fide.per_game import game_deltas, rating_change, round_change, sum_delta
from ledger.rules.fide.section import (
    Player,
    PlayerOutcome,
    Section,
    SectionOutcome,
    not_rated,
    results_by_player,
)
from ledger.rules.fide.versions import FideVersion
from ledger.rules.rounding import round_half_up


def rate(section: Section, version: FideVersion) -> SectionOutcome:
    """Rate one section under `version`: 10.0 (`section.rate_section`) or the per-game texts."""
    if version.per_game:
        return rate_modern(section, version)
    from ledger.rules.fide.section import rate_section

    return rate_section(section)


def rate_modern(section: Section, version: FideVersion) -> SectionOutcome:
    """Rate one section under `version` (fide-2022 or fide-2024)."""
    by_id = {p.id: p for p in section.players}
    if section.format in ("match", "scheveningen") and not all(
        p.counts_as_rated for p in section.players
    ):
        nobody = tuple(not_rated(p.id, p.rating) for p in section.players)
        reason = "6.1: a match with an unrated player is not rated"
        return SectionOutcome(version.name, False, nobody, reason=reason)
    results = results_by_player(by_id, section.games)
    outcomes = []
    for player in section.players:
        games = [
            (o, rating, s)
            for o, s in results[player.id]
            if (rating := by_id[o].rating_counted) is not None
        ]
        counted = tuple((rating, s) for _, rating, s in games)
        opponents = tuple(o for o, _, _ in games)
        if not counted:
            outcomes.append(not_rated(player.id, player.rating))
        elif player.rating is not None:
            outcomes.append(rated(version, section, player, player.rating, counted, opponents))
        else:
            outcomes.append(unrated(version, section, player, counted, opponents))
    return SectionOutcome(version.name, True, tuple(outcomes))


def rated(
    version: FideVersion,
    section: Section,
    player: Player,
    rating: float,
    counted: tuple[tuple[float, float], ...],
    opponents: tuple[str, ...],
) -> PlayerOutcome:
    """8.3: ΣΔR over his games against rated opponents (`counted`: rating and score; their
    ids `opponents`), times K (limited by K × n ≤ 700 over this section's games; a list
    limits it over the period's)."""
    base = k_factor(
        version,
        rating,
        player.games,
        player.reached_2400,
        player.birth,
        section.end,
        player.listed_k,
    )
    k = limited_k(version, base, len(counted))
    deltas = game_deltas(version, rating, counted, section.end, section.rapid_blitz)
    total = sum_delta(deltas)
    change = rating_change(k, sum(g.hundredths for g in deltas))  # 8.3.2 d): ΣΔR × K
    return PlayerOutcome(
        player=player.id,
        pre=rating,
        post=rating + change,
        official=round_half_up(rating) + round_change(change),  # 8.3.4, from a whole list rating
        rating_change=change,
        games=len(counted),
        score=sum(s for _, s in counted),
        expected=sum(g.pd for g in deltas),
        k=k,
        k_base=base,
        sum_delta=total,
        deltas=deltas,
        opponents=opponents,
    )


def unrated(
    version: FideVersion,
    section: Section,
    player: Player,
    counted: tuple[tuple[float, float], ...],
    opponents: tuple[str, ...],
) -> PlayerOutcome:
    """8.2 over his pooled games so far (7.1.4), this section's included (`counted`: rating
    and score against rated opponents; their ids `opponents`)."""
    events = (*player.pool, PoolEvent(section.end, counted))
    init = initial_rating(version, events, section.end)
    return PlayerOutcome(
        player=player.id,
        pre=None,
        post=None if init.published is None else float(init.published),
        official=init.published,
        rating_change=None,
        performance=None if init.ru is None else float(init.ru),
        published_rating=init.published,
        games=len(counted),
        score=sum(s for _, s in counted),
        rc=init.ra,
        p=init.p,
        dp=init.dp,
        reason=init.reason,
        results=counted,
        opponents=opponents,
    )
