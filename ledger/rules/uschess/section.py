"""The five steps (§1) that rate one section in one rating system."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.initialization import Initialization, PlayerBackground, initialize
from ledger.rules.uschess.special_formula import SpecialResult, special_rating
from ledger.rules.uschess.standard_formula import bonus_eligible, k_factor, standard_rating
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import is_dual_rated_time_control
from ledger.rules.uschess.versions import Rules, RuleVersion

MINIMUM_RATING = 100.0  # §1 Steps 3–5: "If the resulting rating ... is less than 100, ... 100"
SPECIAL_UP_TO = 8  # §1 Step 4: the special formula for "8 or fewer games (N ≤ 8)"
SPECIAL, STANDARD = "special", "standard"


class Entrant(NamedTuple):
    """A player's state entering the section: pre-event rating, or the Step 1 values if unrated.

    (Named tuples, like Game and Start: a replay makes one per player and game.)
    """

    id: str
    rating: float
    games: float
    unrated: bool = False
    history: str = "mixed"  # the player's previous games: mixed, all_wins or all_losses


class Game(NamedTuple):
    """A rated game: `score` is the first player's result (1, ½ or 0)."""

    white: int
    black: int
    score: float


@dataclass(slots=True)
class Rated:
    """One player's result with every intermediate value (for `--explain` and history rows)."""

    id: str
    pre_rating: float
    games_before: float
    unrated: bool
    formula: str
    m: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    n_eff: float = 0.0
    k: float | None = None
    bonus_eligible: bool = False
    step3: float | None = None
    step4: float | None = None
    step5: float | None = None
    expected: float | None = None
    bonus: float | None = None
    opponents_step4: list[float] = field(default_factory=list)
    opponents_step5: list[float] = field(default_factory=list)
    special_step3: SpecialResult | None = None
    special_step4: SpecialResult | None = None
    special_step5: SpecialResult | None = None

    @property
    def post_rating(self) -> float | None:
        """Step 5's rating; unchanged when no game was played; None if still unrated."""
        if self.m:
            return self.step5
        return None if self.unrated else self.pre_rating

    @property
    def games_after(self) -> float:
        """§7: "each players' value of N is incremented by m"."""
        return self.games_before + self.m


def rate_section(
    entrants: Sequence[Entrant],
    games: Sequence[Game],
    bonus_multiplier: float,
    bonus_needs_distinct_opponents_at_three: bool,
    dual_rated_k: bool,
    explain: bool = False,
) -> list[Rated]:
    """Rate a section through Steps 2–5; `dual_rated_k` when §4.2's reduced K applies."""
    n = len(entrants)
    opponents: list[list[int]] = [[] for _ in range(n)]
    results: list[list[float]] = [[] for _ in range(n)]
    for g in games:
        white, black, score = g.white, g.black, g.score
        opponents[white].append(black)
        results[white].append(score)
        opponents[black].append(white)
        results[black].append(1.0 - score)

    prior = [e.rating for e in entrants]
    rated: list[Rated] = []
    for i, e in enumerate(entrants):
        special = e.games <= SPECIAL_UP_TO or e.history != "mixed"
        res = results[i]
        m = len(res)
        if not m:
            rated.append(
                Rated(e.id, e.rating, e.games, e.unrated, SPECIAL if special else STANDARD)
            )
            continue
        wins = res.count(1.0)
        draws = res.count(0.5)
        n_eff = effective_games(e.games, e.rating)  # Step 2, §3
        k = None
        eligible = False
        if not special:
            k = k_factor(n_eff, m, e.rating, dual_rated_k)
            met = opponents[i]
            distinct = set(met)
            most = 1 if len(distinct) == m else max(map(met.count, distinct))
            eligible = bonus_eligible(m, most, bonus_needs_distinct_opponents_at_three)
        rated.append(
            Rated(
                e.id,
                e.rating,
                e.games,
                e.unrated,
                SPECIAL if special else STANDARD,
                m,
                sum(res),
                wins,
                draws,
                m - wins - draws,
                n_eff,
                k,
                eligible,
            )
        )

    # Step 3: unrated players with N = 0, N' = 1, against opponents' pre-event or Step 1 ratings.
    step4_opponent = list(prior)
    for i, e in enumerate(entrants):
        r = rated[i]
        if e.unrated and e.games == 0 and r.m:
            s3 = special_rating(e.rating, 1.0, [prior[j] for j in opponents[i]], r.score)
            r.step3 = max(s3.rating, MINIMUM_RATING)
            if explain:
                r.special_step3 = s3
            step4_opponent[i] = r.step3

    # Step 4 with those opponent ratings, then Step 5 with the Step 4 results.
    step4 = _step(rated, entrants, opponents, step4_opponent, bonus_multiplier, 4, explain)
    _step(rated, entrants, opponents, step4, bonus_multiplier, 5, explain)
    return rated


def _step(
    rated: list[Rated],
    entrants: Sequence[Entrant],
    opponents: list[list[int]],
    opponent_rating: list[float],
    bonus_multiplier: float,
    step: int,
    explain: bool,
) -> list[float]:
    out = list(opponent_rating)
    for i, r in enumerate(rated):
        if not r.m:
            continue
        r0 = r.pre_rating
        opp = [opponent_rating[j] for j in opponents[i]]
        if r.k is None:
            sp = special_rating(r0, r.n_eff, opp, r.score, entrants[i].history)
            new = sp.rating
            if explain:
                setattr(r, f"special_step{step}", sp)
        else:
            st = standard_rating(
                r0, opp, r.score, r.k, bonus_multiplier if r.bonus_eligible else None
            )
            new = st.rating
            if step == 5:
                r.expected, r.bonus = st.expected, st.bonus
        if new < MINIMUM_RATING:
            new = MINIMUM_RATING
        out[i] = new
        if step == 4:
            r.step4 = new
            if explain:
                r.opponents_step4 = opp
        else:
            r.step5 = new
            if explain:
                r.opponents_step5 = opp
    return out


class Start(NamedTuple):
    """A player entering a section: the pre-event rating and N, or, with `rating` None, what
    Step 1 initializes from (`background`, called only then)."""

    id: str
    rating: float | None
    games: float
    unrated: bool = False
    history: str = "mixed"
    background: Callable[[], PlayerBackground] | None = None


class StepOneError(ValueError):
    """Step 1 cannot initialize the player at `index` (the message says why)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def dual_rated_k(system: System, version: RuleVersion, total_minutes: int) -> bool:
    """§4.2: the reduced dual-rated K applies to this system at this time control."""
    return system in version.dual_k_systems and is_dual_rated_time_control(total_minutes)


def rate_event(
    players: Sequence[Start],
    games: Sequence[Game],
    rules: Rules,
    system: System,
    on: date,
    dual_rated: bool,
    explain: bool = False,
) -> tuple[list[Rated], dict[int, Initialization]]:
    """One section in one system, all of §1: Step 1 (§2) for every player given without a
    rating, then Steps 2–5. `games` index `players`. The read model's rater and `estimate`
    both rate a section through here; floors (§5) are theirs to apply to each Step 5 rating.
    """
    inits: dict[int, Initialization] = {}
    entrants: list[Entrant] = []
    for n, p in enumerate(players):
        if p.rating is None:
            if p.background is None:
                raise StepOneError(n, "an unrated player needs a background for Step 1")
            try:
                init = initialize(system, on, rules, p.background())
            except ValueError as exc:
                raise StepOneError(n, str(exc)) from None
            inits[n] = init
            entrants.append(Entrant(p.id, init.rating, init.games, True, p.history))
        else:
            entrants.append(Entrant(p.id, float(p.rating), p.games, p.unrated, p.history))
    rated = rate_section(
        entrants,
        games,
        rules.bonus_multiplier,
        rules.version.bonus_needs_distinct_opponents_at_three,
        dual_rated,
        explain=explain,
    )
    return rated, inits
