"""Writing a read model being built: in this process, or in one of its own.

A large rebuild rates in one process and hands every statement to another through a pipe,
so that SQLite's inserts run on the machine's other core while rating goes on (about 13 %
off a million-game rebuild on two idle cores; docs/decisions.md); a thread of the rating
process feeds the pipe from a queue, so that a burst the writer is behind on (the name tables
it makes, the items' facts) waits there while rating goes on (issue 33). A small one writes in
this process: starting a process would cost more than it saves. RATINGS_LEDGER_WRITER=local
or =process chooses. Nothing here knows the schema; this module runs as the other process's
program too (`python -m projections.writer`: the standard library and msgspec only, it starts
in a few milliseconds). Work that only makes rows from what a rebuild read (the players' name
tables) is done there too, by a function named to `call` (imported there when first called,
compiled where built: ledger/compiled.py).
"""

from __future__ import annotations

import gc
import importlib
import os
import queue
import sqlite3
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

import msgspec

# cache_size: 4 MiB of pages. Every table is loaded in its key's order (b-trees only appended
# to) and pages the cache lets go are written to the file (no journal) and read back from the
# OS's cache, so a larger cache saves no time: with 64 MiB it filled, and a million-game
# writer peaked at 144 MiB instead of 50 (issue 21; docs/decisions.md).
PRAGMAS = ("journal_mode=OFF", "synchronous=OFF", "cache_size=-4096")
LARGE = 1_000  # rated items (about 50,000 games) from which a rebuild writes elsewhere
_LENGTH = struct.Struct("<Q")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # `projections` is found here


_ENCODE = msgspec.msgpack.Encoder().encode  # 8× faster than pickle on history rows
_DECODE = msgspec.msgpack.Decoder().decode


def _framed(obj: object) -> tuple[bytes, bytes]:
    data = _ENCODE(obj)
    return _LENGTH.pack(len(data)), data


def _send(stream: IO[bytes], obj: object) -> None:
    for part in _framed(obj):
        stream.write(part)


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    return _DECODE(stream.read(_LENGTH.unpack(head)[0]))


# One part of a table split in several (projections/history_store.py): its table, the columns
# [start, stop) of each row it takes (after the row's number, its first column), and those
# columns' values in a row that has no such part (None: every row has one).
Part = tuple[str, int, int, tuple[object, ...] | None]


def parts(
    numbered: Iterable[tuple[int, Sequence[object]]], spec: Iterable[Part]
) -> list[list[tuple[object, ...]]]:
    """Each part's rows of (number, row) pairs: (number, *columns), where the row has it."""
    cuts = [(start, stop, None if skip is None else tuple(skip)) for _, start, stop, skip in spec]
    out: list[list[tuple[object, ...]]] = [[] for _ in cuts]
    for number, row in numbered:
        for rows, (start, stop, skip) in zip(out, cuts, strict=True):
            values = tuple(row[start:stop])
            if values != skip:
                rows.append((number, *values))
    return out


def split_rows(
    conn: sqlite3.Connection, rows: Sequence[Sequence[object]], first: int, spec: list[Part]
) -> None:
    """Rows numbered from `first` into each part's table: bound once, as they came, into a
    temporary table of their width (emptied after each chunk, so SQLite numbers them from 1),
    each part's columns then copied from there by SQL. Splitting them in Python instead took
    a fifth more of the writer's CPU (docs/benchmarks/replay.md, session 13)."""
    if not rows:
        return
    width = len(rows[0])
    stage = f"temp.split_{width}"
    columns = ", ".join(f"c{i}" for i in range(width))
    conn.execute(f"create temp table if not exists split_{width} ({columns})")
    conn.executemany(f"insert into {stage} values ({', '.join('?' * width)})", rows)
    for table, start, stop, skip in spec:
        taken = ", ".join(f"c{i}" for i in range(start, stop))
        where = ""
        if skip is not None:  # a row without the part has exactly these values there
            where = " where not (" + " and ".join(f"c{i} is ?" for i in range(start, stop)) + ")"
        conn.execute(
            f"insert into {table} select rowid + ?, {taken} from {stage}{where}",
            [first - 1, *(skip or ())],
        )
    conn.execute(f"delete from {stage}")


def _call(conn: sqlite3.Connection, function: str, args: Sequence[object]) -> None:
    """`function` ("module:name") called with `conn` and `args`."""
    importlib.import_module("ledger")  # the compiled modules, where built (ledger/compiled.py)
    module, _, name = function.partition(":")
    getattr(importlib.import_module(module), name)(conn, *args)


# A None's adapter: None (bound as NULL), from a method of C (`{}.get(None)`), not a Python
# function's call. Without one, Python 3.11's sqlite3 raises and clears two AttributeErrors
# looking for one, for every None it binds: about 0.5 µs, and a history row holds about ten.
_NULL: Callable[[None], None] = dict[None, None]().get


def serve(path: str, source: IO[bytes], reply: IO[bytes]) -> None:
    """Run the statements read from `source` in one transaction; at the end (None), commit
    and write back None, or the first error's text (nothing is committed then)."""
    # This process binds rows for the writer alone: a None answered by an adapter at once, not
    # looked up (docs/decisions.md, "The writer process's NULLs").
    sqlite3.register_adapter(type(None), _NULL)
    # Nor does it run the cycle collector: its rows are acyclic tuples, freed by reference
    # counting, and the collector's passes over them were some 5 % of its CPU at 10M games
    # (docs/decisions.md, "The writer process without the cycle collector (issue 33)").
    gc.disable()
    conn = sqlite3.connect(path, isolation_level=None)
    error: str | None = None
    try:
        for pragma in PRAGMAS:
            conn.execute(f"PRAGMA {pragma}")
        conn.execute("begin")
        while (job := _receive(source)) is not None:
            if error is not None:
                continue  # drain: the caller learns of the error at the end
            sql, args, many = job
            try:
                if sql is None and isinstance(many, str):  # a function's name: `call`
                    _call(conn, many, args)
                elif many:
                    conn.executemany(sql, args)
                else:
                    conn.execute(sql, args)
            except Exception as exc:  # noqa: BLE001 - reported to the caller
                error = f"{type(exc).__name__}: {exc}"
        if error is None:
            conn.execute("commit")
    except EOFError:
        return  # the caller is gone: nothing is committed
    finally:
        conn.close()
    _send(reply, error)
    reply.flush()


# The pipe's buffer (Linux's default is 64 KiB): a burst of records, the items' facts before
# rating above all, waits there while the writer catches up, not in this process's write.
PIPE_BYTES = 1 << 20
# Messages held in the rating process beyond the pipe (`Writer`'s queue), each a chunk of rows
# (a few hundred KB: HISTORY_CHUNK history rows about 600 KB) or one call: the 100k ledger's
# rating process was held 0.06-0.12 s by a full pipe, a 300,000-game ledger of 200,000
# players' about 8 s while the writer made the name tables (docs/benchmarks/replay.md).
QUEUE_MESSAGES = 48
# ... and at most this many bytes of them (one message over it waits alone): a chunk of
# history rows at 200,000 players is some 1.5 MB framed, and 40 of them queued while the writer
# made the name tables were a 1M-game rebuild's peak (docs/benchmarks/rebuild-memory.md,
# "Session 15"). The rating waits for the writer beyond it (wall time, not CPU).
QUEUE_BYTES = 16 << 20


def _widen(stream: IO[bytes]) -> None:
    """The pipe's buffer raised to PIPE_BYTES where the system allows (Linux's F_SETPIPE_SZ, up
    to /proc/sys/fs/pipe-max-size for an unprivileged process); elsewhere it stays as it is."""
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class Writer:
    """The statements of a rebuild, as on a connection (`execute`, `executemany`), sent to
    `serve` in another process; `close` waits for the commit and raises any error. `shared`:
    descriptors of this process's files open in that one too, under the same numbers (a
    function it is told to `call` may read them: the rebuild's spool)."""

    def __init__(self, path: str, shared: Sequence[int] = ()) -> None:
        # run as a module of its package (not a script by path), so that what it imports is
        # found as in this process, compiled where built
        self.process = subprocess.Popen(
            [sys.executable, "-m", "projections.writer", os.path.abspath(path)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=tuple(shared),
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.to, self.back = self.process.stdin, self.process.stdout
        _widen(self.to)
        # the framed messages on their way, in order (None: no more), written by `_forward`
        self.queue: queue.Queue[tuple[bytes, bytes] | None] = queue.Queue(QUEUE_MESSAGES)
        # the queued messages' bytes, at most QUEUE_BYTES (`_send` waits on `drained`)
        self.queued = 0
        self.drained = threading.Condition()
        self.broken = False  # the pipe broke: the writer process ended
        self.forwarding = threading.Thread(target=self._forward, daemon=True)
        self.forwarding.start()

    def _forward(self) -> None:
        """The queued messages into the pipe (its writes let the rating thread run); once the
        pipe broke, the rest taken and dropped, so that nothing waits on a full queue."""
        while (framed := self.queue.get()) is not None:
            if not self.broken:
                try:
                    for part in framed:
                        self.to.write(part)
                except (OSError, ValueError):  # a broken pipe (or closed): the process ended
                    self.broken = True
            with self.drained:
                self.queued -= len(framed[1])
                self.drained.notify()

    def _send(self, obj: object) -> None:
        framed = _framed(obj)
        size = len(framed[1])
        with self.drained:
            while self.queued and self.queued + size > QUEUE_BYTES:
                self.drained.wait()
            self.queued += size
        self.queue.put(framed)

    def execute(self, sql: str, args: Iterable[object] = ()) -> None:
        self._send((sql, list(args), False))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._send((sql, rows if isinstance(rows, list) else list(rows), True))

    def call(self, function: str, *args: object) -> None:
        """`function` ("module:name") called there with the connection and `args`: the rows
        it makes from them are made in the writer's process."""
        self._send((None, list(args), function))

    def _drain(self) -> None:
        """Wait until every queued message is written (or dropped) and the thread ended."""
        self.queue.put(None)
        self.forwarding.join()

    def close(self) -> None:
        self._drain()
        try:
            if self.broken:
                raise BrokenPipeError
            _send(self.to, None)
            self.to.close()
            error = _receive(self.back)
        except (EOFError, BrokenPipeError):
            error = f"the writer process ended ({self.process.wait()})"
        finally:
            self.process.wait()
        if error is not None:
            raise sqlite3.DatabaseError(f"writing the read model: {error}")

    def abort(self) -> None:
        """Stop without committing (the rebuild failed)."""
        self.process.kill()
        self.process.wait()
        self._drain()  # the thread's write fails on the ended process's pipe, and it ends


class LocalWriter:
    """The statements run in this process, on one connection in one transaction."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in PRAGMAS:
            self.conn.execute(f"PRAGMA {pragma}")
        self.conn.execute("begin")

    def execute(self, sql: str, args: Iterable[object] = ()) -> None:
        self.conn.execute(sql, list(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.conn.executemany(sql, rows)

    def call(self, function: str, *args: object) -> None:
        """`function` ("module:name") called with the connection and `args`."""
        _call(self.conn, function, args)

    def close(self) -> None:
        try:
            self.conn.execute("commit")
        finally:
            self.conn.close()

    def abort(self) -> None:
        self.conn.close()


def writer(path: str, items: int, shared: Sequence[int] = ()) -> Writer | LocalWriter:
    """The writer for a rebuild of `items` rated items: another process for a large one on a
    machine with more than one core, else this one (RATINGS_LEDGER_WRITER=local|process);
    `shared`: the files open in this process it may read (`Writer`)."""
    chosen = os.environ.get("RATINGS_LEDGER_WRITER")
    if chosen is None:
        spare = (os.cpu_count() or 1) > 1 and bool(sys.executable)
        chosen = "process" if items >= LARGE and spare else "local"
    return Writer(path, shared) if chosen == "process" else LocalWriter(path)


if __name__ == "__main__":
    serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer)
