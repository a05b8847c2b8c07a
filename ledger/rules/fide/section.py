"""A FIDE-rated section (10.2–10.68): each player's result with every intermediate value."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Literal, get_args

from ledger.rules.fide.initial import PoolEvent
from ledger.rules.fide.per_game import GameDelta
from ledger.rules.fide.rated import (
    cap_adjustment,
    k_factor,
    round_robin_competition,
    section_change,
)
from ledger.rules.fide.tables import dp, percentage
from ledger.rules.fide.unrated import (
    Performance,
    new_rating,
    olympiad_entry,
    olympiad_qualified,
    performance,
    published_rating,
    tournament_average,
)
from ledger.rules.rounding import round_half_up

RULES = "fide-2003"
Format = Literal["swiss", "round_robin", "team", "match", "scheveningen", "olympiad"]
FORMATS: frozenset[str] = frozenset(get_args(Format))
SCORES = (0.0, 0.5, 1.0)
Game = tuple[str, str, float]


@dataclass(frozen=True)
class Player:
    """A participant; `rating` None if unrated, `games` rated games completed before (10.641).

    `prior`: earlier Ru results of an unrated player (10.3). `newly_rated`: unrated when he
    played but published since, so rated with `rating` yet counted as unrated by opponents (10.5).
    """

    id: str
    rating: float | None
    games: int = 0
    reached_2400: bool = False
    prior: tuple[Performance, ...] = ()
    newly_rated: bool = False
    birth: date | None = None  # 8.3.3 (2022, 2024): K = 40 for juniors
    pool: tuple[PoolEvent, ...] = ()  # 8.2/7.1.4 (2022, 2024): earlier games vs rated players
    listed_k: int | None = None  # issue 30: his K on FIDE's list, as recorded

    @property
    def rating_counted(self) -> float | None:
        """His rating as his opponents' calculations count it: None if they treat him as an
        unrated player, as they do a newly rated one (10.5)."""
        return None if self.newly_rated else self.rating

    @property
    def counts_as_rated(self) -> bool:
        """Whether his opponents' calculations treat him as a rated player (10.5)."""
        return self.rating_counted is not None


@dataclass(frozen=True)
class Section:
    """A section; games as (white, black, white's score), in round order (10.41)."""

    format: Format
    start: date
    end: date
    players: tuple[Player, ...]
    games: tuple[Game, ...]
    rounds: int | None = None
    womens: bool = False
    rapid_blitz: bool = False  # B02 rapid and blitz regulations (2022, 2024)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; known: {', '.join(sorted(FORMATS))}")
        if self.end < self.start:
            raise ValueError("a section cannot end before it starts")
        ids = [p.id for p in self.players]
        known = set(ids)  # each game's two players looked up here: a set, not the list
        if len(known) != len(ids):
            raise ValueError("player ids must be unique")
        for p in self.players:
            if p.newly_rated and p.rating is None:
                raise ValueError(f"{p.id}: a newly rated player needs his published rating")
        for white, black, score in self.games:
            if white not in known or black not in known or white == black:
                raise ValueError(f"game {white}–{black}: players must be two different entrants")
            if score not in SCORES:
                raise ValueError(f"game {white}–{black}: score must be 1, 0.5 or 0")
        if self.format == "olympiad" and (self.rounds is None or self.rounds < 1):
            raise ValueError("an Olympiad section needs its number of rounds (10.4)")


@dataclass(frozen=True)
class PlayerOutcome:
    """One player's result: ratings, Ru for unrated players, and the values behind them."""

    player: str
    pre: float | None
    post: float | None
    official: int | None
    rating_change: float | None
    rated: bool = True
    performance: float | None = None
    published_rating: int | None = None
    games: int = 0
    score: float = 0.0
    rc: float | None = None
    rc_before_cap: float | None = None
    performance_before_cap: float | None = None
    d: float | None = None
    pd: float | None = None
    expected: float | None = None
    k: float | None = None
    p: float | None = None
    dp: float | None = None
    provisional: bool = False
    k_base: int | None = None  # 8.3.3 before the K × n limit
    sum_delta: float | None = None  # 8.3.2 c): ΣΔR
    deltas: tuple[GameDelta, ...] = ()  # 8.3.2: each game's D, PD and ΔR
    reason: str | None = None  # why an unrated player gets no rating yet (7.1.4)
    results: tuple[tuple[float, float], ...] = ()  # 8.2: (opponent, score) against rated ones
    opponents: tuple[str, ...] = ()  # 8.2/8.3: the rated opponents counted, game by game


@dataclass(frozen=True)
class SectionOutcome:
    """Every player's outcome; Rar, dpa and Ra for a round robin with unrated players."""

    rules: str
    rated: bool
    players: tuple[PlayerOutcome, ...]
    reason: str | None = None
    rar: float | None = None
    dpa: float | None = None
    ra: float | None = None

    def player(self, player_id: str) -> PlayerOutcome:
        """The outcome of one player."""
        return next(p for p in self.players if p.player == player_id)


def results_by_player(
    ids: Iterable[str], games: Sequence[Game]
) -> dict[str, list[tuple[str, float]]]:
    """Each player's (opponent, own score) pairs in game order."""
    results: dict[str, list[tuple[str, float]]] = {i: [] for i in ids}
    for white, black, score in games:
        results[white].append((black, score))
        results[black].append((white, 1.0 - score))
    return results


def not_rated(player_id: str, rating: float | None) -> PlayerOutcome:
    """The outcome of a player whose rating this section leaves unchanged."""
    official = None if rating is None else round_half_up(rating)
    change = None if rating is None else 0.0
    return PlayerOutcome(player_id, rating, rating, official, change, rated=False)


def rate_section(section: Section) -> SectionOutcome:
    """Rate one section under FIDE 10.0."""
    if section.format == "scheveningen" and not all(p.counts_as_rated for p in section.players):
        # 10.67: "Scheveningen tournaments/matches are not rated if unrated players participate."
        outcomes = tuple(not_rated(p.id, p.rating) for p in section.players)
        return SectionOutcome(RULES, False, outcomes, reason="10.67: Scheveningen with unrated")
    if section.format == "round_robin":
        return _round_robin(section)
    return _by_opponents(section)


def _by_opponents(section: Section) -> SectionOutcome:
    """Swiss, team, match, Scheveningen, Olympiad: Rc is the average of the rated opponents."""
    by_id = {p.id: p for p in section.players}
    results = results_by_player((p.id for p in section.players), section.games)
    outcomes = []
    for player in section.players:
        counted = [
            (o, rating, s)
            for o, s in results[player.id]
            if (rating := by_id[o].rating_counted) is not None
        ]
        if not counted:
            outcomes.append(not_rated(player.id, player.rating))
            continue
        opponents = [rating for _, rating, _ in counted]
        score = sum(s for _, _, s in counted)
        average = sum(opponents) / len(opponents)  # 10.21a/10.61: average of the opponents
        if player.rating is not None:
            outcome = _rated(player, player.rating, average, opponents, score)
        else:
            own_scores = [s for _, s in results[player.id]]
            outcome = _unrated(player, average, opponents, score, None, section, own_scores)
        outcomes.append(_with_games(outcome, counted))
    return SectionOutcome(RULES, True, tuple(outcomes))


def _round_robin(section: Section) -> SectionOutcome:
    """10.21b/10.61: round robin, where unrated players count through the average Ra."""
    results = results_by_player((p.id for p in section.players), section.games)
    active = [p for p in section.players if results[p.id]]
    rated = {p.id: rating for p in active if (rating := p.rating_counted) is not None}
    if not rated:
        nobody = tuple(not_rated(p.id, p.rating) for p in section.players)
        return SectionOutcome(RULES, False, nobody, reason="10.21b: no rated players")
    n = len(active) - 1
    scores = {p.id: sum(s for _, s in results[p.id]) for p in active}
    rar = sum(rated.values()) / len(rated)  # 10.21b1: Rar
    pct: dict[str, int] = {}
    dpa = None
    ra: float | int = rar  # 10.21b: a whole number (an int) once dpa is taken off
    if len(rated) < len(active):
        pct = {pid: percentage(scores[pid], len(results[pid])) for pid in rated}
        dpa = sum(dp(v) for v in pct.values()) / len(pct)  # 10.21b2: dpa
        ra = tournament_average(rar, dpa, n)
    # 10.68: an unrated player counts for others at his Ru from Rc = Ra (10.5: newly rated too).
    counted_as: dict[str, float | int] = {
        p.id: rated[p.id] if p.id in rated else performance(ra, scores[p.id], len(results[p.id]), n)
        for p in active
    }
    outcomes = []
    for player in section.players:
        if not results[player.id]:
            outcomes.append(not_rated(player.id, player.rating))
            continue
        opponents: list[float | int] = [counted_as[o] for o, _ in results[player.id]]
        own_scores = [s for _, s in results[player.id]]
        if player.rating is not None:
            rc = round_robin_competition(ra, player.rating, n)
            outcome = _rated(player, player.rating, rc, opponents, scores[player.id])
            if player.id in pct:
                outcome = replace(outcome, p=pct[player.id] / 100, dp=dp(pct[player.id]))
            if player.newly_rated:
                outcome = replace(outcome, performance_before_cap=counted_as[player.id])
        else:
            outcome = _unrated(player, ra, opponents, scores[player.id], n, section, own_scores)
        games = [(o, r, s) for (o, s), r in zip(results[player.id], opponents, strict=True)]
        outcomes.append(_with_games(outcome, games))
    return SectionOutcome(RULES, True, tuple(outcomes), rar=rar, dpa=dpa, ra=ra)


def _with_games(outcome: PlayerOutcome, games: list[tuple[str, float, float]]) -> PlayerOutcome:
    """The outcome with the games its Rc counted, as (opponent, his rating as counted, score):
    what `explain` lists as counted (issue 30: a game is listed as counted exactly when it is
    in the sums)."""
    opponents = tuple(o for o, _, _ in games)
    return replace(outcome, opponents=opponents, results=tuple((r, s) for _, r, s in games))


def _rated(
    player: Player, rating: float, rc_before_cap: float, opponents: list[float], score: float
) -> PlayerOutcome:
    """10.61–10.64 for one rated player."""
    k = k_factor(rating, player.games, player.reached_2400)
    c = section_change(rating, k, rc_before_cap, opponents, score)
    post = rating + c.change
    return PlayerOutcome(
        player=player.id,
        pre=rating,
        post=post,
        official=round_half_up(post),  # 10.66: rounded to the nearest 1
        rating_change=c.change,
        games=len(opponents),
        score=score,
        rc=c.rc,
        rc_before_cap=rc_before_cap,
        d=c.d,
        pd=c.pd_hundredths / 100,
        expected=c.expected,
        k=k,
    )


def _unrated(
    player: Player,
    rc_before_cap: float | int,
    opponents: list[float],
    score: float,
    round_robin_opponents: int | None,
    section: Section,
    own_scores: list[float],
) -> PlayerOutcome:
    """10.2–10.4 for one unrated player; the 350-point rule is taken from his first Ru (10.68)."""
    games = len(opponents)
    first = performance(rc_before_cap, score, games, round_robin_opponents)
    rc = rc_before_cap + cap_adjustment(first, opponents)  # 10.61 as applied in 10.68
    ru = performance(rc, score, games, round_robin_opponents)
    p = percentage(score, games)
    performances = (*player.prior, Performance(ru, games))
    rn = new_rating(performances)
    published = published_rating(performances)
    qualified = (
        section.format == "olympiad"
        and section.rounds is not None
        and olympiad_qualified(own_scores, section.rounds)
    )
    if qualified:  # 10.4: "unless that player's performance qualifies for a higher rating"
        published = published_rating(performances, minimum_games=0)
    if qualified and (published is None or published < olympiad_entry(section.womens)):
        published = olympiad_entry(section.womens)  # 10.4: "entered on the FRL at 2200"
        rn = float(published)
    return PlayerOutcome(
        player=player.id,
        pre=None,
        post=rn if published is not None else None,
        official=published,
        rating_change=None,
        performance=ru,
        published_rating=published,
        games=games,
        score=score,
        rc=rc,
        rc_before_cap=rc_before_cap,
        performance_before_cap=first,
        p=p / 100,
        dp=dp(p) if 2 * score < games else None,
    )
