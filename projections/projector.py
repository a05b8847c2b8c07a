"""The projector: catch-up, rebuild and the cascade that keep a read model up to date.

One path for every entry, whatever the mode (docs/architecture.md):

1. `handlers.apply` decodes the entry into its typed fact (ledger/events.py; a poisoned one
   becomes a problem row) and hands it to `HANDLERS[entry.type]` (projections/handlers.py);
2. the handler changes the read model's records through a `Batch` (projections/batch.py): a
   rebuild's batch (`Fresh`) starts empty and keeps them in memory; a catch-up's
   (`Incremental`) reads and writes the database inside the catch-up's transaction. Each
   batch notes the items it changed;
3. `View` rates items in rating order through the family's rater — on a rebuild every item
   (`_replay`, rows to a new file in bulk), on a catch-up the cascade from the earliest
   changed item, following only the players whose rows change (`_cascade`).
"""

from __future__ import annotations

import gc
import hashlib
import json
import operator
import shutil
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from ledger import bounds, events
from ledger.log import LedgerEntry
from ledger.rules.families import DEFAULT
from ledger.rules.families import family as rules_family
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import Amendment
from projections import history_store, merges, modelfile, periods, queries
from projections.batch import Batch, Fresh, Incremental, decode_item, profile_fact
from projections.handlers import apply, short
from projections.items import Item
from projections.lock import BUSY_TIMEOUT_SECONDS, exclusive
from projections.merges import Merges
from projections.raters import rater_for
from projections.raters.change import Change
from projections.raters.uschess import parse_amendments
from projections.schema import (
    CONTENT,
    GAMES_AFTER,
    INDEXES,
    POST_RATING,
    PRE_RATING,
    RATING_COLUMNS,
    RATINGS_INSERT,
    STATE,
    create,
    rating_row,
)
from projections.standing import UNRATED, Standing
from projections.writer import PRAGMAS, LocalWriter, Writer
from projections.writer import writer as open_writer

CHECKPOINT_EVERY = 10_000  # ledger positions between read-model checkpoints (as-known-at)
COPY_CACHE_KIB = -8192  # SQLite's cache_size (negative: KiB) while a checkpoint is copied


@dataclass(frozen=True)
class WhatIf:
    """A replay under other rules: a version for every section, and extra amendments."""

    rules: str | None = None
    amendments: tuple[dict[str, Any], ...] = ()
    without_uplift: bool = False  # FIDE: the lists as if no uplift had been recorded

    def to_json(self) -> str:
        data: dict[str, Any] = {"rules": self.rules, "amendments": list(self.amendments)}
        if self.without_uplift:
            data["without_uplift"] = True
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> WhatIf:
        data = json.loads(text)
        return cls(data["rules"], tuple(data["amendments"]), data.get("without_uplift", False))

    @property
    def uplift(self) -> bool:
        return not self.without_uplift

    def __str__(self) -> str:
        parts = [f"rules {self.rules}"] if self.rules else []
        parts += ["without the FIDE uplift"] if self.without_uplift else []
        parts += [
            f"{a['parameter']}={a['value']}@{a['effective']}"
            + (f"..{a['until']}" if a.get("until") else "")
            for a in self.amendments
        ]
        return "what-if " + ", ".join(parts)


@dataclass
class CatchUp:
    """What one catch-up did: entries read, items re-rated, rows written."""

    entries: int = 0
    items_rated: int = 0
    rows: int = 0
    players: set[str] = field(default_factory=set)
    last_position: int = 0
    # (player, system) → (ratings row before or None, after or None), for changed standings
    changes: dict[tuple[str, str], tuple[dict[str, Any] | None, dict[str, Any] | None]] = field(
        default_factory=dict
    )
    history_changed: dict[tuple[str, str], int] = field(default_factory=dict)


def plausible(changes: list[Change]) -> str | None:
    """Why a rater's result cannot be stored (a non-finite or out-of-range rating or N)."""
    most = bounds.GAMES.read
    for c in changes:
        row = c.row
        rating, games = row[POST_RATING], row[GAMES_AFTER]
        if not bounds.plausible_rating(rating):
            return f"{c.player} {c.system}: rating {rating!r} is out of range"
        if not 0 <= games <= most:
            return f"{c.player} {c.system}: N {games!r} is out of range"
    return None


class View:
    """The read model in one SQLite file; `catch_up` is incremental, `rebuild` starts empty."""

    def __init__(
        self,
        path: str | Path,
        family: str = DEFAULT,
        what_if: WhatIf | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.checkpoint_every = checkpoint_every
        rules_family(family)  # an unknown name: ValueError naming the known ones
        if what_if == WhatIf():
            what_if = None  # the ledger's own rules: the same model as the real one
        self.path = str(path)
        self._open()
        with exclusive(self.path):  # one process creates the tables; the others wait
            if create(self.db, family, None if what_if is None else what_if.to_json()):
                # A model started again (another layout): its checkpoints are of the old one,
                # and an as-known-at read must not catch one of them up (timetravel).
                shutil.rmtree(self.checkpoints_dir, ignore_errors=True)
        self.family = self.db["meta"].get("rules_family")["value"]
        found = [r["value"] for r in self.db["meta"].rows_where("key = 'what_if'")]
        self.what_if = WhatIf.from_json(found[0]) if found else None
        if self.family != family or (what_if is not None and what_if != self.what_if):
            self.db.close()
            raise ValueError(
                f"the read model {self.path} rates under {self.family!r}"
                + (f" with {self.what_if}" if self.what_if else "")
                + "; use another --view"
            )

    def _open(self) -> None:
        # The file's identity before connecting: if a rebuild elsewhere moves a new file in
        # meanwhile, the next catch-up sees it changed and reopens (never the other way).
        path = Path(self.path)
        if not path.exists():
            with exclusive(self.path):  # a first build, behind the link (projections.modelfile)
                if not path.exists():
                    modelfile.start(self.path)
        self.inode = path.stat().st_ino
        self.db = sqlite_utils.Database(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS))
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA cache_size=-262144")  # 256 MiB: index writes stay in memory

    def _rater(
        self,
        lookup: Callable[[str, str], Standing],
        profiles: dict[str, events.PlayerRegistered],
        amendments: tuple[Amendment, ...],
        explain: bool = False,
        merged: Merges | None = None,
    ) -> Any:
        """The family's rater; with `merged`, it sees merged-away records as their survivors'
        (projections/merges.py)."""
        if not merged:
            return rater_for(self.family, lookup, profiles, amendments, explain, self.what_if)
        found = merges.profiles(profiles, merged)
        rater = rater_for(self.family, lookup, found, amendments, explain, self.what_if)
        return merges.Renaming(rater, merged)

    @property
    def _uplift(self) -> bool:
        """Whether FIDE lists take the recorded uplift (not in a what-if without it)."""
        return self.what_if is None or self.what_if.uplift

    def rerate(
        self, item: Item, before: str | None = None, kind: str | None = None
    ) -> list[Change]:
        """The item rated again from the stored standings before it (before `before`, of rows
        of one `kind`: a FIDE period's list standings), with every value shown."""
        bound = item.sort_key if before is None else before
        rater = self._rater(
            lambda p, s: queries.standing_before(self, p, s, bound, kind),
            ProfilesOnDemand(self),
            queries.amendments(self),
            explain=True,
            merged=merges.Merges.stored(self.db.conn),
        )
        return rater.rate(item)

    def close(self) -> None:
        self.db.close()

    @property
    def last_position(self) -> int:
        return int(self.db["meta"].get("last_position")["value"])

    def catch_up(self, entries: Iterable[LedgerEntry], dry_run: bool = False) -> CatchUp:
        """Apply every entry after the last processed position in one transaction (rolled
        back with `dry_run`: the report of what would change, and nothing kept); one process
        at a time (`projections.lock`): the others wait, then apply what is left, if any."""
        with exclusive(self.path):
            if Path(self.path).stat().st_ino != self.inode:
                self._reopen()  # another process's rebuild moved a new file in meanwhile
            return self._catch_up(entries, dry_run)

    def _reopen(self) -> None:
        """The file now at `path`, with the busy timeout the caller had set."""
        busy = self.db.execute("PRAGMA busy_timeout").fetchone()[0]
        self.db.close()
        self._open()
        self.db.execute(f"PRAGMA busy_timeout = {int(busy)}")

    def _catch_up(
        self, entries: Iterable[LedgerEntry], dry_run: bool, fresh: bool = False
    ) -> CatchUp:
        stats = CatchUp(last_position=0 if fresh else self.last_position)
        start = stats.last_position
        with _no_cyclic_gc():
            if start == 0:
                first = self._fresh(entries, stats, dry_run)
            else:
                first = self._incremental(entries, stats, dry_run)
        if first is None or dry_run:
            return stats
        before = first - 1
        if self.checkpoint_every and (
            stats.last_position // self.checkpoint_every > before // self.checkpoint_every
        ):
            self.checkpoint()
        return stats

    def _read(self, b: Batch, entries: Iterable[LedgerEntry], stats: CatchUp) -> int | None:
        """Every entry after the last position through its handler; the first one's position."""
        start, first = stats.last_position, None
        for entry in entries:
            if entry.position <= start:
                continue
            if first is None:
                first = entry.position
            apply(b, entry)
            stats.entries += 1
            stats.last_position = entry.position
        return first

    def _incremental(
        self, entries: Iterable[LedgerEntry], stats: CatchUp, dry_run: bool
    ) -> int | None:
        conn = self.db.conn
        conn.execute("begin")
        try:
            batch = Incremental(self.db)
            first = self._read(batch, entries, stats)
            if first is None:
                conn.rollback()
                return None
            self._cascade(batch, stats)
            self.db["meta"].upsert({"key": "last_position", "value": str(stats.last_position)})
        except BaseException:
            conn.rollback()
            raise
        if dry_run:
            conn.rollback()
        else:
            conn.commit()
        return first

    def _fresh(self, entries: Iterable[LedgerEntry], stats: CatchUp, dry_run: bool) -> int | None:
        """Into an empty read model: built whole in a new file without a journal (nothing to
        roll back to), then linked in place of the empty one (`projections.modelfile`); a crash
        leaves the empty one."""
        with closing(Fresh()) as batch:
            return self._fresh_from(batch, entries, stats, dry_run)

    def _fresh_from(
        self, batch: Fresh, entries: Iterable[LedgerEntry], stats: CatchUp, dry_run: bool
    ) -> int | None:
        first = self._read(batch, entries, stats)
        if first is None:
            return None
        new = modelfile.new_build(self.path)
        db = sqlite_utils.Database(new)
        try:
            for pragma in PRAGMAS:  # a new file behind the link: nothing to journal
                db.execute(f"PRAGMA {pragma}")
            create(db, self.family, None if self.what_if is None else self.what_if.to_json())
        finally:
            db.close()
        writer = open_writer(new, len(batch.items))
        try:
            self._replay(batch, stats, writer)
            writer.execute(
                "update meta set value = ? where key = 'last_position'", [str(stats.last_position)]
            )
        except BaseException:
            writer.abort()
            raise
        writer.close()
        if dry_run:
            Path(new).unlink(missing_ok=True)
            return first
        self.db.close()
        modelfile.link(self.path, new)
        self._open()
        return first

    @property
    def checkpoints_dir(self) -> Path:
        return checkpoints_dir(self.path)

    def checkpoint(self) -> Path:
        """A copy of the read model as it stands, for `--as-known-at` (projections.timetravel)."""
        self.checkpoints_dir.mkdir(exist_ok=True)
        target = self.checkpoints_dir / f"{self.last_position:012d}.db"
        target.unlink(missing_ok=True)
        # A copy needs no large cache: with the catch-up's (256 MiB), VACUUM's page cache and
        # its index sorts held about 550 MiB more on a million-game model (issue 21).
        cache = self.db.execute("PRAGMA cache_size").fetchone()[0]
        self.db.execute(f"PRAGMA cache_size = {COPY_CACHE_KIB}")
        try:
            self.db.execute("VACUUM INTO ?", [str(target)])
        finally:
            self.db.execute(f"PRAGMA cache_size = {int(cache)}")
        copy = sqlite3.connect(target)  # in WAL mode already: opening it later writes nothing
        try:
            copy.execute("PRAGMA journal_mode=WAL")
        finally:
            copy.close()
        return target

    def _rate(
        self, item: Item, rate: Callable[[Item], list[Change]], batch: Batch
    ) -> list[Change] | None:
        """The item's changes, or None after recording why it cannot be rated."""
        try:
            changes = rate(item)
            reason = plausible(changes)
        except Exception as exc:  # noqa: BLE001 - any failure of one item is that item's
            reason = f"{type(exc).__name__}: {short(exc)}"
        if reason is None:
            return changes
        batch.add_problem(item.revision, item.key, item.kind, "not rated: " + reason)
        return None

    def _guarded(self, profiles: Any, batch: Batch) -> Callable[[Callable], Any]:
        """The rater factory for projections.periods, each item rated through `_rate` (an item
        that cannot be rated becomes a problem row, as on the other paths)."""

        def rater_for(lookup: Callable) -> Any:
            rater = self._rater(lookup, profiles, (), merged=batch.merges())
            return _Guarded(self, rater, batch)

        return rater_for

    def _replay(self, batch: Fresh, stats: CatchUp, conn: Writer | LocalWriter) -> None:
        """Into an empty read model: every item in rating order, in memory. The records go to
        the writer first, the history rows in chunks as they come (split there into the
        history's tables, projections/history_store.py): a writer process stores them while
        the next items are rated (projections/writer.py)."""
        # Indexes are built after the bulk inserts, from sorted keys (issue 21).
        for index in INDEXES:
            conn.execute(f"drop index if exists {index}")
        batch.write(conn)
        live: dict[tuple[str, System], Standing] = {}
        get = live.get
        amendments = parse_amendments(
            [
                {"parameter": a[0], "value": json.loads(a[1]), "effective": a[2], "until": a[3]}
                for a in batch.amendments.values()
            ]
        )
        rater = self._rater(
            lambda player, system: get((player, system), UNRATED),
            {m: p[0] for m, p in batch.profiles.items()},
            amendments,
            merged=batch.merges(),
        )
        rate = rater.rate
        rows: list[tuple[Any, ...]] = []
        append = rows.append
        players = stats.players
        next_id = 1  # history rows are numbered in the order they are rated (appended)
        own = [x for x in batch.lists if x.family == self.family]
        if periods.in_periods(self.family, own):
            profiles = {m: p[0] for m, p in batch.profiles.items()}
            ordered = list(batch.ordered())
            rows, live = periods.rate(ordered, own, self._guarded(profiles, batch), self._uplift)
            players.update(p for p, _ in live)
            stats.items_rated = len(ordered)
            stats.rows = len(rows)
            history_store.append(conn, rows, next_id)
            batch.write_problems(conn)
            self._write_ratings(live, conn=conn)
            _index(conn)
            return
        for item in batch.ordered():
            changes = self._rate(item, rate, batch)
            stats.items_rated += 1
            if changes is None:
                continue
            for c in changes:
                live[(c.player, c.system)] = c.standing
                append(c.row)
                players.add(c.player)
            if len(rows) >= HISTORY_CHUNK:
                stats.rows += len(rows)
                next_id = history_store.append(conn, rows, next_id)
                rows = []
                append = rows.append
        stats.rows += len(rows)
        history_store.append(conn, rows, next_id)
        batch.write_problems(conn)
        self._write_ratings(live, conn=conn)
        _index(conn)

    def _cascade(self, batch: Incremental, stats: CatchUp) -> None:
        """Re-rate from the earliest changed item, following the players whose rows change."""
        lists = queries.published_lists(self, self.family)
        if periods.in_periods(self.family, lists):
            if batch.dirty or batch.seeds or batch.amended or batch.listed:
                self._rate_in_periods(lists, stats, batch)
            return
        db = self.db
        conn = db.conn
        for start, until in batch.amended:
            rows = db.execute(
                "select key, sort_key from items where start >= ?"
                + (" and start < ?" if until else ""),
                [start, until] if until else [start],
            ).fetchall()
            for key, sk in rows:
                batch.touch(key, sk)
        starts = list(batch.dirty.values())
        for player in batch.seeds:
            first = db.execute(
                "select min(i.sort_key) from item_players p join items i on i.key = p.item_key "
                "where p.player = ?",
                [player],
            ).fetchone()[0]
            if first is not None:
                starts.append(first)
        if not starts:
            return
        start = min(starts)
        dirty = set(batch.dirty)
        live: dict[tuple[str, System], Standing] = {}
        affected = set(batch.seeds)
        current = [start]
        # Each (player, system)'s standing after his last stored row the cascade has passed
        # (that row, until asked for: `_standing` makes it), or read before an item that
        # asks for it: what a player not followed in memory stands on.
        stored: dict[tuple[str, str], Any] = {}

        def lookup(player: str, system: System) -> Standing:
            s = live.get((player, system))
            if s is not None:
                return s
            s = stored.get((player, system))
            if s is None:
                s = queries.standing_before(self, player, system, current[0])
            else:
                s = _standing(s)
            stored[(player, system)] = s
            return s

        systems: set[str] = set()  # the systems of the rows the cascade has passed

        def read_ahead(rows: Iterable[tuple[int, tuple[Any, ...]]]) -> None:
            """The standings rating an item will ask for that the cascade has not met, in one
            query: of each player its stored rows rate, in their system and, if he was unrated
            there, in the others (his background)."""
            wanted = set()
            for _, r in rows:
                player = r[1]
                systems.add(r[2])
                for system in systems if r[PRE_RATING] is None else (r[2],):
                    if (player, system) not in stored and (player, system) not in live:
                        wanted.add((player, system))
            if wanted:
                stored.update(history_store.standings_before(conn, sorted(wanted), current[0]))

        rater = self._rater(
            lookup, ProfilesOnDemand(self), queries.amendments(self), merged=batch.merges()
        )
        changed = stats.history_changed

        def count(key: tuple[str, str]) -> None:
            changed[key] = changed.get(key, 0) + 1

        # Rows of items no longer rated (withdrawn, voided) or rated elsewhere in the order (a
        # correction with other dates) go first: their players' later rows may all change,
        # so they are followed from where the cascade starts (every item of theirs after it
        # is re-rated). Their ratings rows are compared whatever their stored rows say.
        forced: set[tuple[str, str]] = set()
        for key in dirty:
            now = db.execute("select sort_key from items where key = ?", [key]).fetchone()
            rows = db.execute(
                "select player, system, sort_key from history where item_key = ?", [key]
            ).fetchall()
            if now is not None and all(r[2] == now[0] for r in rows):
                continue  # re-rated in place below, row against row
            for player, system, _ in rows:
                live.setdefault(
                    (player, system), queries.standing_before(self, player, system, start)
                )
                forced.add((player, system))
                affected.add(player)
                if now is None:
                    count((player, system))
            history_store.delete_item(db.conn, key)
        # Rows are replaced at the end: until then, a player not followed in memory reads
        # rows that the re-rating left as they were (docs/decisions.md).
        stale: list[int] = []  # ids of rows that no new row replaces
        rewritten: list[tuple[int, tuple[Any, ...], tuple[Any, ...]]] = []  # (id, old, new)
        added: list[tuple[Any, ...]] = []  # rows with no stored row of their item
        # Which players each later item names (item_players): an item is read and decoded
        # only if it is re-rated.
        named: dict[str, set[str]] = {}
        for key, player in db.execute(
            "select p.item_key, p.player from items i join item_players p on p.item_key = i.key "
            "where i.sort_key >= ?",
            [start],
        ):
            named.setdefault(key, set()).add(player)
        items = db.execute(
            "select key, kind, start, end, position, revision, sort_key from items "
            "where sort_key >= ? order by sort_key",
            [start],
        ).fetchall()
        for at in range(0, len(items), CASCADE_CHUNK):
            chunk = items[at : at + CASCADE_CHUNK]
            rows_of = history_store.rows_of_items(conn, chunk[0][6], chunk[-1][6])
            for key, kind, s, e, position, revision, sort_key in chunk:
                old_rows = rows_of.get(key, ())
                if key not in dirty and affected.isdisjoint(named.get(key, ())):
                    for _, r in old_rows:  # they stand
                        stored[(r[1], r[2])] = r
                    continue
                payload = db.execute("select payload from items where key = ?", [key]).fetchone()[0]
                item = Item(key, kind, s, e, position, revision, decode_item(kind, payload))
                current[0] = sort_key
                read_ahead(old_rows)
                batch.drop_problems(revision, key)
                changes = self._rate(item, rater.rate, batch) or []
                stats.items_rated += 1
                old: dict[tuple[str, str], tuple[int | None, tuple[Any, ...]]] = {}
                for rid, r in old_rows:
                    moved = r[3] != sort_key  # (new dates): a new row at its new key
                    if moved:
                        stale.append(rid)
                    old[(r[1], r[2])] = (None if moved else rid, r)
                for c in changes:
                    row = c.row
                    rid, before = old.pop((c.player, str(c.system)), (None, None))
                    if before == row:
                        continue  # the same row: left as it is (only changed rows are written)
                    if rid is None:
                        added.append(row)
                    else:
                        rewritten.append((rid, before, row))
                    if before is None or _state(before) != _state(row):
                        affected.add(c.player)
                        count((c.player, str(c.system)))
                for (player, system), (rid, _) in old.items():  # no longer in the item
                    if rid is not None:
                        stale.append(rid)
                    live[(player, system)] = lookup(player, system)  # back to the prior state
                    affected.add(player)
                    count((player, str(system)))
                for _, r in old_rows:  # what the stored rows stand on after the item
                    if r[3] == sort_key:
                        stored[(r[1], r[2])] = r
                # Only players whose rows changed are followed in memory; the others' rows
                # stand (their standing after the item is the one their row there keeps).
                for c in changes:
                    if c.player in affected:
                        live[(c.player, c.system)] = c.standing
                        stats.players.add(c.player)
                    else:
                        stored[(c.player, c.system)] = c.standing
        # Rows keep their keys (player, system, the item's sort key): replaced in place.
        history_store.delete_ids(conn, stale)
        history_store.rewrite(conn, rewritten)
        added.sort(key=operator.itemgetter(1, 2, 3))
        history_store.replace(conn, added)
        stats.rows += len(rewritten) + len(added)
        # A standing the stored rows end on already has its ratings row (the same as a
        # replay's): only the others are compared with theirs.
        self._write_ratings(
            {k: v for k, v in live.items() if k in forced or not _same(stored.get(k), v)}, stats
        )

    def _rate_in_periods(
        self, lists: list[periods.PublishedList], stats: CatchUp, batch: Incremental
    ) -> None:
        """Every item again by the family's lists (projections.periods): a replay's rows."""
        items = queries.items_in_order(self)
        for item in items:
            batch.drop_problems(item.revision, item.key)  # rated again below
        rows, live = periods.rate(
            items, lists, self._guarded(ProfilesOnDemand(self), batch), self._uplift
        )
        stored = {tuple(r[1:4]): tuple(r) for r in self.db.execute("select * from history")}
        new = {tuple(r[1:4]): tuple(r) for r in rows}
        # Only rows that changed are written: the others stay as they are.
        changed = [r for k, r in new.items() if stored.get(k) != r]
        gone = [k for k in stored if k not in new]
        for key in {(k[0], k[1]) for k in [*(r[1:4] for r in changed), *gone]}:
            stats.history_changed[key] = stats.history_changed.get(key, 0) + 1
            stats.players.add(key[0])
        history_store.delete_keys(self.db.conn, gone)
        history_store.replace(self.db.conn, sorted(changed, key=operator.itemgetter(1, 2, 3)))
        for player, system in self.db.execute("select player, system from ratings").fetchall():
            live.setdefault((player, system), UNRATED)
        self._write_ratings(live, stats)
        stats.items_rated += len(items)
        stats.rows += len(changed)

    def _write_ratings(
        self,
        live: dict[tuple[str, System], Standing],
        stats: CatchUp | None = None,
        conn: Any = None,
    ) -> None:
        """The `ratings` rows of the standings in `live` (a rating of None: no row). With
        `stats` (a catch-up), only rows that differ from the stored ones are written, and each
        is noted in `stats.changes` as (before, after)."""
        conn = conn or self.db.conn
        floors = rules_family(self.family).floors
        gone = [(p, str(s)) for (p, s), st in live.items() if st.rating is None]
        rows = [
            rating_row(p, s, st, floors) for (p, s), st in live.items() if st.rating is not None
        ]
        if stats is None:  # a rebuild: in key order, each b-tree appended to
            written = sorted(rows, key=operator.itemgetter("player", "system"))
        else:  # a catch-up: only the rows that changed are written, and noted
            keys = [*gone, *((r["player"], r["system"]) for r in rows)]
            before = self._ratings(conn, keys)
            gone = [k for k in gone if k in before]
            for key in gone:
                stats.changes[key] = (_rating_dict(before[key]), None)
            written, kept = [], []  # new rows; rows that were there (updated in place)
            for r in rows:
                key, values = _RATING_KEY(r), _RATING_VALUES(r)
                was = before.get(key)
                if was is None:
                    written.append(r)
                elif was != values:
                    kept.append((*values[2:], *key))
                else:
                    continue
                stats.changes[key] = (_rating_dict(was), r)
            conn.executemany(RATINGS_UPDATE, kept)
        conn.executemany("delete from ratings where player = ? and system = ?", gone)
        conn.executemany(RATINGS_INSERT, list(map(_RATING_VALUES, written)))

    @staticmethod
    def _ratings(conn: Any, keys: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[Any, ...]]:
        """The `ratings` rows of (player, system) keys (their values, RATING_COLUMNS order), in
        one query."""
        found = conn.execute(RATINGS_OF_KEYS, [json.dumps(keys)])
        return {(row[0], row[1]): row for row in found}

    def rebuild(self, entries: Iterable[LedgerEntry]) -> CatchUp:
        """Drop the read model and replay the whole ledger into it (holding its lock)."""
        with exclusive(self.path):
            shutil.rmtree(self.checkpoints_dir, ignore_errors=True)
            return self._catch_up(entries, dry_run=False, fresh=True)

    def digest(self) -> str:
        """SHA-256 over the read model's content (`schema.CONTENT`: every table's rows in key
        order, whatever the layout stores them as): rebuild identity, `verify --view`."""
        h = hashlib.sha256()
        for table, query in CONTENT.items():
            h.update(table.encode())
            for row in self.db.execute(query):
                h.update(json.dumps(row, default=str).encode())
        return h.hexdigest()


_RATING_VALUES = operator.itemgetter(*RATING_COLUMNS)  # a `ratings` row's values, in order
_RATING_KEY = operator.itemgetter("player", "system")
RATINGS_UPDATE = (
    f"update ratings set {', '.join(f'{c} = ?' for c in list(RATING_COLUMNS)[2:])} "
    "where player = ? and system = ?"
)
# The `ratings` rows of (player, system) keys given as JSON ([[player, system], ...]).
RATINGS_OF_KEYS = (
    f"select {', '.join(RATING_COLUMNS)} from ratings where (player, system) in "
    "(select json_extract(value, '$[0]'), json_extract(value, '$[1]') from json_each(?))"
)


def _rating_dict(values: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """A `ratings` row's values as its dict (None: no row)."""
    return None if values is None else dict(zip(RATING_COLUMNS, values, strict=True))


def _state(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A history row's standing after it: the rating, N and the state columns."""
    return (row[POST_RATING], row[GAMES_AFTER], *row[STATE])


def _standing(stored: Standing | tuple[Any, ...]) -> Standing:
    """A standing, or the one after a history row."""
    return stored if type(stored) is Standing else Standing.from_columns(_state(stored))


def _same(stored: Standing | tuple[Any, ...] | None, standing: Standing) -> bool:
    """Whether a stored standing (or the one after a history row) is `standing`."""
    return stored is not None and _standing(stored) == standing


class _Guarded:
    """A family's rater whose items are rated through `View._rate` (problem rows)."""

    def __init__(self, view: View, rater: Any, batch: Batch) -> None:
        self.view, self.rater, self.batch = view, rater, batch

    def rate(self, item: Item) -> list[Change]:
        return self.view._rate(item, self.rater.rate, self.batch) or []

    def standing(self, player: str, *system: str) -> Standing:
        return self.rater.standing(player, *system)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Without the cycle collector: a replay makes millions of acyclic tuples, and each of
    its full passes would walk them all (its cost grows with the ledger). Reference counting
    still frees everything; the collector runs again afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Items whose stored rows a catch-up's cascade reads in one query.
CASCADE_CHUNK = 256

# History rows handed to the writer at a time: a chunk's rows are most of a rebuild's own
# memory beyond its live standings (about 1.5 KB a row), so it is kept small.
HISTORY_CHUNK = 4_000


def _index(conn: Writer | LocalWriter) -> None:
    """The indexes a rebuild dropped, built once every row is in."""
    for index in INDEXES.values():
        conn.execute(index)


class ProfilesOnDemand:
    """The raters' `profiles` mapping for a read model: a player's typed profile read when
    first asked for (a catch-up rarely needs more than the players it re-rates)."""

    def __init__(self, view: View) -> None:
        self.conn = view.db.conn
        self.found: dict[str, events.PlayerRegistered | None] = {}

    def get(self, member_id: str, default: Any = None) -> Any:
        if member_id not in self.found:
            row = self.conn.execute(
                "select profile from players where id = ?", [member_id]
            ).fetchone()
            self.found[member_id] = None if row is None else profile_fact(member_id, row[0])
        found = self.found[member_id]
        return default if found is None else found

    def __getitem__(self, member_id: str) -> events.PlayerRegistered:
        found = self.get(member_id)
        if found is None:
            raise KeyError(member_id)
        return found


def checkpoints_dir(path: str | Path) -> Path:
    """Where a read model's checkpoints are kept: `VIEW.db.checkpoints/POSITION.db`."""
    return Path(str(path) + ".checkpoints")
