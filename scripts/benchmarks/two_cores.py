"""A rebuild's two processes on two idle cores, from CPU measured on a busy machine (issue 33).

On the shared machine the wall time of a rebuild says little (its processes wait for a core),
so this builds the wall time they would take on two idle cores from CPU time alone: the
rebuilding process runs with a writer that records each message with the CPU seconds the
rebuild had used when it was sent; the messages are then run, in order, on a new file as the
writer process runs them, each one's CPU measured; the two timelines are merged with the
rebuilding process held while more than `buffered` bytes it sent wait unread (the pipe, and
the queue before it), and the writer waiting for messages. Prints JSON: the rebuilding
process's CPU, the writer's, how long the first was held, how long it waited for the writer at
the end, and the merged wall time, each beside the raw read's CPU.

    python scripts/benchmarks/two_cores.py STORE [--buffered BYTES] [--family F]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from pathlib import Path
from typing import cast
from unittest import mock

import sqlite_utils

from ledger.application import RatingsLedger
from ledger.log import read_entries
from projections import rebuild, spooled_items, writer
from projections.projector import View
from projections.schema import create

Message = tuple[float, bytes]  # (the rebuild's CPU seconds when sent, the framed message)


class Recorder:
    """A writer process's connection that records each message instead of sending it; the
    files it is given to read (`shared`) kept open under new numbers, which the messages name
    instead (the rebuild closes its own before they are run)."""

    def __init__(self, clock: float, messages: list[Message], shared: Sequence[int]) -> None:
        self.clock, self.messages = clock, messages
        self.kept = {fd: os.dup(fd) for fd in shared}

    def _send(self, obj: object) -> None:
        data = writer._ENCODE(obj)
        self.messages.append(
            (time.process_time() - self.clock, writer._LENGTH.pack(len(data)) + data)
        )

    def execute(self, sql: str, args: Iterable[object] = ()) -> None:
        self._send((sql, list(args), False))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._send((sql, rows if isinstance(rows, list) else list(rows), True))

    def call(self, function: str, *args: object) -> None:
        if function == spooled_items.WRITE_ROWS:  # its first argument: the spool's descriptor
            fd, *rest = args
            args = (self.kept[cast(int, fd)], *rest)
        self._send((None, list(args), function))

    def close(self) -> None:
        self._send(None)

    def abort(self) -> None:
        pass


def recorded(store: str, family: str, workdir: Path) -> tuple[float, float, float, list[Message]]:
    """The raw read's CPU, the rebuild's CPU, when its writer started and its messages."""
    messages: list[Message] = []
    started: list[float] = []
    clock = [0.0]

    def open_writer(path: str, items: int, shared: Sequence[int]) -> Recorder:
        started.append(time.process_time() - clock[0])
        return Recorder(clock[0], messages, shared)

    with (
        mock.patch.object(rebuild, "open_writer", open_writer),
        closing(RatingsLedger(store)) as app,
    ):
        cpu = time.process_time()
        sum(1 for e in read_entries(app) if e.payload is not None)
        read = time.process_time() - cpu
        view = View(workdir / "model.db", family)
        clock[0] = time.process_time()
        view.rebuild(read_entries(app))
        total = time.process_time() - clock[0]
        view.close()
    return read, total, started[0], messages


def written(messages: list[Message], family: str, workdir: Path) -> list[float]:
    """Each message's CPU seconds as the writer process runs it, on a new file (the first
    figure: its connection and pragmas)."""
    path = str(workdir / "written.db")
    db = sqlite_utils.Database(path)
    for pragma in writer.PRAGMAS:
        db.execute(f"PRAGMA {pragma}")
    create(db, family, None)
    db.close()
    cpu = time.process_time()
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in writer.PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("begin")
    costs = [time.process_time() - cpu]
    for _, framed in messages:
        cpu = time.process_time()
        job = writer._DECODE(framed[writer._LENGTH.size :])
        if job is None:
            conn.execute("commit")
        else:
            sql, args, many = job
            if sql is None and isinstance(many, str):
                writer._call(conn, many, args)
            elif sql is None:
                writer.split_rows(conn, args, *many)
            elif many:
                conn.executemany(sql, args)
            else:
                conn.execute(sql, args)
        costs.append(time.process_time() - cpu)
    conn.close()
    return costs


def merged(
    messages: list[Message], costs: list[float], started: float, start_s: float, buffered: int
) -> tuple[float, float, float]:
    """(the rebuilding process's time held, its end, the writer's end) on two idle cores."""
    held = 0.0
    free = started + start_s + costs[0]  # when the writer next takes a message
    waiting: list[tuple[int, float]] = []  # (bytes, when the writer takes it) of sent ones
    for (at, framed), cost in zip(messages, costs[1:], strict=True):
        now = at + held
        while True:
            unread = [(size, taken) for size, taken in waiting if taken > now]
            if not unread or sum(s for s, _ in unread) + len(framed) <= buffered:
                break
            now = min(taken for _, taken in unread)  # held until the writer takes the next
        held = now - at
        taken = max(now, free)
        waiting.append((len(framed), taken))
        free = taken + cost
    return held, messages[-1][0] + held, free


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("store")
    parser.add_argument("--family", default="uschess")
    parser.add_argument("--buffered", type=int, nargs="+", default=[writer.PIPE_BYTES])
    parser.add_argument("--writer-start", type=float, default=0.05, help="seconds to start")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        read, total, started, messages = recorded(args.store, args.family, Path(folder))
        costs = written(messages, args.family, Path(folder))
    after = total - messages[-1][0]  # the rebuild's CPU after its last message
    out: dict[str, object] = {
        "raw_read_cpu_s": round(read, 3),
        "rebuild_cpu_s": round(total, 3),
        "rebuild_cpu_over_raw_read": round(total / read, 2),
        "writer_cpu_s": round(sum(costs), 3),
        "messages": len(messages),
        "megabytes": round(sum(len(m) for _, m in messages) / 1e6, 1),
    }
    for buffered in args.buffered:
        held, end, free = merged(messages, costs, started, args.writer_start, buffered)
        wall = max(end, free) + after
        out[f"buffered_{buffered}"] = {
            "rebuild_held_s": round(held, 3),
            "waiting_for_the_writer_at_the_end_s": round(max(0.0, free - end), 3),
            "wall_s": round(wall, 3),
            "wall_over_raw_read_cpu": round(wall / read, 2),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
