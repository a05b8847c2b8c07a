"""The five steps (§1) that rate one section in one rating system."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Final, NamedTuple

from ledger.rules.uschess.columns import Columns
from ledger.rules.uschess.initialization import Initialization, PlayerBackground, initialize
from ledger.rules.uschess.kernel import HISTORY_CODES, rate_columns
from ledger.rules.uschess.special_formula import SpecialResult, special_rating
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import is_dual_rated_time_control
from ledger.rules.uschess.versions import Rules, RuleVersion

SPECIAL: Final = "special"
STANDARD: Final = "standard"


class Entrant(NamedTuple):
    """A player's state entering the section: pre-event rating, or the Step 1 values if unrated.

    (Named tuples, like Game and Start: a replay makes one per player and game.)
    """

    id: str
    rating: float
    games: float | int
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
    games_before: float | int  # N: an int game count, or Step 1's
    unrated: bool
    formula: str
    m: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    n_eff: float | int = 0.0  # N' (N itself, an int, when smaller)
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
    def games_after(self) -> float | int:
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
    """Rate a section through Steps 2–5; `dual_rated_k` when §4.2's reduced K applies.

    The arithmetic is the columnar kernel's (kernel.py); `explain` adds each step's opponent
    ratings and the special formula's search (§4.1) for every player.
    """
    c = rate_columns(
        [e.rating for e in entrants],
        [e.games for e in entrants],
        [e.unrated for e in entrants],
        [HISTORY_CODES[e.history] for e in entrants],
        [g.white for g in games],
        [g.black for g in games],
        [g.score for g in games],
        bonus_multiplier,
        bonus_needs_distinct_opponents_at_three,
        dual_rated_k,
    )
    rated = [
        Rated(
            e.id,
            e.rating,
            e.games,
            e.unrated,
            SPECIAL if c.special[i] else STANDARD,
            c.m[i],
            c.score[i],
            c.wins[i],
            c.draws[i],
            c.m[i] - c.wins[i] - c.draws[i],
            c.n_eff[i],
            c.k[i],
            c.eligible[i],
            c.step3[i],
            c.step4[i],
            c.step5[i],
            c.expected[i],
            c.bonus[i],
        )
        for i, e in enumerate(entrants)
    ]
    if explain:
        _explain(rated, entrants, games)
    return rated


def _explain(rated: list[Rated], entrants: Sequence[Entrant], games: Sequence[Game]) -> None:
    """Each step's opponent ratings (Step 4: pre-event or Step 3; Step 5: Step 4's) and the
    special formula's search of Steps 3–5, as the kernel computed them."""
    opponents: list[list[int]] = [[] for _ in entrants]
    for g in games:
        opponents[g.white].append(g.black)
        opponents[g.black].append(g.white)
    step4 = [e.rating if r.step3 is None else r.step3 for e, r in zip(entrants, rated, strict=True)]
    step5 = [s if r.step4 is None else r.step4 for s, r in zip(step4, rated, strict=True)]
    for r, e, met in zip(rated, entrants, opponents, strict=True):
        if not r.m:
            continue
        if r.step3 is not None:
            pre = [entrants[j].rating for j in met]
            r.special_step3 = special_rating(e.rating, 1.0, pre, r.score)
        r.opponents_step4 = [step4[j] for j in met]
        r.opponents_step5 = [step5[j] for j in met]
        if r.k is None:
            r.special_step4, r.special_step5 = (
                special_rating(e.rating, r.n_eff, opp, r.score, e.history)
                for opp in (r.opponents_step4, r.opponents_step5)
            )


class Start(NamedTuple):
    """A player entering a section: the pre-event rating and N, or, with `rating` None, what
    Step 1 initializes from (`background`, called only then)."""

    id: str
    rating: float | None
    games: float | int
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
    rating, then Steps 2–5. `games` index `players`. `estimate` rates a section through here,
    the read model's rater through `rate_event_columns` (the same kernel); floors (§5) are
    theirs to apply to each Step 5 rating.
    """
    entrants, inits = initialize_entrants(players, rules, system, on)
    rated = rate_section(
        entrants,
        games,
        rules.bonus_multiplier,
        rules.version.bonus_needs_distinct_opponents_at_three,
        dual_rated,
        explain=explain,
    )
    return rated, inits


def rate_event_columns(
    ratings: Sequence[float | None],
    games: Sequence[float | int],
    history: Sequence[int],
    background: Callable[[int], PlayerBackground],
    white: list[int],
    black: list[int],
    score: list[float],
    rules: Rules,
    system: System,
    on: date,
    dual_rated: bool,
    compiled: bool = False,
) -> tuple[Prior, Columns, dict[int, Initialization]]:
    """`rate_event` over columns: each player's pre-event rating (None: unrated, Step 1 from
    `background(n)`), N and §4.1 history code, the games as index columns. Gives the players
    after Step 1, Steps 2–5's columns (by the compiled kernel when `compiled`) and each Step 1."""
    rated = [False] * len(ratings)
    prior = initialize_columns(ratings, games, rated, background, rules, system, on)
    columns = rate_columns(
        prior.rating,
        prior.games,
        prior.unrated,
        [0 if r is None else h for r, h in zip(ratings, history, strict=True)],
        white,
        black,
        score,
        rules.bonus_multiplier,
        rules.version.bonus_needs_distinct_opponents_at_three,
        dual_rated,
        compiled,
    )
    return prior, columns, prior.inits


class Prior(NamedTuple):
    """The players entering Steps 2–5, as columns: rating and N (pre-event, or Step 1's),
    whether unrated, and each Step 1 by player index."""

    rating: list[float]
    games: list[float | int]
    unrated: list[bool]
    inits: dict[int, Initialization]


def initialize_columns(
    ratings: Sequence[float | None],
    games: Sequence[float | int],
    unrated: Sequence[bool],
    background: Callable[[int], PlayerBackground],
    rules: Rules,
    system: System,
    on: date,
) -> Prior:
    """Step 1 (§2) for every player without a rating (from `background(n)`, called only then);
    the others as they come."""
    prior = [0.0 if r is None else float(r) for r in ratings]
    count = list(games)
    flags = list(unrated)
    inits: dict[int, Initialization] = {}
    for n, r in enumerate(ratings):
        if r is None:
            try:
                init = initialize(system, on, rules, background(n))
            except ValueError as exc:
                raise StepOneError(n, str(exc)) from None
            inits[n] = init
            prior[n], count[n], flags[n] = init.rating, init.games, True
    return Prior(prior, count, flags, inits)


def initialize_entrants(
    players: Sequence[Start], rules: Rules, system: System, on: date
) -> tuple[list[Entrant], dict[int, Initialization]]:
    """Step 1 (§2) for every player given without a rating; the others as they come."""

    def background(n: int) -> PlayerBackground:
        found = players[n].background
        if found is None:
            raise StepOneError(n, "an unrated player needs a background for Step 1")
        return found()

    prior = initialize_columns(
        [p.rating for p in players],
        [p.games for p in players],
        [p.unrated for p in players],
        background,
        rules,
        system,
        on,
    )
    columns = zip(players, prior.rating, prior.games, prior.unrated, strict=True)
    entrants = [Entrant(p.id, rating, n, flag, p.history) for p, rating, n, flag in columns]
    return entrants, prior.inits
