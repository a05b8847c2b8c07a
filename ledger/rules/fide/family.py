"""FIDE as one rule family (ledger/rules/family.py): its versions by date, the standard list
and (from 2022) the rapid and blitz lists, rated by published lists in periods (10.65)."""

from __future__ import annotations

from typing import get_args

from ledger.rules.family import Family, PeriodRules, Words
from ledger.rules.fide import rate_of_play
from ledger.rules.fide.lists import first_list_rating, list_version, period_result
from ledger.rules.fide.rate_of_play import BLITZ, RAPID, STANDARD, SYSTEMS
from ledger.rules.fide.rated import period_sum
from ledger.rules.fide.section import Format
from ledger.rules.fide.state import FideState
from ledger.rules.fide.tables import performance
from ledger.rules.fide.uplift import uplifted_official
from ledger.rules.fide.versions import BY_NAME, NAMES, resolve

WORDS = Words(
    federation="FIDE",
    ratings=(
        ("official_rating", "Rating"),
        ("games", "Games"),
        ("earlier_games", "Earlier games"),
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
    # B.02 1.1 and the rapid and blitz regulations: FIDE's standard, rapid and blitz lists
    systems={STANDARD: "FIDE standard", RAPID: "FIDE rapid", BLITZ: "FIDE blitz"},
)
# What an explanation of a section rated under each version follows.
EXPLAIN_VERSIONS = {
    "fide-2003": "B.02 10.2–10.5 (unrated: Rc, Ru, 10.3 Rn), 10.6 (Rc, D, PD, ΔR = K(W − We)), "
    "10.65 (the period: Rn = Ro + ΣΔR)",
    "fide-2022": "B.02 (2022) 8.2 (initial rating), 8.3.1–8.3.2 (D, PD, ΔR per game), 8.3.3 (K), "
    "8.3.4 and 7.1 (the monthly list)",
    "fide-2024": "B.02 (2024) 8.2 (initial rating), 8.3.1–8.3.2 (D, PD, ΔR per game), 8.3.3 (K), "
    "8.3.4 and 7.1 (the monthly list)",
}

# 10.65 / 8.3.4: each period rated from the previous list, the list summing it.
PERIODS = PeriodRules(
    version=list_version,
    by_name=BY_NAME,
    result=period_result,
    change_sum=period_sum,
    first_rating=first_list_rating,
    joined=lambda state, own: (state or FideState()).joined(own),
    listed=lambda state, official, dropped: (state or FideState()).listed(official, dropped),
    uplifted=uplifted_official,
    uplift_system=STANDARD,
    uplift_text="FIDE Council, 15 December 2023: ratings below 2000 on the 1 March 2024 list "
    "raised by 0.4 × (2000 − R)",
    k_rule="8.3.3 (10 once 2400 published; 40 junior under 2300 or < 30 games; 20)",
)

FAMILY = Family(
    name="fide",
    versions=NAMES,
    resolve=resolve,
    rater="ledger.rules.fide.rater:READER",
    estimator="ledger.rules.fide.estimator:estimate",
    systems=SYSTEMS,
    list_system=STANDARD,
    words=WORDS,
    view_suffix=".fide.view.db",
    late_items="next_period",  # late reports are rated in the next period (docs/decisions.md)
    periods=PERIODS,
    explain_versions=EXPLAIN_VERSIONS,
    not_rated=lambda total, online, day: rate_of_play.section_not_rated(
        total, online, resolve(day)
    ),
    time_control=rate_of_play.fide_time_control,
    notation=rate_of_play.in_ledger_notation,
    formats=get_args(Format),
    list_for=lambda minutes, day: rate_of_play.list_for_time(resolve(day), minutes),
)
