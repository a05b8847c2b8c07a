"""Benchmark rating proofs (issue 18): a FIDE list's commitment, one player's bundle (its size
and hash count) and `verify-rating`'s offline check, on a generated ledger with two lists.

    python scripts/bench_proofs.py [--games 20000] [--players 2000] [--repeats 3]

The player is the one with the most games in the second list's period. Prints JSON with the
machine it ran on; times are medians.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import closing
from datetime import date
from pathlib import Path

from typer.testing import CliRunner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the other scripts, importable by name


def _cli(*args: str) -> str:
    from ledger.entrypoints.cli import app

    result = CliRunner().invoke(app, list(args))
    if result.exit_code != 0:
        raise SystemExit(f"{' '.join(args[:2])}: {result.output.strip()}")
    return result.output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from ledger.evidence import Checkpoint
    from ledger.reading import open_ledger
    from projections import binding, proofs, queries
    from projections.projector import View
    from projections.timetravel import list_view

    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:///{tmp}/ledger.db"
        os.environ["RATINGS_LEDGER_KEYRING"] = f"{tmp}/keys"
        importlib.import_module("generate").generate(
            store, args.players, args.games, 1, date(2023, 1, 1), 2
        )
        publish = [
            "publish-list",
            "--store",
            store,
            "--family",
            "fide",
            "--actor",
            "ratings-office",
        ]
        began = time.perf_counter()
        _cli(*publish, "--name", "2024-01", "--as-of", "2024-01-01")
        first_commit = time.perf_counter() - began
        began = time.perf_counter()
        _cli(*publish, "--name", "2025-01", "--as-of", "2025-01-01")
        second_commit = time.perf_counter() - began
        with closing(open_ledger(store)) as ledger:
            view = View(f"{tmp}/ledger.fide.view.db", "fide")
            binding.catch_up(view, ledger, iter(()))
            busiest = view.db.execute(
                "select player, count(*) from history where kind = 'section' "
                "and json_extract(detail, '$.list') = '2025-01' group by player "
                "order by sum(m) desc limit 1"
            ).fetchone()[0]
            games = view.db.execute(
                "select sum(m) from history where player = ? and kind = 'section' "
                "and json_extract(detail, '$.list') = '2025-01'",
                [busiest],
            ).fetchone()[0]
            makes = []
            for _ in range(args.repeats):
                began = time.perf_counter()
                with (
                    list_view(ledger, view, "2025-01") as at,
                    list_view(ledger, view, "2024-01") as before,
                ):
                    bundle = proofs.make_bundle(ledger, at, before, "2025-01", busiest, "FIDE")
                makes.append(time.perf_counter() - began)
            lists = len(queries.published_lists(view, "fide"))
            view.close()
            held = Checkpoint.parse(_cli("checkpoint", "--store", store))
        text = json.dumps(bundle)
        checks = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            said = proofs.verify_bundle(json.loads(text), held)
            checks.append(time.perf_counter() - began)
        hashes = sum(len(p["proof"]) for p in bundle["entries"].values())
        hashes += len(bundle["row"]["proof"]) + sum(
            len(r.get("proof", ())) + sum(len(s["proof"]) for s in r.get("absent", ()))
            for r in (bundle["previous"] or {}).get("rows", {}).values()
        )
    measure = importlib.import_module("benchmarks.measure")
    print(
        json.dumps(
            {
                "machine": measure.machine(),
                "ledger": {"games": args.games, "entries": held.size, "fide_lists": lists},
                "player": busiest,
                "player_games_in_period": games,
                "items": len(bundle["items"]),
                "opponent_rows": len((bundle["previous"] or {}).get("rows", {})),
                "bundle_bytes": len(text),
                "hashes": hashes,
                "recomputed": said["recomputed"],
                "commit_list_seconds": [round(first_commit, 3), round(second_commit, 3)],
                "prove_seconds_median": round(statistics.median(makes), 3),
                "verify_seconds_median": round(statistics.median(checks), 4),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
