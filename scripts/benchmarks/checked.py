"""A checked replay: the read model rebuilt as a session rebuilds it, every write's signature
checked (issue 28), in the rebuilding process or in another one beside it (issue 33,
ledger/elsewhere.py), alternately, beside the raw read.

Reports each way's wall, the rebuilding process's CPU and its children's (the writer process
and the check's), and the ratios over the raw read.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from benchmarks.measure import ratio, summary
from ledger import elsewhere
from projections.session import ReadSession

WAYS = {"checked_here": 10**15, "checked_elsewhere": elsewhere.LARGE}  # way → its LARGE


def _rebuild(store: str, path: Path) -> tuple[float, float, float]:
    """(wall, this process's CPU, its children's CPU) of one session rebuild."""
    before, wall, cpu = os.times(), time.perf_counter(), time.process_time()
    with ReadSession.open(store, path) as session:
        session.rebuild()
    after = os.times()
    children = after.children_user + after.children_system
    children -= before.children_user + before.children_system
    return time.perf_counter() - wall, time.process_time() - cpu, children


def checked_replay(store: str, workdir: Path, repeats: int, read_s: dict) -> dict:
    """Each way `repeats` times, alternately (here, elsewhere, here, …)."""
    samples: dict[str, list[tuple[float, float, float]]] = {way: [] for way in WAYS}
    large = elsewhere.LARGE
    try:
        for _ in range(repeats):
            for way, threshold in WAYS.items():
                elsewhere.LARGE = threshold
                samples[way].append(_rebuild(store, workdir / f"checked-{way}.db"))
    finally:
        elsewhere.LARGE = large
    out = {}
    for way, runs in samples.items():
        clocks = summary([(w, c) for w, c, _ in runs])
        out[way] = {
            **clocks,
            "children_median_cpu_s": round(statistics.median(k for _, _, k in runs), 3),
            "over_raw_read": ratio(clocks, read_s),
        }
    return out
