"""An ICU-rated section: continuous formula for established players, performance for new ones."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ledger.rules.fide.section import (
    SCORES,
    Game,
    PlayerOutcome,
    SectionOutcome,
    not_rated,
    results_by_player,
)
from ledger.rules.fide.tables import dp, percentage
from ledger.rules.icu.expectancy import expected_score
from ledger.rules.icu.k_factor import k_on
from ledger.rules.icu.performance import is_provisional, performance_rating, provisional_rating
from ledger.rules.rounding import round_half_up

RULES = "icu-2005"


@dataclass(frozen=True)
class Player:
    """A participant; `rating` None for a new player, `rated_games` played against rated players.

    `born` and `started` (the date he started playing) give age and experience for K.
    `foreign`: `rating` is held fixed (a foreign player at his FIDE rating, not on the ICU
    list): it counts for his opponents like a full rating and is never updated.
    """

    id: str
    rating: float | None
    rated_games: int = 0
    born: date | None = None
    started: date | None = None
    foreign: bool = False


@dataclass(frozen=True)
class Section:
    """A section; games as (white, black, white's score)."""

    start: date
    end: date
    players: tuple[Player, ...]
    games: tuple[Game, ...]

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("a section cannot end before it starts")
        ids = [p.id for p in self.players]
        if len(set(ids)) != len(ids):
            raise ValueError("player ids must be unique")
        for p in self.players:
            if p.rating is None and p.rated_games:
                raise ValueError(f"{p.id}: games against rated players but no rating")
            if p.rating is None and p.foreign:
                raise ValueError(f"{p.id}: a foreign player needs his fixed rating")
        for white, black, score in self.games:
            if white not in ids or black not in ids or white == black:
                raise ValueError(f"game {white}–{black}: players must be two different entrants")
            if score not in SCORES:
                raise ValueError(f"game {white}–{black}: score must be 1, 0.5 or 0")


def rate_section(section: Section) -> SectionOutcome:
    """Rate one section under the ICU rules; games against players without a rating don't count."""
    by_id = {p.id: p for p in section.players}
    results = results_by_player(by_id, section.games)
    outcomes = []
    for player in section.players:
        faced = [(by_id[o].rating, s) for o, s in results[player.id]]
        opponents = [r for r, _ in faced if r is not None]
        score = sum(s for r, s in faced if r is not None)
        if not opponents or player.foreign:
            outcomes.append(not_rated(player.id, player.rating))
        elif player.rating is not None and not is_provisional(player.rated_games):
            outcomes.append(_continuous(player, player.rating, opponents, score, section.start))
        else:
            outcomes.append(_performance(player, opponents, score))
    return SectionOutcome(RULES, True, tuple(outcomes))


def _continuous(
    player: Player, rating: float, opponents: list[float], score: float, start: date
) -> PlayerOutcome:
    """Rn = Ro + K(W − We)."""
    k = k_on(rating, player.born, player.started, start)
    we = expected_score(rating, opponents)
    change = k * (score - we)
    post = rating + change
    return PlayerOutcome(
        player=player.id,
        pre=rating,
        post=post,
        official=round_half_up(post),
        rating_change=change,
        games=len(opponents),
        score=score,
        rc=sum(opponents) / len(opponents),
        expected=we,
        k=k,
    )


def _performance(player: Player, opponents: list[float], score: float) -> PlayerOutcome:
    """Rp = Rc + Dp, averaged by games with the earlier provisional rating."""
    games = len(opponents)
    rp = performance_rating(opponents, score)
    post = provisional_rating(player.rating, player.rated_games, rp, games)
    official = round_half_up(post)
    p = percentage(score, games)
    return PlayerOutcome(
        player=player.id,
        pre=player.rating,
        post=post,
        official=official,
        rating_change=None if player.rating is None else post - player.rating,
        performance=rp,
        published_rating=official,
        games=games,
        score=score,
        rc=sum(opponents) / len(opponents),
        p=p / 100,
        dp=dp(p),
        provisional=is_provisional(player.rated_games + games),
    )
