"""As known at a position, from the read model's record (projections/knowledge.py, issue 33):
one player's history in every system and his rating on a day as the ledger said them at a past
position, read for players drawn at random; milliseconds (wall and CPU), median and p95, with
the record's size. `scripts/bench.py` measures it beside the past model built from a checkpoint.
"""

from __future__ import annotations

import random
import statistics
import time

from projections import queries
from projections.projector import View

READS = 200


def known_reads(view: View, position: int, seed: int) -> dict:
    """`READS` players' history (every system) and rating on a day of theirs, as known at
    `position`, from the record of `view` (caught up past it)."""
    rng = random.Random(seed)
    players = [r[0] for r in view.db.execute("select distinct player from ratings")]
    walls, cpus = [], []
    for _ in range(READS):
        player = rng.choice(players)
        wall, cpu = time.perf_counter(), time.process_time()
        rows = queries.history_known_at(view, player, position)
        for system, found in rows.items():
            day = found[len(found) // 2]["end_date"]
            queries.rating_known_at(view, player, system, day, position)
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
    walls.sort()
    cpus.sort()
    past, present = view.db.execute(
        "select count(*), coalesce(sum(present), 0) from history_past"
    ).fetchone()
    return {
        "position": position,
        "reads": READS,
        "median_ms": round(statistics.median(walls), 3),
        "p95_ms": round(walls[int(0.95 * len(walls))], 3),
        "median_cpu_ms": round(statistics.median(cpus), 3),
        "p95_cpu_ms": round(cpus[int(0.95 * len(cpus))], 3),
        "kept_rows": present,
        "kept_marks": past - present,
        "history_rows": view.db.execute("select count(*) from history_rows").fetchone()[0],
    }
