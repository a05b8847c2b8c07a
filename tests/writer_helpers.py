"""What tests/test_rebuild_writer.py has a rebuild's writer process run (`Writer.call`)."""

import time
from pathlib import Path
from typing import Any


def wait_for(conn: Any, path: str) -> None:
    """Hold the writer process until `path` exists (a writer busy with a burst)."""
    while not Path(path).exists():
        time.sleep(0.01)


def note_collector(conn: Any) -> None:
    """Store whether the writer process's cycle collector is on (a row of table `t`)."""
    import gc

    conn.execute("insert into t values (?, ?, ?)", [int(gc.isenabled()), "gc", "gc"])
