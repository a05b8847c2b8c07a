"""Foreign players in ICU sections: rated against at a fixed FIDE rating, never updated.

Sources: Unrated or Provisionally Rated Opponents (ratings.icu.ie/articles/17), "The Solution":
"the start ratings for players with full ratings (including foreign players) are held fixed";
the ICU's program (`icu_ratings`, RatedPlayer "Fixed Ratings"): "these players will have their
tournament performance ratings calculated but the value returned by the method _new_rating_ will
just be the rating they started with. Typically these are foreign players with FIDE ratings who
are not members of the ICU".
"""

from datetime import date

import pytest
from projection_helpers import Ledger, round_robin

from ledger.rules.icu import practice, section
from ledger.rules.icu.section import Player, Section
from projections import queries
from projections.projector import View

START = date(2015, 3, 1)
ADULT, VETERAN = date(1960, 1, 1), date(1980, 1, 1)


def e(own, opponent):
    return 1 / (1 + 10 ** ((opponent - own) / 400))


def players():
    return (
        Player("f", 2200, foreign=True),
        Player("p", 1800, 100, ADULT, VETERAN),
        Player("n", None),
    )


GAMES = (("f", "p", 1), ("n", "f", 1), ("n", "p", 0.5))


def test_a_foreign_player_counts_at_his_fixed_rating_and_keeps_it():
    # p (K 24) loses to f at 2200 and draws n: 1800 + 24 × (0.5 − e(1800, 2200) − e(1800, n));
    # n's games perform at 2200 + 400 and at 1800; f's rating is "the rating they started with".
    out = practice.rate_section(Section(START, START, players(), GAMES))
    f, p, n = out.player("f"), out.player("p"), out.player("n")
    assert (f.rated, f.pre, f.post, f.official, f.reason) == (
        False,
        2200,
        2200,
        2200,
        practice.FOREIGN,
    )
    assert n.post == (2600 + 1800) / 2
    assert (p.games, p.rc) == (2, (2200 + n.post) / 2)
    assert p.post == pytest.approx(1800 + 24 * (0.5 - e(1800, 2200) - e(1800, n.post)))


def test_the_2005_text_counts_a_foreign_player_as_a_rated_opponent_too():
    # icu-2005 counts games against rated players only: p's one game is against f at 2200.
    out = section.rate_section(Section(START, START, players(), GAMES))
    f, p = out.player("f"), out.player("p")
    assert (f.rated, f.post) == (False, 2200)
    assert (p.games, p.rc) == (1, 2200)
    assert p.post == pytest.approx(1800 + 24 * (0 - e(1800, 2200)))


def test_a_foreign_player_needs_his_fixed_rating():
    with pytest.raises(ValueError, match="fixed rating"):
        Section(START, START, (Player("f", None, foreign=True), Player("p", 1800)), ())


def test_the_read_model_holds_a_foreign_players_rating_fixed(ledger, tmp_path):
    # The section's entry carries `fixed_rating` for f; f gets no ICU rating from it, p is rated
    # against 2200 (K 24 by the default dates), and an entry without it stores no such key.
    f, p, q = "40000001", "40000002", "40000003"
    led = Ledger(ledger)
    led.register(f, p, q, adult=True)
    led.opening(p, "ICU", 1800.0, 100)
    led.opening(q, "ICU", 1800.0, 100)
    first = round_robin("ICU1", [f, p], "2024-03-01")
    first["players"][0]["fixed_rating"] = 2200
    led.submit(first, round_robin("ICU2", [p, q], "2024-04-01"))
    view = View(tmp_path / "icu.db", "icu")
    led.catch_up(view)
    assert queries.history(view, f, "ICU") == []
    after = queries.history(view, p, "ICU")[1]
    assert after["post_rating"] == round(1800 - 24 * e(1800, 2200))
    states = [n.state for n in ledger.recorder.select_notifications(0, 100)]
    sections = [s for s in states if b'"section_id"' in s]
    assert [s.count(b"fixed_rating") for s in sections] == [1, 0]
