"""What a catch-up's cascade counts (issue 33): the rows it rates again, written or not, over
which scripts/bench.py gives a correction's cost per row rated."""

import pytest
from projection_helpers import Ledger, round_robin

from projections.projector import View

A, B, C, D, E, F = ("10000001", "10000002", "10000003", "10000004", "10000005", "10000006")


@pytest.fixture
def led(ledger):
    return Ledger(ledger)


@pytest.fixture
def view(tmp_path):
    v = View(tmp_path / "view.db")
    yield v
    v.close()


def test_a_correction_counts_every_row_its_cascade_rates_and_none_it_passes_over(led, view):
    # Issue 33: "a correction re-rates only what its cascade reaches"; its cost per item is
    # also given per row rated: the rows of the items the cascade reaches (S1, corrected, and
    # S2, naming its players), not those of an item naming none of them (S3).
    led.register(A, B, C, D, E, F, adult=True)
    led.submit(
        round_robin("S1", [A, B], "2024-01-06"),
        round_robin("S2", [A, B, C, D], "2024-02-03"),
        round_robin("S3", [E, F], "2024-03-02"),
    )
    led.catch_up(view)
    led.correct(round_robin("S1", [A, B], "2024-01-06", results={(A, B): "0-1"}))
    stats = led.catch_up(view)
    rows = dict(view.db.execute("select item_key, count(*) from history group by item_key"))
    assert stats.items_rated == 2
    assert stats.rows_rated == rows["section:S1"] + rows["section:S2"] == 2 + 4
    assert stats.rows <= stats.rows_rated
