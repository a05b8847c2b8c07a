"""A rebuild's standings alone (`LiveStandings`, issue 33): a replay's history rows' (player,
system) in rating order put through the bound as the rating does, each row a lookup (for a
standing not found, the player's other systems too, as Step 1's background asks), then a put
of a US Chess standing with a state. Prints the loop's CPU and, counted on the same rows, the
rows whose standing was not kept as an object when looked up (unpacked from the spool, or
new) and the standings packed.

    sqlite3 MODEL "select player, system from history_rows order by rowid" -separator '	' > ROWS
    python scripts/benchmarks/standings.py ROWS [--hot N] [--kept N] [--rows N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ledger import compiled
from projections import live_standings
from projections.rating import rater_class
from projections.standing import UNRATED


def counted(rows: list[tuple[str, str]], hot: int, kept: int) -> tuple[int, int]:
    """(rows not kept as objects when looked up, standings packed) under `LiveStandings`'s
    policy: at `hot` standings, the players first set longest ago packed until `kept` are left."""
    held: dict[str, set[str]] = {}
    count = unkept = packed = 0
    for player, system in rows:
        systems = held.get(player)
        if systems is not None and system in systems:
            continue
        unkept += 1
        if count >= hot:
            for older in list(held):
                if count <= kept:
                    break
                gone = len(held.pop(older))
                count -= gone
                packed += gone
            systems = held.get(player)
        if systems is None:
            systems = held[player] = set()
        systems.add(system)
        count += 1
    return unkept, packed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("rows")
    parser.add_argument("--hot", type=int, default=live_standings.HOT_STANDINGS)
    parser.add_argument("--kept", type=int, default=None)
    parser.add_argument("--rows", type=int, default=None, dest="limit")
    args = parser.parse_args()
    kept = int(args.hot * live_standings.KEPT) if args.kept is None else args.kept
    rows: list[tuple[str, str]] = []
    with open(args.rows) as f:
        for line in f:
            if args.limit is not None and len(rows) >= args.limit:
                break
            player, system = line.rstrip("\n").split("\t")
            rows.append((sys.intern(player), sys.intern(system)))
    systems = sorted({s for _, s in rows})
    reader = rater_class("uschess")
    standings = [
        reader.standing_of(
            (1200.0 + n * 7.3, 10 + n, 4 + n % 5, n % 3, 3, "mixed" if n % 2 else "full")
            + (f"2020-0{1 + n % 9}-1{n % 9}", n % 4, 1400.0 + n, n % 7, None, None, None, None)
            + (0, None if n % 3 else '[["2020-01-01", 5.0]]', None, None)
        )
        for n in range(64)
    ]
    live = live_standings.LiveStandings(
        reader.columns, reader.standing_of, hot_limit=args.hot, kept=kept
    )
    lookup, put = live.lookup, live.put
    start = time.process_time()
    for n, (player, system) in enumerate(rows):
        if lookup(player, system) is UNRATED:
            for other in systems:
                if other != system:
                    lookup(player, other)
        put(player, system, standings[n & 63])
    cpu = time.process_time() - start
    live.close()
    unkept, packed = counted(rows, args.hot, kept)
    out = {"hot": args.hot, "kept": kept, "rows": len(rows), "cpu_s": round(cpu, 2)}
    out |= {"unkept_rows": unkept, "standings_packed": packed, "compiled": compiled.running()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
