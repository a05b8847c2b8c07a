"""Generated players: their profiles and strengths, and who enters a section."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from generation.world import (
    FEDERATIONS,
    FIRST,
    LAST,
    OPENING_SHARE,
    Person,
    Spec,
    _add_years,
    _first_of_month,
)


class People:
    """`Generator`'s players: drawn from its seed, entered into its sections."""

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
