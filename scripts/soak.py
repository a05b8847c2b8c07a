"""Soak the signed ledger at scale: concurrent writers, tampering, crash trials, fuzzing; JSON.

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

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli import app
from ledger.errors import ConflictError, LedgerError, StoreError
from ledger.evidence import read_verified_entries, verify
from ledger.evidence.signing import KEYRING_VARIABLE
from ledger.log import read_entries
from ledger.roles import Role
from projections.projector import View

SCRIPTS = Path(__file__).resolve().parent
PLAYERS = [f"6000000{i}" for i in range(4)]
SHARED_EVERY = 10  # every tenth submission races the other processes for one shared id


def _script(name: str, folder: Path = SCRIPTS) -> Any:
    spec = importlib.util.spec_from_file_location(f"{name}_script", folder / f"{name}.py")
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
                [entry] = ledger.sections.submit(section(section_id), actor=name)
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
    """A signed ledger: the director's and each writer's keys made in the keyring."""
    with closing(RatingsLedger(store)) as ledger:
        ledger.roles.initialize(actor="director")
        for w in writers:
            ledger.keyring.ensure(w)
            ledger.roles.grant(w, Role.TOURNAMENT_DIRECTOR, actor="director")
        ledger.players.register(*(parse(RegisterPlayer, {"id": p}) for p in PLAYERS), actor="W0")


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


TAMPERING = (
    "edit",
    "delete",
    "delete_last",
    "reorder",
    "insert_unsealed",
    "append_forged_other_key",
    "append_forged_unsigned",
    "edit_and_reseal",
    "drop_chain",
    "empty_chain",
    "truncate_tail",
    "truncate_tail_and_chain_with_anchor",
)


def tampering(store: str) -> dict[str, Any]:
    """Tamper with a signed ledger of four sections behind its back, one way per case, as an
    attacker with database access but no key would; count the cases `verify` (with the anchor
    an auditor kept, where the case says so) detects at the right position. A tail deleted with
    its chain rows and no anchor kept is undetectable from inside the store: tried, reported
    apart (`undetectable_without_anchor`)."""
    t = _script("tamper_helpers", SCRIPTS.parent / "tests")
    detected, missed = 0, []
    for case in (*TAMPERING, "truncate_tail_and_chain_without_anchor"):
        with postgres_or_sqlite_copy(store) as url:
            set_up(url, ["W0"])
            with closing(RatingsLedger(url)) as ledger:
                for k in range(4):
                    ledger.sections.submit(section(f"T-{k}"), actor="W0")
                last = ledger.recorder.max_notification_id() or 0
            anchor = Path(tempfile.mkstemp(suffix=".json")[1])
            anchored = CliRunner().invoke(app, ["anchor", "--actor", "director", "--store", url])
            anchor.write_text(anchored.stdout)
            at = _tamper(t, url, case, last)
            found = _verify(url, anchor if "with_anchor" in case else None)
            anchor.unlink()
            if case.endswith("without_anchor"):
                undetected = found is None
                continue
            if found == at:
                detected += 1
            else:
                missed.append(case)
    return {
        "cases": len(TAMPERING),
        "detected_at_the_right_position": detected,
        "missed": missed,
        "undetectable_without_anchor": {"truncate_tail_and_chain": undetected},
    }


def _tamper(t: Any, url: str, case: str, last: int) -> int | str:
    """Make the change; where `verify` must report it (a position, or a kind of failure)."""
    forged = json.dumps({"actor": "W0", "section_id": "FORGED", "timestamp": {"_data_": "x"}})
    topic, aggregate = "ratings-ledger:SectionSubmitted", uuid.uuid4()
    if case == "edit":
        t.edit(url, last - 3, "Soak", "Fake")
    elif case in ("delete", "delete_last"):
        t.delete(url, last - 2 if case == "delete" else last)
        return last - 2 if case == "delete" else last
    elif case == "reorder":
        t.swap(url, last - 3, last - 1)
    elif case == "insert_unsealed":
        return t.insert(url, aggregate, 1, topic, forged.encode())
    elif case.startswith("append_forged"):
        key = Ed25519PrivateKey.generate() if case.endswith("other_key") else None
        return t.insert(url, aggregate, 1, topic, forged.encode(), key=key, seal=True)
    elif case == "edit_and_reseal":
        t.edit(url, last - 3, "Soak", "Fake")
        t.reseal(url)
    elif case in ("drop_chain", "empty_chain"):
        t.drop_chain(url, empty_only=case == "empty_chain")
        return "missing chain table" if case == "drop_chain" else 1
    elif case == "truncate_tail":
        with t.raw_store(url) as (conn, table, pos, mark, _):
            conn.execute(f"DELETE FROM {table} WHERE {pos} > {mark}", (last - 2,))
        return last - 1
    else:
        t.truncate(url, last - 2)
        return "anchor"
    return last - 3


def _verify(url: str, anchor: Path | None) -> int | str | None:
    """Where `verify` (against `anchor`) reports the ledger broken; None when it passes."""
    if anchor is not None:
        result = CliRunner().invoke(app, ["verify", "--anchor", str(anchor), "--store", url])
        return "anchor" if result.exit_code == 1 and "anchor" in result.stderr else None
    try:
        with closing(RatingsLedger(url, read_only=True)) as ledger:
            found = verify(ledger).broken
    except StoreError as exc:
        return "missing chain table" if "is missing" in str(exc) else str(exc)
    return found.position if found else None


@contextmanager
def postgres_or_sqlite_copy(store: str) -> Iterator[str]:
    if store.startswith("postgres"):
        with postgres_schema(store.split("?")[0]) as url:
            yield url
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite:///{Path(tmp) / 'ledger.db'}"


def crash_trials(trials: int, workdir: Path) -> dict[str, int]:
    """Kill catch-ups and rebuilds with SIGKILL at random; resume; compare with a clean one."""
    url = f"sqlite:///{workdir / 'crash.db'}"
    _script("generate").generate(url, 300, 4000, 2, date(2022, 1, 1), 3)
    with closing(RatingsLedger(url)) as ledger:
        clean = View(workdir / "clean.view.db")
        clean.rebuild(read_verified_entries(ledger))
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
                        v.rebuild(read_verified_entries(ledger))
                    else:
                        while batch := list(read_verified_entries(ledger, v.last_position, 50)):
                            v.catch_up(batch[:50])
            finally:
                os._exit(0)
        time.sleep(rng.uniform(0, 0.6))
        os.kill(pid, signal.SIGKILL)
        killed += os.WIFSIGNALED(os.waitpid(pid, 0)[1])
        try:
            with closing(RatingsLedger(url)) as ledger:
                v = View(view)
                v.catch_up(read_verified_entries(ledger, v.last_position))
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
        os.environ[KEYRING_VARIABLE] = str(work / "keys")  # the writer processes inherit it
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
        "tampering_cases_missed": [m for t in tamper for m in t["missed"]],
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
