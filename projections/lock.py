"""One writer per read model across processes: an exclusive lock on a file beside it."""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BUSY_TIMEOUT_SECONDS = 120.0  # how long a read waits on another process's write to the file

_held: dict[tuple[str, int], int] = {}  # (lock file, thread) → depth: re-entrant per thread


@contextmanager
def exclusive(path: str) -> Iterator[None]:
    """Hold `PATH.lock` (flock): other processes and threads wait; the same thread re-enters."""
    lock = os.path.abspath(path) + ".lock"
    key = (lock, threading.get_ident())
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        _held[key] = 1
        try:
            yield
        finally:
            del _held[key]
