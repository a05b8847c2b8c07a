"""List day (issue 33): closed-loop clients against `serve` and, as the baseline in the same run,
Datasette serving the same read model's `players` table; rounds alternate (ours, Datasette's,
ours, …) and each side's median rate and p99 are reported, with their ratio.

Each of `clients` threads asks, on one kept-alive connection, one player's JSON page after
another (players in a seeded random order, the same order for both servers): ours is
`/api/players/ID` (the player's card, ratings in every system and every section he played),
Datasette's the row `/model/players/ID.json` (a plain primary-key read). A further round asks
our pages again with the ETag each client got for them (If-None-Match → 304), what a proxy's
revalidation costs. Datasette is a bench extra (`pip install -e .[bench]`), never a runtime
dependency.

Run alone: `python scripts/benchmarks/web_load.py --store sqlite:///L.db --view L.view.db`.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, however loaded
from benchmarks.measure import machine  # noqa: E402

CLIENTS = 16
ROUND_SECONDS = 10.0
ROUNDS = 3  # of each server, alternating
WORKERS = 2  # `serve --workers`: one per core of the 2-core machines the issue targets
START_SECONDS = 600  # a server's first answer (ours catches the model up first)


def _wait(port: int, path: str, limit: float = START_SECONDS) -> None:
    give_up = time.monotonic() + limit
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                conn.close()
                return
        except OSError:
            pass
        if time.monotonic() > give_up:
            raise RuntimeError(f"no answer at port {port} {path}")
        time.sleep(0.2)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _round(
    port: int, paths: list[str], clients: int, seconds: float, tags: dict[str, str] | None = None
) -> dict:
    """One closed-loop round: each client asks its next path as soon as the last answer
    came; requests per second and latency percentiles over every answer (all must be 200, or
    304 when `tags` are sent)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    failures: list[str] = []
    stop = time.monotonic() + seconds
    seen: dict[str, str] = {}

    def client(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = n
        while time.monotonic() < stop:
            path = paths[i % len(paths)]
            i += clients
            headers = {"If-None-Match": tags[path]} if tags and path in tags else {}
            start = time.perf_counter()
            try:
                conn.request("GET", path, headers=headers)
                answer = conn.getresponse()
                answer.read()
            except (OSError, http.client.HTTPException) as exc:
                failures.append(f"{path}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            latencies[n].append(time.perf_counter() - start)
            if answer.status not in (200, 304):
                failures.append(f"{path}: {answer.status}")
            if answer.getheader("ETag"):
                seen[path] = answer.getheader("ETag") or ""
            if answer.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.close()

    began = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - began
    every = sorted(x for one in latencies for x in one)
    if not every:
        raise RuntimeError(f"no answers: {failures[:3]}")
    return {
        "requests": len(every),
        "requests_per_s": round(len(every) / took, 1),
        "median_ms": round(1000 * statistics.median(every), 1),
        "p99_ms": round(1000 * every[min(len(every) - 1, int(0.99 * len(every)))], 1),
        "failures": len(failures),
        "first_failures": failures[:3],
        "tags": seen,
    }


def _side(rounds: list[dict]) -> dict:
    return {
        "rounds_requests_per_s": [r["requests_per_s"] for r in rounds],
        "rounds_p99_ms": [r["p99_ms"] for r in rounds],
        "median_requests_per_s": statistics.median(r["requests_per_s"] for r in rounds),
        "median_p99_ms": statistics.median(r["p99_ms"] for r in rounds),
        "median_latency_ms": statistics.median(r["median_ms"] for r in rounds),
        "failures": sum(r["failures"] for r in rounds),
        "first_failures": [f for r in rounds for f in r["first_failures"]][:3],
    }


def _start(command: list[str], workdir: Path, name: str) -> subprocess.Popen[bytes]:
    log = (workdir / f"{name}.log").open("wb")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def web_load(
    store: str,
    view: Path,
    workdir: Path,
    rounds: int = ROUNDS,
    seconds: float = ROUND_SECONDS,
    clients: int = CLIENTS,
    workers: int = WORKERS,
    seed: int = 7,
) -> dict:
    """Our `serve --workers` and Datasette on the same read model `view` (caught up, or
    caught up by our server first), `rounds` alternating rounds each, then a round of
    revalidations of our pages."""
    bin_dir = Path(sys.executable).parent
    ours_port, theirs_port = _free_port(), _free_port()
    model = workdir / "model.db"  # Datasette names the database after the file: /model/…
    model.unlink(missing_ok=True)
    model.symlink_to(Path(view).resolve())
    ours = _start(
        [str(bin_dir / "ratings-ledger"), "serve", "--store", store, "--view", str(view)]
        + ["--port", str(ours_port), "--workers", str(workers)],
        workdir,
        "serve",
    )
    theirs: subprocess.Popen[bytes] | None = None
    try:
        _wait(ours_port, "/api/players")
        with sqlite3.connect(f"file:{view}?mode=ro", uri=True) as db:
            ids = [r[0] for r in db.execute("select id from players order by id")]
        random.Random(seed).shuffle(ids)
        theirs = _start(
            [str(bin_dir / "datasette"), "serve", str(model), "--port", str(theirs_port)]
            + ["--setting", "sql_time_limit_ms", "10000"],
            workdir,
            "datasette",
        )
        _wait(theirs_port, f"/model/players/{ids[0]}.json")
        ours_paths = [f"/api/players/{p}" for p in ids]
        theirs_paths = [f"/model/players/{p}.json" for p in ids]
        warm: Callable[[int, list[str]], dict] = lambda port, paths: _round(  # noqa: E731
            port, paths, clients, min(2.0, seconds)
        )
        warm(ours_port, ours_paths)
        warm(theirs_port, theirs_paths)
        ours_rounds, theirs_rounds = [], []
        for _ in range(rounds):
            ours_rounds.append(_round(ours_port, ours_paths, clients, seconds))
            theirs_rounds.append(_round(theirs_port, theirs_paths, clients, seconds))
        tags: dict[str, str] = {}
        for r in ours_rounds:
            tags |= r["tags"]
        revalidated = _round(ours_port, ours_paths, clients, seconds, tags)
    finally:
        _stop(ours)
        if theirs is not None:
            _stop(theirs)
        model.unlink(missing_ok=True)
    mine, baseline = _side(ours_rounds), _side(theirs_rounds)
    return {
        "clients": clients,
        "round_seconds": seconds,
        "rounds_each": rounds,
        "workers": workers,
        "players": len(ids),
        "ours": {"page": "/api/players/ID", **mine},
        "datasette": {"page": "/model/players/ID.json (a players row)", **baseline},
        "rate_over_datasette": round(
            mine["median_requests_per_s"] / baseline["median_requests_per_s"], 2
        ),
        "revalidated_304": {k: v for k, v in revalidated.items() if k != "tags"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", required=True)
    parser.add_argument("--view", type=Path, required=True)
    parser.add_argument("--workdir", type=Path, default=Path("."))
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--seconds", type=float, default=ROUND_SECONDS)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--workers", type=int, default=WORKERS)
    args = parser.parse_args()
    result = web_load(
        args.store, args.view, args.workdir, args.rounds, args.seconds, args.clients, args.workers
    )
    print(json.dumps({"machine": machine(), "web_load": result}, indent=2))


if __name__ == "__main__":
    main()
