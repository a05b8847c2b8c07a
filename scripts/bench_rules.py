"""Benchmark the US Chess rules engine: player-ratings per second on random sections.

A player-rating is one player through Steps 4 and 5 of one section. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import time

from ledger.rules.uschess.section import Entrant, Game, rate_section


def swiss(rng: random.Random, players: int, rounds: int, special: bool) -> tuple[list, list]:
    """A random section: each round pairs a shuffled field; results follow the rating gap."""
    if special:
        entrants = [
            Entrant(str(i), rng.uniform(400, 2000), rng.randint(0, 8), unrated=False)
            for i in range(players)
        ]
    else:
        entrants = [
            Entrant(str(i), rng.uniform(800, 2500), rng.randint(26, 400)) for i in range(players)
        ]
    games = []
    for _ in range(rounds):
        order = list(range(players))
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            gap = entrants[a].rating - entrants[b].rating
            p = 1 / (1 + 10 ** (-gap / 400))
            u = rng.random()
            games.append(Game(a, b, 1.0 if u < p - 0.1 else 0.5 if u < p + 0.1 else 0.0))
    return entrants, games


def bare_standard(sections: list) -> float:
    """Steps 4 and 5 as bare arithmetic: Rs = R0 + K(S − E) twice, no bookkeeping."""
    start = time.perf_counter()
    for entrants, games in sections:
        opps = [[] for _ in entrants]
        scores = [0.0] * len(entrants)
        for g in games:
            opps[g.white].append(entrants[g.black].rating)
            opps[g.black].append(entrants[g.white].rating)
            scores[g.white] += g.score
            scores[g.black] += 1 - g.score
        for _step in (4, 5):
            for i, e in enumerate(entrants):
                r0 = e.rating
                k = 800 / (20 + len(opps[i]))
                exp = 0.0
                for ri in opps[i]:
                    exp += 1 / (1 + 10 ** ((ri - r0) / 400))
                _ = r0 + k * (scores[i] - exp)
    return time.perf_counter() - start


def measure(sections: list, repeats: int) -> tuple[list[float], int]:
    count = sum(len(e) for e, _ in sections)
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for entrants, games in sections:
            rate_section(entrants, games, 12.0, True, False)
        rates.append(count / (time.perf_counter() - start))
    return rates, count


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sections", type=int, default=400)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out: dict = {
        "benchmark": "bench_rules",
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
        },
        "section": {"players": args.players, "rounds": args.rounds, "count": args.sections},
        "repeats": args.repeats,
    }
    for path in ("standard", "special"):
        sections = [
            swiss(rng, args.players, args.rounds, path == "special") for _ in range(args.sections)
        ]
        rates, count = measure(sections, args.repeats)
        out[path] = {
            "player_ratings": count,
            "player_ratings_per_s_median": round(statistics.median(rates)),
            "player_ratings_per_s_min": round(min(rates)),
            "player_ratings_per_s_max": round(max(rates)),
        }
        if path == "standard":
            bare = [count / bare_standard(sections) for _ in range(args.repeats)]
            out[path]["bare_arithmetic_per_s_median"] = round(statistics.median(bare))
            out[path]["cost_over_bare_arithmetic"] = round(
                statistics.median(bare) / statistics.median(rates), 2
            )
    out["target_standard_per_s"] = 150_000
    out["meets_target"] = out["standard"]["player_ratings_per_s_median"] >= 150_000
    assert math.isfinite(out["standard"]["player_ratings_per_s_median"])
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
