"""A PostgreSQL store's follower, its cost per append (issue 33: servers "notified of new
entries"): what `scripts/benchmarks/followers.py` measures from outside, here in the follower's
own process, where its thread's CPU time can be read.

Generates a ledger (scripts/generate.py) into a fresh schema of `--store`'s database, starts a
`Follower` (ledger/entrypoints/web/follow.py) of it in this process with a read model of its
own, and appends `--writes` new sections (a copy of the last one under a new id, a day after
every other item), each once the follower is quiet. For each: the seconds from the append's
return to the read model at its position (read from the file), and the CPU time the follower's
thread spent meanwhile (its notification, the read, the check of the signatures, the rating and
the model's commit). Prints JSON (medians, best, worst); the schema is dropped after.

    .venv/bin/python scripts/benchmarks/follower_cost.py --store postgresql://postgres@127.0.0.1/test
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from contextlib import closing
from pathlib import Path

import psycopg
from psycopg.sql import SQL, Identifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # scripts/, however loaded
from benchmarks.followers import ms, seconds_until  # noqa: E402
from benchmarks.live import sections_after  # noqa: E402
from benchmarks.measure import generate, machine  # noqa: E402
from ledger.application import RatingsLedger  # noqa: E402
from ledger.commands import SubmitSection, parse  # noqa: E402
from ledger.entrypoints.web.follow import QUIET_SECONDS, Follower  # noqa: E402
from ledger.evidence.signing import KEYRING_VARIABLE  # noqa: E402


def measure(store: str, view: Path, writes: int) -> dict:
    """The follower's latency and CPU per append, on the ledger at `store`."""
    follower = Follower(store, view).start()
    try:
        with closing(RatingsLedger(store)) as app:
            seconds_until([view], app.recorder.max_notification_id() or 0, time.perf_counter())
            assert follower.thread.ident is not None
            clock = time.pthread_getcpuclockid(follower.thread.ident)
            _, new_section = sections_after(app)
            latency, cpu = [], []
            for n in range(writes):
                time.sleep(4 * QUIET_SECONDS)  # the follower quiet, its model checkpointed
                spent = time.clock_gettime(clock)
                app.sections.submit(parse(SubmitSection, new_section(n)), actor="td")
                back, head = time.perf_counter(), app.recorder.max_notification_id() or 0
                latency.append(seconds_until([view], head, back)[0])
                cpu.append(time.clock_gettime(clock) - spent)
    finally:
        follower.stop()
    return {"append_to_read_model_ms": ms(latency), "follower_cpu_ms": ms(cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--writes", type=int, default=20)
    args = parser.parse_args()
    schema = f"bench_follower_cost_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(args.store, autocommit=True) as conn:
        conn.execute(SQL("CREATE SCHEMA {}").format(Identifier(schema)))
    store = f"{args.store}?schema={schema}"
    try:
        with tempfile.TemporaryDirectory() as work:
            os.environ.setdefault(KEYRING_VARIABLE, str(Path(work) / "keys"))
            counts = generate(store, args.games, args.players, 7)
            result = measure(store, Path(work) / "view.db", args.writes)
    finally:
        with psycopg.connect(args.store, autocommit=True) as conn:
            conn.execute(SQL("DROP SCHEMA {} CASCADE").format(Identifier(schema)))
    print(json.dumps({"machine": machine(), "ledger": counts, "writes": args.writes} | result))


if __name__ == "__main__":
    main()
