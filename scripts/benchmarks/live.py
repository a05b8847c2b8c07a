"""Append → visible: a `serve` process's page showing a new section, timed from the append."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.evidence import Keyring
from ledger.evidence.signing import KEYRING_VARIABLE
from ledger.log import read_entries


def _get(url: str, timeout: float = 10) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def sections_after(app: RatingsLedger) -> tuple[dict, Callable[[int], dict]]:
    """The ledger's last section (the payload of the one that ends last), and a function
    giving the `n`th new one: a copy of it under a new id, a day after every other item."""
    last: dict = {}
    for e in read_entries(app):
        later = e.payload.get("end_date", "") >= last.get("end_date", "")
        if e.type == "SectionSubmitted" and later:
            last = e.payload
    template = {k: last[k] for k in SubmitSection.model_fields if k in last}
    after = date.fromisoformat(last["end_date"])

    def new_section(n: int) -> dict:
        day = (after + timedelta(days=n + 1)).isoformat()
        section_id = f"bench-live-{os.getpid()}-{n}"
        return template | {"section_id": section_id, "start_date": day, "end_date": day}

    return last, new_section


def live(store: str, workdir: Path, repeats: int, keys: Path) -> dict:
    """Append → visible: `ratings-ledger serve` runs in its own process over a warm read model;
    each time a TD appends a new section (a copy of the last one under a new id, a day after
    every other item), the time from the append's return to the first answer of its page
    that shows it (polled every millisecond), beside the time the same page of a section
    already there takes (the TD signs with `keys`). The server's first page (building the read
    model) is not counted."""
    bin_dir = Path(sys.executable).parent
    view = workdir / "live-view.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(view) + suffix).unlink(missing_ok=True)
    server = subprocess.Popen(
        [str(bin_dir / "ratings-ledger"), "serve", "--store", store, "--view", str(view)]
        + ["--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # "serving http://127.0.0.1:PORT/ (read-only); ..."
        base = line.split()[1].rstrip("/")
        keyring = Keyring(os.environ.get(KEYRING_VARIABLE) or keys)
        with closing(RatingsLedger(store, keyring=keyring)) as app:
            last, new_section = sections_after(app)
            warm = time.perf_counter()
            _get(base + "/", timeout=600)
            warm = time.perf_counter() - warm
            idle = []
            for _ in range(5):
                start = time.perf_counter()
                _get(f"{base}/api/sections/{last['section_id']}")
                idle.append(time.perf_counter() - start)
            latencies, polls = [], []
            for n in range(max(repeats, 5) * 2):
                section = new_section(n)
                url = f"{base}/api/sections/{section['section_id']}"
                app.sections.submit(parse(SubmitSection, section), actor="td")
                start = time.perf_counter()
                tries, give_up = 1, start + 60
                while _get(url) != 200:
                    if time.perf_counter() > give_up:
                        raise RuntimeError(f"{url} not visible after a minute")
                    tries += 1
                    time.sleep(0.001)
                latencies.append(time.perf_counter() - start)
                polls.append(tries)
                time.sleep(0.2)  # a quiet moment between appends
    finally:
        server.terminate()
        server.wait()
    latencies.sort()
    return {
        "appends": len(latencies),
        "append_to_visible_ms": {
            "best": round(1000 * latencies[0], 1),
            "median": round(1000 * statistics.median(latencies), 1),
            "worst": round(1000 * latencies[-1], 1),
        },
        "requests_until_visible": {"median": statistics.median(polls), "max": max(polls)},
        "same_page_of_a_section_already_there_ms": round(1000 * statistics.median(idle), 1),
        "first_page_s": round(warm, 2),
    }
