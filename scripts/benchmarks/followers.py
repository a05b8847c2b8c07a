"""Servers on one PostgreSQL store (issue 33: "a write visible on both within 100 ms").

Generates a ledger (scripts/generate.py) into a fresh schema of `--store`'s database, starts
`--servers` `ratings-ledger serve` processes on it, each with its own read model, and appends
`--writes` new sections (a copy of the last one under a new id, a day after every other item).
For each write: the time from the append's return to the notification reaching a LISTENing
connection of this process, and to each server's read model reaching the append's position (read
from its file: its follower did it, no request asked). Then each server's CPU time while the
store is quiet, per second. Prints JSON (medians, best, worst); the schema is dropped after.

    .venv/bin/python scripts/benchmarks/followers.py --store postgresql://postgres@127.0.0.1/test
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import closing
from pathlib import Path

import psycopg
from psycopg.sql import SQL, Identifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, however loaded
from benchmarks.live import sections_after  # noqa: E402
from benchmarks.measure import generate, machine  # noqa: E402
from ledger.application import RatingsLedger  # noqa: E402
from ledger.commands import SubmitSection, parse  # noqa: E402
from ledger.evidence.signing import KEYRING_VARIABLE  # noqa: E402

PATIENCE_SECONDS = 60
TICKS = os.sysconf("SC_CLK_TCK")


def serve(store: str, view: Path) -> subprocess.Popen[str]:
    """`ratings-ledger serve` with its own read model `view`, once it listens."""
    command = Path(sys.executable).parent / "ratings-ledger"
    server = subprocess.Popen(
        [str(command), "serve", "--store", store, "--view", str(view), "--port", "0"]
        + ["--families", "uschess"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    server.stdout.readline()  # "serving http://127.0.0.1:PORT/ (read-only; ...)"
    return server


def position(view: Path) -> int:
    """The position the read model at `view` reflects (0 before it is built)."""
    if not view.exists():
        return 0
    db = sqlite3.connect(f"{view.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'last_position'").fetchone()
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()
    return int(row[0]) if row else 0


def seconds_until(views: list[Path], head: int, start: float) -> list[float]:
    """Each read model's seconds from `start` (perf_counter) until it reflects `head`."""
    reached: dict[Path, float] = {}
    while len(reached) < len(views):
        if time.perf_counter() - start > PATIENCE_SECONDS:
            raise RuntimeError(f"position {head} not reached in {PATIENCE_SECONDS} s")
        for view in views:
            if view not in reached and position(view) >= head:
                reached[view] = time.perf_counter() - start
        time.sleep(0.0005)
    return [reached[view] for view in views]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def ms(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "best": round(1000 * ordered[0], 1),
        "median": round(1000 * statistics.median(ordered), 1),
        "worst": round(1000 * ordered[-1], 1),
    }


def measure(store: str, workdir: Path, servers: int, writes: int, quiet: float) -> dict:
    """The measurement on the ledger at `store` (generated already)."""
    views = [workdir / f"server{n}.view.db" for n in range(servers)]
    processes = [serve(store, view) for view in views]
    try:
        with closing(RatingsLedger(store)) as app:
            head = app.recorder.max_notification_id() or 0
            warm = seconds_until(views, head, time.perf_counter())
            _, new_section = sections_after(app)
            channel: str = app.recorder.channel_name  # type: ignore[attr-defined]
            base = store.partition("?")[0]
            notified, visible, both = [], [[] for _ in views], []
            with psycopg.connect(base, autocommit=True) as listener:
                listener.execute(SQL("LISTEN {}").format(Identifier(channel)))
                for n in range(writes):
                    time.sleep(0.2)  # a quiet moment between appends
                    app.sections.submit(parse(SubmitSection, new_section(n)), actor="td")
                    start = time.perf_counter()
                    next(listener.notifies(timeout=PATIENCE_SECONDS, stop_after=1))
                    notified.append(time.perf_counter() - start)
                    head = app.recorder.max_notification_id() or 0
                    each = seconds_until(views, head, start)
                    for server, seconds in zip(visible, each, strict=True):
                        server.append(seconds)
                    both.append(max(each))
        time.sleep(1.0)  # the last catch-up's checkpoint done
        before = [cpu_seconds(p.pid) for p in processes]
        time.sleep(quiet)
        idle = [(cpu_seconds(p.pid) - b) / quiet for p, b in zip(processes, before, strict=True)]
    finally:
        for process in processes:
            process.terminate()
            process.wait(30)
    return {
        "servers": servers,
        "writes": writes,
        "append_to_notified_ms": ms(notified),
        "append_to_visible_on_each_ms": [ms(server) for server in visible],
        "append_to_visible_on_all_ms": ms(both),
        "quiet_cpu_seconds_per_second": [round(i, 4) for i in idle],
        "first_build_s": [round(w, 2) for w in warm],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--quiet-seconds", type=float, default=5.0)
    args = parser.parse_args()
    schema = f"bench_followers_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(args.store, autocommit=True) as conn:
        conn.execute(SQL("CREATE SCHEMA {}").format(Identifier(schema)))
    store = f"{args.store}?schema={schema}"
    try:
        with tempfile.TemporaryDirectory() as work:
            os.environ.setdefault(KEYRING_VARIABLE, str(Path(work) / "keys"))
            counts = generate(store, args.games, args.players, 7)
            result = measure(store, Path(work), args.servers, args.writes, args.quiet_seconds)
    finally:
        with psycopg.connect(args.store, autocommit=True) as conn:
            conn.execute(SQL("DROP SCHEMA {} CASCADE").format(Identifier(schema)))
    print(json.dumps({"machine": machine(), "ledger": counts} | result, indent=2))


if __name__ == "__main__":
    main()
