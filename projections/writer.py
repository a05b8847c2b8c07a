"""Writing a read model being built: in this process (the default), or in one of its own.

With RATINGS_LEDGER_WRITER=process a rebuild rates in one process and hands every statement
to another through a pipe, so that SQLite's inserts run on the machine's other core while
rating goes on. On this project's shared 2-core machines it did not pay: the other core is
often busy, and pickling the rows costs the rater about what inserting them would
(docs/decisions.md). Nothing here knows the schema.
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Iterable
from typing import Any

PRAGMAS = ("journal_mode=OFF", "synchronous=OFF", "cache_size=-1048576")


def serve(path: str, pipe: Any) -> None:
    """Run the statements received on `pipe` in one transaction; at the end (None), commit and
    send back None, or the first error's text (nothing is committed then)."""
    conn = sqlite3.connect(path, isolation_level=None)
    error: str | None = None
    try:
        for pragma in PRAGMAS:
            conn.execute(f"PRAGMA {pragma}")
        conn.execute("begin")
        while (job := pipe.recv()) is not None:
            if error is not None:
                continue  # drain: the caller learns of the error at the end
            sql, args, many = job
            try:
                (conn.executemany if many else conn.execute)(sql, args)
            except Exception as exc:  # noqa: BLE001 - reported to the caller
                error = f"{type(exc).__name__}: {exc}"
        if error is None:
            conn.execute("commit")
    except EOFError:
        return  # the caller is gone: nothing is committed
    finally:
        conn.close()
    pipe.send(error)


class Writer:
    """The statements of a rebuild, as on a connection (`execute`, `executemany`), sent to
    `serve` in another process; `close` waits for the commit and raises any error."""

    def __init__(self, path: str) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.pipe, child = context.Pipe()
        self.process = context.Process(target=serve, args=(path, child), daemon=True)
        self.process.start()
        child.close()

    def execute(self, sql: str, args: Iterable[Any] = ()) -> None:
        self.pipe.send((sql, list(args), False))

    def executemany(self, sql: str, rows: Iterable[Any]) -> None:
        self.pipe.send((sql, rows if isinstance(rows, list) else list(rows), True))

    def close(self) -> None:
        try:
            self.pipe.send(None)
            error = self.pipe.recv()
        finally:
            self.pipe.close()
            self.process.join()
        if error is not None:
            raise sqlite3.DatabaseError(f"writing the read model: {error}")

    def abort(self) -> None:
        """Stop without committing (the rebuild failed)."""
        self.pipe.close()
        self.process.join()


class LocalWriter:
    """The statements run in this process, on one connection in one transaction."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        for pragma in PRAGMAS:
            self.conn.execute(f"PRAGMA {pragma}")
        self.conn.execute("begin")

    def execute(self, sql: str, args: Iterable[Any] = ()) -> None:
        self.conn.execute(sql, list(args))

    def executemany(self, sql: str, rows: Iterable[Any]) -> None:
        self.conn.executemany(sql, rows)

    def close(self) -> None:
        try:
            self.conn.execute("commit")
        finally:
            self.conn.close()

    def abort(self) -> None:
        self.conn.close()


def writer(path: str) -> Writer | LocalWriter:
    """The writer for a rebuild: this process, or another with RATINGS_LEDGER_WRITER=process
    on a machine with more than one core."""
    other = os.environ.get("RATINGS_LEDGER_WRITER") == "process" and (os.cpu_count() or 1) > 1
    return Writer(path) if other else LocalWriter(path)
