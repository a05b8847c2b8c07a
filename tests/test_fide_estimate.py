"""`estimate --rules fide-2022|fide-2024`: the fide-2003 section shape (plus birth_date) in,
each player's rating_change and post_rating out; an independent recomputation of generated
sections under fide-2024 from the tables as printed in the regulation's text."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fide_versions import table_811, table_812

from ledger import estimate as est


def run(data: dict, rules: str) -> dict:
    return est.estimate(est.load_section(data), rules)


SECTION = {
    "start_date": "2024-05-01",
    "end_date": "2024-05-02",
    "players": [
        {"id": "a", "rating": 2000, "games": 50},
        {"id": "b", "rating": 1500, "games": 50, "birth_date": "2010-01-01"},
        {"id": "c", "unrated": True},
    ],
    "games": [
        {"white": "a", "black": "b", "result": "1-0"},
        {"white": "c", "black": "a", "result": "1/2-1/2"},
        {"white": "c", "black": "b", "result": "1-0"},
    ],
}


def test_fide_2024_estimates_each_players_change_and_why_an_unrated_player_has_none_yet():
    # 8.3.1: D = 500 counts as 400 → PD .92; a: K 20 × (1 − .92) = +1.6. b, born 2010, a junior
    # under 2300: K 40 × (0 − .08) = −3.2 (8.3.3). c: 2 games, 7.1.4 needs 5.
    out = {p["id"]: p for p in run(SECTION, "fide-2024")["players"]}
    assert (out["a"]["rating_change"], out["a"]["official_rating"]) == (pytest.approx(1.6), 2002)
    assert (out["b"]["rating_change"], out["b"]["official_rating"]) == (pytest.approx(-3.2), 1497)
    assert out["c"]["post_rating"] is None
    assert out["c"]["reason"] == "7.1.4: 2 games against rated opponents, at least 5"


def test_fide_2022_counts_only_one_upgrade_for_a_higher_rated_player():
    # 8.3.1 (2022): a's one game more than 400 above is his only upgrade: the same +1.6 here;
    # b is 500 below: counted at −400 (no benefit to him) → −.08 × 40.
    out = {p["id"]: p for p in run(SECTION, "fide-2022")["players"]}
    assert out["a"]["rating_change"] == pytest.approx(1.6)
    assert out["b"]["rating_change"] == pytest.approx(-3.2)


def test_the_fide_2003_estimate_is_unchanged():
    # 10.61: a's Rc = 1500 counts as 1650 (350-point rule), D = 350 → PD .89 (10.1b 345–357);
    # 10.64: K 15 × (1 − .89) = +1.65.
    out = {p["id"]: p for p in run(SECTION, "fide-2003")["players"]}
    assert out["a"]["rating_change"] == pytest.approx(1.65)


# --- an independent recomputation of fide-2024 ----------------------------------------------


def pd(d: float) -> int:
    """8.1.2 as printed: PD in hundredths for a player D above his opponent."""
    rows = table_812()
    points = math.floor(abs(d) + 0.5)
    high = next(h for low, top, h in rows if top is None or points <= top)
    return high if d >= 0 else 100 - high


def half_away(x: Fraction) -> int:
    """8.3.4: the nearest whole number, 0.5 away from zero."""
    whole = math.floor(abs(x) + Fraction(1, 2))
    return whole if x >= 0 else -whole


@st.composite
def sections(draw):
    n = draw(st.integers(4, 9))
    ratings = draw(st.lists(st.integers(1400, 2599), min_size=n, max_size=n))
    unrated = draw(st.sets(st.integers(0, n - 1), max_size=2))
    games_before = draw(st.lists(st.sampled_from([5, 100]), min_size=n, max_size=n))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    played = draw(st.lists(st.sampled_from(pairs), min_size=n, max_size=3 * n, unique=True))
    results = draw(st.lists(st.sampled_from(["1-0", "1/2-1/2", "0-1"]), min_size=len(played)))
    players = [
        {"id": f"p{i}", "unrated": True}
        if i in unrated
        else {"id": f"p{i}", "rating": ratings[i], "games": games_before[i]}
        for i in range(n)
    ]
    games = [
        {"white": f"p{i}", "black": f"p{j}", "result": r}
        for (i, j), r in zip(played, results, strict=False)
    ]
    return {
        "start_date": "2024-06-01",
        "end_date": "2024-06-02",
        "players": players,
        "games": games,
    }


@settings(max_examples=60, deadline=None)
@given(sections())
def test_fide_2024_agrees_with_an_independent_reading_of_8_2_and_8_3(section):
    dp = table_811()
    rating = {p["id"]: p.get("rating") for p in section["players"]}
    played = {p["id"]: p.get("games", 0) for p in section["players"]}
    scores = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (Fraction(1, 2), Fraction(1, 2))}
    mine: dict[str, list[tuple[int, Fraction]]] = {p: [] for p in rating}
    for g in section["games"]:
        w, b = scores[g["result"]]
        if rating[g["black"]] is not None:
            mine[g["white"]].append((rating[g["black"]], Fraction(w)))
        if rating[g["white"]] is not None:
            mine[g["black"]].append((rating[g["white"]], Fraction(b)))
    out = {p["id"]: p for p in run(section, "fide-2024")["players"]}
    for pid, own in mine.items():
        got = out[pid]
        if not own:
            assert got["rating_change"] in (None, 0.0) and got["post_rating"] == rating[pid]
            continue
        if rating[pid] is not None:
            # 8.3.3 (adults): 10 from a published 2400, 40 until 30 games, else 20
            k = 10 if rating[pid] >= 2400 else 40 if played[pid] < 30 else 20
            k = min(k, 700 // len(own))  # 8.3.3: K × n ≤ 700
            total = sum(s - Fraction(pd(max(-400, min(400, rating[pid] - r))), 100) for r, s in own)
            change = k * total  # 8.3.2 d)
            assert got["rating_change"] == pytest.approx(float(change), abs=0.005)
            assert got["official_rating"] == rating[pid] + half_away(change)
        else:
            n, w = len(own), sum(s for _, s in own)
            if w == 0:  # 8.2.1: "scores zero in their first event ... disregarded"
                assert (got["performance"], got["published_rating"]) == (None, None)
                continue
            ra = Fraction(sum(r for r, _ in own) + 3600, n + 2)  # 8.2.2
            p = math.floor(Fraction(w + 1, n + 2) * 100 + Fraction(1, 2))
            ru = min(2200, math.floor(ra + dp[p] + Fraction(1, 2)))  # 8.2.3
            assert got["performance"] == ru
            published = ru if n >= 5 and ru >= 1400 else None  # 7.1.4
            assert got["published_rating"] == published
