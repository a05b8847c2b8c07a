"""ICU rating lists: three a year, in September, January and May.

Source: Guidance for Rating Officers (ratings.icu.ie/articles/32): "Rating lists are published
3 times a year in September (just after the new season beigins), January and May".
"""

from __future__ import annotations

from datetime import date

import pytest
import typer
from typer.testing import CliRunner

from ledger.entrypoints.cli.writes import register
from ledger.rules.families import family as rules_family


@pytest.mark.parametrize(
    ("family", "as_of", "scheduled"),
    [
        ("icu", date(2024, 9, 15), True),
        ("icu", date(2025, 1, 15), True),
        ("icu", date(2025, 5, 1), True),
        ("icu", date(2025, 4, 30), False),
        ("icu", date(2024, 12, 1), False),
        ("fide", date(2025, 4, 1), True),  # FIDE lists are monthly (7.1)
        ("uschess", date(2025, 4, 1), True),
    ],
)
def test_the_icu_publishes_in_september_january_and_may(family, as_of, scheduled):
    assert (rules_family(family).off_schedule(as_of) is None) is scheduled


def test_an_icu_list_out_of_season_is_recorded_with_a_warning(store_url, ledger):
    # The as-of date is the rating officer's cut-off (articles/32: "two adjustable cut-off
    # dates"), so an odd month is recorded, with one line on stderr saying so.
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    args = ["publish-list", "--family", "icu", "--name", "2025-04", "--as-of", "2025-04-01"]
    result = CliRunner().invoke(app, [*args, "--actor", "director", "--store", store_url])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == (
        "warning: icu publishes its lists in January, May, September; 2025-04-01 is not in one"
        " of them"
    )
    assert "recorded ListPublished" in result.stdout
