"""Issue 33's measurements at a federation's size: the read model's bytes (per game and per
table), a player's page served by the site (JSON and HTML), a re-rating under a changed rule
(`ratings-ledger replay --rules … --compare`) and a rebuild's cost per game as the players
grow (`by_players`)."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from wsgiref.util import setup_testing_defaults

from benchmarks.measure import summary
from benchmarks.memory import rebuild_child

# the changed rule of the re-rating: every section under the 2015 rules
CHANGED_RULE = ("--rules", "uschess-2015")


def model_bytes(path: Path, games: int) -> dict:
    """The read model file's bytes, per game, and each table's and index's share (dbstat)."""
    size = path.stat().st_size
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "select name, sum(pgsize) from dbstat group by name order by 2 desc"
        ).fetchall()
    return {
        "file_bytes": size,
        "bytes_per_game": round(size / games, 1),
        "by_table_bytes_per_game": {name: round(b / games, 1) for name, b in rows[:12]},
    }


def _get(site, path: str) -> int:
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING="", REQUEST_METHOD="GET")
    body = b"".join(site(environ, lambda status, headers: None))
    return len(body)


def player_pages(store: str, view: Path, players: list[str], seed: int) -> dict:
    """A player's page as the site serves it (in this process, no HTTP), JSON and HTML, for
    100 players drawn at random; milliseconds, median and p95 (the first request apart)."""
    from ledger.entrypoints.web.app import Site

    site = Site(store, view)
    rng = random.Random(seed)
    chosen = [rng.choice(players) for _ in range(101)]
    out = {}
    for name, prefix in (("json", "/api/players/"), ("html", "/players/")):
        times = []
        for player in chosen:
            start = time.perf_counter()
            _get(site, prefix + player)
            times.append(1000 * (time.perf_counter() - start))
        times = sorted(times[1:])
        out[name] = {
            "median_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[int(0.95 * len(times))], 2),
        }
    return out


def compare_replay(store: str, view: Path, workdir: Path, repeats: int) -> dict:
    """`ratings-ledger replay --rules uschess-2015 --to NEW --compare VIEW` in a process of its
    own: wall and CPU seconds (measure.summary) and how many ratings it says changed."""
    samples, changed = [], None
    command = [str(Path(sys.executable).parent / "ratings-ledger"), "replay", "--json"]
    for n in range(repeats):
        to = workdir / f"compare-{n}.db"
        before = os.times()
        wall = time.perf_counter()
        out = subprocess.run(
            [*command, "--store", store, *CHANGED_RULE, "--to", str(to), "--compare", str(view)],
            check=True,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - wall
        after = os.times()
        cpu = sum(after[i] - before[i] for i in (2, 3))  # children's user and system
        samples.append((wall, cpu))
        changed = json.loads(out.stdout)["compare"]["changed"]
        for made in workdir.glob(f"{to.name}*"):  # the link, the file behind it, its lock…
            if made.is_dir() and not made.is_symlink():  # its checkpoints
                shutil.rmtree(made)
            else:
                made.unlink()
    return {"rule": " ".join(CHANGED_RULE), "ratings_changed": changed, "seconds": summary(samples)}


def by_players(stores: dict[int, tuple[str, int]], workdir: Path, repeats: int) -> dict:
    """A full rebuild of each ledger (players → (store, games)), each in a process of its own
    and the ledgers alternating: CPU microseconds a game of the rebuilding process, of its
    writer and of both (median of `repeats`), their peaks (MiB, the highest), and each
    count's per game over the fewest players' (issue 33: a replay's cost a game flat in the
    players)."""
    runs: dict[int, list[dict]] = {players: [] for players in stores}
    for _ in range(repeats):
        for players, (store, _games) in stores.items():
            runs[players].append(rebuild_child(store, workdir / f"players-{players}.db"))
    out: dict = {}
    for players, (_store, games) in stores.items():
        found = runs[players]

        def per_game(*keys: str, found: list[dict] = found, games: int = games) -> float:
            return round(statistics.median(sum(r[k] for k in keys) for r in found) / games * 1e6, 1)

        out[str(players)] = {
            "games": games,
            "rebuild_cpu_us_per_game": per_game("cpu_s"),
            "writer_cpu_us_per_game": per_game("writer_cpu_s"),
            "both_cpu_us_per_game": per_game("cpu_s", "writer_cpu_s"),
            "rebuild_peak_mib": round(max(r["self_kib"] for r in found) / 1024, 1),
            "writer_peak_mib": round(max(r["writer_kib"] for r in found) / 1024, 1),
        }
    fewest = out[str(min(stores))]["both_cpu_us_per_game"]
    for row in out.values():
        row["both_over_fewest_players"] = round(row["both_cpu_us_per_game"] / fewest, 2)
    return out
