"""Benchmark the ledger: append rate, full replay, replay ÷ raw read, the replay with every
signature checked here or in another process (scripts/benchmarks/checked.py), the rules'
arithmetic alone (scripts/benchmarks/floor.py), correction re-rate, as-of, as known at (a past
model from a checkpoint; one player from the model's record: scripts/benchmarks/known.py), a
rebuild's peak memory, start-up of a `player` query, a live page's append → visible time and
the site's load beside Datasette's (scripts/benchmarks/web_load.py; Datasette from the `bench`
extra); the read model's bytes per game, a player's page and a re-rating under a changed rule
(scripts/benchmarks/scale.py, issue 33).

Generates a synthetic ledger with scripts/generate.py at each size (or reuses one kept with
--ledgers) and prints JSON. Each CPU-bound measurement alternates with its baseline (raw read,
replay, raw read, replay, …) and reports the best and the median of --repeats runs, in wall
and in CPU seconds (the CPU figure is the steadier one on a shared machine). 100,000 games by
default; --million adds 1,000,000; --players sets the players of every size (else 2 % of its
games), e.g. `--games 1000000 2000000 10000000 --players 200000` (issue 33).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.evidence import Keyring
from ledger.evidence.signing import KEYRING_VARIABLE
from ledger.log import read_entries
from ledger.rules.uschess.rater import KERNEL_VARIABLE
from projections import queries, timetravel
from projections.projector import View
from projections.seals import Seals

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/benchmarks/, however loaded
from benchmarks.checked import checked_replay  # noqa: E402
from benchmarks.floor import floor  # noqa: E402
from benchmarks.known import known_reads  # noqa: E402
from benchmarks.live import live  # noqa: E402
from benchmarks.measure import _children_cpu, clocks, generate, machine, ratio, summary  # noqa: E402
from benchmarks.memory import peak_memory  # noqa: E402
from benchmarks.scale import by_players, compare_replay, model_bytes, player_pages  # noqa: E402
from benchmarks.startup import startup  # noqa: E402
from benchmarks.web_load import web_load  # noqa: E402

# The measurements that each replay the whole ledger once more, by their `--skip` names.
SKIPPABLE = ("checked", "floor", "compare", "profile", "memory")


def profile_rebuild(app: RatingsLedger, path: Path, top: int = 15) -> dict:
    prof = cProfile.Profile()
    view = View(path)
    prof.enable()
    view.rebuild(read_entries(app))
    prof.disable()
    view.close()
    stream = io.StringIO()
    stats = pstats.Stats(prof, stream=stream)
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in raw.values())

    def rows(index: int) -> list[dict]:
        ranked = sorted(raw.items(), key=lambda kv: kv[1][index], reverse=True)[:top]
        return [
            {
                "function": f"{Path(f).name}:{line}({name})",
                "self_s": round(v[2], 3),
                "cumulative_s": round(v[3], 3),
                "share_self": round(v[2] / total, 3) if total else None,
            }
            for (f, line, name), v in ranked
        ]

    return {
        "total_s": round(total, 3),
        "note": "cProfile of the rebuilding process; from about 50,000 games its history "
        "rows are stored by a writer process (projections/writer.py), not profiled here",
        "by_self": rows(2),
        "by_cumulative": rows(3),
    }


def raw_read(app: RatingsLedger) -> int:
    """The raw log read: every entry with its payload decoded (plain JSON)."""
    return sum(1 for e in read_entries(app) if e.payload is not None)


def correct_one_year_back(app: RatingsLedger, view: View) -> None:
    """Flip one result of a section that ended about a year before the last one (as the
    generated ledger's ratings admin)."""
    sections = view.db.execute(
        "select key, end from items where kind = 'section' order by sort_key"
    ).fetchall()
    last = date.fromisoformat(sections[-1][1])
    target = last - timedelta(days=365)
    key = next(k for k, end in sections if date.fromisoformat(end) >= target)
    payload = queries.item(view, key).payload
    game = next(g for g in payload["games"] if g["result"] in ("1-0", "0-1"))
    game["result"] = "0-1" if game["result"] == "1-0" else "1-0"
    data = {k: payload[k] for k in SubmitSection.model_fields if k in payload}
    app.sections.correct(parse(SubmitSection, data), reason="benchmark", actor="ratings-office")


def ledger_copy(games: int, players: int, seed: int, workdir: Path, ledgers: Path | None) -> tuple:
    """A fresh copy of the generated ledger (generated once into `ledgers` when given)."""
    name = f"ledger-{games}-{players}-{seed}.db"
    source = (ledgers or workdir) / name
    source.parent.mkdir(parents=True, exist_ok=True)
    counts = source.with_suffix(".json")
    append_s = None
    if not source.exists():
        start = time.perf_counter()
        counts.write_text(json.dumps(generate(f"sqlite:///{source}", games, players, seed)))
        append_s = time.perf_counter() - start
    db = workdir / f"run-{name}"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
        if Path(str(source) + suffix).exists():
            shutil.copyfile(str(source) + suffix, str(db) + suffix)
    return f"sqlite:///{db}", json.loads(counts.read_text()), append_s


def run_size(
    games: int,
    players: int,
    seed: int,
    repeats: int,
    workdir: Path,
    ledgers: Path | None,
    with_live: bool = True,
    with_web: bool = True,
    skip: frozenset[str] = frozenset(),
) -> dict:
    store, generated, append_s = ledger_copy(games, players, seed, workdir, ledgers)
    result: dict = {"games": games, "players": players, "generated": generated}
    if append_s is not None:
        result["append"] = {
            "seconds": round(append_s, 2),
            "sections_per_s": round(generated.get("sections", 0) / append_s, 1),
            "games_per_s": round(generated.get("games", games) / append_s),
        }
    view_path = workdir / f"view-{games}.db"
    # generate.py's keys: beside the generated ledger (kept in --ledgers, else the workdir)
    key_dir = (ledgers or workdir) / "keys"
    keyring = Keyring(os.environ.get(KEYRING_VARIABLE) or key_dir)
    with closing(RatingsLedger(store, keyring=keyring)) as app:
        # A B A B ...: the raw read and the replay alternate, so both see the same machine.
        reads, replays, stats = [], [], None
        count = 0
        writer_cpu = []  # the writer process's CPU seconds of each replay (not in `cpu`)
        for _ in range(repeats):
            wall, cpu, count = clocks(lambda: raw_read(app))
            reads.append((wall, cpu))
            view = View(view_path)
            children = _children_cpu()
            wall, cpu, stats = clocks(lambda: view.rebuild(read_entries(app)))  # noqa: B023
            writer_cpu.append(_children_cpu() - children)
            replays.append((wall, cpu))
            view.close()
        read_s, replay_s = summary(reads), summary(replays)
        real_games = generated.get("games", games)
        result["replay"] = {
            "entries": count,
            "items_rated": stats.items_rated,
            "history_rows": stats.rows,
            "raw_log_read": read_s,
            "full_replay": replay_s,
            "games_per_s": round(real_games / replay_s["best_s"]),
            "seconds_per_million_games": round(replay_s["best_s"] / real_games * 1e6, 2),
            "replay_over_raw_read": ratio(replay_s, read_s),
            "writer_process_median_cpu_s": round(statistics.median(writer_cpu), 3),
        }
        # the replay as a session makes it: every signature checked, here or elsewhere
        if "checked" not in skip:
            result["checked_replay"] = checked_replay(store, workdir, repeats, read_s)
        # what the rules' Steps 2–5 alone cost, pure and compiled, beside the raw read
        if "floor" not in skip:
            result["floor"] = floor(store, workdir, repeats, read_s)
        view = View(view_path)
        view.seals = seals = Seals(app)  # a session's view seals its checkpoints (issue 28)
        view.checkpoint()
        # its copy is made in a thread of this process: finished before the corrections are
        # timed, whose CPU would otherwise count the copy and its seal (10M: a 4 GB model)
        view.wait_for_checkpoint()
        published = view.last_position
        # Corrections a year back, each caught up on its own; cost per re-rated item against
        # the replay's cost per item, and per row the cascade rated (written or not) against
        # the replay's per row (it writes every row it rates).
        corrections, per_rows, rated, rows, rows_rated = [], [], [], [], []
        for _ in range(repeats):
            correct_one_year_back(app, view)
            wall, cpu, s = clocks(lambda: view.catch_up(read_entries(app, view.last_position)))  # noqa: B023
            corrections.append((1000 * wall / s.items_rated, 1000 * cpu / s.items_rated))
            per_rows.append((1e6 * wall / s.rows_rated, 1e6 * cpu / s.rows_rated))
            rated.append(s.items_rated)
            rows.append(s.rows)
            rows_rated.append(s.rows_rated)
        per_item = summary(corrections)  # milliseconds
        per_row = summary(per_rows)  # microseconds
        replay_item = {k: round(1000 * v / stats.items_rated, 3) for k, v in replay_s.items()}
        replay_row = {k: round(1e6 * v / stats.rows, 3) for k, v in replay_s.items()}
        # the replay's CPU with its writer process's (a catch-up starts none)
        with_writer = replay_s["median_cpu_s"] + statistics.median(writer_cpu)
        result["correction"] = {
            "items_re_rated": rated,
            "history_rows_rewritten": rows,
            "history_rows_re_rated": rows_rated,
            "re_rate_per_item_ms": per_item,
            "replay_per_item_ms": replay_item,
            "per_item_over_replay_per_item": ratio(per_item, replay_item),
            "median_cpu_over_replay_with_writer": round(
                per_item["median_cpu_s"] / 1000 * stats.items_rated / with_writer, 2
            ),
            "re_rate_per_row_us": per_row,
            "replay_per_row_us": replay_row,
            "per_row_over_replay_per_row": ratio(per_row, replay_row),
            # the same per row rated: the replay's cost of an item as large as the cascade's
            # (a year back its items hold more rows than the ledger's average item)
            "median_cpu_per_row_over_replay_with_writer": round(
                per_row["median_cpu_s"] / 1e6 * stats.rows / with_writer, 2
            ),
            "rows_per_item": {
                "cascade": round(statistics.median(rows_rated) / statistics.median(rated), 1),
                "replay": round(stats.rows / stats.items_rated, 1),
            },
            "share_of_full_replay": round(
                statistics.median(rated) * per_item["median_s"] / 1000 / replay_s["median_s"], 4
            ),
        }
        knowns = []
        for _ in range(repeats):
            wall, cpu, past = clocks(
                lambda: timetravel.at_position(
                    view,
                    lambda after: read_entries(app, after),
                    published,
                    workdir / "past.db",
                    seals,
                )
            )
            knowns.append((wall, cpu))
            past.close()
        result["as_known_at"] = {
            "before_the_corrections": summary(knowns),
            "from": "the read model's checkpoint at that position, caught up to it",
            # one player's history and rating as known then, from the model's record
            "from_the_record": known_reads(view, published, seed),
        }
        rng = random.Random(seed)
        keys = view.db.execute("select player, system from ratings").fetchall()
        days = [r[0] for r in view.db.execute("select distinct end_date from history")]
        latencies = []
        for _ in range(200):
            player, system = rng.choice(keys)
            day = rng.choice(days)
            start = time.perf_counter()
            queries.rating_as_of(view, player, system, day)
            latencies.append(time.perf_counter() - start)
        latencies.sort()
        result["as_of_ms"] = {
            "median": round(1000 * statistics.median(latencies), 3),
            "p95": round(1000 * latencies[int(0.95 * len(latencies))], 3),
        }
        result["player_page_ms"] = player_pages(store, view_path, [k[0] for k in keys], seed)
        view.close()
        result["read_model"] = model_bytes(view_path, real_games)
        if "compare" not in skip:
            result["replay_compare"] = compare_replay(store, view_path, workdir, repeats)
        if "profile" not in skip:
            result["profile"] = profile_rebuild(app, workdir / f"profile-{games}.db")
    if "memory" not in skip:
        result["memory"] = peak_memory(store, workdir, repeats)
    if with_live:
        result["live"] = live(store, workdir, repeats, key_dir)
    if with_web:  # list day: 16 clients, ours beside Datasette on the same read model
        result["web_load"] = web_load(store, view_path, workdir, rounds=repeats, seed=seed)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[100_000])
    parser.add_argument("--million", action="store_true", help="also 1,000,000 games")
    parser.add_argument("--no-live", action="store_true", help="skip append → visible")
    parser.add_argument(
        "--no-web", action="store_true", help="skip the web load (needs the bench extra)"
    )
    parser.add_argument("--players-per-game", type=float, default=0.02)
    parser.add_argument("--players", type=int, default=None, help="players at every size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--ledgers",
        type=Path,
        default=None,
        help="keep generated ledgers here and reuse them (each run works on a copy)",
    )
    parser.add_argument(
        "--skip",
        nargs="+",
        choices=SKIPPABLE,
        default=[],
        help="leave out these measurements, each a whole replay more (at 10M games: minutes)",
    )
    parser.add_argument(
        "--players-scale",
        type=int,
        nargs="+",
        default=None,
        help="only a rebuild's CPU a game and peaks at the first --games size for each of "
        "these players' counts (e.g. 2000 200000)",
    )
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ratings-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.players_scale:
        stores = {}
        for players in args.players_scale:
            store, generated, _ = ledger_copy(
                args.games[0], players, args.seed, workdir, args.ledgers
            )
            stores[players] = (store, generated.get("games", args.games[0]))
        scale = by_players(stores, workdir, args.repeats)
        print(json.dumps({"benchmark": "players_scale", "machine": machine(), "by_players": scale}))
        return
    out = {
        "benchmark": "bench",
        "machine": machine(),
        "kernel": os.environ.get(KERNEL_VARIABLE) or "pure",  # RATINGS_LEDGER_KERNEL=compiled
        "repeats": args.repeats,
        "sizes": [],
    }
    out["startup"] = startup(args.repeats, workdir)
    print(json.dumps({"startup": out["startup"]}), file=sys.stderr)
    sizes = [*args.games, *([1_000_000] if args.million else [])]
    for games in sizes:
        players = args.players or max(50, int(games * args.players_per_game))
        out["sizes"].append(
            run_size(
                games,
                players,
                args.seed,
                args.repeats,
                workdir,
                args.ledgers,
                not args.no_live,
                not args.no_web,
                frozenset(args.skip),
            )
        )
        print(json.dumps(out["sizes"][-1]), file=sys.stderr)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
