"""The ICU rating algorithm's versions 1.0–1.3: the parameters each version changed.

Improvements to the ICU Rating Algorithm (Mark Orr, ratings.icu.ie/articles/18): "The old
algorithm is deemed to be version 1.0. Subsequent improvements ... are referred to as versions
1.1, 1.2, 1.3". The ICU's program (Mark Orr's `icu_ratings`, `RatedTournament#rate!`) is the
reference for what each version sets: 1.1 "(Part 1)", 1.2 "(Part 2)", 1.3 "(Part 3)".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Algorithm:
    """How a section's provisional estimates iterate and what happens after bonuses.

    `first_sweeps`, `second_sweeps`: the most iterations before and after bonuses; `threshold`:
    the change below which an estimate is stable; `phase_2_bonuses`: bonuses computed again after
    the re-rating; `update_bonuses`: a bonus receiver counts for his opponents' estimates at his
    re-rated rating (start + bonus + the re-rated change) rather than the first one.
    """

    version: str
    first_sweeps: int
    second_sweeps: int
    threshold: float
    phase_2_bonuses: bool
    update_bonuses: bool


# articles/18, Version 1.1: "For the first calculation (before bonuses) the maximum iterations
# are set to 30 and the threshold change to 0.5"; "when provisional ratings are recalculated
# for the second time the maximum number of iterations used (in version 1.0) was only 1".
V1_0 = Algorithm("1.0", 30, 1, 0.5, phase_2_bonuses=True, update_bonuses=False)
# Version 1.1: the second calculation iterates like the first (the program: 30).
V1_1 = Algorithm("1.1", 30, 30, 0.5, phase_2_bonuses=True, update_bonuses=False)
# Version 1.2 (the program, "Part 2"): no new bonuses after the re-rating, bonus receivers'
# ratings updated by the re-rating, and the threshold 0.1.
V1_2 = Algorithm("1.2", 30, 30, 0.1, phase_2_bonuses=False, update_bonuses=True)
# Version 1.3 (the program, "Part 3"): at most 200 iterations in both calculations.
V1_3 = Algorithm("1.3", 200, 200, 0.1, phase_2_bonuses=False, update_bonuses=True)
