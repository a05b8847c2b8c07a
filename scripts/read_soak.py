"""Concurrent reads during writes: N `player` commands (subprocesses) while sections are
submitted; JSON out with reads tried and failed.

    python scripts/read_soak.py [--readers 16] [--sections 20]

Exit 1 if any read failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.roles import Role

PLAYERS = [f"{20000001 + i}" for i in range(8)]
COMMAND = [sys.executable, "-m", "ledger"]


def section(n: int) -> dict[str, object]:
    """A four-player section on a day of its own."""
    group = [PLAYERS[(n + k) % len(PLAYERS)] for k in range(4)]
    day = f"2024-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}"
    games = [
        {"round": r, "white": a, "black": b, "result": "1-0"}
        for r, (a, b) in enumerate([(group[0], group[1]), (group[2], group[3])], start=1)
    ]
    return {
        "section_id": f"S{n}",
        "event_name": f"S{n}",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": day,
        "end_date": day,
        "players": [{"id": p} for p in group],
        "games": games,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--readers", type=int, default=16)
    parser.add_argument("--sections", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:///{Path(tmp) / 'ledger.db'}"
        app = RatingsLedger(store)
        app.roles.initialize(actor="director")
        app.roles.grant("td", Role.TOURNAMENT_DIRECTOR, actor="director")
        app.players.register(*(parse(RegisterPlayer, {"id": p}) for p in PLAYERS), actor="td")
        app.sections.submit(parse(SubmitSection, section(0)), actor="td")

        def write() -> None:
            for n in range(1, args.sections + 1):
                app.sections.submit(parse(SubmitSection, section(n)), actor="td")

        writer = threading.Thread(target=write)
        writer.start()
        readers = [
            subprocess.Popen(
                [*COMMAND, "player", PLAYERS[i % len(PLAYERS)], "--store", store],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(args.readers)
        ]
        results = [(r.wait(), r.stderr.read()) for r in readers]
        writer.join()
        app.close()
    failed = [
        err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
        for code, err in results
        if code != 0
    ]
    print(
        json.dumps(
            {
                "reads_tried": len(results),
                "reads_failed": len(failed),
                "errors": sorted(set(failed)),
            },
            indent=2,
        )
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
