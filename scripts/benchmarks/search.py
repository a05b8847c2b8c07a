"""Name search at scale (issues 31 and 33): CPU time of searches of each rank, of writing the
name tables whole and of one profile change, on a ledger's read model and on a copy of it grown
to `--players` synthetic names.

    .venv/bin/python scripts/benchmarks/search.py sqlite:////work/digests/l100k.db \
        --players 200000 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ledger.application import RatingsLedger  # noqa: E402
from ledger.log import read_entries  # noqa: E402
from projections import names  # noqa: E402
from projections.projector import View  # noqa: E402
from projections.queries import search_players  # noqa: E402
from projections.schema import NAME_TABLES  # noqa: E402

# Searches of each rank (`search.MATCHES`) on the grown copy: the names below are among its.
SEARCHES = {
    "exact": ["Muller", "Carlsen Magnus", "Ivanov"],
    "accents": ["Mül", "Šašić"],
    "transliterated": ["Mueller", "Иванов", "Sergej"],
    "inside a word": ["lace", "ovel"],
    "one slip": ["Vasques", "Carlsne"],
    "id": ["9000123"],
    "one letter": ["a"],
}
KNOWN = ["Magnus Carlsen", "Hans Müller", "Jörg Mueller", "Ana Vasquez", "Sergei Ivanov"]
KNOWN += ["Иванов Сергей", "Ada Lovelace", "Dragan Šašić", "Petra Muller"]
SYLLABLES = [
    "ka",
    "ro",
    "mi",
    "sen",
    "ber",
    "an",
    "el",
    "vic",
    "ov",
    "in",
    "ska",
    "ler",
    "dor",
    "tra",
    "gu",
    "na",
    "be",
    "li",
    "son",
    "ma",
]
SYLLABLES += [
    "ho",
    "ve",
    "za",
    "pe",
    "ric",
    "nik",
    "ta",
    "lo",
    "shi",
    "wa",
    "ne",
    "ga",
    "ku",
    "dim",
    "ar",
    "jo",
    "mu",
    "sz",
    "cz",
    "ö",
    "é",
]
FIRST = [
    "Anna",
    "Jan",
    "Maria",
    "Peter",
    "Ivan",
    "Olga",
    "Luis",
    "Sofia",
    "Ali",
    "Chen",
    "Eva",
    "Tomáš",
    "Jürgen",
    "Łukasz",
]
FIRST += [
    "Ольга",
    "Иван",
    "Mihail",
    "Nina",
    "Omar",
    "Lars",
    "Åsa",
    "Zoë",
    "Björn",
    "Ana",
    "Kim",
    "Yuki",
    "Raúl",
    "Øyvind",
]


def cpu(run: Callable[[], object], repeats: int) -> float:
    """The median CPU seconds of `repeats` calls of `run`."""
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        samples.append(time.process_time() - start)
    return round(statistics.median(samples) * 1000, 2)


def grow(view: View, players: int) -> float:
    """`view`'s players grown to `players` with synthetic names (60,000 surnames), its name
    tables written again whole: the CPU seconds that writing took."""
    rng = random.Random(33)
    surnames = sorted({"".join(rng.choices(SYLLABLES, k=rng.randint(2, 3))) for _ in range(70000)})
    surnames = surnames[:60000]
    have = view.db.execute("select count(*) from players").fetchone()[0]
    rows = [(f"9{n:07d}", KNOWN[n % len(KNOWN)] if n < 90 else "") for n in range(players - have)]
    made = [(p, n or f"{rng.choice(FIRST)} {rng.choice(surnames).title()}") for p, n in rows]
    conn = view.db.conn
    conn.executemany(
        "insert into players values (?, ?, 0)", [(p, json.dumps({"name": n})) for p, n in made]
    )
    for table in NAME_TABLES:
        conn.execute(f"delete from {table}")
    start = time.process_time()
    profiles = conn.execute("select id, profile from players order by id").fetchall()
    names.write_all(conn, profiles, 2000)
    took = time.process_time() - start
    conn.commit()
    return round(took, 2)


def measure(view: View, repeats: int) -> dict[str, object]:
    """Each search's median CPU milliseconds and what it found; a rename's."""
    out: dict[str, object] = {}
    for rank, texts in SEARCHES.items():
        for text in texts:
            found = search_players(view, text, 50)
            took = cpu(lambda t=text: search_players(view, t, 50), repeats)
            first = found["players"][0]["match"] if found["players"] else None
            out[text] = {"rank": rank, "first": first, "total": found["total"], "cpu_ms": took}
    conn = view.db.conn
    pid, profile = conn.execute("select id, profile from players limit 1").fetchone()
    before = names.name_of(profile)

    def rename() -> None:
        names.rename(conn, pid, before, "Zbigniew Brzęczyszczykiewicz")
        names.rename(conn, pid, "Zbigniew Brzęczyszczykiewicz", before)

    out["a profile change (rename and back)"] = {"cpu_ms": cpu(rename, repeats)}
    conn.rollback()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--players", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "view.db"
        with closing(RatingsLedger(args.store)) as app:
            view = View(path)
            start = time.process_time()
            view.rebuild(read_entries(app))
            rebuild = round(time.process_time() - start, 2)
        count = view.db.execute("select count(*) from players").fetchone()[0]
        result = {"ledger": {"players": count, "rebuild_cpu_s": rebuild}}
        result["ledger"] |= {"searches": measure(view, args.repeats)}
        view.close()
        shutil.copy(path, Path(tmp) / "grown.db")
        grown = View(Path(tmp) / "grown.db")
        tables = grow(grown, args.players)
        size = sum(
            r[0]
            for r in grown.db.execute(
                "select sum(pgsize) from dbstat where name in ('names', 'name_words', 'name_keys')"
            )
        )
        result["grown"] = {"players": args.players, "name_tables_cpu_s": tables}
        result["grown"] |= {"name_tables_mib": round(size / 2**20, 1)}
        result["grown"] |= {"searches": measure(grown, args.repeats)}
        grown.close()
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
