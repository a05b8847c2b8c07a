"""Servers on one PostgreSQL store (issue 33: "a write visible on both within 100 ms").

Generates a ledger (scripts/generate.py) into a fresh schema of `--store`'s database, starts
`--servers` `ratings-ledger serve` processes on it, each with its own read model, and appends
`--writes` new sections (a copy of the last one under a new id, a day after every other item),
twice over. Each latency runs from the write's commit: the moment its notification reaches a
LISTENing connection of this process (a thread of its own), or the append's return if that comes
first. First with no request to the servers: until each server's read model reaches the
append's position (read from its file: its follower did it). Then as a reader sees it: until
each server answers the new section's page (`/api/v1/sections/ID`, 200) with an ETag naming a
position at or after the append's, polled every 2 ms over one kept connection per server, each
request naming the ETag last given (a 304 while the model has not moved; a request that comes
before the follower's catch-up makes its own). Each phase also gives each server's CPU time
over it per write. Then each server's CPU time while the store is quiet, per second. Prints
JSON (medians, best, worst); the schema is dropped after.

    .venv/bin/python scripts/benchmarks/followers.py --store postgresql://postgres@127.0.0.1/test
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import psycopg
from psycopg.sql import SQL, Identifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, however loaded
from benchmarks.live import sections_after  # noqa: E402
from benchmarks.measure import generate, machine  # noqa: E402
from ledger.application import RatingsLedger  # noqa: E402
from ledger.commands import SubmitSection, parse  # noqa: E402
from ledger.entrypoints.cli.serve import THREADS  # noqa: E402
from ledger.evidence.signing import KEYRING_VARIABLE  # noqa: E402

PATIENCE_SECONDS = 60
WARM_REQUESTS = 5  # each of the warm-up's clients asks this many times
POLL_SECONDS = 0.002  # between a poller's answer and its next request
TICKS = os.sysconf("SC_CLK_TCK")


def serve(store: str, view: Path) -> tuple[subprocess.Popen[str], int]:
    """`ratings-ledger serve` with its own read model `view`, once it listens; its port."""
    command = Path(sys.executable).parent / "ratings-ledger"
    server = subprocess.Popen(
        [str(command), "serve", "--store", store, "--view", str(view), "--port", "0"]
        + ["--families", "uschess"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()  # "serving http://127.0.0.1:PORT/ (read-only; ...)"
    return server, int(line.split()[1].rstrip("/").rsplit(":", 1)[1])


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


def page_shows(port: int, section: str, head: int) -> Callable[[], float]:
    """A poll, in a thread of its own, of one server's page of `section` until it answers 200
    with an ETag naming a position at or after `head`: call the result for its perf_counter
    time then. Each request names the last ETag it was given (If-None-Match), so while the
    server's read model has not moved it answers 304, unrendered."""
    done: list[float] = []

    def poll() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE_SECONDS)
        etag = ""
        try:
            while True:
                conn.request("GET", f"/api/v1/sections/{section}", headers={"If-None-Match": etag})
                answer = conn.getresponse()
                answer.read()
                etag = answer.getheader("ETag") or etag
                shown = int(etag.strip('"').split("-")[-2]) if etag else 0
                if answer.status == 200 and shown >= head:
                    done.append(time.perf_counter())
                    return
                time.sleep(POLL_SECONDS)
        finally:
            conn.close()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()

    def reached() -> float:
        thread.join(PATIENCE_SECONDS)
        if not done:
            raise RuntimeError(f"{section} not shown at {head} in {PATIENCE_SECONDS} s")
        return done[0]

    return reached


class Commits:
    """The moments the ledger's appends commit, as their notifications reach a LISTENing
    connection in a thread of this process (each append NOTIFYs as it commits)."""

    def __init__(self, base: str, channel: str) -> None:
        self.conn = psycopg.connect(base, autocommit=True)
        self.conn.execute(SQL("LISTEN {}").format(Identifier(channel)))
        self.heard: list[float] = []
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        with contextlib.suppress(psycopg.OperationalError):  # closed by `close`
            for _ in self.conn.notifies():
                self.heard.append(time.perf_counter())

    def after(self, count: int) -> float:
        """The moment of the notification that makes `count` heard (waited for)."""
        start = time.perf_counter()
        while len(self.heard) < count:
            if time.perf_counter() - start > PATIENCE_SECONDS:
                raise RuntimeError("no notification of the append")
            time.sleep(0.0001)
        return self.heard[count - 1]

    def close(self) -> None:
        self.conn.close()


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


def writes_seen(
    app: RatingsLedger, commits: Commits, writes: int, seen: Callable[[str, int], list[float]]
) -> dict:
    """`writes` new sections appended, each once the servers are quiet: for each, the seconds
    from its commit to each server's seeing it (`seen(section_id, its position)`: the
    perf_counter moments), and to the append's return."""
    _, new_section = sections_after(app)
    returned, each = [], []
    for _ in range(writes):
        time.sleep(0.2)  # a quiet moment between appends
        heard = len(commits.heard)
        data = new_section(heard)
        app.sections.submit(parse(SubmitSection, data), actor="td")
        back = time.perf_counter()
        commit = min(commits.after(heard + 1), back)
        moments = seen(data["section_id"], app.recorder.max_notification_id() or 0)
        returned.append(back - commit)
        each.append([moment - commit for moment in moments])
    return {
        "on_each_ms": [ms(list(server)) for server in zip(*each, strict=True)],
        "on_all_ms": ms([max(moments) for moments in each]),
        "commit_to_append_return_ms": ms(returned),
    }


def in_models(views: list[Path]) -> Callable[[str, int], list[float]]:
    """Seen when each read model's file reaches the position (no request asked)."""

    def seen(_: str, head: int) -> list[float]:
        start = time.perf_counter()
        return [start + s for s in seconds_until(views, head, start)]

    return seen


def warm(port: int) -> None:
    """Every one of the server's request threads asked once, at once, a few times (each opens
    its sessions at its first request), so no measured answer is a thread's first."""

    def ask() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=PATIENCE_SECONDS)
        try:
            for _ in range(WARM_REQUESTS):
                conn.request("GET", "/api/v1/")
                conn.getresponse().read()
        finally:
            conn.close()

    askers = [threading.Thread(target=ask) for _ in range(2 * THREADS)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()


def on_pages(ports: list[int]) -> Callable[[str, int], list[float]]:
    """Seen when each server's page of the section answers at the position (its request
    threads warmed first)."""
    for port in ports:
        warm(port)

    def seen(section: str, head: int) -> list[float]:
        polls = [page_shows(port, section, head) for port in ports]
        return [reached() for reached in polls]

    return seen


def costed(pids: list[int], writes: int, run: Callable[[], dict]) -> dict:
    """`run`'s result, with each server's CPU time over it per write (its follower's
    catch-ups, and in the page phase the polls' requests too)."""
    before = [cpu_seconds(pid) for pid in pids]
    result = run()
    spent = [cpu_seconds(pid) - b for pid, b in zip(pids, before, strict=True)]
    return result | {"server_cpu_ms_per_write": [round(1000 * s / writes, 1) for s in spent]}


def measure(store: str, workdir: Path, servers: int, writes: int, quiet: float) -> dict:
    """The measurement on the ledger at `store` (generated already)."""
    views = [workdir / f"server{n}.view.db" for n in range(servers)]
    started = [serve(store, view) for view in views]
    processes = [process for process, _ in started]
    try:
        with closing(RatingsLedger(store)) as app:
            head = app.recorder.max_notification_id() or 0
            warm = seconds_until(views, head, time.perf_counter())
            channel: str = app.recorder.channel_name  # type: ignore[attr-defined]
            commits = Commits(store.partition("?")[0], channel)
            try:
                pids = [process.pid for process in processes]
                seen = in_models(views)
                model = costed(pids, writes, lambda: writes_seen(app, commits, writes, seen))
                pages = on_pages([port for _, port in started])
                page = costed(pids, writes, lambda: writes_seen(app, commits, writes, pages))
            finally:
                commits.close()
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
        "commit_to_read_model": model,
        "commit_to_page": page,
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
    parser.add_argument(
        "--schema", help="measure on the ledger in this schema (generated already: kept after)"
    )
    args = parser.parse_args()
    sys.setswitchinterval(0.0001)  # the listener and pollers note their moments promptly
    schema = args.schema or f"bench_followers_{uuid.uuid4().hex[:12]}"
    if not args.schema:
        with psycopg.connect(args.store, autocommit=True) as conn:
            conn.execute(SQL("CREATE SCHEMA {}").format(Identifier(schema)))
    store = f"{args.store}?schema={schema}"
    try:
        with tempfile.TemporaryDirectory() as work:
            os.environ.setdefault(KEYRING_VARIABLE, str(Path(work) / "keys"))
            counts = generate(store, args.games, args.players, 7) if not args.schema else {}
            result = measure(store, Path(work), args.servers, args.writes, args.quiet_seconds)
    finally:
        if not args.schema:
            with psycopg.connect(args.store, autocommit=True) as conn:
                conn.execute(SQL("DROP SCHEMA {} CASCADE").format(Identifier(schema)))
    print(json.dumps({"machine": machine(), "ledger": counts} | result, indent=2))


if __name__ == "__main__":
    main()
