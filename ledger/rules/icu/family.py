"""The ICU as one rule family (ledger/rules/family.py): its versions by a section's start
date, one list (`ICU`), late tournaments placed after the published list."""

from __future__ import annotations

from ledger.rules.family import Family, Words
from ledger.rules.fide.tables import performance
from ledger.rules.icu import section_not_rated
from ledger.rules.icu.lists import LIST_MONTHS
from ledger.rules.icu.versions import VERSIONS, resolve

SYSTEM = "ICU"
# What an explanation of each item kind follows (US Chess's sections are not the ICU's).
EXPLAIN_SECTIONS = {
    "section": "the ICU rating calculations in force on the section's start date "
    "(continuous formula; performance while new)",
    "match": "the ICU rating calculations in force on the match's start date",
    "opening": "opening balance (the federation's list when it moved onto the ledger)",
}

WORDS = Words(
    federation="ICU",
    ratings=(
        ("official_rating", "Rating"),
        ("rating", "Exact"),
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
        ("formula", "Formula"),
        ("rules", "Rules"),
        ("pre_rating", "Before"),
        ("post_rating", "After"),
        ("official_rating", "Rating"),
        ("games_before", "Games before"),
        ("games_after", "Games after"),
        ("score", "Score"),
        ("expected", "Expected"),
        ("k", "K"),
        ("bonus", "Bonus"),
        ("position", "Position"),
    ),
    change="before → after",
    performance=performance,
)

FAMILY = Family(
    name="icu",
    versions=tuple(VERSIONS),
    resolve=resolve,
    rater="ledger.rules.icu.rater:READER",
    estimator="ledger.rules.icu.estimator:estimate",
    systems=(SYSTEM,),
    list_system=SYSTEM,
    words=WORDS,
    view_suffix=".icu.view.db",
    list_months=LIST_MONTHS,  # September, January and May (articles/32)
    # icu-2005 rated a late tournament "in the earliest available slot after the published
    # list" (docs/decisions.md)
    late_items="next_period",
    explain_sections=EXPLAIN_SECTIONS,
    not_rated=lambda total, online, day: section_not_rated(total, online),
)
