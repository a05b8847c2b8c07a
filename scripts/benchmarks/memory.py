"""A rebuild's peak resident memory, in a process of its own, beside one that only imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REBUILD_CHILD = """
import json, os, sys, threading, time
from contextlib import closing
from ledger.application import RatingsLedger
from ledger.log import read_entries
from projections import writer
from projections.projector import View

def peak(pid="self"):
    # VmHWM: the high-water mark of this process image (ru_maxrss would carry the size of
    # the process that started it across fork and exec); None once the process is gone
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None

writers = [0]
start = writer.Writer.__init__
def watched(self, path, *shared):
    # the writer's mark read until it ends: its index builds and commit come after the
    # rebuild's last statement (read at `close`, they were not counted)
    start(self, path, *shared)
    def poll(pid=self.process.pid):
        while (found := peak(pid)) is not None:
            writers[0] = max(writers[0], found)
            time.sleep(0.005)
    threading.Thread(target=poll, daemon=True).start()
writer.Writer.__init__ = watched
cpu = 0.0
with closing(RatingsLedger(sys.argv[1])) as app:
    if sys.argv[3] == "rebuild":
        cpu = time.process_time()
        View(sys.argv[2]).rebuild(read_entries(app))
        cpu = time.process_time() - cpu
times = os.times()  # the writer's CPU: a child that ended
print(json.dumps({"self_kib": peak(), "writer_kib": writers[0], "cpu_s": cpu,
                  "writer_cpu_s": times.children_user + times.children_system}))
"""


def peak_memory(store: str, workdir: Path, repeats: int) -> dict:
    """Peak resident memory (VmHWM) of a full rebuild in a process of its own, and of its
    writer process if it starts one; beside a process that imports the same and opens the
    ledger but rebuilds nothing (what the interpreter and the imports take)."""
    view = workdir / "memory-view.db"

    def child(mode: str) -> dict:
        return rebuild_child(store, view, mode)

    idle = [child("idle")["self_kib"] for _ in range(2)]
    rebuilt = [child("rebuild") for _ in range(max(1, min(repeats, 2)))]
    mib = 1 / 1024
    own = max(r["self_kib"] for r in rebuilt) * mib
    writer = max(r["writer_kib"] for r in rebuilt) * mib
    return {
        "rebuild_process_peak_mib": round(own, 1),
        "writer_process_peak_mib": round(writer, 1),
        "both_mib": round(own + writer, 1),
        "imports_only_peak_mib": round(min(idle) * mib, 1),
        "rebuild_over_imports_mib": round(own - min(idle) * mib, 1),
    }


def rebuild_child(store: str, view: Path, mode: str = "rebuild") -> dict:
    """One rebuild of `store` into `view` in a process of its own (`mode` "idle": none): the
    peaks (VmHWM, KiB) of that process and its writer's, and their CPU seconds."""
    out = subprocess.run(
        [sys.executable, "-c", REBUILD_CHILD, store, str(view), mode],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
