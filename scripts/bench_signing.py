"""Benchmark signed writes: appends/s signed vs unsigned; checking every signature vs a replay.

    python scripts/bench_signing.py [--appends 1000] [--games 100000] [--workdir DIR]
                                    [--postgres postgresql://postgres@127.0.0.1/test]

Unsigned is the same write verbs over eventsourcing's stock recorder (no signature, no chain).
The check is `read_verified_entries` (every signature, in bulk, keys cached) and `verify`
(chain and signatures) over a generated ledger (scripts/generate.py), against a full replay
into the read model. Prints JSON with the machine it ran on.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from contextlib import closing
from datetime import date
from pathlib import Path
from typing import Any

from eventsourcing.utils import Environment, EnvType

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.evidence import Head, Keyring, read_verified_entries, verify
from ledger.evidence.appending import Held
from ledger.log import read_entries
from ledger.roles import Role
from projections.projector import View

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # scripts/benchmarks/, however loaded
from benchmarks.measure import machine  # noqa: E402


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"{name}_script", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generate = _script("generate")


class Unsigned(RatingsLedger):
    """The same verbs over eventsourcing's stock recorder: nothing signed, nothing chained."""

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        settings = {k: v for k, v in (env or {}).items() if "RECORDER_TOPIC" not in k}
        return super().construct_env(name, settings)

    def verified(self) -> Held:
        """No signed log to check: the roles record as it stands."""
        record = self.records.roles()
        if record is None:
            return Held(0, {})
        return Held(1, dict(record.keys), {h: set(r) for h, r in record.held.items()})

    def save(
        self, *objs: Any, signer: Any = None, authority: Any = None, sealed: Any = None, **kw: Any
    ) -> Any:
        sealed.append(Head("", 0))
        return super().save(*objs, **kw)


def appends(cls: type[RatingsLedger], store: str, keyring: Keyring, count: int) -> float:
    """Appends per second: `count` writes of one player registration each, one writer."""
    with closing(cls(store, keyring=keyring)) as ledger:
        ledger.roles.initialize(actor="director")
        keyring.ensure("office")
        ledger.roles.grant("office", Role.RATINGS_ADMIN, actor="director")
        start = time.perf_counter()
        for k in range(count):
            ledger.players.register(parse(RegisterPlayer, {"id": f"{k:08d}"}), actor="office")
        return count / (time.perf_counter() - start)


def append_rates(stores: dict[str, Callable[[], str]], keyring: Keyring, count: int) -> dict:
    out = {}
    for backend, new_store in stores.items():
        unsigned = appends(Unsigned, new_store(), keyring, count)
        signed = appends(RatingsLedger, new_store(), keyring, count)
        out[backend] = {
            "writes": count,
            "unsigned_per_s": round(unsigned, 1),
            "signed_per_s": round(signed, 1),
            "signed_over_unsigned": round(signed / unsigned, 3),
        }
    return out


def best(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def checks(games: int, workdir: Path, repeats: int) -> dict:
    """Checking every signature of a generated ledger vs replaying it into the read model."""
    db = workdir / f"ledger-{games}.db"
    store = f"sqlite:///{db}"
    generated = None
    if not db.exists():
        generated = generate.generate(
            store, max(50, games // 50), games, 7, date(2019, 1, 1), 6, Keyring(workdir)
        )
    with closing(RatingsLedger(store, read_only=True)) as ledger:
        entries = sum(1 for _ in read_entries(ledger))
        read_s = best(lambda: sum(1 for _ in read_entries(ledger)), repeats)
        checked_s = best(lambda: sum(1 for _ in read_verified_entries(ledger)), repeats)
        verify_s = best(lambda: verify(ledger), repeats)

        def replay() -> None:
            with closing(View(workdir / "replay.view.db")) as view:
                view.rebuild(read_entries(ledger))

        replay_s = best(replay, repeats)
        found = verify(ledger)
    signatures_s = checked_s - read_s
    return {
        "games": games,
        "entries": entries,
        "generated": generated,
        "intact": found.broken is None,
        "raw_read_s": round(read_s, 3),
        "read_with_every_signature_checked_s": round(checked_s, 3),
        "signature_checks_s": round(signatures_s, 3),
        "signature_checks_per_s": round(entries / signatures_s) if signatures_s > 0 else None,
        "verify_chain_and_signatures_s": round(verify_s, 3),
        "replay_s": round(replay_s, 3),
        "signature_checks_over_replay": round(signatures_s / replay_s, 4),
        "verify_over_replay": round(verify_s / replay_s, 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keeps the generated ledger between runs")
    parser.add_argument("--postgres", help="a PostgreSQL URL (its schemas are made and dropped)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ratings-bench-signing-"))
    workdir.mkdir(parents=True, exist_ok=True)
    keyring = Keyring(workdir)
    schemas: list[str] = []

    def sqlite_store() -> str:
        return f"sqlite:///{workdir / f'appends-{uuid.uuid4().hex[:8]}.db'}"

    def postgres_store() -> str:
        import psycopg

        schemas.append(f"bench_{uuid.uuid4().hex[:12]}")
        with psycopg.connect(args.postgres, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schemas[-1]}"')
        return f"{args.postgres}?schema={schemas[-1]}"

    stores: dict[str, Callable[[], str]] = {"sqlite": sqlite_store}
    if args.postgres:
        stores["postgres"] = postgres_store
    out: dict[str, Any] = {"benchmark": "bench_signing", "machine": machine()}
    try:
        out["appends"] = append_rates(stores, keyring, args.appends)
    finally:
        if schemas:
            import psycopg

            with psycopg.connect(args.postgres, autocommit=True) as conn:
                for schema in schemas:
                    conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    out["checks"] = checks(args.games, workdir, args.repeats)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
