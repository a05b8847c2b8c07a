"""Soak the ledger at scale: concurrent writers, tampering, crash trials and fuzzing; JSON out.

    python scripts/soak.py [--processes 4] [--submissions 200] [--crash-trials 100]
                           [--fuzz-cases 10000] [--postgres postgresql://postgres@127.0.0.1/test]

Exit 1 if any entry was lost or duplicated, a tampering case went undetected, a crash trial
did not end at the clean digest, or a fuzz case was not refused cleanly.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing, contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from ledger.application import RatingsLedger
from ledger.chain import verify
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.domain import ConflictError, LedgerError
from ledger.log import read_entries
from ledger.roles import Role
from projections.projector import View

SCRIPTS = Path(__file__).resolve().parent
PLAYERS = [f"6000000{i}" for i in range(4)]
SHARED_EVERY = 10  # every tenth submission races the other processes for one shared id


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"{name}_script", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def section(section_id: str) -> SubmitSection:
    games = [
        {"round": r, "white": PLAYERS[(r + b) % 4], "black": PLAYERS[(r + 3 - b) % 4]}
        for r in (1, 2, 3)
        for b in (0, 1)
    ]
    return parse(
        SubmitSection,
        {
            "section_id": section_id,
            "event_name": "Soak quad",
            "online": False,
            "time_control": "G/30;d5",
            "start_date": "2024-05-04",
            "end_date": "2024-05-04",
            "players": [{"id": p} for p in PLAYERS],
            "games": [{**g, "result": "1-0"} for g in games],
        },
    )


def writer(store: str, name: str, submissions: int, start_at: float) -> list[list[Any]]:
    """Submit `submissions` sections; each outcome is [section id, position or None, why]."""
    outcomes: list[list[Any]] = []
    with closing(RatingsLedger(store)) as ledger:
        while time.time() < start_at:
            time.sleep(0.001)
        for k in range(submissions):
            section_id = f"SHARED-{k}" if k % SHARED_EVERY == 0 else f"{name}-{k}"
            try:
                [entry] = ledger.submit_section(section(section_id), actor=name)
                outcomes.append([section_id, entry.position, None])
            except (LedgerError, ConflictError) as exc:
                outcomes.append([section_id, None, str(exc)])
    return outcomes


@contextmanager
def postgres_schema(base: str) -> Iterator[str]:
    import psycopg

    schema = f"soak_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{base}?schema={schema}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def set_up(store: str, writers: list[str]) -> None:
    with closing(RatingsLedger(store)) as ledger:
        ledger.initialize(actor="director")
        for w in writers:
            ledger.grant_role(w, Role.TOURNAMENT_DIRECTOR, actor="director")
        ledger.register_player(*(parse(RegisterPlayer, {"id": p}) for p in PLAYERS), actor="W0")


def concurrency(store: str, processes: int, submissions: int) -> dict[str, Any]:
    """`processes` writers × `submissions` each; every accepted one logged exactly once."""
    names = [f"W{i}" for i in range(processes)]
    set_up(store, names)
    start_at = time.time() + 2.0
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(processes, mp_context=spawn) as pool:
        futures = [pool.submit(writer, store, n, submissions, start_at) for n in names]
        outcomes = [o for f in futures for o in f.result()]
    elapsed = time.time() - start_at
    with closing(RatingsLedger(store)) as ledger:
        logged = Counter(
            (e.payload["section_id"], e.position)
            for e in read_entries(ledger)
            if e.type == "SectionSubmitted"
        )
        chain = verify(ledger)
        head = ledger.recorder.max_notification_id()
    accepted = Counter((o[0], o[1]) for o in outcomes if o[1] is not None)
    refused = Counter(o[2] for o in outcomes if o[1] is None)
    return {
        "submissions": len(outcomes),
        "appended": sum(accepted.values()),
        "lost": sum((accepted - logged).values()),
        "duplicated": sum(n - 1 for n in logged.values() if n > 1),
        "unexpected_in_log": sum((logged - accepted).values()),
        "refused": dict(refused),
        "seconds": round(elapsed, 2),
        "appends_per_second": round(sum(accepted.values()) / elapsed, 1),
        "chain_intact": chain.broken is None and chain.head.position == head,
    }


def tampering(store: str) -> dict[str, int]:
    """Edit, delete and reorder stored rows directly (given as positions before the last of four
    sections); count the breaks found where they were made."""
    cases = {"edit": (3, 3), "delete": (2, 2), "delete_last": (0, 0), "reorder": (3, 1)}
    detected = 0
    for case, (first, second) in cases.items():
        with postgres_or_sqlite_copy(store) as url:
            set_up(url, ["W0"])
            with closing(RatingsLedger(url)) as ledger:
                for k in range(4):
                    ledger.submit_section(section(f"T-{k}"), actor="W0")
                last = ledger.recorder.max_notification_id() or 0
                at = last - first
                _tamper(url, case, at, last - second)
                found = verify(ledger).broken
                detected += found is not None and found.position == at
    return {"cases": len(cases), "detected_at_the_right_position": detected}


@contextmanager
def postgres_or_sqlite_copy(store: str) -> Iterator[str]:
    if store.startswith("postgres"):
        with postgres_schema(store.split("?")[0]) as url:
            yield url
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{Path(tmp) / 'ledger.db'}"


def _tamper(url: str, case: str, at: int, other: int) -> None:
    if url.startswith("sqlite"):
        conn: Any = sqlite3.connect(url[len("sqlite:///") :], isolation_level=None)
        table, pos, mark, state = "stored_events", "rowid", "?", "replace(state, ?, ?)"
        old, new = b"Soak", b"Fake"
    else:
        import psycopg

        schema = url.split("schema=")[1]
        conn = psycopg.connect(url.split("?")[0], autocommit=True)
        table, pos, mark = f'"{schema}".ratingsledger_events', "notification_id", "%s"
        state = "convert_to(replace(convert_from(state, 'UTF8'), %s, %s), 'UTF8')"
        old, new = "Soak", "Fake"
    with closing(conn):
        if case == "edit":
            conn.execute(f"UPDATE {table} SET state = {state} WHERE {pos} = {mark}", (old, new, at))
        elif case == "reorder":
            for a, b in ((at, 10**9), (other, at), (10**9, other)):
                conn.execute(f"UPDATE {table} SET {pos} = {mark} WHERE {pos} = {mark}", (b, a))
        else:
            conn.execute(f"DELETE FROM {table} WHERE {pos} = {mark}", (at,))


def crash_trials(trials: int, workdir: Path) -> dict[str, int]:
    """Kill catch-ups and rebuilds with SIGKILL at random; resume; compare with a clean one."""
    url = f"sqlite:///{workdir / 'crash.db'}"
    _script("generate").generate(url, 300, 4000, 2, date(2022, 1, 1), 3)
    with closing(RatingsLedger(url)) as ledger:
        clean = View(workdir / "clean.view.db")
        clean.rebuild(read_entries(ledger))
        digest = clean.digest()
        clean.close()
    rng, passed, killed = random.Random(11), 0, 0
    view = workdir / "crash.view.db"
    for trial in range(trials):
        pid = os.fork()
        if pid == 0:
            try:
                with closing(RatingsLedger(url)) as ledger:
                    v = View(view)
                    if trial % 2:
                        v.rebuild(read_entries(ledger))
                    else:
                        while batch := list(read_entries(ledger, v.last_position, 50))[:50]:
                            v.catch_up(batch)
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, 0.6))
        os.kill(pid, signal.SIGKILL)
        killed += os.WIFSIGNALED(os.waitpid(pid, 0)[1])
        try:
            with closing(RatingsLedger(url)) as ledger:
                v = View(view)
                v.catch_up(read_entries(ledger, v.last_position))
                passed += v.digest() == digest
                v.close()
        except Exception as exc:  # a trial that cannot resume is a failed trial, reported
            print(f"crash trial {trial}: {exc!r}", file=sys.stderr)
    return {"trials": trials, "killed_mid_way": killed, "passed": passed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--crash-trials", type=int, default=100)
    parser.add_argument("--fuzz-cases", type=int, default=10_000)
    parser.add_argument("--postgres", help="a PostgreSQL URL (its schemas are made and dropped)")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        stores = {"sqlite": f"sqlite:///{work / 'soak.db'}"}
        for name, url in [("sqlite", stores["sqlite"])] + (
            [("postgres", args.postgres)] if args.postgres else []
        ):
            with postgres_or_sqlite_copy(url) as store:
                out[f"concurrency_{name}"] = concurrency(store, args.processes, args.submissions)
            out[f"tampering_{name}"] = tampering(url)
        out["crash"] = crash_trials(args.crash_trials, work)
        out["fuzz"] = _script("fuzz").run(args.fuzz_cases, f"sqlite:///{work / 'f.db'}", work)
    runs = [v for k, v in out.items() if k.startswith("concurrency")]
    tamper = [v for k, v in out.items() if k.startswith("tampering")]
    out["summary"] = {
        "entries_appended": sum(r["appended"] for r in runs),
        "entries_lost": sum(r["lost"] + r["duplicated"] for r in runs),
        "tampering_cases_detected": sum(t["detected_at_the_right_position"] for t in tamper),
        "tampering_cases": sum(t["cases"] for t in tamper),
        "crash_trials_passed": out["crash"]["passed"],
        "crash_trials": out["crash"]["trials"],
        "fuzz_cases_refused_cleanly": out["fuzz"]["refused_cleanly"],
        "fuzz_cases": out["fuzz"]["cases"],
    }
    print(json.dumps(out, indent=2))
    s = out["summary"]
    ok = (
        s["entries_lost"] == 0
        and all(r["chain_intact"] and not r["unexpected_in_log"] for r in runs)
        and s["tampering_cases_detected"] == s["tampering_cases"]
        and s["crash_trials_passed"] == s["crash_trials"]
        and s["fuzz_cases_refused_cleanly"] == s["fuzz_cases"]
        and out["fuzz"]["ledger_unchanged"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
