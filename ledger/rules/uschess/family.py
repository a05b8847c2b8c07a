"""US Chess as one rule family (ledger/rules/family.py): the house rules of this ledger, six
systems, floors and OLM (§5), provisional ratings (§1), no published lists."""

from __future__ import annotations

from ledger.rules.family import Family, Words
from ledger.rules.uschess.floor_levels import OLM_GAMES
from ledger.rules.uschess.parameters import BASE_TIMELINES, parse_parameter_value
from ledger.rules.uschess.systems import ONLINE_SYSTEMS, System, is_established
from ledger.rules.uschess.time_controls import section_not_rated
from ledger.rules.uschess.versions import VERSIONS, resolve

# §5's names of what held a US Chess rating (the read model keeps projections' identifiers).
BOUNDS = {
    "absolute": "absolute floor (100)",
    "personal_absolute": "personal absolute floor",
    "peak": "peak floor",
    "money": "money floor",
    "director": "director's floor",
    "olm": "OLM floor",
    "ceiling": "ceiling",
}

WORDS = Words(
    federation="US Chess",
    ratings=(
        ("official_rating", "Rating"),
        ("rating", "Exact"),
        ("games", "N"),
        ("established", "Established"),
        ("wins", "W"),
        ("draws", "D"),
        ("losses", "L"),
        ("floor", "Floor"),
        ("floor_bound", "Floor from"),
        ("floor_absolute", "Absolute"),
        ("floor_peak", "Peak floor"),
        ("floor_olm", "OLM floor"),
        ("floor_money", "Money floor"),
        ("floor_director", "Director floor"),
        ("peak", "Peak"),
        ("olm_progress", "OLM games"),
        ("olm_title_date", "OLM since"),
        ("ceiling", "Ceiling"),
        ("rated_on", "Rated on"),
    ),
    history=(
        ("end_date", "Ended"),
        ("kind", "Kind"),
        ("formula", "Formula"),
        ("rules", "Rules"),
        ("pre_rating", "Before"),
        ("post_rating", "After"),
        ("official_rating", "Official"),
        ("games_before", "N before"),
        ("games_after", "N after"),
        ("score", "S"),
        ("expected", "E"),
        ("k", "K"),
        ("bonus", "Bonus"),
        ("floor_bound", "Floor bound"),
        ("position", "Position"),
    ),
    change="before → after",
    performance=None,  # the US Chess texts define no tournament performance rating
    bounds=BOUNDS,
)
KIND_SECTIONS = {
    "section": "§1 (the five steps), §4 (formulas), §5 (floors)",
    "match": "§7 (individual matches)",
    "fide": "§6 (foreign FIDE events)",
    "money": "§5 (money floors)",
    "override": "§7 (Executive Director's adjustments)",
    "opening": "opening balance (the federation's list when it moved onto the ledger)",
}

FAMILY = Family(
    name="uschess",
    versions=tuple(VERSIONS),
    resolve=resolve,
    rater="ledger.rules.uschess.rater:READER",
    estimator="ledger.rules.uschess.estimator:estimate",
    systems=tuple(str(s) for s in System),
    list_system=None,
    words=WORDS,
    view_suffix=".view.db",
    page_fields=lambda row: {"olm_progress": f"{row['olm_games']}/{OLM_GAMES}"},
    reads_time_control=True,
    explain_sections=KIND_SECTIONS,
    not_rated=section_not_rated,
    online_systems=frozenset(str(s) for s in ONLINE_SYSTEMS),
    parameters=tuple(BASE_TIMELINES),
    parse_parameter=parse_parameter_value,
    established=is_established,
)
