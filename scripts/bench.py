"""Benchmark the ledger: append rate, full replay, replay ÷ raw read, correction re-rate, as-of.

Generates a synthetic ledger with scripts/generate.py at each size and prints JSON.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.log import read_entries
from ledger.signing import KEYRING_VARIABLE, Keyring
from projections import queries, timetravel
from projections.projector import View

HERE = Path(__file__).resolve().parent


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cores": os.cpu_count(),
    }


def generate(store: str, games: int, players: int, seed: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            str(HERE / "generate.py"),
            "--store",
            store,
            "--games",
            str(games),
            "--players",
            str(players),
            "--seed",
            str(seed),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def profile_rebuild(app: RatingsLedger, path: Path, top: int = 12) -> list[dict]:
    prof = cProfile.Profile()
    view = View(path)
    prof.enable()
    view.rebuild(read_entries(app))
    prof.disable()
    view.close()
    stream = io.StringIO()
    stats = pstats.Stats(prof, stream=stream)
    total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]  # type: ignore[attr-defined]
    return [
        {
            "function": f"{Path(f).name}:{line}({name})",
            "self_s": round(v[2], 3),
            "share": round(v[2] / total, 3) if total else None,
        }
        for (f, line, name), v in rows
    ]


def correction_one_year_back(app: RatingsLedger, view: View) -> tuple[float, int]:
    """Correct one result of a section that ended about a year before the last one (as the
    generated ledger's ratings admin)."""
    sections = view.db.execute(
        "select payload, end from items where kind = 'section' order by sort_key"
    ).fetchall()
    last = date.fromisoformat(sections[-1][1])
    target = last - timedelta(days=365)
    payload = next(json.loads(p) for p, end in sections if date.fromisoformat(end) >= target)
    game = next(g for g in payload["games"] if g["result"] in ("1-0", "0-1"))
    game["result"] = "0-1" if game["result"] == "1-0" else "1-0"
    data = {k: payload[k] for k in SubmitSection.model_fields if k in payload}
    app.correct_section(parse(SubmitSection, data), reason="benchmark", actor="ratings-office")
    start = time.perf_counter()
    stats = view.catch_up(read_entries(app, view.last_position))
    return time.perf_counter() - start, stats.items_rated


def run_size(games: int, players: int, seed: int, repeats: int, workdir: Path) -> dict:
    db = workdir / f"ledger-{games}.db"
    store = f"sqlite:///{db}"
    start = time.perf_counter()
    generated = generate(store, games, players, seed)
    append_s = time.perf_counter() - start
    result: dict = {"games": games, "players": players, "generated": generated}
    result["append"] = {
        "seconds": round(append_s, 2),
        "sections_per_s": round(generated.get("sections", 0) / append_s, 1),
        "games_per_s": round(generated.get("games", games) / append_s),
    }
    keyring = Keyring(os.environ.get(KEYRING_VARIABLE) or workdir / "keys")  # as generate.py's
    with closing(RatingsLedger(store, keyring=keyring)) as app:
        read_s, count = timed(lambda: sum(1 for _ in read_entries(app)), repeats)
        view_path = workdir / f"view-{games}.db"

        def rebuild() -> View:
            v = View(view_path)
            v.rebuild(read_entries(app))
            return v

        replay_s, view = timed(rebuild, repeats)
        assert isinstance(view, View)
        real_games = generated.get("games", games)
        result["replay"] = {
            "entries": count,
            "raw_log_read_s": round(read_s, 3),
            "full_replay_s": round(replay_s, 3),
            "games_per_s": round(real_games / replay_s),
            "replay_over_raw_read": round(replay_s / read_s, 2),
        }
        view.checkpoint()
        published = view.last_position
        correction_s, rated = correction_one_year_back(app, view)
        result["correction"] = {
            "re_rate_s": round(correction_s, 3),
            "items_re_rated": rated,
            "over_full_replay": round(correction_s / replay_s, 4),
        }
        known_s, past = timed(
            lambda: timetravel.at_position(
                view, lambda after: read_entries(app, after), published, workdir / "past.db"
            ),
            repeats,
        )
        assert isinstance(past, View)
        past.close()
        result["as_known_at"] = {
            "before_the_correction_s": round(known_s, 3),
            "from": "the read model's checkpoint at that position, caught up to it",
        }
        rng = random.Random(seed)
        keys = view.db.execute("select player, system from ratings").fetchall()
        days = [r[0] for r in view.db.execute("select distinct end_date from history")]
        latencies = []
        for _ in range(200):
            player, system = rng.choice(keys)
            day = rng.choice(days)
            start = time.perf_counter()
            queries.rating_as_of(view, player, system, day)
            latencies.append(time.perf_counter() - start)
        latencies.sort()
        result["as_of_ms"] = {
            "median": round(1000 * statistics.median(latencies), 3),
            "p95": round(1000 * latencies[int(0.95 * len(latencies))], 3),
        }
        view.close()
        result["profile_top"] = profile_rebuild(app, workdir / f"profile-{games}.db")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--players-per-game", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ratings-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    out = {"benchmark": "bench", "machine": machine(), "repeats": args.repeats, "sizes": []}
    for games in args.games:
        players = max(50, int(games * args.players_per_game))
        out["sizes"].append(run_size(games, players, args.seed, args.repeats, workdir))
        print(json.dumps(out["sizes"][-1]), file=sys.stderr)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
