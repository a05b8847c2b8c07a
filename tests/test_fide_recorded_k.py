"""A player's K on FIDE's list, recorded (issue 30, "FIDE's inputs as FIDE keeps them"): on his
profile (`fide_k`, `fide_reached_2400`) or his FIDE opening balance (`k`), the FIDE rater uses it
where the ledger cannot tell (B.02 8.3.3; docs/decisions.md, "FIDE's K column")."""

from datetime import date

import pytest
from projection_helpers import Ledger, round_robin

from ledger.commands import RegisterPlayer, parse
from ledger.errors import InvalidCommand
from ledger.rules.fide.k_factor import k_factor
from ledger.rules.fide.versions import resolve
from projections import queries
from projections.projector import View

X, Y, Z = "50000011", "50000012", "50000013"
DAY = "2024-05-10"  # rated under B.02 of 2024 (8.3.3: K 40, 20 or 10; 40 under 18 and 2300)
V2024 = resolve(date(2024, 5, 10))


def _rated(ledger, tmp_path, **profile):
    """X (2343, 100 games before) beats Y (2200) and draws Z (2300); his FIDE row."""
    led = Ledger(ledger)
    for pid, rating in ((X, 2343), (Y, 2200), (Z, 2300)):
        fide = {"rating": rating, "date": "2024-05-01", "games": 100}
        led.register(pid, fide=fide, **(profile if pid == X else {}))
    led.submit(round_robin("MAY", [X, Y, Z], DAY, results={(X, Z): "1/2-1/2"}))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    (row,) = [r for r in queries.history(view, X, "FIDE") if r["item_key"] == "section:MAY"]
    return row


def _expected_change(k: int) -> float:
    """8.3.2/8.3.3: ΔR = K × Σ(W − We); We from 8.1.2's table for D = 143 (0.69) and D = 43
    (0.56): W 1.5, We 1.25."""
    return k * (1.5 - (0.69 + 0.56))


def test_a_player_at_2343_whose_list_says_k_10_is_rated_with_k_10(ledger, tmp_path):
    # 8.3.3: K = 10 "once a player's published rating has reached 2400 ... even if the rating
    # drops below 2400"; his list's K 10 says so (issue 30: "2343 published against 2368").
    row = _rated(ledger, tmp_path, fide_k=10)
    assert (row["post_rating"] - row["pre_rating"]) == pytest.approx(_expected_change(10))


def test_a_recorded_reached_2400_gives_k_10(ledger, tmp_path):
    # 8.3.3, as above: the profile's "has reached 2400" alone.
    row = _rated(ledger, tmp_path, fide_reached_2400=True)
    assert (row["post_rating"] - row["pre_rating"]) == pytest.approx(_expected_change(10))


def test_without_a_recorded_k_he_is_rated_with_k_20(ledger, tmp_path):
    # 8.3.3: K 20 "as long as a player's rating remains under 2400" (the ledger's default).
    row = _rated(ledger, tmp_path)
    assert (row["post_rating"] - row["pre_rating"]) == pytest.approx(_expected_change(20))


def test_a_listed_k_40_without_a_birth_date_is_the_junior_k(ledger, tmp_path):
    # 8.3.3: K = 40 "for all players until the end of the year of their 18th birthday, as long as
    # their rating remains under 2300"; at 2343 he is over it, so a listed 40 is a new player's
    # K, which his 100 earlier games end: 20. Below 2300 (k_factor, same version) it stands.
    row = _rated(ledger, tmp_path, fide_k=40)
    assert (row["post_rating"] - row["pre_rating"]) == pytest.approx(_expected_change(20))
    assert k_factor(V2024, 2250, 100, False, None, date(2024, 5, 10), listed_k=40) == 40
    assert k_factor(V2024, 2250, 100, False, None, date(2024, 5, 10)) == 20


def test_a_birth_date_decides_the_junior_k_over_a_listed_k():
    # 8.3.3 defines K 40 by age: a recorded birth date (born 1990) says he is no junior.
    born = date(1990, 1, 1)
    assert k_factor(V2024, 2250, 100, False, born, date(2024, 5, 10), listed_k=40) == 20


def test_a_listed_k_20_says_he_has_completed_his_first_30_games():
    # 8.3.3: K 40 for a new player "until they have completed events with at least 30 games";
    # his list's K 20 says he has, though the ledger counts only 9 of his games.
    assert k_factor(V2024, 1800, 9, False, None, date(2024, 5, 10), listed_k=20) == 20
    assert k_factor(V2024, 1800, 9, False, None, date(2024, 5, 10)) == 40


def test_an_opening_balance_s_k_40_is_used_for_its_list(ledger, tmp_path):
    # issue 30: the K column of FIDE's list, recorded on the opening balance of that list.
    led = Ledger(ledger)
    led.register(X, Y, Z)
    for pid, rating in ((X, 2250), (Y, 2200), (Z, 2300)):
        led.opening(pid, "FIDE", rating, 100, as_of="2024-05-01", **({"k": 40} if pid == X else {}))
    led.submit(round_robin("MAY", [X, Y, Z], DAY, results={(X, Z): "1/2-1/2"}))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    (row,) = [r for r in queries.history(view, X, "FIDE") if r["item_key"] == "section:MAY"]
    # 8.1.2: D = 50 → 0.57, D = −50 → 0.43; W 1.5, We 1.00; K 40
    assert (row["post_rating"] - row["pre_rating"]) == pytest.approx(40 * (1.5 - (0.57 + 0.43)))


def test_a_k_fide_never_gives_is_refused_at_the_door():
    # 8.3.3 and 8.56 give K 10, 15, 20, 25, 30 or 40; any other is bad input.
    with pytest.raises(InvalidCommand):
        parse(RegisterPlayer, {"id": X, "fide_k": 12})
    with pytest.raises(InvalidCommand):
        parse(RegisterPlayer, {"id": X, "fide_flags": "x"})
