"""Each rules family's own words on the pages: which columns a player's ratings and history
show and what they are called, what a crosstable's rating column says, and the performance
a crosstable shows. A FIDE or ICU page never says "OLM" or "floor"; US Chess pages say
"floor" in §5's words, not the read model's identifiers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ledger.rules.fide.tables import dp, percentage

Fields = tuple[tuple[str, str], ...]


def performance(opponents: Sequence[float], score: float) -> float:
    """Rp = Rc + dp: the average rating of the rated opponents plus the difference the FIDE
    table gives for the percentage score (FIDE 10.1a / 8.1.1; FIDE's tournament performance
    rating, Tiebreak Regulations 10.2: "Ra + dp"; the ICU's text: "Rp = Rc + Dp")."""
    return sum(opponents) / len(opponents) + dp(percentage(score, len(opponents)))


@dataclass(frozen=True)
class Words:
    """One family's vocabulary (see the module's docstring)."""

    federation: str  # who publishes: the site's heading
    ratings: Fields  # (rating row column, heading) on the player page
    history: Fields  # (history row column, heading) on the history page
    change: str  # the crosstable's heading of a system's rating cell
    performance: Callable[[Sequence[float], float], float] | None  # None: the text has none


US_CHESS = Words(
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
)
FIDE = Words(
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
ICU = Words(
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
WORDS = {"uschess": US_CHESS, "fide": FIDE, "icu": ICU}
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
