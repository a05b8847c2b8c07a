"""The machine's faults as one line: a full disk, a read-only file system, a file that cannot be
opened, a number no store column holds (issue 18, "Faults"). Light to import."""

from __future__ import annotations

import errno
import sqlite3

from ledger.bounds import MAX_INTEGER

_FULL = "the disk is full: free some space and run the command again (nothing was half-written)"
_READ_ONLY = (
    "cannot write a file the command needs (a read-only file system, or no permission): "
    "run it where the ledger's folder is writable, or give --view a writable path"
)


def describe(exc: BaseException) -> str:
    """One line saying what went wrong and what to do, for a fault of the machine."""
    if isinstance(exc, OverflowError):
        return f"a number is beyond what the ledger stores (at most {MAX_INTEGER})"
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno == errno.ENOSPC:
            return _FULL
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return _READ_ONLY + where
        return f"{exc.strerror or exc}{where}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    lowered = text.lower()
    if "disk is full" in lowered:
        return _FULL
    if "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
        return _READ_ONLY
    if isinstance(exc, sqlite3.Error) or "sqlite" in type(exc).__module__:
        return f"the database cannot be used: {text}"
    return text


def machine_faults() -> tuple[type[BaseException], ...]:
    """The exception classes `describe` speaks for (the store's driver errors included)."""
    from eventsourcing.persistence import PersistenceError

    return (sqlite3.Error, OSError, OverflowError, PersistenceError)
