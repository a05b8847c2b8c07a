"""The FIDE Rating Regulations (Handbook B.02) by date: one row of data per version.

A section is rated under the version in force on its end date (docs/decisions.md, "FIDE by
date"); a list is computed under the version in force on the last day of the period it closes.

- `fide-2003`: B.02 10.0 (the 10.68 example's text) with 9.14's 9-game minimum; quarterly
  lists (9.1: "a list four times a year").
- `fide-2009`: the regulations "effective from 1 July 2009": the 400-point rule replaces 10.61's
  350 points, ΔR game by game (8.5), K still 25/15/10 (8.56), "determined based on the rating at
  the beginning of the tournament", two-month lists, floor 1200 (0.6).
- `fide-2011`: 8.56 "K = 30 for a player new to the rating list until he has completed events
  with at least 30 games" (the text in force until 30 June 2014); from 1 July 2011 (a date
  from a secondary source: docs/decisions.md, "FIDE 2009–2021").
- `fide-2012`: floor 1000 and monthly lists "from July 1st 2012" (Presidential Board, Al Ain,
  June 2011).
- `fide-2014`: 8.56 from 1 July 2014: K = 40/20/10, "K = 40 for all players until their 18th
  birthday, as long as their rating remains under 2300"; 5 games for a first rating (pooled
  over 26 months).
- `fide-2022`: B.02 "effective from 1 January 2022 till 29 February 2024" (chapter B022022).
- `fide-2024`: B.02 "applied from 1 March 2024" (chapter B022024), 8.3.1 as amended from
  1 October 2025 (no 400-point cap for a player rated 2650 or more).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

Initial = Literal["10.2", "8.2-2022", "8.2-2024"]
Cap = Literal["350-rc", "400-one-upgrade", "400-every-game"]
Rounding = Literal["rating-half-up", "change-half-away"]
Junior = Literal["18th-birthday", "year-of-18th-birthday"]


@dataclass(frozen=True)
class FideVersion:
    """Everything that differs between the versions, each value with its article."""

    name: str
    start: date  # first section end date it rates
    end: date | None  # last one (None: in force now)
    per_game: bool  # 8.3.1–8.3.2 (ΔR per game) rather than 10.61–10.64 (Rc, We = PD × n)
    initial: Initial  # 10.2–10.3, or 8.2 of the 2022 or the 2024 text
    cap: Cap  # 10.61's 350 points on Rc, or 8.3.1's 400 points per game
    no_cap_from: date | None  # 8.3.1 as amended: no cap for a player rated ≥ no_cap_rating
    no_cap_rating: int | None
    k_new: int  # 10.641 / 8.3.3: until 30 games
    k_mid: int  # "as long as a player's rating remains under 2400"
    k_top: int  # "once a player's published rating has reached 2400"
    k_junior: int | None  # 8.56 (2014): "until their 18th birthday"; 8.3.3: "until the end
    junior_until: Junior | None  # of the year of their 18th birthday"
    junior_below: int | None  # 8.3.3: "as long as their rating remains under 2300"
    new_first: bool  # 10.641 (and 2009): K new "until ... 30 games", even at 2400 (k_factor)
    k_times_n: int | None  # 8.3.3: "K x n does not exceed 700"
    minimum_games: int  # 9.14b (9) / 7.1.4 (5): games against rated opponents
    pool_months: int | None  # 7.1.4: "consecutive rating periods of not more than 26 months"
    floor: int  # 10.32 (Rn ≥ 2005) / 7.1.4 (1000, then 1400): a first rating's minimum
    delisted_below: int  # 9.21 ("drop below 1801") / 7.2.1: a rated player's list minimum
    max_initial: int | None  # 8.2.3 (2024): "The maximum initial rating is 2200."
    above_half: float | None  # 8.2 before 2024: Ru = Ra + this "for each half point" over 50 %
    rounding: Rounding  # 10.66 (Rn to the nearest 1) / 8.3.4 (the change, 0.5 away from 0)
    rapid_blitz: bool  # B02 rapid and blitz regulations in force (separate lists)
    list_months: int  # months between two lists: 3 (9.1), 2 (from July 2009), 1 (July 2012)


VERSIONS: tuple[FideVersion, ...] = (
    FideVersion(
        "fide-2003", date(1, 1, 1), date(2009, 6, 30), per_game=False, initial="10.2",
        cap="350-rc", no_cap_from=None, no_cap_rating=None, k_new=25, k_mid=15, k_top=10,
        k_junior=None, junior_until=None, junior_below=None, new_first=True, k_times_n=None,
        minimum_games=9, pool_months=None, floor=2005, max_initial=None, above_half=None,
        rounding="rating-half-up", rapid_blitz=False, list_months=3, delisted_below=1801,
    ),
    FideVersion(
        "fide-2009", date(2009, 7, 1), date(2011, 6, 30), per_game=True, initial="8.2-2022",
        cap="400-every-game", no_cap_from=None, no_cap_rating=None, k_new=25, k_mid=15,
        k_top=10, k_junior=None, junior_until=None, junior_below=None, new_first=True,
        k_times_n=None, minimum_games=9, pool_months=None, floor=1200, max_initial=None,
        above_half=12.5, rounding="change-half-away", rapid_blitz=False, list_months=2,
        delisted_below=1200,
    ),
    FideVersion(
        "fide-2011", date(2011, 7, 1), date(2012, 6, 30), per_game=True, initial="8.2-2022",
        cap="400-every-game", no_cap_from=None, no_cap_rating=None, k_new=30, k_mid=15,
        k_top=10, k_junior=None, junior_until=None, junior_below=None, new_first=False,
        k_times_n=None, minimum_games=9, pool_months=None, floor=1200, max_initial=None,
        above_half=15, rounding="change-half-away", rapid_blitz=False, list_months=2,
        delisted_below=1200,
    ),
    FideVersion(
        "fide-2012", date(2012, 7, 1), date(2014, 6, 30), per_game=True, initial="8.2-2022",
        cap="400-every-game", no_cap_from=None, no_cap_rating=None, k_new=30, k_mid=15,
        k_top=10, k_junior=None, junior_until=None, junior_below=None, new_first=False,
        k_times_n=None, minimum_games=9, pool_months=None, floor=1000, max_initial=None,
        above_half=15, rounding="change-half-away", rapid_blitz=False, list_months=1,
        delisted_below=1000,
    ),
    FideVersion(
        "fide-2014", date(2014, 7, 1), date(2021, 12, 31), per_game=True, initial="8.2-2022",
        cap="400-every-game", no_cap_from=None, no_cap_rating=None, k_new=40, k_mid=20,
        k_top=10, k_junior=40, junior_until="18th-birthday", junior_below=2300, new_first=False,
        k_times_n=None, minimum_games=5, pool_months=26, floor=1000, max_initial=None,
        above_half=20, rounding="change-half-away", rapid_blitz=False, list_months=1,
        delisted_below=1000,
    ),
    FideVersion(
        "fide-2022", date(2022, 1, 1), date(2024, 2, 29), per_game=True, initial="8.2-2022",
        cap="400-one-upgrade", no_cap_from=None, no_cap_rating=None, k_new=40, k_mid=20,
        k_top=10, k_junior=40, junior_until="year-of-18th-birthday", junior_below=2300,
        new_first=False, k_times_n=700, minimum_games=5, pool_months=26, floor=1000,
        max_initial=None, above_half=20, rounding="change-half-away", rapid_blitz=True,
        list_months=1, delisted_below=1000,
    ),
    FideVersion(
        "fide-2024", date(2024, 3, 1), None, per_game=True, initial="8.2-2024",
        cap="400-every-game", no_cap_from=date(2025, 10, 1), no_cap_rating=2650, k_new=40,
        k_mid=20, k_top=10, k_junior=40, junior_until="year-of-18th-birthday",
        junior_below=2300, new_first=False, k_times_n=700, minimum_games=5, pool_months=26,
        floor=1400, max_initial=2200, above_half=None, rounding="change-half-away",
        rapid_blitz=True, list_months=1, delisted_below=1400,
    ),
)  # fmt: skip
BY_NAME = {v.name: v for v in VERSIONS}
NAMES = tuple(BY_NAME)


def resolve(day: date, name: str | None = None) -> FideVersion:
    """The version named, else the one in force on `day` (a section's end date)."""
    if name is not None:
        if name not in BY_NAME:
            raise ValueError(f"unknown FIDE rules {name!r}; known: {', '.join(NAMES)}")
        return BY_NAME[name]
    return next(v for v in reversed(VERSIONS) if v.start <= day)
