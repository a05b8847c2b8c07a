"""FIDE's time controls as FIDE writes them, and a FIDE section whose every game is dropped
shown as a problem row with the reason (issue 30, cause 4)."""

from datetime import date

import pytest
from projection_helpers import Ledger, round_robin

from ledger.commands import PublishList, parse
from ledger.rules.families import family
from ledger.rules.fide.rate_of_play import fide_time_control
from ledger.rules.time_controls import NOT_GIVEN, known_time_control
from projections import queries
from projections.projector import View
from projections.unrated import WAITING, reasons

TOP = ["A", "B", "C"]  # rated 2400 and over: 1.1's 120 minutes


@pytest.mark.parametrize(
    ("text", "minutes_for_60_moves"),
    [
        ("90/40+30", 120),  # 90 minutes for 40 moves, then 30 (or 30 s a move: the same 120)
        ("90'/40m+30'+30\"", 150),  # 90 + 30 minutes, 60 × 30 s
        ("G/90+30", 120),  # 90 minutes, 60 × 30 s
        ("40/90, SD/30;+30", 150),  # the ledger's own notation reads as before
    ],
)
def test_fide_reads_a_time_control_as_fide_writes_it_assuming_the_game_lasts_60_moves(
    text, minutes_for_60_moves
):
    # Issue 30: "Time controls as FIDE writes them (`90/40+30`, `90'/40m+30'+30"`, `G/90+30`)";
    # B.02 2024 1.1: "minimum periods in which to complete all the moves, assuming the game
    # lasts 60 moves."
    known = fide_time_control(text)
    assert known is not None and known.total == minutes_for_60_moves
    assert family("fide").section_not_rated(text, False, date(2024, 6, 1)) is None


def test_us_chess_reads_its_own_forms_as_before():
    # Issue 30 brief: "The US Chess reading of its own forms must not change."
    assert family("uschess").time_control is known_time_control
    assert known_time_control("40/120").total == 120


@pytest.fixture
def led(ledger):
    led = Ledger(ledger)
    for x in TOP:
        fide = {"rating": 2450, "date": "2024-03-01", "games": 100}
        led.register(x, adult=True, fide=fide)
    return led


def _published_view(led, tmp_path, time_control):
    led.submit(round_robin("S", TOP, "2024-06-01", "2024-06-03", time_control=time_control))
    data = {"family": "fide", "name": "2024-07", "as_of": "2024-07-01"}
    led.app.lists.publish(parse(PublishList, data), actor="director")
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    return view


def test_a_90_40_plus_30_section_of_players_rated_2400_is_rated(led, tmp_path):
    # Issue 30: "A section with `90/40+30` is read as 40 minutes; its games fail FIDE's
    # minimum"; 1.1: "Where at least one of the players in the game has a rating of 2400 or
    # higher, each player must have a minimum of 120 minutes."
    view = _published_view(led, tmp_path, "90/40+30")
    assert queries.problems(view) == []
    assert reasons(view, "S").section is None


def test_a_section_whose_every_game_is_below_the_minimum_is_a_problem_row_not_waiting(
    led, tmp_path
):
    # Issue 30: "a section whose games are all dropped is a problem row with the reason, never
    # silent", and the crosstable no longer says "rated when the list of its rating period is
    # published" after that list is published; 1.1: 120 minutes where one is rated 2400.
    view = _published_view(led, tmp_path, "G/60")
    (problem,) = queries.problems(view)
    assert problem["item_key"] == "section:S"
    assert "60 minutes for 60 moves: under 1.1's minimum" in problem["reason"]
    why = reasons(view, "S").section
    assert why is not None and why != WAITING
    assert why.startswith("60 minutes for 60 moves")


def test_a_section_whose_report_gives_no_time_control_is_a_problem_row(led, tmp_path):
    # Issue 30: "a section whose games are all dropped (... a time control not read) is a
    # problem row with the reason, never silent".
    view = _published_view(led, tmp_path, NOT_GIVEN)
    (problem,) = queries.problems(view)
    assert problem["reason"] == "not rated: " + reasons(view, "S").section
    assert "the report gives no time control" in problem["reason"]
