"""Measuring: the machine, wall and CPU clocks, best and median, ratios; a generated ledger."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1]


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cores": os.cpu_count(),
    }


def generate(store: str, games: int, players: int, seed: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPTS / "generate.py"),
            "--store",
            store,
            "--games",
            str(games),
            "--players",
            str(players),
            "--seed",
            str(seed),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def clocks(fn) -> tuple[float, float, object]:
    """(wall seconds, this process's CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def _children_cpu() -> float:
    """CPU seconds of this process's children that ended (a rebuild's writer process)."""
    t = os.times()
    return t.children_user + t.children_system


def summary(samples: list[tuple[float, float]]) -> dict:
    """Best and median of wall and CPU seconds."""
    walls, cpus = [w for w, _ in samples], [c for _, c in samples]
    return {
        "best_s": round(min(walls), 3),
        "median_s": round(statistics.median(walls), 3),
        "best_cpu_s": round(min(cpus), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
    }


def ratio(a: dict, b: dict) -> dict:
    """a ÷ b, best over best and median over median, wall and CPU."""
    return {
        "best": round(a["best_s"] / b["best_s"], 2),
        "median": round(a["median_s"] / b["median_s"], 2),
        "best_cpu": round(a["best_cpu_s"] / b["best_cpu_s"], 2),
        "median_cpu": round(a["median_cpu_s"] / b["median_cpu_s"], 2),
    }


def process_clocks(command: list[str]) -> tuple[float, float]:
    """(wall seconds, the child's CPU seconds) of running `command` to its end, with Python's
    bytecode cache on (as installed: PYTHONDONTWRITEBYTECODE would recompile every module of
    the project at each start, and none of sqlite-utils', whose cache pip wrote)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = os.times()
    wall = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - wall
    after = os.times()
    return wall, (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
