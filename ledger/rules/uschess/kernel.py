"""Steps 2–5 (§1) of one section in one system over columns: the rating kernel.

A section is its players' columns (pre-event or Step 1 rating, N, unrated, §4.1 history) and
its games as index columns (white, black, white's score). `rate_columns` returns one column
per value a history row stores. The pure-Python kernel here is the definition; a compiled twin
(kernel_compiled.py, with numba) does the same operations in the same order, so every float
is the same bit for bit, and rates when the caller asks for it (`compiled=True`) and numba is
installed (docs/decisions.md, "the columnar rating kernel").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ledger.rules.uschess.columns import MINIMUM_RATING, SPECIAL_UP_TO, Columns
from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.special_formula import special_value
from ledger.rules.uschess.standard_formula import bonus_eligible, k_factor, standard_values

HISTORIES: Final = ("mixed", "all_wins", "all_losses")  # §4.1's history, coded by its index here
HISTORY_CODES = {name: code for code, name in enumerate(HISTORIES)}

# a kernel's signature: `rate_python`'s and kernel_compiled.rate_compiled's
Kernel = Callable[
    [
        list[float],
        list[float],
        list[bool],
        list[int],
        list[int],
        list[int],
        list[float],
        float,
        bool,
        bool,
    ],
    Columns,
]


def rate_columns(
    prior: list[float],
    games: list[float | int],
    unrated: list[bool],
    history: list[int],
    white: list[int],
    black: list[int],
    score: list[float],
    bonus_multiplier: float,
    distinct_at_three: bool,
    dual_rated_k: bool,
    compiled: bool = False,
) -> Columns:
    """Steps 2–5 of a section, by the compiled kernel when asked for and installed, else by
    `rate_python` (the same columns either way)."""
    if compiled:
        found = _compiled()
        if found is not None and all(type(r) is float for r in prior):
            return found(
                prior,
                games,
                unrated,
                history,
                white,
                black,
                score,
                bonus_multiplier,
                distinct_at_three,
                dual_rated_k,
            )
    return rate_python(
        prior,
        games,
        unrated,
        history,
        white,
        black,
        score,
        bonus_multiplier,
        distinct_at_three,
        dual_rated_k,
    )


_COMPILED: list[Kernel | None] = []  # the compiled twin once imported (None without numba)

# Games (a dual-rated one once per system) a replay rates by the pure kernel before it loads
# the compiled one, when neither is asked for: loading numba and the kernel's machine code
# cost 1.0-1.3 s of CPU on the shared 2-core machine (0.45 s idle), and the compiled kernel
# saved 3.4 µs of CPU a game (the 100k ledger's 1,528 sections: 0.633 s pure, 0.288 s
# compiled), so the load is repaid after 290,000-380,000 games (about 240,000 idle). Rating
# this many first bounds what a replay of unknown length loses either way
# (docs/benchmarks/replay.md, "The automatic kernel"); a catch-up or the 100k ledger never
# loads it.
COMPILED_AFTER_GAMES = 300_000
# Items a replay known to rate this many or more before its first (a rebuild: every item of the
# log) is rated by the compiled kernel from the first, its load repaid within the replay:
# docs/benchmarks/replay.md, "The kernel by the replay's size", for the measured break-even.
COMPILED_FROM_ITEMS = 6_000


def use_compiled(choice: str | None, games_rated: int, items: int | None = None) -> bool:
    """Whether the compiled kernel rates the next section: `choice` "compiled" or "pure" when
    asked for (RATINGS_LEDGER_KERNEL), else, numba installed, when the replay is known to rate
    `items` ≥ COMPILED_FROM_ITEMS items or once `games_rated` (by this replay) passed
    COMPILED_AFTER_GAMES."""
    if choice in ("compiled", "pure"):
        return choice == "compiled"
    large = items is not None and items >= COMPILED_FROM_ITEMS
    return (large or games_rated >= COMPILED_AFTER_GAMES) and _compiled() is not None


def _compiled() -> Kernel | None:
    """kernel_compiled.rate_compiled, or None without numba (imported once, when first used)."""
    if not _COMPILED:
        try:
            import ledger.rules.uschess.kernel_compiled as kernel_compiled
        except ImportError:
            _COMPILED.append(None)
        else:
            _COMPILED.append(kernel_compiled.rate_compiled)
    return _COMPILED[0]


def rate_python(
    prior: list[float],
    games: list[float | int],
    unrated: list[bool],
    history: list[int],
    white: list[int],
    black: list[int],
    score: list[float],
    bonus_multiplier: float,
    distinct_at_three: bool,
    dual_rated_k: bool,
) -> Columns:
    """§1 Steps 2–5 in pure Python (the arguments as `rate_columns`')."""
    opponents, results = _games_of(len(prior), white, black, score)
    special = [n <= SPECIAL_UP_TO or h != 0 for n, h in zip(games, history, strict=True)]
    two = _step_two(prior, games, special, opponents, results, distinct_at_three, dual_rated_k)
    # Step 3: unrated players with N = 0, N' = 1, against opponents' pre-event or Step 1 ratings.
    step3: list[float | None] = [None] * len(prior)
    step4_opponent = list(prior)
    for i in two.played:
        if unrated[i] and games[i] == 0:
            s3 = special_value(prior[i], 1.0, [prior[j] for j in opponents[i]], two.total[i])
            step3[i] = step4_opponent[i] = max(s3, MINIMUM_RATING)
    # Step 4 with those opponent ratings, then Step 5 with the Step 4 results.
    step4, _, _ = _rated(prior, history, opponents, two, bonus_multiplier, step4_opponent)
    after4 = [r if new is None else new for r, new in zip(step4_opponent, step4, strict=True)]
    step5, expected, bonus = _rated(prior, history, opponents, two, bonus_multiplier, after4)
    return Columns(
        special,
        two.m,
        two.total,
        two.wins,
        two.draws,
        two.n_eff,
        two.k,
        two.eligible,
        step3,
        step4,
        step5,
        expected,
        bonus,
    )


def _games_of(
    size: int, white: list[int], black: list[int], score: list[float]
) -> tuple[list[list[int]], list[list[float]]]:
    """Each player's opponents and results, in the section's order of games."""
    opponents: list[list[int]] = [[] for _ in range(size)]
    results: list[list[float]] = [[] for _ in range(size)]
    if not len(white) == len(black) == len(score):
        raise ValueError("a section's game columns differ in length")
    for g in range(len(white)):
        w, b, s = white[g], black[g], score[g]
        opponents[w].append(b)
        results[w].append(s)
        opponents[b].append(w)
        results[b].append(1.0 - s)
    return opponents, results


class _StepTwo:
    """What Steps 4 and 5 need of each player: the players with games, m, the score, wins and
    draws, N' (Step 2, §3), and for the standard formula K and bonus eligibility (§4.2). A plain
    class, not a dataclass: compiled, made without a call into the interpreter."""

    __slots__ = ("played", "m", "total", "wins", "draws", "n_eff", "k", "eligible")

    def __init__(
        self,
        played: list[int],
        m: list[int],
        total: list[float],
        wins: list[int],
        draws: list[int],
        n_eff: list[float | int],
        k: list[float | None],
        eligible: list[bool],
    ) -> None:
        self.played, self.m, self.total, self.wins = played, m, total, wins
        self.draws, self.n_eff, self.k, self.eligible = draws, n_eff, k, eligible


def _step_two(
    prior: list[float],
    games: list[float | int],
    special: list[bool],
    opponents: list[list[int]],
    results: list[list[float]],
    distinct_at_three: bool,
    dual_rated_k: bool,
) -> _StepTwo:
    """Step 2 (§3) and what the section's games give each player (§4.2's K and bonus)."""
    size = len(prior)
    m_of = [len(r) for r in results]
    total, wins, draws = [0.0] * size, [0] * size, [0] * size
    n_eff_of: list[float | int] = [0.0] * size
    eligible = [False] * size
    k_of: list[float | None] = [None] * size
    played = [i for i in range(size) if m_of[i]]
    for i in played:
        m, res, r0 = m_of[i], results[i], prior[i]
        # the score, wins and draws in one pass (the score added in the games' order)
        s, won, drawn = 0.0, 0, 0
        for x in res:
            s += x
            if x == 1.0:
                won += 1
            elif x == 0.5:
                drawn += 1
        total[i], wins[i], draws[i] = s, won, drawn
        n_eff = n_eff_of[i] = effective_games(games[i], r0)  # Step 2, §3
        if not special[i]:
            k_of[i] = k_factor(n_eff, m, r0, dual_rated_k)
            eligible[i] = bonus_eligible(m, _most_meetings(opponents[i]), distinct_at_three)
    return _StepTwo(played, m_of, total, wins, draws, n_eff_of, k_of, eligible)


def _most_meetings(met: list[int]) -> int:
    """The most games against any one opponent (§4.2's bonus): a player's few games in a
    section counted pair by pair, without a set and counting calls for every player; many
    games by opponent."""
    if len(met) > 16:
        return max(map(met.count, set(met)))
    most = 0
    for a in met:
        count = 0
        for b in met:
            if a == b:
                count += 1
        if count > most:
            most = count
    return most


def _rated(
    prior: list[float],
    history: list[int],
    opponents: list[list[int]],
    two: _StepTwo,
    bonus_multiplier: float,
    against: list[float],
) -> tuple[list[float | None], list[float | None], list[float | None]]:
    """Step 4 or 5 (§1): each player's new rating against the opponents' ratings `against`,
    and for the standard formula its expected score and bonus (§4.2)."""
    size = len(prior)
    new_of: list[float | None] = [None] * size
    expected: list[float | None] = [None] * size
    bonus: list[float | None] = [None] * size
    # the step's columns as locals: this loop runs twice per section for every player
    k_of, n_eff, total, eligible = two.k, two.n_eff, two.total, two.eligible
    # the opponents' ratings as `against` holds them: compiled, the same float objects, not
    # each unboxed and boxed anew
    ratings: list[Any] = against
    for i in two.played:
        k = k_of[i]
        opp = [ratings[j] for j in opponents[i]]
        if k is None:
            new = special_value(prior[i], n_eff[i], opp, total[i], HISTORIES[history[i]])
        else:
            multiplier = bonus_multiplier if eligible[i] else None
            new, expected[i], bonus[i] = standard_values(prior[i], opp, total[i], k, multiplier)
        if new < MINIMUM_RATING:
            new = MINIMUM_RATING
        new_of[i] = new
    return new_of, expected, bonus
