"""A rebuild's two processes over time: the CPU of each per phase, where each idles (issue 33).

One `View.rebuild` of STORE with its real writer process (RATINGS_LEDGER_WRITER=process, so
that a small ledger has one too); a thread samples every `--every` seconds the CPU of this
process (the rebuild and the thread feeding the pipe) and of the writer (/proc), and the bytes
queued for it; every message to the writer is noted (its kind, when, this process's CPU then).
The phases are cut by the rebuild's own steps: the log read (to its last entry), the records
before rating, the rating (the history rows' chunks), the `ratings` rows, and the tail (the
last message to the end: the writer's queue drained, its indexes, the commit). Prints JSON:
each phase's wall and both processes' CPU in it, and with `--samples` the samples.

    python scripts/benchmarks/timeline.py STORE [--every 0.2] [--samples] [--family F]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from ledger.application import RatingsLedger
from ledger.log import LedgerEntry, read_entries
from projections import writer
from projections.projector import View

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float | None:
    """A process's user + system CPU seconds (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def peak_of(pid: int) -> int | None:
    """A process's VmHWM in KiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Watch:
    """The samples and the messages of one rebuild, timed from `start`."""

    def __init__(self, every: float) -> None:
        self.every = every
        self.start = time.perf_counter()
        self.cpu0 = cpu_of(os.getpid()) or 0.0
        self.samples: list[tuple[float, float, float, int]] = []  # wall, own, writer, queued
        self.marks: list[tuple[float, float, str]] = []  # wall, own CPU, what
        self.writer: writer.Writer | None = None
        self.writer_cpu = 0.0
        self.writer_peak = 0
        self.done = threading.Event()
        times = os.times()
        self.children0 = times.children_user + times.children_system

    def now(self) -> tuple[float, float]:
        return time.perf_counter() - self.start, (cpu_of(os.getpid()) or 0.0) - self.cpu0

    def mark(self, what: str) -> None:
        wall, own = self.now()
        self.marks.append((wall, own, what))

    def sample(self) -> None:
        wall, own = self.now()
        queued = 0
        if self.writer is not None:
            found = cpu_of(self.writer.process.pid)
            if found is not None:
                self.writer_cpu = found
            self.writer_peak = max(self.writer_peak, peak_of(self.writer.process.pid) or 0)
            queued = self.writer.queued
        self.samples.append((wall, own, self.writer_cpu, queued))

    def run(self) -> None:
        while not self.done.wait(self.every):
            self.sample()


def kind(obj: Any) -> str:
    """A message's kind: its statement's first words, or the function it calls."""
    if obj is None:
        return "end"
    sql, _, many = obj
    if sql is None:
        return f"call {many}" if isinstance(many, str) else "split history"
    words = sql.split()
    return " ".join(words[:3] if words[0] == "insert" else words[:4])


def watched(watch: Watch) -> None:
    """`writer.Writer` made to note its process and each message it is given."""
    start, send, close = writer.Writer.__init__, writer.Writer._send, writer.Writer.close

    def init(self: writer.Writer, path: str, *shared: Any) -> None:
        start(self, path, *shared)
        watch.writer = self
        watch.mark("writer started")

    def sent(self: writer.Writer, obj: object) -> None:
        watch.mark(kind(obj))
        send(self, obj)

    def closed(self: writer.Writer) -> None:
        watch.mark("close")
        close(self)
        times = os.times()  # the writer ended: its CPU is this process's children's
        watch.writer_cpu = times.children_user + times.children_system - watch.children0

    writer.Writer.__init__ = init  # type: ignore[method-assign]
    writer.Writer._send = sent  # type: ignore[method-assign]
    writer.Writer.close = closed  # type: ignore[method-assign]


def logged(entries: Iterator[LedgerEntry], watch: Watch) -> Iterator[LedgerEntry]:
    yield from entries
    watch.mark("log read")


PHASES = ("log", "records", "rating", "ratings", "tail")
# a chunk of history rows: split by SQL (before 027d41a), or now made by the writer's `call`
HISTORY = ("split history", "call projections.history_store:append_printed")


def phases(watch: Watch, end: tuple[float, float]) -> dict[str, tuple[float, float]]:
    """Each phase's (wall, own CPU) at its end."""
    marks = watch.marks
    log = next(m for m in marks if m[2] == "log read")
    splits = [m for m in marks if m[2] in HISTORY]
    ratings = [m for m in marks if m[2] == "insert into ratings"]
    last = [m for m in marks if m[2] not in ("close", "end")][-1]
    first_split = splits[0] if splits else log
    return {
        "log": log[:2],
        "records": first_split[:2],
        "rating": splits[-1][:2] if splits else log[:2],
        "ratings": (ratings[-1] if ratings else last)[:2],
        "tail": end,
    }


def writer_at(samples: list[tuple[float, float, float, int]], wall: float) -> float:
    """The writer's CPU at `wall`, between the samples around it."""
    before = [s for s in samples if s[0] <= wall]
    after = [s for s in samples if s[0] >= wall]
    if not before:
        return 0.0
    if not after:
        return before[-1][2]
    a, b = before[-1], after[0]
    if b[0] == a[0]:
        return a[2]
    return a[2] + (b[2] - a[2]) * (wall - a[0]) / (b[0] - a[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("store")
    parser.add_argument("--family", default="uschess")
    parser.add_argument("--every", type=float, default=0.2)
    parser.add_argument("--samples", action="store_true")
    args = parser.parse_args()
    os.environ["RATINGS_LEDGER_WRITER"] = "process"
    with tempfile.TemporaryDirectory() as folder, closing(RatingsLedger(args.store)) as app:
        view = View(Path(folder) / "model.db", args.family)
        watch = Watch(args.every)
        watched(watch)
        sampler = threading.Thread(target=watch.run, daemon=True)
        sampler.start()
        view.rebuild(logged(read_entries(app), watch))
        end = watch.now()
        watch.done.set()
        sampler.join()
        view.close()
    cuts = phases(watch, end)
    out: dict[str, Any] = {"phases": {}}
    wall0 = own0 = writer0 = 0.0
    for name in PHASES:
        wall, own = cuts[name]
        at = watch.writer_cpu if name == "tail" else writer_at(watch.samples, wall)
        out["phases"][name] = {
            "wall_s": round(wall - wall0, 2),
            "rebuild_cpu_s": round(own - own0, 2),
            "writer_cpu_s": round(at - writer0, 2),
        }
        wall0, own0, writer0 = wall, own, at
    out["wall_s"] = round(end[0], 2)
    out["rebuild_cpu_s"] = round(end[1], 2)
    out["writer_cpu_s"] = round(watch.writer_cpu, 2)
    out["writer_started_s"] = next(round(m[0], 2) for m in watch.marks if m[2] == "writer started")
    out["rebuild_peak_mib"] = round((peak_of(os.getpid()) or 0) / 1024, 1)
    out["writer_peak_mib"] = round(watch.writer_peak / 1024, 1)
    out["loadavg"] = os.getloadavg()
    counts: dict[str, int] = {}
    for _, _, what in watch.marks:
        counts[what] = counts.get(what, 0) + 1
    out["messages"] = counts
    if args.samples:
        out["samples"] = [[round(x, 2) for x in s[:3]] + [s[3]] for s in watch.samples]
        out["marks"] = [
            [round(w, 2), round(c, 2), what]
            for w, c, what in watch.marks
            if what not in (*HISTORY, "call projections.spooled_items:write_rows")
            and not what.startswith("insert into item_players")
        ]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
