"""The replay's floor: what the rules' arithmetic alone costs beside the raw log read.

A full replay must at least read the log and run §1 Steps 2–5 of every (section, system) it
rates. This measures those Steps alone, over the very columns a replay of the ledger hands the
kernel (captured once), by the pure-Python kernel and by the compiled one, and what the
compiled kernel costs before its first rating (importing numba, loading the cached machine
code) in time and in memory, each in a process of its own.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.measure import summary

CHILD = """
import json, pickle, sys, time

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

calls = pickle.load(open(sys.argv[1], "rb"))
kind, repeats = sys.argv[2], int(sys.argv[3])
before = peak()
wall, cpu = time.perf_counter(), time.process_time()
if kind == "compiled":
    from ledger.rules.uschess.kernel_compiled import rate_compiled as rate
    rate(*calls[0])  # the first call loads the cached machine code
else:
    from ledger.rules.uschess.kernel import rate_python as rate
load = (time.perf_counter() - wall, time.process_time() - cpu)
samples = []
for _ in range(repeats):
    wall, cpu = time.perf_counter(), time.process_time()
    for args in calls:
        rate(*args)
    samples.append((time.perf_counter() - wall, time.process_time() - cpu))
print(json.dumps({"load": load, "samples": samples, "memory_mib": peak() - before}))
"""


def capture(store: str, workdir: Path) -> Path:
    """The kernel's arguments for every (section, system) a replay of `store` rates."""
    from ledger.application import RatingsLedger
    from ledger.log import read_entries
    from ledger.rules.uschess import section
    from projections.projector import View

    calls: list[tuple] = []
    rate_columns = section.rate_columns

    def recorded(*args, **kwargs):
        calls.append(args[:10])
        return rate_columns(*args, **kwargs)

    section.rate_columns = recorded
    try:
        app = RatingsLedger(store)
        try:
            view = View(Path(tempfile.mkdtemp(dir=workdir)) / "floor.db")
            view.rebuild(read_entries(app))
            view.close()
        finally:
            app.close()
    finally:
        section.rate_columns = rate_columns
    path = workdir / "kernel-calls.pickle"
    path.write_bytes(pickle.dumps(calls))
    return path


def floor(store: str, workdir: Path, repeats: int, raw_read: dict) -> dict:
    """Steps 2–5 alone, pure and compiled, against `raw_read` (measure.summary's figures)."""
    calls = capture(store, workdir)
    out: dict = {"sections_rated": len(pickle.loads(calls.read_bytes()))}
    for kind in ("pure", "compiled"):
        command = [sys.executable, "-c", CHILD, str(calls), kind, str(repeats)]
        # a run first, not counted: the compiled kernel's first ever run compiles it into
        # numba's cache, which every later process loads (as a deployed one would)
        subprocess.run(command, capture_output=True)
        found = subprocess.run(command, capture_output=True, text=True)
        if found.returncode != 0:
            out[kind] = {"error": found.stderr.strip().splitlines()[-1]}
            continue
        data = json.loads(found.stdout)
        steps = summary(data["samples"])
        out[kind] = {
            "steps_2_to_5": steps,
            "over_raw_read_median": round(steps["median_s"] / raw_read["median_s"], 2),
            "before_first_rating_s": round(data["load"][0], 3),
            "before_first_rating_over_raw_read": round(data["load"][0] / raw_read["median_s"], 2),
            "memory_mib": round(data["memory_mib"], 1),
        }
    return out
