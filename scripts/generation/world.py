"""The synthetic world's settings and records: staff, rates, controls, clubs, names, dates."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ledger.roles import Role

DIRECTOR = "executive-director"
STAFF = {
    "membership": Role.RATINGS_ADMIN,
    "migration": Role.RATINGS_ADMIN,
    "ratings-office": Role.RATINGS_ADMIN,
    "td": Role.TOURNAMENT_DIRECTOR,
}
SECTION_BATCH = 200
ITEM_BATCH = 1000
OPENING_SHARE = 0.2
WHITE_EDGE = 30.0
FORFEIT_RATE = 0.004
HALF_BYE_RATE = 0.02
DROPOUT_RATE = 0.15
LATE_RATE = 0.02
MONEY_FLOOR_RATE = 0.05
PAIRING_ATTEMPTS = 2000
RATED_GAMES_PER_SLOT = 0.985  # planned pairings that end as rated games (forfeits, byes)
OLR_FROM = date(2020, 6, 1)  # OLR exists from the 2020 rules on
PANDEMIC = (date(2020, 3, 15), date(2021, 7, 1))  # OTB play largely moved online
BONUS_2025 = (date(2025, 1, 1), date(2026, 1, 1))


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# (time control, online, speed, weight): every system, and dual OTBR+OTBQ for 30 ≤ mm+ss ≤ 65.
CONTROLS = (
    ("G/90;d30", False, "regular", 26),
    ("40/120,SD/30;d10", False, "regular", 5),
    ("G/120;d5", False, "regular", 5),
    ("G/60;d5", False, "dual", 8),
    ("G/45;d5", False, "dual", 12),
    ("G/30;d5", False, "dual", 8),
    ("G/15;d5", False, "quick", 8),
    ("G/10;d5", False, "quick", 4),
    ("G/5;d0", False, "blitz", 6),
    ("G/3;d2", False, "blitz", 3),
    ("G/3+2", True, "blitz", 10),
    ("G/5+0", True, "blitz", 6),
    ("G/15+10", True, "quick", 8),
    ("G/10+5", True, "quick", 5),
    ("G/60+30", True, "regular", 4),
    ("G/45+15", True, "regular", 3),
)
ONLINE_BY_SPEED = {"regular": "G/60+30", "dual": "G/15+10", "quick": "G/15+10", "blitz": "G/3+2"}
KINDS = {  # (online, speed) → weights of swiss, round robin, quad
    (False, "regular"): (60, 15, 25),
    (False, "dual"): (60, 10, 30),
    (False, "quick"): (80, 5, 15),
    (False, "blitz"): (85, 10, 5),
    (True, "regular"): (85, 10, 5),
    (True, "quick"): (90, 5, 5),
    (True, "blitz"): (90, 5, 5),
}
SWISS_ROUNDS = {"regular": (4, 5, 5, 6), "dual": (4, 5), "quick": (4, 5, 6), "blitz": (5, 6, 7)}
UNDER_LIMITS = (1000, 1200, 1400, 1600, 1800, 2000)
CLUBS = (
    ("MCC", "Marshall Chess Club"),
    ("MECH", "Mechanics' Institute"),
    ("STL", "Saint Louis Chess Club"),
    ("BCF", "Boylston Chess Foundation"),
    ("CCA", "Continental Chess"),
    ("DCC", "Dallas Chess Club"),
    ("SEA", "Seattle Chess Club"),
    ("PHX", "Phoenix Chess Academy"),
    ("ATL", "Atlanta Chess Center"),
    ("DEN", "Denver Chess Club"),
)
ONLINE_CLUBS = (("ARENA", "Online Arena"), ("NET", "Chess Net League"), ("CLUBNET", "ClubNet"))
FIRST = _words(
    "Ann Ben Chloe Dev Eli Fay Gus Hana Ivan Jade Kai Lena Milo Nora Omar Pia Quinn Rosa Sam "
    "Tara Uma Vik Wes Xena Yuri Zoe Aria Bo Cruz Dina Ezra Faye Gil Hugo Iris Jon Kira Liam "
    "Maya Nils Otto Priya Raj Sara Theo Una Vera Will Yara Zack Amir Bea Cole Dora Emil Finn "
    "Gina Hal Ida"
)
LAST = _words(
    "Lee Ortiz Park Rao Novak Chen Kim Patel Smith Garcia Nguyen Cohen Silva Müller Ivanova "
    "Khan Brown Lopez Wang Singh Sato Rossi Dubois Jensen Kowalski Haddad Okafor Mensah "
    "Reyes Walker Young Hill Scott Green Adams Baker Nelson Carter Mitchell Perez Roberts "
    "Turner Phillips Evans Collins Stewart Morris Murphy Cook Rogers Morgan Bell Bailey "
    "Cooper Ward Cruz Flores Ramos"
)
FEDERATIONS = ("CAN", "MEX", "IND", "ENG", "GER", "PHI", "ARG", "UKR")
CORRECTION_REASONS = (
    "Result of a round 1 game was entered the wrong way round",
    "Director reported a round 1 result incorrectly; corrected from the scoresheets",
)


@dataclass
class Person:
    """A generated player: profile facts and the latent strength behind their results."""

    id: str
    name: str
    joined: date
    left: date
    base: float  # latent strength on `joined`
    slope: float  # strength points per year while growing
    growth_until: date
    activity: float
    offsets: dict[str, float]  # speed/online strength offsets
    birth: date | None
    adult: bool
    opening: bool
    profile: dict[str, Any] = field(default_factory=dict)
    otbr: int = 0  # the opening OTBR rating, if any

    def strength(self, day: date, speed: str = "regular", online: bool = False) -> float:
        years = (min(day, self.growth_until) - self.joined).days / 365.25
        value = self.base + self.slope * max(years, 0.0) + self.offsets[speed]
        return min(max(value + (self.offsets["online"] if online else 0.0), 100.0), 2800.0)


@dataclass
class Spec:
    """A planned section: when, what kind, how big; the players and games come later."""

    index: int
    start: date
    end: date
    submitted: date
    control: str
    online: bool
    speed: str
    kind: str
    size: int
    rounds: int
    under: int | None
    club: tuple[str, str]


@dataclass
class Counts:
    players: int = 0
    opening_balances: int = 0
    sections: int = 0
    games: int = 0
    forfeits: int = 0
    byes: int = 0
    late_sections: int = 0
    fide_adjustments: int = 0
    money_floors: int = 0
    matches: int = 0
    overrides: int = 0
    corrections: int = 0
    withdrawals: int = 0
    amendments: int = 0


@dataclass(order=True)
class Op:
    """One command in submission order: (date, priority, sequence) sorts the stream."""

    day: date
    priority: int
    seq: int
    kind: str = field(compare=False)
    item: Any = field(compare=False)


PRIORITY = {
    "register": 0,
    "opening": 1,
    "section": 2,
    "correction": 3,
    "withdrawal": 3,
    "money_floor": 4,
    "match": 4,
    "fide": 4,
    "override": 5,
    "amendment": 6,
}


def _add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)


def _first_of_month(day: date) -> date:
    return day.replace(day=1)


def _add_months(day: date, months: int) -> date:
    year, month = divmod(day.month - 1 + months, 12)
    return day.replace(year=day.year + year, month=month + 1)
