"""List day (issue 33): closed-loop clients against `serve` and, as the baseline in the same run,
Datasette serving the same read model's `players` table. First `rounds` cold rounds that
alternate the servers (ours, ours with `--keep 0`, Datasette's, ours, …), each by a server
started for it and never asked before (every player asked once: no answer of ours is kept,
each of its threads answers its first requests); then, by the last cold round's servers,
`rounds` warm rounds that alternate the same way. Each side's median rate, p99 and server CPU
a request are reported, cold and warm, with their ratios.

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
    port: int,
    paths: list[str],
    clients: int,
    seconds: float,
    tags: dict[str, str] | None = None,
    once: bool = False,
) -> dict:
    """One closed-loop round: each client asks its next path as soon as the last answer
    came, for `seconds` (`once`: until every path was asked once, none twice); requests per
    second and latency percentiles over every answer (all must be 200, or 304 when `tags` are
    sent)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    failures: list[str] = []
    stop = time.monotonic() + (START_SECONDS if once else seconds)
    seen: dict[str, str] = {}

    def client(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = n
        while time.monotonic() < stop and not (once and i >= len(paths)):
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


def _cpu_seconds(group: int) -> float:
    """The CPU seconds (user and system) the processes of process group `group` have used
    (Linux: /proc); a steadier measure of a server's cost than a rate on a busy machine."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp; utime and stime follow
            used += int(fields[11]) + int(fields[12])
    return used / ticks


def _measured(
    group: int,
    port: int,
    paths: list[str],
    clients: int,
    seconds: float,
    tags: dict[str, str] | None = None,
    once: bool = False,
) -> dict:
    """`_round`, with the CPU the server (process group `group`) spent on each answer."""
    before = _cpu_seconds(group)
    found = _round(port, paths, clients, seconds, tags, once)
    spent = _cpu_seconds(group) - before
    found["server_cpu_ms_per_request"] = round(1000 * spent / found["requests"], 2)
    return found


def _side(rounds: list[dict]) -> dict:
    return {
        "rounds_requests_per_s": [r["requests_per_s"] for r in rounds],
        "rounds_p99_ms": [r["p99_ms"] for r in rounds],
        "median_requests_per_s": statistics.median(r["requests_per_s"] for r in rounds),
        "median_p99_ms": statistics.median(r["p99_ms"] for r in rounds),
        "median_latency_ms": statistics.median(r["median_ms"] for r in rounds),
        "median_server_cpu_ms_per_request": statistics.median(
            r["server_cpu_ms_per_request"] for r in rounds
        ),
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
    """Our `serve --workers` (with its kept answers, and a second one with `--keep 0`) and
    Datasette on the same read model `view` (caught up, or caught up by our server first):
    `rounds` alternating cold rounds, each by servers started for it (every player once), then
    `rounds` alternating warm rounds by the last cold round's servers, then a round of
    revalidations of our pages."""
    bin_dir = Path(sys.executable).parent
    model = workdir / "model.db"  # Datasette names the database after the file: /model/…
    model.unlink(missing_ok=True)
    model.symlink_to(Path(view).resolve())
    with sqlite3.connect(f"file:{view}?mode=ro", uri=True) as db:
        ids = [r[0] for r in db.execute("select id from players order by id")]
    random.Random(seed).shuffle(ids)
    ours = [str(bin_dir / "ratings-ledger"), "serve", "--store", store]
    ours += ["--view", str(view), "--workers", str(workers)]
    datasette = [str(bin_dir / "datasette"), "serve", str(model)]
    datasette += ["--setting", "sql_time_limit_ms", "10000"]
    commands = {  # each server's command (its port added) and the path of its first answer
        "ours": (ours, "/api/players"),
        "unkept": (ours + ["--keep", "0"], "/api/players"),
        "datasette": (datasette, f"/model/players/{ids[0]}.json"),
    }
    paths = {
        "ours": [f"/api/players/{p}" for p in ids],
        "unkept": [f"/api/players/{p}" for p in ids],
        "datasette": [f"/model/players/{p}.json" for p in ids],
    }
    started: dict[str, tuple[subprocess.Popen[bytes], int]] = {}

    def fresh(name: str) -> tuple[int, int]:
        """A server `name` started for a cold round (its last one stopped first), once it
        answered: its process group and port."""
        if name in started:
            _stop(started.pop(name)[0])
        command, first = commands[name]
        port = _free_port()
        started[name] = _start(command + ["--port", str(port)], workdir, name), port
        _wait(port, first)
        return started[name][0].pid, port

    try:
        cold: dict[str, list[dict]] = {n: [] for n in paths}
        for _ in range(rounds):
            for n in paths:
                group, port = fresh(n)
                cold[n].append(_measured(group, port, paths[n], clients, seconds, once=True))
        warm: dict[str, list[dict]] = {n: [] for n in paths}
        for _ in range(rounds):
            for n in paths:
                process, port = started[n]
                warm[n].append(_measured(process.pid, port, paths[n], clients, seconds))
        tags: dict[str, str] = {}
        for r in warm["ours"]:
            tags |= r["tags"]
        process, port = started["ours"]
        revalidated = _measured(process.pid, port, paths["ours"], clients, seconds, tags)
    finally:
        for process, _ in started.values():
            _stop(process)
        model.unlink(missing_ok=True)
    return _report(ids, clients, seconds, rounds, workers, cold, warm, revalidated)


def _report(
    ids: list[str],
    clients: int,
    seconds: float,
    rounds: int,
    workers: int,
    cold: dict[str, list[dict]],
    warm: dict[str, list[dict]],
    revalidated: dict,
) -> dict:
    """What `web_load` prints: each server's cold and warm rounds and their medians, and our
    median rates over Datasette's (cold, and each alternated cold round's ratio)."""
    sides = {name: _side(warm[name]) for name in warm}
    colds = {name: _side(cold[name]) for name in cold}
    rate = {n: sides[n]["median_requests_per_s"] for n in sides}
    cold_rate = {n: colds[n]["median_requests_per_s"] for n in colds}
    asked = {n: sum(r["requests"] for r in warm[n]) for n in warm}
    return {
        "clients": clients,
        "round_seconds": seconds,
        "rounds_each": rounds,
        "workers": workers,
        "players": len(ids),
        # each server's cold rounds (every player once, by a server started for the round),
        # alternated with the others' and summed up as its warm rounds are
        "cold_every_player_once": colds,
        "ours": {"page": "/api/players/ID (answers kept by position)", **sides["ours"]},
        "ours_unkept": {"page": "/api/players/ID, serve --keep 0", **sides["unkept"]},
        "datasette": {"page": "/model/players/ID.json (a players row)", **sides["datasette"]},
        # the warm rounds ask each player this often, on average (after the cold rounds):
        # with answers kept, most are answered from them
        "warm_asks_per_player": {n: round(asked[n] / len(ids), 1) for n in asked},
        "rate_over_datasette": round(rate["ours"] / rate["datasette"], 2),
        "unkept_rate_over_datasette": round(rate["unkept"] / rate["datasette"], 2),
        # ours' median cold rate over Datasette's, and each cold round's (ours then Datasette)
        "cold_rate_over_datasette": round(cold_rate["ours"] / cold_rate["datasette"], 2),
        "cold_rounds_rate_over_datasette": [
            round(o["requests_per_s"] / d["requests_per_s"], 2)
            for o, d in zip(cold["ours"], cold["datasette"], strict=True)
        ],
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
