"""Rules that moved out of the read model into ledger/rules (issue 13): the all-wins/all-losses
status, the OLM title date, §7's overrides, FIDE's 2400, and the one section-rating function
that both `estimate` and the read model call."""

from __future__ import annotations

from datetime import date

import pytest

from ledger.estimate import estimate, load_section
from ledger.rules.fide.rated import reaches_k_10
from ledger.rules.uschess import floors
from ledger.rules.uschess.floor_levels import OLM_GAMES
from ledger.rules.uschess.floors import FloorState
from ledger.rules.uschess.history import history_after
from ledger.rules.uschess.overrides import apply_override
from ledger.rules.uschess.section import Game, Start, StepOneError, rate_event
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import resolve


def test_all_wins_and_all_losses_status():
    # §4.1: a new player's first games set the status; later games can only end it.
    assert history_after(False, "mixed", 3, 3, 0) == "all_wins"
    assert history_after(False, "mixed", 2, 0, 2) == "all_losses"
    assert history_after(False, "mixed", 3, 2, 0) == "mixed"
    assert history_after(True, "all_wins", 2, 2, 0) == "all_wins"
    assert history_after(True, "all_wins", 2, 1, 1) == "mixed"
    assert history_after(True, "mixed", 2, 2, 0) == "mixed"


def test_the_olm_title_date_is_kept_once_earned():
    earned = FloorState(olm_games=OLM_GAMES)
    assert floors.olm_title_date(None, FloorState(olm_games=OLM_GAMES - 1), "2024-01-01") is None
    assert floors.olm_title_date(None, earned, "2024-01-01") == "2024-01-01"
    assert floors.olm_title_date("2020-05-05", earned, "2024-01-01") == "2020-05-05"


def test_overrides():
    state = FloorState()
    assert apply_override("impose_ceiling", 1500.0, 1600.0, state, None)[:2] == (
        1500.0,
        FloorState(ceiling=1500.0),
    )
    rating, fl, _, _ = apply_override("set_floor", 1400.0, 1300.0, state, None)
    assert (rating, fl.director_floor) == (1400.0, 1400)
    rating, fl, pending, _ = apply_override(
        "grant_floor_lowering", None, 1500.0, state, (1400, 1390.0)
    )
    assert (rating, fl.floor_lowerings, pending) == (1390.0, 1, None)
    assert apply_override("adjust_rating", 1234.0, 1500.0, state, None)[3] is True
    with pytest.raises(ValueError, match="unknown override action"):
        apply_override("delete_player", None, 1500.0, state, None)


def test_fide_k_10_from_2400():
    assert reaches_k_10(2400) and not reaches_k_10(2399.5)


def test_estimate_and_the_read_model_rate_through_rate_event():
    section = load_section(
        {
            "system": "OTBR",
            "start_date": "2024-05-04",
            "end_date": "2024-05-04",
            "players": [
                {"id": "a", "rating": 1600, "games": 40},
                {"id": "b", "rating": 1500, "games": 30},
            ],
            "games": [{"white": "a", "black": "b", "result": "1-0"}],
        }
    )
    out = estimate(section)
    rated, inits = rate_event(
        [Start("a", 1600.0, 40), Start("b", 1500.0, 30)],
        [Game(0, 1, 1.0)],
        resolve(date(2024, 5, 4)),
        System.OTBR,
        date(2024, 5, 4),
        False,
    )
    assert not inits
    assert [p["post_rating"] for p in out["players"]] == [r.post_rating for r in rated]
    with pytest.raises(StepOneError) as found:
        rate_event(
            [Start("a", 1600.0, 40), Start("b", None, 0, True)],
            [Game(0, 1, 1.0)],
            resolve(date(2024, 5, 4)),
            System.OTBR,
            date(2024, 5, 4),
            False,
        )
    assert found.value.index == 1
