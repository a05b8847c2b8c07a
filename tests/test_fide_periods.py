"""FIDE rating periods: 10.65 (changes summed from the list rating), 10.3 across lists, and
which list's period rates an item (`ledger.rules.rating_lists`)."""

from datetime import date
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.families import family as rules_family
from ledger.rules.fide.periods import Tournament, first_rating, rate_period
from ledger.rules.fide.section import Player, Section, rate_section
from ledger.rules.fide.unrated import Performance
from ledger.rules.rating_lists import RatingList, list_for

# 10.68's round robin (tests/test_fide_round_robin_example.py): ratings and scores.
ENTRANTS = [
    ("A", 2600, 8),
    ("B", 2500, 7),
    ("C", None, 7),
    ("D", 2400, 6),
    ("E", None, 6),
    ("F", 2150, 4),
    ("G", 2300, 3),
    ("H", None, 2),
    ("I", None, 1),
    ("J", 2300, 1),
]
UPSETS = {("A", "J"), ("B", "E")}
RATED = [x for x, r, _ in ENTRANTS if r is not None]
LIST_RATING = {x: r for x, r, _ in ENTRANTS if r is not None}


@pytest.fixture(scope="module")
def round_robin():
    """10.68 rated with every rated player at his list rating (games 100: K 10 or 15)."""
    ids = [x for x, _, _ in ENTRANTS]
    games = tuple((a, b, 0.0 if (a, b) in UPSETS else 1.0) for a, b in combinations(ids, 2))
    players = tuple(
        Player(x, r, games=100, reached_2400=r is not None and r >= 2400) for x, r, _ in ENTRANTS
    )
    return rate_section(Section("round_robin", date(2003, 1, 1), date(2003, 1, 9), players, games))


def counted_as(outcome, x):
    """How player x counts for his opponents in 10.68: list rating, or first Ru if unrated."""
    p = outcome.player(x)
    return p.pre if p.pre is not None else p.performance_before_cap


def tournament_of(outcome, x):
    """Player x's round robin as a period Tournament: his opponents and Rc = Ra(n+1) − R / n."""
    p = outcome.player(x)
    opponents = tuple(counted_as(outcome, o) for o, _, _ in ENTRANTS if o != x)
    return Tournament(opponents, p.score, competition=p.rc_before_cap)


def match_with(opponent_rating, score, games=2):
    return Tournament((opponent_rating,) * games, score)


@pytest.mark.parametrize("x", RATED)
def test_a_round_robin_in_a_period_changes_the_rating_as_the_section_does(round_robin, x):
    # 10.65: "determine DR for each tournament in which he has played" — the same ΔR as 10.68
    # (G: "DR = (3-3.87) x 15 = -13.05").
    p = round_robin.player(x)
    period = rate_period(
        LIST_RATING[x], [tournament_of(round_robin, x)], games=100, reached_2400=p.pre >= 2400
    )
    assert period.changes[0].change == p.rating_change
    assert (period.changes[0].rc, period.changes[0].d) == (p.rc, p.d)
    assert period.official == p.official


# 10.68's round robin and a two-game match G–F in one period (G scores 1½). Match: D = 2300 −
# 2150 = 150 → PD .70/.30 (10.1b "146-153 .70 .30"), We 1.4/0.6, K 15: ΔR +1.5 / −1.5.
@pytest.mark.parametrize(
    ("x", "opponent", "score", "changes", "new"),
    [
        ("G", 2150, 1.5, (-13.05, 1.5), 2288),  # 10.65: 2300 − 13.05 + 1.5 = 2288.45 → 2288
        ("F", 2300, 0.5, (28.95, -1.5), 2177),  # 10.65: 2150 + 28.95 − 1.5 = 2177.45 → 2177
    ],
)
@pytest.mark.parametrize("reverse", [False, True])
def test_two_tournaments_in_a_period_are_both_rated_from_the_list_rating(
    round_robin, x, opponent, score, changes, new, reverse
):
    # 10.65: "Ro is the old rating. SDR is the summation of DR for each event ... Rn = Ro + SDR";
    # 10.66: "Rn is rounded off to the nearest 1". Either order gives the same list rating.
    tournaments = [tournament_of(round_robin, x), match_with(opponent, score)]
    if reverse:
        tournaments.reverse()
        changes = changes[::-1]
    period = rate_period(LIST_RATING[x], tournaments, games=100)
    assert [c.change for c in period.changes] == pytest.approx(changes)
    assert period.total == pytest.approx(sum(changes))
    assert period.official == new


def test_a_period_differs_from_rating_the_tournaments_one_after_the_other(round_robin):
    # 10.65: the match is rated from G's list rating 2300, not from 2286.95 after the round
    # robin. From 2286.95 against F's 2178.95, D = 108 → PD .65 (10.1b "107-113 .65"): ΔR +3.
    chained = rate_period(2300 - 13.05, [match_with(2150 + 28.95, 1.5)], games=100)
    assert chained.changes[0].change == pytest.approx(3.0)
    period = rate_period(2300, [tournament_of(round_robin, "G"), match_with(2150, 1.5)], games=100)
    assert period.official == 2288
    assert chained.rating == pytest.approx(2289.95) and chained.official == 2290


def test_the_changes_are_summed_before_rounding():
    # 10.65/10.66: Rn = Ro + SDR, then "rounded off to the nearest 1": two +0.25 changes make
    # +0.5 → up. Each: K 25 (10.641, 0 games), D = −5 → PD .49 (10.1b "4-10 .51 .49"),
    # ΔR = 25 × (0.5 − 0.49) = 0.25.
    period = rate_period(2300, [match_with(2305, 0.5, games=1)] * 2, games=0)
    assert [c.change for c in period.changes] == pytest.approx([0.25, 0.25])
    assert period.official == 2301
    assert rate_period(2300, [match_with(2305, 0.5, games=1)], games=0).official == 2300


@pytest.mark.parametrize(
    ("games", "rating", "reached_2400", "k"),
    [(25, 2300, False, 25), (30, 2300, False, 15), (30, 2400, False, 10), (30, 2350, True, 10)],
)
def test_k_is_the_same_for_every_tournament_of_the_period(games, rating, reached_2400, k):
    # 10.641: K from the games "completed" and the "published rating": as of the list before
    # the period (decision), so a 9-game tournament does not change K for a later one.
    nine, three = match_with(rating, 4.5, games=9), match_with(rating, 1.5, games=3)
    for order in ([nine, three], [three, nine]):
        period = rate_period(rating, order, games=games, reached_2400=reached_2400)
        assert period.k == k and [c.k for c in period.changes] == [k, k]


def test_a_swiss_tournament_counts_the_capped_average_of_the_opponents():
    # 10.61: "A difference in rating of more than 350 points will be counted ... as 350":
    # 2700 counts as 2650 for a 2300 player; D = 2300 − 2450 = −150 → PD .30; K 15;
    # ΔR = 15 × (1 − 0.60) = 6 (as tests/test_fide_rated.py rates the same Swiss).
    period = rate_period(2300, [Tournament((2700, 2250), 1.0)], games=40)
    c = period.changes[0]
    assert (c.rc_before_cap, c.rc, c.d, c.pd_hundredths) == (2475, 2450, -150, 30)
    assert c.change == pytest.approx(6) and period.official == 2306


@pytest.mark.parametrize(
    "tournament", [Tournament((), 0.0), Tournament((2300,), 1.5), Tournament((2300,), -0.5)]
)
def test_a_tournament_without_games_or_with_an_impossible_score_is_refused(tournament):
    with pytest.raises(ValueError):
        rate_period(2300, [tournament], games=40)


HALF_POINTS = st.integers(0, 18)
TOURNAMENTS = st.lists(
    st.tuples(
        st.lists(st.integers(1400, 2800), min_size=1, max_size=9),
        HALF_POINTS,
        st.none() | st.floats(1400, 2800, allow_nan=False),
    ).map(lambda t: Tournament(tuple(map(float, t[0])), min(t[1], 2 * len(t[0])) / 2, t[2])),
    min_size=1,
    max_size=6,
)


@given(
    st.floats(1600, 2800, allow_nan=False),
    st.integers(0, 200),
    st.booleans(),
    TOURNAMENTS.flatmap(lambda ts: st.tuples(st.just(ts), st.permutations(ts))),
)
def test_permuting_the_tournaments_of_a_period_never_changes_the_list_rating(
    rating, games, reached_2400, tournaments
):
    # 10.65: Rn = Ro + SDR, a sum over the period's events, so their order cannot matter. The
    # comparison is exact: each ΔR depends only on its own tournament, Ro and K (fixed for the
    # period), and the sum is math.fsum, correctly rounded whatever the order of its terms.
    given_order, permuted = tournaments
    a = rate_period(rating, given_order, games=games, reached_2400=reached_2400)
    b = rate_period(rating, permuted, games=games, reached_2400=reached_2400)
    assert (a.total, a.rating, a.official) == (b.total, b.rating, b.official)
    assert sorted(a.changes) == sorted(b.changes)


# --- unrated players: results accumulate over periods until a rating is published (10.3) ---


@pytest.mark.parametrize(
    ("periods", "rn", "published"),
    [
        # 10.3: "Rn = [ 2280 x 5 + 2400 x 10 + 2000 x 5 ] / 20 = 2270", over three periods
        ([[(2280, 5)], [(2400, 10)], [(2000, 5)]], 2270, 2270),
        # 10.32 "Only Rn>= 2005 are considered": (2100 × 4 + 1900 × 9)/13 = 1961.5, none yet
        ([[(2100, 4)], [(1900, 9)]], 25500 / 13, None),
        # ... the next period's 2300 × 9 brings Rn to 46200/22 = 2100: published (10.32)
        ([[(2100, 4)], [(1900, 9)], [(2300, 9)]], 2100, 2100),
        # 10.31: "Where a player's first performance(s) is less than 2005, the result(s) is
        # ignored": 1950 × 5 in his first period is ignored, later 2152 × 9 counts alone
        ([[(1950, 5)]], None, None),
        ([[(1950, 5)], [(2152, 9)]], 2152, 2150),  # 10.32: "rounded off to the nearest 5"
        # B.02 9.14b: "a minimum of 9 games": 2152 × 4 alone publishes nothing yet
        ([[(1950, 5)], [(2152, 4)]], 2152, None),
    ],
)
def test_an_unrated_players_results_accumulate_until_a_rating_is_published(periods, rn, published):
    results = []
    for period in periods:
        results += [Performance(r, g) for r, g in period]
    first = first_rating(results)
    assert first.rating == (None if rn is None else pytest.approx(rn))
    assert first.published == published


@pytest.mark.parametrize(
    ("results", "entry", "published"),
    [
        ([(2150, 9)], 2200, 2200),  # 10.4: "entered on the FRL at 2200"
        ([(2000, 9)], 2050, 2050),  # 10.4: "(2050 for players in the Women's Olympiad)"
        ([(2300, 9)], 2200, 2300),  # 10.4: "unless ... performance qualifies for a higher"
        ([], 2200, 2200),
    ],
)
def test_an_olympiad_qualification_publishes_at_least_the_entry_rating(results, entry, published):
    first = first_rating([Performance(r, g) for r, g in results], at_least=entry)
    assert first.published == published


# --- which list's period rates an item ---

LISTS = [
    RatingList("2003-01", date(2003, 1, 1), 10),
    RatingList("2003-07", date(2003, 7, 1), 20),
    RatingList("2004-01", date(2004, 1, 1), 30),
]


@pytest.mark.parametrize(
    ("end", "position", "next_period", "by_end_date"),
    [
        (date(2002, 12, 20), 5, 0, 0),  # recorded in time: its end date's period
        (date(2002, 12, 20), 12, 1, 0),  # late for 2003-01: the next list takes it
        (date(2002, 12, 20), 25, 2, 0),  # late for two lists
        (date(2002, 12, 20), 35, None, 0),  # late for every list so far: waits
        (date(2003, 1, 1), 5, 1, 1),  # ended on the as-of date: the list's own period is next
        (date(2003, 6, 30), 20, 1, 1),  # recorded at the cutoff position: in time
        (date(2004, 1, 1), 5, None, None),  # no list published for its period yet
    ],
)
def test_a_late_item_is_rated_in_the_period_its_family_chooses(
    end, position, next_period, by_end_date
):
    # Decision (docs/decisions.md): FIDE rates late reports in the next period.
    assert list_for(end, position, LISTS, "next_period") == next_period
    assert list_for(end, position, LISTS, "by_end_date") == by_end_date


@pytest.mark.parametrize(("family", "late"), [("fide", "next_period"), ("icu", "next_period")])
def test_each_family_records_its_choice_for_late_items(family, late):
    # Decision: FIDE "late reports in the next period"; ICU's pre-2012 system (icu-2005):
    # "the earliest available slot after the published list".
    assert rules_family(family).late_items == late
