"""Append a deterministic, realistic synthetic ledger to a store and print its counts as JSON.

    python scripts/generate.py --players N --games M --seed S [--store URL]
                               [--start 2019-01-01] [--years 6]

Players have a latent strength that changes with age; a fifth start with opening balances, the
rest join over the years unrated. Sections (Swiss, round robins, quads; OTB and online; every
system and dual rating) are drawn from the strengths and submitted roughly in date order, with a
few late arrivals; FIDE adjustments, money floors, matches, director overrides, corrections, a
withdrawal and the 2025 bonus multiplier amendment are interleaved by date. The ledger is set up
first, its director granting each actor the role its writes need (STAFF). Same seed, same
content (apart from the recorded_at timestamps).
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import random
import sys
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import accumulate
from pathlib import Path
from typing import Any

from ledger.application import RatingsLedger
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    parse,
)
from ledger.domain import LedgerError
from ledger.log import read_entries
from ledger.roles import Role
from ledger.signing import KEYRING_VARIABLE, Keyring
from ledger.store import store_url

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


class Generator:
    """Plans players and sections from one seed, then yields the ledger's commands in order."""

    def __init__(self, players: int, games: int, seed: int, start: date, years: int) -> None:
        if players < 20:
            raise ValueError(f"--players must be at least 20, got {players}")
        if games < 1 or years < 1:
            raise ValueError("--games and --years must be positive")
        self.rng = random.Random(seed)
        self.start = start
        self.end = _add_years(start, years)
        self.target_games = games
        self.seq = 0
        self.counts = Counts()
        self.people = self._people(players)
        self.joined_ordinals = [p.joined.toordinal() for p in self.people]
        self.cum_activity = list(accumulate(p.activity for p in self.people))
        self.left_ordinals = sorted(p.left.toordinal() for p in self.people)
        self.specs = self._plan_sections()
        chosen = self._chosen_sections()
        self.corrected, self.withdrawn, self.money_sections = chosen

    def _people(self, count: int) -> list[Person]:
        rng, span = self.rng, (self.end - self.start).days
        openers = max(4, round(count * OPENING_SHARE))
        joined = [self.start] * openers + sorted(
            self.start + timedelta(days=rng.randrange(span)) for _ in range(count - openers)
        )
        member = 10_000_000 + rng.randrange(2_000_000)
        people = []
        for i, day in enumerate(joined):
            member += rng.randint(1, 400)
            people.append(self._person(str(member), day, opening=i < openers))
        return people

    def _person(self, member_id: str, joined: date, opening: bool) -> Person:
        rng = self.rng
        kid = rng.random() < (0.3 if opening else 0.55)
        age = rng.uniform(6, 17.5) if kid else rng.triangular(18, 80, 30)
        birth = joined - timedelta(days=round(age * 365.25))
        if kid:
            base = rng.gauss(1150, 350) if opening else rng.gauss(650, 250)
            slope = max(rng.gauss(110, 50), 15.0)
            growth_until = _add_years(birth, 20)
        else:
            base = rng.gauss(1600, 350) if opening else rng.gauss(1200, 350)
            slope = rng.gauss(-12, 5) if age > 60 else rng.gauss(0, 10)
            growth_until = date.max
        quits = rng.random() < 0.3
        left_days = rng.randrange(90, 6 * 365) if quits else None
        left = joined + timedelta(days=left_days) if left_days else date.max
        person = Person(
            id=member_id,
            name=f"{rng.choice(FIRST)} {rng.choice(LAST)}",
            joined=joined,
            left=left,
            base=min(max(base, 100.0), 2700.0),
            slope=slope,
            growth_until=growth_until,
            activity=rng.lognormvariate(0, 0.9),
            offsets={
                "regular": 0.0,
                "dual": rng.gauss(0, 30),
                "quick": rng.gauss(0, 70),
                "blitz": rng.gauss(0, 100),
                "online": rng.gauss(40, 80),
            },
            birth=birth if kid or rng.random() < 0.8 else None,
            adult=not kid,
            opening=opening,
        )
        person.profile = self._profile(person)
        return person

    def _profile(self, p: Person) -> dict[str, Any]:
        rng = self.rng
        profile: dict[str, Any] = {"id": p.id, "name": p.name, "adult": p.adult}
        if p.birth is not None:
            profile["birth_date"] = p.birth.isoformat()
        strength = p.strength(p.joined)
        fide_chance = (0.45 if p.opening else 0.12) * (1.0 if p.adult else 0.4)
        if strength > 1400 and rng.random() < fide_chance:
            listed = _first_of_month(p.joined - timedelta(days=rng.randrange(30, 900)))
            fide: dict[str, Any] = {
                "rating": round(strength - 40 + rng.gauss(0, 60)),
                "date": listed.isoformat(),
                "games": rng.randint(5, 400),
            }
            if rng.random() < 0.85:
                fide["federation"] = "USA" if rng.random() < 0.75 else rng.choice(FEDERATIONS)
            profile["fide"] = fide
            if rng.random() < 0.4:
                profile["fide_adjustment_opt_in"] = True
        if rng.random() < 0.04:
            listed = p.joined - timedelta(days=rng.randrange(30, 700))
            profile["cfc"] = {
                "rating": round(max(strength - 100 + rng.gauss(0, 80), 100)),
                "date": listed.isoformat(),
            }
        if rng.random() < 0.9:
            expires = _add_years(p.joined, rng.randint(1, 3)) + timedelta(days=rng.randrange(365))
            profile["membership_expires"] = expires.isoformat()
        if rng.random() < 0.3:
            since = p.joined - timedelta(days=rng.randrange(0, 3650) if p.opening else 0)
            profile["playing_since"] = since.isoformat()
        return profile

    def _active(self, day: date) -> int:
        ordinal = day.toordinal()
        return bisect_right(self.joined_ordinals, ordinal) - bisect_right(
            self.left_ordinals, ordinal
        )

    def _plan_sections(self) -> list[Spec]:
        """Sections until the planned pairings reach the target, spread over the span."""
        rng, span = self.rng, (self.end - self.start).days
        weights = [c[3] for c in CONTROLS]
        specs: list[Spec] = []
        planned = 0.0
        while planned < self.target_games:
            control, online, speed, _ = rng.choices(CONTROLS, weights)[0]
            start = self.start + timedelta(days=rng.randrange(span))
            if not online and PANDEMIC[0] <= start < PANDEMIC[1] and rng.random() < 0.85:
                control, online = ONLINE_BY_SPEED[speed], True
                speed = "quick" if speed == "dual" else speed
            if online and speed == "regular" and start < OLR_FROM:
                control, speed = "G/15+10", "quick"
            if not online and speed in ("regular", "dual"):
                start -= timedelta(days=(start.weekday() - 5) % 7)  # Saturday
                start = max(start, self.start)
            active = self._active(start)
            if active < 4:
                continue
            kind = rng.choices(("swiss", "rr", "quad"), KINDS[online, speed])[0]
            under = None
            if kind == "swiss":
                size = min(int(20 + 60 * rng.random() ** 2), max(active // 2, 4))
                rounds = min(rng.choice(SWISS_ROUNDS[speed]), size - 1)
                slots = size // 2 * rounds
                if rng.random() < 0.3:
                    under = rng.choice(UNDER_LIMITS)
            elif kind == "rr":
                size = min(rng.randint(6, 10), active)
                rounds = size - 1 if size % 2 == 0 else size
                slots = size * (size - 1) // 2
            else:
                size, rounds, slots = 4, 3, 6
            end = start + timedelta(days=self._days(kind, online, speed, rounds))
            if end >= self.end:
                end = start
            late = rng.random() < LATE_RATE
            self.counts.late_sections += late
            delay = rng.randint(30, 120) if late else 1  # most reports arrive the next day
            specs.append(
                Spec(
                    index=0,
                    start=start,
                    end=end,
                    submitted=end + timedelta(days=delay),
                    control=control,
                    online=online,
                    speed=speed,
                    kind=kind,
                    size=size,
                    rounds=rounds,
                    under=under,
                    club=rng.choice(ONLINE_CLUBS if online else CLUBS),
                )
            )
            planned += slots * RATED_GAMES_PER_SLOT
        specs.sort(key=lambda s: (s.start, s.submitted))
        for i, spec in enumerate(specs):
            spec.index = i
        return specs

    def _days(self, kind: str, online: bool, speed: str, rounds: int) -> int:
        if online or speed in ("quick", "blitz"):
            return 0
        if kind == "rr" and self.rng.random() < 0.5:
            return 7 * (rounds - 1)  # a weekly club round robin
        if speed == "regular":
            return 1 if rounds <= 5 else 2
        return 0 if rounds <= 4 else 1

    def _chosen_sections(self) -> tuple[dict[int, str], dict[int, str], set[int]]:
        """Which sections get corrected, withdrawn, and award a money floor."""
        rng = self.rng
        picks = rng.sample(range(len(self.specs)), min(3, len(self.specs)))
        corrected = {i: rng.choice(CORRECTION_REASONS) for i in picks[:2]}
        withdrawn = {
            i: "Section was not run under US Chess rules (unannounced time control change)"
            for i in picks[2:]
        }
        eligible = [
            s.index
            for s in self.specs
            if s.under and not s.online and s.speed in ("regular", "dual")
        ]
        count = min(len(eligible), max(2, round(len(eligible) * MONEY_FLOOR_RATE)))
        return corrected, withdrawn, set(rng.sample(eligible, count))

    def ops(self) -> Iterator[Op]:
        """Every command in submission order; sections are built as the stream reaches them."""
        heap = self._fixed_ops()
        heapq.heapify(heap)
        for spec in self.specs:
            while heap and heap[0].day < spec.start:
                yield heapq.heappop(heap)
            for op in self._section_ops(spec):
                heapq.heappush(heap, op)
        while heap:
            yield heapq.heappop(heap)

    def _op(self, day: date, kind: str, item: Any) -> Op:
        self.seq += 1
        return Op(day, PRIORITY[kind], self.seq, kind, item)

    def _fixed_ops(self) -> list[Op]:
        ops = [self._op(_first_of_month(p.joined), "register", p.profile) for p in self.people]
        ops += [self._op(self.start, "opening", b) for b in self._opening_balances()]
        ops += self._fide_adjustments()
        ops += self._matches()
        ops += self._overrides()
        ops.append(self._amendment())
        return ops

    def _opening_balances(self) -> list[dict[str, Any]]:
        rng, balances = self.rng, []
        for p in self.people:
            if not p.opening:
                continue
            for system, speed, chance, low in (
                ("OTBR", "regular", 1.0, 26),
                ("OTBQ", "quick", 0.5, 5),
                ("OTBB", "blitz", 0.3, 5),
            ):
                if rng.random() >= chance:
                    continue
                rating = round(p.strength(self.start, speed) + rng.gauss(0, 50))
                games = low + int(rng.expovariate(1 / 150))
                balance: dict[str, Any] = {
                    "player": p.id,
                    "system": system,
                    "as_of": self.start.isoformat(),
                    "rating": max(rating, 100),
                    "games": games,
                    "peak": max(rating, 100) + round(abs(rng.gauss(0, 60))),
                    "sections_of_three": max(games // 5 - rng.randrange(3), 0),
                }
                if rng.random() < 0.9:
                    draws = round(games * rng.uniform(0.05, 0.25))
                    wins = round((games - draws) * rng.uniform(0.3, 0.7))
                    balance |= {"wins": wins, "draws": draws, "losses": games - draws - wins}
                balances.append(balance)
                if system == "OTBR":
                    p.otbr = balance["rating"]
        self.counts.opening_balances = len(balances)
        return balances

    def _fide_adjustments(self) -> list[Op]:
        """About one list a year per opted-in FIDE player, with games against FIDE opponents."""
        rng, ops = self.rng, []
        for p in self.people:
            fide = p.profile.get("fide")
            if fide is None or not p.profile.get("fide_adjustment_opt_in"):
                continue
            months = (self.end.year - p.joined.year) * 12 + self.end.month - p.joined.month
            lists = [_add_months(_first_of_month(p.joined), m) for m in range(2, months)]
            lists = [d for d in lists if d < min(p.left, self.end)]
            for listed in sorted(rng.sample(lists, min(len(lists), round(len(lists) / 12)))):
                strength = p.strength(listed)
                games = []
                for _ in range(rng.randint(4, 9)):
                    opponent = max(round(rng.gauss(fide["rating"], 150)), 1001)
                    score = _result(rng, strength, opponent + 40, strength)
                    game: dict[str, Any] = {"opponent_rating": opponent, "score": score}
                    if rng.random() < 0.5:
                        game["opponent_id"] = str(rng.randint(2_000_000, 35_000_000))
                    games.append(game)
                youth = not p.adult and rng.random() < 0.2
                item = {"player": p.id, "rating_list": listed.isoformat(), "games": games}
                if youth:
                    item["youth_event"] = True
                ops.append(self._op(listed, "fide", item))
        return ops

    def _matches(self) -> list[Op]:
        """A match a year between adults with opening balances within 300 points (§7: 400)."""
        rng, ops = self.rng, []
        openers = [p for p in self.people if p.otbr and p.adult and p.left == date.max]
        if len(openers) < 2:
            return []
        span = (self.end - self.start).days
        years = max(1, round(span / 365.25))
        for k in range(max(2, years)):
            day = self.start + timedelta(days=rng.randrange(60, max(61, span - 30)))
            a = rng.choice(openers)
            close = [b for b in openers if b is not a and abs(b.otbr - a.otbr) <= 300]
            if not close:
                continue
            b = rng.choice(close)
            count = rng.choice((2, 4, 6))
            games = []
            for n in range(1, count + 1):
                white, black = (a, b) if n % 2 else (b, a)
                score = _result(rng, white.strength(day), black.strength(day), white.strength(day))
                games.append(
                    {"round": n, "white": white.id, "black": black.id, "result": _text(score)}
                )
            item = {
                "match_id": f"M-{day.year}-{k + 1:03d}",
                "event_name": f"{a.name} vs {b.name} match",
                "online": False,
                "time_control": rng.choice(("G/90;d30", "40/120,SD/30;d10")),
                "start_date": day.isoformat(),
                "end_date": (day + timedelta(days=count // 2)).isoformat(),
                "players": [{"id": a.id}, {"id": b.id}],
                "games": games,
            }
            ops.append(self._op(day + timedelta(days=count // 2 + 5), "match", item))
        return ops

    def _overrides(self) -> list[Op]:
        """A ceiling, a set floor and a rating adjustment by the Executive Director."""
        rng, ops = self.rng, []
        openers = [p for p in self.people if p.opening]
        span = (self.end - self.start).days
        for action, reason in (
            ("impose_ceiling", "Results inconsistent with rating; ceiling pending review"),
            ("set_floor", "Floor set on appeal of a long-established player"),
            ("adjust_rating", "Rating adjusted after results from a fraudulent event"),
        ):
            p = rng.choice(openers)
            day = self.start + timedelta(days=rng.randrange(180, max(181, span - 30)))
            strength = p.strength(day)
            value = {
                "impose_ceiling": round(strength) + 150,
                "set_floor": max(100, int(strength - 200) // 100 * 100),
                "adjust_rating": round(strength),
            }[action]
            item = {
                "player": p.id,
                "action": action,
                "value": value,
                "effective": day.isoformat(),
                "reason": reason,
            }
            ops.append(self._op(day, "override", item))
        return ops

    def _amendment(self) -> Op:
        """bonus_multiplier 10 for 2025, recorded after some 2025 sections were submitted."""
        in_2025 = sorted(s.submitted for s in self.specs if BONUS_2025[0] <= s.start)
        last = max((s.submitted for s in self.specs), default=self.end)
        day = in_2025[min(9, len(in_2025) - 1)] + timedelta(days=1) if in_2025 else last
        item = {
            "parameter": "bonus_multiplier",
            "value": 10,
            "effective": BONUS_2025[0].isoformat(),
            "until": BONUS_2025[1].isoformat(),
            "reason": "US Chess set the bonus threshold multiplier B to 10 for 2025",
        }
        return self._op(day, "amendment", item)

    def _section_ops(self, spec: Spec) -> list[Op]:
        players = self._entrants(spec)
        games, byes = self._games(spec, players)
        code, club = spec.club
        label = {"swiss": "Open", "rr": "Round Robin", "quad": "Quad"}[spec.kind]
        if spec.under:
            label = f"U{spec.under}"
        tournament = f"{spec.start.isoformat()}-{code}"
        data: dict[str, Any] = {
            "section_id": f"{tournament}-{label.replace(' ', '')}-{spec.index + 1}",
            "tournament_id": tournament,
            "event_name": f"{club} {spec.start:%B} {spec.control} — {label}",
            "online": spec.online,
            "time_control": spec.control,
            "start_date": spec.start.isoformat(),
            "end_date": spec.end.isoformat(),
            "players": [{"id": p.id} for p in players],
            "games": games,
        }
        if byes:
            data["byes"] = byes
        ops = [self._op(spec.submitted, "section", data)]
        reason = self.corrected.get(spec.index)
        if reason is not None:
            revision = {**data, "games": [dict(g) for g in games]}
            first = revision["games"][0]
            first["result"] = {"1-0": "0-1", "0-1": "1-0"}.get(first["result"], "1-0")
            day = spec.submitted + timedelta(days=self.rng.randint(10, 40))
            ops.append(self._op(day, "correction", (revision, reason)))
        if spec.index in self.withdrawn:
            day = spec.submitted + timedelta(days=self.rng.randint(20, 60))
            ops.append(
                self._op(day, "withdrawal", (data["section_id"], self.withdrawn[spec.index]))
            )
        if spec.index in self.money_sections and spec.under:
            ops.append(self._money_floor(spec, players, games))
        return ops

    def _money_floor(self, spec: Spec, players: list[Person], games: list[dict]) -> Op:
        """The section winner's prize of $4,000 or more for players under the section limit."""
        scores = {p.id: 0.0 for p in players}
        for g in games:
            white = {"1-0": 1.0, "1F-0F": 1.0, "1/2-1/2": 0.5}.get(g["result"], 0.0)
            scores[g["white"]] += white
            scores[g["black"]] += 1.0 - white
        winner = max(players, key=lambda p: scores[p.id])
        item = {
            "player": winner.id,
            "amount": self.rng.choice((4000, 5000, 6000, 7500, 10000, 15000)),
            "limit": spec.under,
            "date": spec.end.isoformat(),
        }
        return self._op(
            spec.submitted + timedelta(days=self.rng.randint(3, 20)), "money_floor", item
        )

    def _entrants(self, spec: Spec) -> list[Person]:
        """Players active on the start date, drawn by activity; quads and round robins similar
        in strength; an Under-X Swiss mostly from players below the limit."""
        day, under = spec.start, spec.under
        if spec.kind == "swiss":

            def below_limit(p: Person) -> bool:
                return under is None or p.strength(day) < under + 100

            return self._draw(day, spec.size, below_limit)
        pool = self._draw(day, min(3 * spec.size, self._active(day)), None)
        pool.sort(key=lambda p: p.strength(day, spec.speed, spec.online))
        offset = self.rng.randrange(len(pool) - spec.size + 1)
        chosen = pool[offset : offset + spec.size]
        self.rng.shuffle(chosen)
        return chosen

    def _draw(self, day: date, n: int, accept: Callable[[Person], bool] | None) -> list[Person]:
        rng, ordinal = self.rng, day.toordinal()
        k = bisect_right(self.joined_ordinals, ordinal)
        total = self.cum_activity[k - 1]
        chosen: list[int] = []
        tried: set[int] = set()
        for _ in range(40 * n):
            if len(chosen) == n:
                break
            i = bisect_right(self.cum_activity, rng.random() * total, 0, k - 1)
            if i in tried:
                continue
            tried.add(i)
            p = self.people[i]
            if p.left > day and (accept is None or accept(p)):
                chosen.append(i)
        taken = set(chosen)
        for i in range(k):
            if len(chosen) == n:
                break
            if i not in taken and self.people[i].left > day:
                chosen.append(i)
        return [self.people[i] for i in chosen]

    def _games(self, spec: Spec, players: list[Person]) -> tuple[list[dict], list[dict]]:
        """Every game and bye; results drawn from today's strengths, a few forfeits."""
        rng, day = self.rng, spec.start
        form = [p.strength(day, spec.speed, spec.online) + rng.gauss(0, 40) for p in players]
        games: list[dict] = []

        def play(rnd: int, w: int, b: int) -> float:
            if rng.random() < FORFEIT_RATE:
                result = rng.choice(("1F-0F", "0F-1F"))
                self.counts.forfeits += 1
            else:
                result = _text(_result(rng, form[w] + WHITE_EDGE, form[b], (form[w] + form[b]) / 2))
                self.counts.games += 1
            games.append(
                {"round": rnd, "white": players[w].id, "black": players[b].id, "result": result}
            )
            return 1.0 if result in ("1-0", "1F-0F") else 0.5 if result == "1/2-1/2" else 0.0

        byes: list[dict] = []
        if spec.kind == "swiss":
            byes = self._swiss(spec, players, play)
        else:
            for rnd, w, b in _round_robin(len(players)):
                play(rnd, w, b)
        self.counts.byes += len(byes)
        return games, byes

    def _swiss(
        self, spec: Spec, players: list[Person], play: Callable[[int, int, int], float]
    ) -> list[dict]:
        """Pairings by score groups (top half against bottom half), no repeats where possible,
        colours balanced; a full-point bye for the odd player out, some half-point byes and a
        withdrawal with zero-point byes. Returns the byes; `play` records each game."""
        rng, n, day = self.rng, len(players), spec.start
        seed = [
            0.0 if (day - p.joined).days < 60 else p.strength(day) + rng.gauss(0, 80)
            for p in players
        ]  # ratings are noisy estimates; the unrated are seeded last
        score = [0.0] * n
        colour = [0] * n  # whites minus blacks
        met: list[set[int]] = [set() for _ in range(n)]
        had_bye = [False] * n
        away = {
            i: rng.choice((1, spec.rounds))
            for i in range(n)
            if spec.rounds >= 4 and rng.random() < HALF_BYE_RATE
        }
        dropout = rng.randrange(n) if rng.random() < DROPOUT_RATE else None
        dropout_after = rng.randint(2, spec.rounds - 1) if spec.rounds > 2 else spec.rounds
        byes: list[dict] = []
        for rnd in range(1, spec.rounds + 1):
            playing = []
            for i in range(n):
                if i == dropout and rnd > dropout_after:
                    byes.append({"round": rnd, "player": players[i].id, "bye": "zero"})
                elif away.get(i) == rnd:
                    byes.append({"round": rnd, "player": players[i].id, "bye": "half"})
                    score[i] += 0.5
                else:
                    playing.append(i)
            playing.sort(key=lambda i: (-score[i], -seed[i]))
            if len(playing) % 2:
                out = next((i for i in reversed(playing) if not had_bye[i]), playing[-1])
                playing.remove(out)
                had_bye[out] = True
                score[out] += 1.0
                byes.append({"round": rnd, "player": players[out].id, "bye": "full"})
            for a, b in _pair_score_groups(playing, score, met):
                met[a].add(b)
                met[b].add(a)
                if colour[b] < colour[a] or (colour[a] == colour[b] and rng.random() < 0.5):
                    a, b = b, a
                colour[a] += 1
                colour[b] -= 1
                result = play(rnd, a, b)
                score[a] += result
                score[b] += 1.0 - result
        return byes


def _pair_score_groups(
    order: list[int], score: list[float], met: list[set[int]]
) -> list[tuple[int, int]]:
    """Top half against bottom half of each score group, an odd group floating its last player
    down; the first pairing without a repeat (backtracking), else the natural one."""
    budget = [PAIRING_ATTEMPTS]

    def pair(rest: list[int]) -> list[tuple[int, int]] | None:
        if not rest:
            return []
        a = rest[0]
        group = sum(1 for i in rest if score[i] == score[a])
        group += group % 2
        half = group // 2
        for k in (*range(half, len(rest)), *range(1, half)):
            b = rest[k]
            if b in met[a] or budget[0] <= 0:
                continue
            budget[0] -= 1
            tail = pair(rest[1:k] + rest[k + 1 :])
            if tail is not None:
                return [(a, b), *tail]
        return None

    found = pair(order)
    if found is not None:
        return found
    half = len(order) // 2
    return list(zip(order[:half], order[half:], strict=True))


def _round_robin(n: int) -> list[tuple[int, int, int]]:
    """Berger tables: everyone meets everyone once; with an odd field one player rests a round."""
    slots: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    m = len(slots)
    pairings = []
    for rnd in range(1, m):
        for k in range(m // 2):
            a, b = slots[k], slots[m - 1 - k]
            if a is None or b is None:
                continue
            pairings.append((rnd, a, b) if (rnd + k) % 2 else (rnd, b, a))
        slots = [slots[0], slots[-1], *slots[1:-1]]
    return pairings


def _result(rng: random.Random, white: float, black: float, level: float) -> float:
    """White's score: expected E from the strength gap, draws likelier when close and strong."""
    expected = 1.0 / (1.0 + 10.0 ** ((black - white) / 400.0))
    draw = min(max(0.06 + (level - 800.0) / 1600.0 * 0.3, 0.03), 0.4)
    draw = min(draw * (1.0 - abs(expected - 0.5) * 1.2), 2 * min(expected, 1 - expected))
    u = rng.random()
    if u < expected - draw / 2:
        return 1.0
    return 0.5 if u < expected + draw / 2 else 0.0


def _text(score: float) -> str:
    return {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[score]


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


class Writer:
    """Appends the stream, consecutive commands of one kind in a single call where possible."""

    def __init__(self, ledger: RatingsLedger, counts: Counts) -> None:
        self.ledger = ledger
        self.counts = counts

    def write(self, ops: Iterator[Op]) -> None:
        batch: list[Op] = []
        for op in ops:
            limit = SECTION_BATCH if op.kind == "section" else ITEM_BATCH
            if batch and (op.kind != batch[0].kind or len(batch) >= limit):
                self._flush(batch)
                batch = []
            batch.append(op)
        if batch:
            self._flush(batch)

    def _flush(self, batch: list[Op]) -> None:
        kind, items, ledger = batch[0].kind, [op.item for op in batch], self.ledger
        if kind == "register":
            ledger.register_player(*(parse(RegisterPlayer, i) for i in items), actor="membership")
            self.counts.players += len(items)
        elif kind == "opening":
            ledger.record_opening_balance(
                *(parse(RecordOpeningBalance, i) for i in items), actor="migration"
            )
        elif kind == "section":
            self._sections(items)
        elif kind == "fide":
            ledger.submit_fide_adjustment(
                *(parse(SubmitFideAdjustment, i) for i in items), actor="ratings-office"
            )
            self.counts.fide_adjustments += len(items)
        elif kind == "match":
            ledger.submit_match(*(parse(SubmitMatch, i) for i in items), actor="td")
            self.counts.matches += len(items)
        else:
            for item in items:
                self._single(kind, item)

    def _sections(self, items: list[dict[str, Any]]) -> None:
        sections = [parse(SubmitSection, i) for i in items]
        self.ledger.submit_section(*sections, actor="td")
        self.counts.sections += len(sections)

    def _single(self, kind: str, item: Any) -> None:
        ledger, counts = self.ledger, self.counts
        if kind == "correction":
            revision, reason = item
            ledger.correct_section(
                parse(SubmitSection, revision), reason=reason, actor="ratings-office"
            )
            counts.corrections += 1
        elif kind == "withdrawal":
            section_id, reason = item
            ledger.withdraw_section(section_id, reason=reason, actor="ratings-office")
            counts.withdrawals += 1
        elif kind == "money_floor":
            ledger.award_money_floor(parse(AwardMoneyFloor, item), actor=DIRECTOR)
            counts.money_floors += 1
        elif kind == "override":
            ledger.override(parse(DirectorOverride, item), actor=DIRECTOR)
            counts.overrides += 1
        elif kind == "amendment":
            ledger.amend_rules(parse(AmendRules, item), actor=DIRECTOR)
            counts.amendments += 1


def keyring_for(store: str | None) -> Keyring:
    """$RATINGS_LEDGER_KEYRING if set, else a `keys` folder beside a SQLite store."""
    url = store_url(store)
    if os.environ.get(KEYRING_VARIABLE) or not url.startswith("sqlite:///"):
        return Keyring()
    return Keyring(Path(url[len("sqlite:///") :]).parent / "keys")


def generate(
    store: str | None,
    players: int,
    games: int,
    seed: int,
    start: date,
    years: int,
    keyring: Keyring | None = None,
) -> dict[str, Any]:
    """Append the ledger for these settings to an empty store, its actors' keys made in
    `keyring` (default `keyring_for(store)`) when missing; the counts and the time taken."""
    began = time.perf_counter()
    generator = Generator(players, games, seed, start, years)
    ledger = RatingsLedger(store, keyring=keyring or keyring_for(store))
    try:
        if next(read_entries(ledger, batch=1), None) is not None:
            raise LedgerError(f"store {ledger.store} is not empty; generate into a new store")
        ledger.initialize(actor=DIRECTOR)
        for actor, role in STAFF.items():
            ledger.keyring.ensure(actor)
            ledger.grant_role(actor, role, actor=DIRECTOR)
        writer = Writer(ledger, generator.counts)
        writer.write(generator.ops())
    finally:
        ledger.close()
    return vars(generator.counts) | {"seconds": round(time.perf_counter() - began, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True, help="registered players")
    parser.add_argument("--games", type=int, required=True, help="rated games in sections")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--store", help="store URL (default $RATINGS_LEDGER_STORE or SQLite)")
    parser.add_argument("--start", type=date.fromisoformat, default=date(2019, 1, 1))
    parser.add_argument("--years", type=int, default=6)
    args = parser.parse_args(argv)
    try:
        counts = generate(args.store, args.players, args.games, args.seed, args.start, args.years)
    except (ValueError, LedgerError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
