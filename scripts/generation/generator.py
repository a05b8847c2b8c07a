"""`Generator`: players and sections planned from one seed, the ledger's commands in order."""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator
from datetime import date, timedelta
from itertools import accumulate
from typing import Any

from generation.people import People
from generation.sections import Sections, _result, _text
from generation.world import (
    BONUS_2025,
    PRIORITY,
    Counts,
    Op,
    _add_months,
    _add_years,
    _first_of_month,
)


class Generator(People, Sections):
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
