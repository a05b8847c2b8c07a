"""The read model's file: each build is a file of its own, and the model's path a link to it.

SQLite opens a database's write-ahead log and shared memory by name (`NAME-wal`, `NAME-shm`,
the link resolved) at a connection's first read, after the file itself. Had a rebuild moved
its new file over the path, a reader that had just connected would read the old file through
the new model's log (a mixture of both, or "disk I/O error"). Behind a link every build has
names of its own, and the build a link replaces stays whole until the next link, so such a
reader reads the model it opened.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path

_BUILD = ".build-"  # PATH.build-HEX: one build of the read model at PATH


def new_build(path: str) -> str:
    """A fresh name for a build of the read model at `path`, beside it."""
    return f"{path}{_BUILD}{uuid.uuid4().hex}"


def current(path: str) -> Path | None:
    """The build `path` links to (None: no link; an older model's plain file or nothing)."""
    p = Path(path)
    return p.parent / os.readlink(p) if p.is_symlink() else None


def start(path: str) -> None:
    """An empty build linked in as the read model at `path`."""
    build = new_build(path)
    link(path, build)


def link(path: str, build: str) -> None:
    """Make `path` the link to `build` in one step (a rename over the old link or file). The
    build it replaced stays, whole, for connections still open on it, until the next link;
    older builds, and any an interrupted rebuild left, go. The build is put in WAL mode first:
    setting it takes a lock SQLite does not wait for, so readers opening the new model
    together would race to set it ("database is locked")."""
    with closing(sqlite3.connect(build)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
    old = current(path)
    tmp = build + ".link"
    Path(tmp).unlink(missing_ok=True)
    os.symlink(os.path.basename(build), tmp)
    os.replace(tmp, path)
    keep = {Path(build).name, None if old is None else old.name}
    for f in Path(path).parent.glob(Path(path).name + _BUILD + "*"):
        if f.name.removesuffix("-wal").removesuffix("-shm").removesuffix("-journal") not in keep:
            f.unlink(missing_ok=True)
