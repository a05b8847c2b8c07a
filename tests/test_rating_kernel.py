"""The columnar rating kernel (ledger/rules/uschess/kernel.py) and its compiled twin.

The issue: "rate each (section, system) over arrays … with the same operation order so every
float is bit-identical", and "a compiled kernel … with the pure-Python path kept and tested
equal". Each float is compared by `float.hex` (and its type: an int N' stays an int).
"""

from __future__ import annotations

import builtins
import random

import pytest

from ledger.rules.uschess import kernel
from ledger.rules.uschess.columns import Columns
from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.kernel import HISTORIES, rate_columns, rate_python
from ledger.rules.uschess.special_formula import special_rating
from ledger.rules.uschess.standard_formula import k_factor, standard_rating

compiled = pytest.importorskip("ledger.rules.uschess.kernel_compiled")
np = pytest.importorskip("numpy")


def generated(rng: random.Random, size: int, rounds: int) -> tuple:
    """A section: ratings on a grid (knots that coincide) or anywhere, every N from 0 to
    established, unrated entrants with N = 0 (Step 3) or assigned games, all three histories,
    a few entrants without a game, repeated pairings, wins, draws and losses."""
    grid = rng.choice([1.0, 50.0, 400.0, None])
    steps = 1 if grid is None else int(2800 // grid)
    prior = [
        rng.uniform(100, 2800) if grid is None else max(100.0, grid * rng.randint(0, steps))
        for _ in range(size)
    ]
    games = [rng.choice([0, 0, 1, 2, 5, 8, 9, 12, 25, 60, 300]) for _ in range(size)]
    unrated = [n == 0 or rng.random() < 0.1 for n in games]
    history = [rng.choice([0, 0, 1, 2]) if n <= 8 else 0 for n in games]
    white, black, score = [], [], []
    idle = rng.randrange(size) if size > 3 else None
    for _ in range(rounds):
        order = [i for i in range(size) if i != idle]
        rng.shuffle(order)
        if rng.random() < 0.2:  # a round robin's double pairing: the same opponents again
            order.sort()
        for a, b in zip(order[::2], order[1::2], strict=False):
            white.append(a)
            black.append(b)
            score.append(rng.choice([0.0, 0.5, 1.0]))
    return (prior, games, unrated, history, white, black, score)


def bits(value: object) -> object:
    """A value as its exact bits (floats) and type, for comparing columns."""
    return (float.hex(value), "float") if isinstance(value, float) else (value, type(value))


def same_columns(a: Columns, b: Columns) -> None:
    for name in Columns._fields:
        left, right = getattr(a, name), getattr(b, name)
        assert [bits(x) for x in left] == [bits(x) for x in right], name


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_kernel_rates_each_generated_section_bit_for_bit_as_pure_python(seed):
    # "every float is bit-identical": Steps 2–5's N', K, the bonus test, Steps 3–5's ratings,
    # E and the bonus of Step 5, for sections of 2 to 60 players under each rules setting.
    rng = random.Random(seed)
    for _ in range(12):
        section = generated(rng, rng.randint(2, 60), rng.randint(1, 9))
        settings = (rng.choice([10.0, 12.0, 14.0]), rng.random() < 0.5, rng.random() < 0.3)
        same_columns(compiled.rate_compiled(*section, *settings), rate_python(*section, *settings))


def test_dual_rated_k_factors_above_2200_and_2500_are_the_formula_modules_bit_for_bit():
    # §4.2: K = 800(6.5 − 0.0025 R0)/(N' + m) for 2200 < R0 < 2500, 200/(N' + m) from 2500.
    rng = random.Random(7)
    prior = [rng.uniform(2150, 2600) for _ in range(400)]
    games = [rng.randint(9, 400) for _ in prior]
    section = (prior, games, [False] * 400, [0] * 400, list(range(0, 400, 2)))
    section += (list(range(1, 400, 2)), [rng.choice([0.0, 0.5, 1.0]) for _ in range(200)])
    for columns in (
        rate_python(*section, 12.0, True, True),
        compiled.rate_compiled(*section, 12.0, True, True),
    ):
        expected = [
            k_factor(effective_games(n, r), 1, r, True) for n, r in zip(games, prior, strict=True)
        ]
        assert [float.hex(k) for k in columns.k] == [float.hex(k) for k in expected]


def test_effective_games_of_fifty_thousand_ratings_are_the_texts_bit_for_bit():
    # §3: N* = 50/sqrt(0.662 + 0.00000739(2569 − R0)²). The compiled square must be the C
    # library's pow, as Python's `**` is (x * x differs in the last bit for some R0).
    rng = random.Random(3)
    size = 50_000
    prior = [rng.uniform(100, 2355) for _ in range(size)]
    games = [300] * size
    pairs = (list(range(0, size, 2)), list(range(1, size, 2)), [0.5] * (size // 2))
    columns = compiled.rate_compiled(
        prior, games, [False] * size, [0] * size, *pairs, 12.0, True, False
    )
    assert [float.hex(x) for x in columns.n_eff] == [
        float.hex(effective_games(300, r)) for r in prior
    ]


@pytest.mark.parametrize("seed", range(10))
def test_the_compiled_special_formula_finds_the_texts_rating_bit_for_bit(seed):
    # §4.1 steps 1–4 and the cap: every secant step and knot of the search, in each history.
    rng = random.Random(seed)
    for _ in range(300):
        grid = rng.choice([1.0, 100.0, 400.0, None])
        opponents = [
            rng.uniform(100, 2800) if grid is None else grid * rng.randint(1, int(2800 // grid))
            for _ in range(rng.randint(1, 12))
        ]
        r0 = rng.choice([rng.uniform(100, 2800), *opponents])
        n_eff = rng.choice([0.0, 1.0, rng.uniform(0, 8), float(rng.randint(0, 8))])
        score = rng.randint(0, 2 * len(opponents)) / 2
        code = rng.randrange(3)
        text = special_rating(r0, n_eff, opponents, score, HISTORIES[code]).rating
        ours = compiled.special(r0, n_eff, np.array(opponents), score, code)
        assert float.hex(ours) == float.hex(text)


def test_the_kernels_step_five_is_the_standard_formula_with_its_bonus():
    # §4.2: Rs = R0 + K(S − E) + max(0, K(S − E) − B√max(m, 4)), opponents at Step 4's ratings.
    prior, games = [1500.0, 1400.0, 1450.0, 1350.0], [50, 60, 70, 80]
    white, black, score = [0, 0, 0, 0], [1, 2, 3, 1], [1.0, 1.0, 1.0, 1.0]
    for rate in (rate_python, compiled.rate_compiled):
        c = rate(prior, games, [False] * 4, [0] * 4, white, black, score, 12.0, True, False)
        against = [c.step4[j] for j in (1, 2, 3, 1)]
        text = standard_rating(1500.0, against, 4.0, c.k[0], 12.0)
        assert (c.step5[0], c.expected[0], c.bonus[0]) == (text.rating, text.expected, text.bonus)
        assert c.bonus[0] > 0 and c.eligible[0]


def test_without_numba_the_pure_python_kernel_rates_every_section(monkeypatch):
    # "the pure-Python path kept, chosen automatically when the package is missing"
    real_import = builtins.__import__

    def no_numba(name, *args, **kwargs):
        if name.split(".")[0] == "numba" or name.endswith("kernel_compiled"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_numba)
    monkeypatch.setattr(kernel, "_COMPILED", [])
    section = generated(random.Random(1), 20, 5)
    same_columns(
        rate_columns(*section, 12.0, True, False, compiled=True),
        rate_python(*section, 12.0, True, False),
    )
    assert kernel._COMPILED == [None]


def test_the_compiled_kernel_rates_only_when_asked_for(monkeypatch):
    # docs/decisions.md: the compiled kernel rates only when the rater asks for it (past a
    # replay's first COMPILED_AFTER_GAMES games, or RATINGS_LEDGER_KERNEL=compiled), for the
    # memory it costs; the pure kernel never loads numba.
    monkeypatch.setattr(kernel, "_COMPILED", [])
    section = generated(random.Random(2), 20, 5)
    rate_columns(*section, 12.0, True, False)
    assert kernel._COMPILED == []  # not asked for: the pure kernel, numba not loaded
    rate_columns(*section, 12.0, True, False, compiled=True)
    assert kernel._COMPILED[0] is compiled.rate_compiled


def test_a_replay_by_the_compiled_kernel_has_the_pure_replays_digest(tmp_path, monkeypatch):
    # "every float is bit-identical": the same read model, byte for byte, either way.
    from projection_helpers import Ledger, round_robin

    from ledger.application import RatingsLedger
    from ledger.log import read_entries
    from ledger.rules.uschess.rater import KERNEL_VARIABLE
    from projections.projector import View

    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ids = [f"2000{n:04d}" for n in range(1, 9)]
    ledger.register(*ids, adult=True)
    for month, day in (("JAN", "2024-01-06"), ("FEB", "2024-02-03"), ("MAR", "2024-03-02")):
        ledger.submit(round_robin(month, ids, day))
    digests, loaded = [], []
    monkeypatch.setattr(kernel, "_COMPILED", [])
    for choice in ("pure", "compiled"):
        monkeypatch.setenv(KERNEL_VARIABLE, choice)
        view = View(tmp_path / f"{choice}.db")
        view.rebuild(read_entries(ledger.app))
        digests.append(view.digest())
        view.close()
        loaded.append(list(kernel._COMPILED))
    assert loaded == [[], [compiled.rate_compiled]]  # each replay by the kernel it asked for
    assert digests[0] == digests[1]


def test_unasked_the_compiled_kernel_rates_from_the_threshold_when_numba_is_installed(
    monkeypatch,
):
    # Issue 33: "the compiled path may be the default once a replay is large enough to repay
    # its load (say where, measured)": kernel.COMPILED_AFTER_GAMES games rated by the replay;
    # without numba the pure kernel, and RATINGS_LEDGER_KERNEL still chooses either.
    threshold = kernel.COMPILED_AFTER_GAMES
    monkeypatch.setattr(kernel, "_COMPILED", [])
    assert not kernel.use_compiled(None, threshold - 1)
    assert kernel._COMPILED == []  # below the threshold numba is not even loaded
    assert kernel.use_compiled(None, threshold)
    assert kernel._COMPILED[0] is compiled.rate_compiled
    assert not kernel.use_compiled("pure", 10 * threshold)
    assert kernel.use_compiled("compiled", 0)
    monkeypatch.setattr(kernel, "_COMPILED", [None])  # numba not installed
    assert not kernel.use_compiled(None, 10 * threshold)


@pytest.mark.patches
def test_a_replay_that_passes_the_threshold_has_the_pure_replays_digest(tmp_path, monkeypatch):
    # Issue 33: "the pure path stays the reference and both give the same digest": a replay
    # whose later sections the compiled kernel rates once it passed the threshold (lowered to
    # 50 games: the second of three 28-game round robins) stores the pure replay's model.
    from projection_helpers import Ledger, round_robin

    from ledger.application import RatingsLedger
    from ledger.log import read_entries
    from ledger.rules.uschess.rater import KERNEL_VARIABLE
    from projections.projector import View

    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ids = [f"2000{n:04d}" for n in range(1, 9)]
    ledger.register(*ids, adult=True)
    for month, day in (("JAN", "2024-01-06"), ("FEB", "2024-02-03"), ("MAR", "2024-03-02")):
        ledger.submit(round_robin(month, ids, day))
    monkeypatch.setattr(kernel, "COMPILED_AFTER_GAMES", 50)
    monkeypatch.setattr(kernel, "_COMPILED", [])
    calls: list[int] = []
    real = compiled.rate_compiled

    def counted(*args):
        calls.append(len(args[4]))
        return real(*args)

    monkeypatch.setattr(compiled, "rate_compiled", counted)
    digests = []
    for choice in ("pure", None):
        if choice is None:
            monkeypatch.delenv(KERNEL_VARIABLE, raising=False)
        else:
            monkeypatch.setenv(KERNEL_VARIABLE, choice)
        view = View(tmp_path / f"{choice}.db")
        view.rebuild(read_entries(ledger.app))
        digests.append(view.digest())
        view.close()
    assert calls == [28]  # the third section alone: 56 games rated before it, 28 before the second
    assert digests[0] == digests[1]


@pytest.mark.parametrize(
    ("items", "games_rated", "expected"),
    [
        (None, 0, False),  # a replay of unknown size: the pure kernel until the games threshold
        (kernel.COMPILED_FROM_ITEMS - 1, 0, False),  # known too small to repay the load
        (kernel.COMPILED_FROM_ITEMS, 0, True),  # known large enough: from its first section
        (kernel.COMPILED_FROM_ITEMS - 1, kernel.COMPILED_AFTER_GAMES, True),
    ],
)
def test_a_replay_known_to_be_large_is_rated_by_the_compiled_kernel_from_its_first_section(
    monkeypatch, items, games_rated, expected
):
    # Issue 33: "the compiled path may be the default once a replay is large enough to repay
    # its load (say where, measured)": a replay that knows its size before its first item
    # (kernel.COMPILED_FROM_ITEMS items or more) loads the compiled kernel at once.
    monkeypatch.setattr(kernel, "_COMPILED", [])
    assert kernel.use_compiled(None, games_rated, items) is expected
    assert (kernel._COMPILED != []) is expected  # numba loaded only when it rates
    assert not kernel.use_compiled("pure", 0, kernel.COMPILED_FROM_ITEMS)


@pytest.mark.patches
@pytest.mark.parametrize(("threshold", "expected"), [(1, [28, 28, 28]), (10_000, [])])
def test_a_rebuild_tells_the_rater_its_size_and_keeps_the_pure_replays_digest(
    tmp_path, monkeypatch, threshold, expected
):
    # Issue 33: the replay's known size chooses the kernel from the start, and "the pure path
    # stays the reference and both give the same digest": a rebuild of three 28-game round
    # robins with COMPILED_FROM_ITEMS at 1 rates every section by the compiled kernel, at
    # 10,000 none.
    from projection_helpers import Ledger, round_robin

    from ledger.application import RatingsLedger
    from ledger.log import read_entries
    from ledger.rules.uschess.rater import KERNEL_VARIABLE
    from projections.projector import View

    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ids = [f"2000{n:04d}" for n in range(1, 9)]
    ledger.register(*ids, adult=True)
    for month, day in (("JAN", "2024-01-06"), ("FEB", "2024-02-03"), ("MAR", "2024-03-02")):
        ledger.submit(round_robin(month, ids, day))
    monkeypatch.setattr(kernel, "COMPILED_FROM_ITEMS", threshold)
    monkeypatch.setattr(kernel, "_COMPILED", [])
    calls: list[int] = []
    real = compiled.rate_compiled

    def counted(*args):
        calls.append(len(args[4]))
        return real(*args)

    monkeypatch.setattr(compiled, "rate_compiled", counted)
    digests = []
    for choice in ("pure", None):
        if choice is None:
            monkeypatch.delenv(KERNEL_VARIABLE, raising=False)
        else:
            monkeypatch.setenv(KERNEL_VARIABLE, choice)
        view = View(tmp_path / f"{choice}.db")
        view.rebuild(read_entries(ledger.app))
        digests.append(view.digest())
        view.close()
    assert calls == expected
    assert digests[0] == digests[1]


def test_the_most_meetings_are_the_largest_count_of_games_against_one_opponent():
    # §4.2's bonus: counted pair by pair for a few games, by opponent for many.
    rng = random.Random(33)
    for size in [*range(1, 40), 200]:
        met = [rng.randrange(max(1, size // rng.choice([1, 2, 3]))) for _ in range(size)]
        assert kernel._most_meetings(met) == max(met.count(j) for j in met)
