"""What tests/test_rebuild_writer.py has a rebuild's writer process run (`Writer.call`)."""

import time
from pathlib import Path
from typing import Any


def wait_for(conn: Any, path: str) -> None:
    """Hold the writer process until `path` exists (a writer busy with a burst)."""
    while not Path(path).exists():
        time.sleep(0.01)
