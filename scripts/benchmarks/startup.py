"""Start-up: `ratings-ledger --help` and a `player` query beside `sqlite-utils --help`."""

from __future__ import annotations

import sys
from contextlib import closing
from pathlib import Path

from benchmarks.measure import generate, process_clocks, ratio, summary
from ledger.application import RatingsLedger
from ledger.evidence import Keyring
from ledger.log import read_entries


def startup(repeats: int, workdir: Path) -> dict:
    """`ratings-ledger --help` and a `player` query on a small ledger against `sqlite-utils
    --help` from the same environment, interleaved (A B C A B C ...)."""
    bin_dir = Path(sys.executable).parent
    store = f"sqlite:///{workdir / 'startup.db'}"
    generate(store, 600, 60, 1)
    with closing(RatingsLedger(store, keyring=Keyring(workdir / "keys"))) as app:
        player = next(
            e.payload["member_id"] for e in read_entries(app) if e.type == "PlayerRegistered"
        )
    commands = {
        "sqlite_utils_help": [str(bin_dir / "sqlite-utils"), "--help"],
        "ratings_ledger_help": [str(bin_dir / "ratings-ledger"), "--help"],
        "player_query": [str(bin_dir / "ratings-ledger"), "player", player, "--store", store],
    }
    for command in commands.values():  # the first query builds the read model; caches
        process_clocks(command)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(max(repeats, 5)):
        for name, command in commands.items():
            samples[name].append(process_clocks(command))
    out = {name: summary(found) for name, found in samples.items()}
    base = out["sqlite_utils_help"]
    out["help_over_sqlite_utils_help"] = ratio(out["ratings_ledger_help"], base)
    out["player_over_sqlite_utils_help"] = ratio(out["player_query"], base)
    return out
