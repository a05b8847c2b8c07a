"""Generated sections: their plan over the years, and their pairings, games and results."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from generation.world import (
    CLUBS,
    CONTROLS,
    CORRECTION_REASONS,
    DROPOUT_RATE,
    FORFEIT_RATE,
    HALF_BYE_RATE,
    KINDS,
    LATE_RATE,
    MONEY_FLOOR_RATE,
    OLR_FROM,
    ONLINE_BY_SPEED,
    ONLINE_CLUBS,
    PAIRING_ATTEMPTS,
    PANDEMIC,
    RATED_GAMES_PER_SLOT,
    SWISS_ROUNDS,
    UNDER_LIMITS,
    WHITE_EDGE,
    Op,
    Person,
    Spec,
)


class Sections:
    """`Generator`'s sections: planned from its seed, played when the stream reaches them."""

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
