"""FIDE as one rule family (ledger/rules/family.py): its versions by date, the standard list
and (from 2022) the rapid and blitz lists, rated by published lists in periods (10.65)."""

from __future__ import annotations

from ledger.rules.family import Family, Words
from ledger.rules.fide.rate_of_play import STANDARD, SYSTEMS
from ledger.rules.fide.tables import performance
from ledger.rules.fide.versions import NAMES, resolve

WORDS = Words(
    federation="FIDE",
    ratings=(
        ("official_rating", "Rating"),
        ("games", "Games"),
        ("wins", "W"),
        ("draws", "D"),
        ("losses", "L"),
        ("k", "K"),
        ("rated_on", "Rated on"),
    ),
    history=(
        ("end_date", "Ended"),
        ("kind", "Kind"),
        ("rules", "Rules"),
        ("pre_rating", "Ro"),
        ("post_rating", "Rn"),
        ("official_rating", "Rating"),
        ("games_before", "Games before"),
        ("games_after", "Games after"),
        ("score", "Score"),
        ("expected", "Expected"),
        ("k", "K"),
        ("position", "Position"),
    ),
    change="Ro, ΔR, K",
    performance=performance,
)

FAMILY = Family(
    name="fide",
    versions=NAMES,
    resolve=resolve,
    rater="projections.raters.fide:FideRater",
    systems=SYSTEMS,
    list_system=STANDARD,
    words=WORDS,
    view_suffix=".fide.view.db",
    late_items="next_period",  # late reports are rated in the next period (docs/decisions.md)
    periods=True,
    last_k=True,
)
