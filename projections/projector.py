"""The read model (`View`): one SQLite file kept up to date by catch-up and rebuild.

One path for every entry, whatever the mode (docs/architecture.md):

1. `handlers.apply` decodes the entry into its typed fact (ledger/events.py; a poisoned one
   becomes a problem row) and hands it to `HANDLERS[entry.type]` (projections/handlers.py);
2. the handler changes the read model's records through a `Batch` (projections/batch.py): a
   rebuild's batch (`Fresh`) starts empty and keeps them in memory; a catch-up's
   (`Incremental`) reads and writes the database inside the catch-up's transaction. Each
   batch notes the items it changed;
3. items are rated in rating order through the family's rater (`RatingStep`,
   projections/rating_step.py) — on a rebuild every item, rows to a new file in bulk
   (`Rebuild`, projections/rebuild.py), on a catch-up the cascade from the earliest changed
   item, following only the players whose rows change (`Cascade`, projections/cascade.py);
   both write the `ratings` rows through one `RatingsWriter` (projections/ratings_writer.py).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import sqlite_utils

from ledger.log import LedgerEntry
from ledger.rules.families import DEFAULT
from ledger.rules.families import family as rules_family
from projections import knowledge, merges, modelfile, moments, periods, queries
from projections.batch import Incremental
from projections.cascade import Cascade
from projections.catchup import CatchUp
from projections.change import Change
from projections.handlers import apply, apply_entries
from projections.items import Item
from projections.lock import BUSY_TIMEOUT_SECONDS, exclusive
from projections.profiles import ProfilesOnDemand
from projections.rating import NotRated
from projections.rating_step import RatingStep
from projections.ratings_writer import RatingsWriter
from projections.rebuild import Rebuild
from projections.runs import Run
from projections.schema import content, create
from projections.seals import drop_abandoned, temporary_name, warn
from projections.standing import Standing
from projections.what_if import WhatIf

if TYPE_CHECKING:
    from projections.seals import Sealer, Seals

CHECKPOINT_EVERY = 10_000  # ledger positions between read-model checkpoints (as-known-at)
# called before a catch-up or rebuild keeps what it read (None: nothing to wait for)
Settle = Callable[[], None] | None
# SQLite's cache_size (negative: KiB) while the whole model is read once, in order (a
# checkpoint's copy, a digest): the catch-up's 256 MiB filled as the model grew, and a
# rebuild's digest of a million-game model held 170-210 MiB more than the rebuild (issue 33)
SCAN_CACHE_KIB = -2048
COPY_PAGES = 4096  # pages a checkpoint's copy takes at a time (its snapshot held throughout)


class View:
    """The read model in one SQLite file; `catch_up` is incremental, `rebuild` starts empty.

    It owns the open file; its catch-up's re-rating (`Cascade`) and its rebuild (`Rebuild`)
    are collaborators that share its rating step and its `ratings` writer."""

    def __init__(
        self,
        path: str | Path,
        family: str = DEFAULT,
        what_if: WhatIf | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.checkpoint_every = checkpoint_every
        self._copying: threading.Thread | None = None  # the checkpoint being copied
        self.seals: Seals | None = None  # who seals its checkpoints (a session's: its ledger's)
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
        self.family = self.db.table("meta").get("rules_family")["value"]
        found = [r["value"] for r in self.db["meta"].rows_where("key = 'what_if'")]
        self.what_if = WhatIf.from_json(found[0]) if found else None
        if self.family != family or (what_if is not None and what_if != self.what_if):
            self.db.close()
            raise ValueError(
                f"the read model {self.path} rates under {self.family!r}"
                + (f" with {self.what_if}" if self.what_if else "")
                + "; use another --view"
            )
        self._step = RatingStep(self.family, self.what_if)
        ratings = RatingsWriter(self.family)
        self._cascade = Cascade(self, self._step, ratings)
        self._rebuild = Rebuild(self.path, self.family, self.what_if, self._step, ratings)

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
        # Setting the mode takes a lock SQLite does not wait for (threads opening a new model
        # together got "database is locked"): set only where the file is not in WAL already.
        if self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA cache_size=-262144")  # 256 MiB: index writes stay in memory

    def rerate(
        self,
        item: Item,
        before: str | None = None,
        kind: str | None = None,
        earlier: str | None = None,
    ) -> list[Change]:
        """The item rated again from the stored standings before it (before `before`, of rows
        of one `kind`: a FIDE period's list standings; `earlier`: the bound of the older list
        a section that started under it is rated from, `periods.in_force`), with every value
        shown."""
        bound = item.sort_key if before is None else before

        def lookup(player: str, system: str) -> Standing[object]:
            now = queries.standing_before(self, player, system, bound, kind)
            if earlier is None:
                return now
            return periods.in_force(now, queries.standing_before(self, player, system, earlier))

        rater = self._step.rater(
            lookup,
            ProfilesOnDemand(self),
            queries.amendments(self),
            explain=True,
            merged=merges.Merges.stored(self.db.conn),
        )
        try:
            return rater.rate(item)
        except NotRated:  # it rates none of the item's games: its problem row says why
            return []

    def close(self) -> None:
        """Close the file, once the checkpoint being copied is done."""
        self.wait_for_checkpoint()
        self.db.close()

    @property
    def last_position(self) -> int:
        found = self.db.execute("select value from meta where key = 'last_position'").fetchone()
        return int(found[0])

    def catch_up(
        self, entries: Iterable[LedgerEntry], dry_run: bool = False, settle: Settle = None
    ) -> CatchUp:
        """Apply every entry after the last processed position in one transaction (rolled
        back with `dry_run`: the report of what would change, and nothing kept); one process
        at a time (`projections.lock`): the others wait, then apply what is left, if any.
        `settle`: called once the entries are applied, before anything is kept (its error
        keeps nothing: a check of the entries made elsewhere, ledger/elsewhere.py)."""
        with exclusive(self.path):
            self.follow_file()
            return self._catch_up(entries, dry_run, settle=settle)

    def follow_file(self) -> None:
        """Reopen the model if another rebuild moved a new file in at its path meanwhile."""
        if Path(self.path).stat().st_ino != self.inode:
            self._reopen()

    def _reopen(self) -> None:
        """The file now at `path`, with the busy timeout the caller had set."""
        busy = self.db.execute("PRAGMA busy_timeout").fetchone()[0]
        self.db.close()
        self._open()
        self.db.execute(f"PRAGMA busy_timeout = {int(busy)}")

    def _catch_up(
        self,
        entries: Iterable[LedgerEntry],
        dry_run: bool,
        fresh: bool = False,
        settle: Settle = None,
    ) -> CatchUp:
        stats = CatchUp(last_position=0 if fresh else self.last_position)
        start = stats.last_position
        times = moments.Times() if start == 0 else moments.read(self.db.conn)
        entries = times.watch(entries, start)
        with _no_cyclic_gc():
            if start == 0:
                first = self._fresh(entries, stats, dry_run, settle, times)
            else:
                first = self._incremental(entries, stats, dry_run, settle, times)
        if first is None or dry_run:
            return stats
        before = first - 1
        if self.checkpoint_every and (
            stats.last_position // self.checkpoint_every > before // self.checkpoint_every
        ):
            self.checkpoint()
        return stats

    def _fresh(
        self,
        entries: Iterable[LedgerEntry],
        stats: CatchUp,
        dry_run: bool,
        settle: Settle,
        times: moments.Times,
    ) -> int | None:
        """Into an empty read model: built whole in a new file, then linked in place of the
        empty one (`projections.modelfile`), once `settle` returned; with `dry_run`, the new
        file dropped. `times`: when its entries were recorded, noted as they are read."""
        built = self._rebuild.build(entries, stats)
        if built is None:
            return None
        first, new = built
        if settle is not None:
            try:
                settle()
            except BaseException:
                Path(new).unlink(missing_ok=True)
                raise
        if dry_run:
            Path(new).unlink(missing_ok=True)
            return first
        with closing(sqlite3.connect(new)) as made, made:
            moments.write(made, times)
            if knowledge.keeps_record(self.family):  # what it knew when, from here on
                knowledge.start(made, stats.last_position)
        self.db.close()
        modelfile.link(self.path, new)
        self._open()
        return first

    def _incremental(
        self,
        entries: Iterable[LedgerEntry],
        stats: CatchUp,
        dry_run: bool,
        settle: Settle,
        times: moments.Times,
    ) -> int | None:
        conn = self.db.conn
        conn.execute("begin")
        try:
            if dry_run or knowledge.since(conn) is None:
                batch = Incremental(self.db)
                first = apply_entries(batch, entries, stats)
                if first is not None:
                    self._cascade.run(batch, stats)
            else:
                first = self._in_runs(entries, stats)
            if first is None:
                conn.rollback()
                return None
            self.db.table("meta").upsert(
                {"key": "last_position", "value": str(stats.last_position)}
            )
            moments.write(conn, times)
            if settle is not None:
                settle()
        except BaseException:
            conn.rollback()
            raise
        if dry_run:
            conn.rollback()
        else:
            conn.commit()
        return first

    def _in_runs(self, entries: Iterable[LedgerEntry], stats: CatchUp) -> int | None:
        """The entries applied in runs (projections/runs.py), each run's cascade on its own,
        the rows it replaces kept as known until the position of the entry that replaced them
        (projections/knowledge.py); the first entry's position."""
        conn, first, run = self.db.conn, None, None
        knowledge.record(conn)
        try:
            for entry in entries:
                if entry.position <= stats.last_position:
                    continue
                if run is not None and not run.joins(entry):
                    self._rerun(run, stats)
                    run = None
                if run is None:
                    run = Run(Incremental(self.db), entry.position)
                first = first or entry.position
                apply(run.batch, entry)
                stats.entries += 1
                stats.last_position = entry.position
            if run is not None:
                self._rerun(run, stats)
        finally:
            knowledge.at(conn, None)
        return first

    def _rerun(self, run: Run, stats: CatchUp) -> None:
        """A run's cascade, the rows it replaces known until its first entry."""
        knowledge.at(self.db.conn, run.position)
        step = CatchUp(last_position=stats.last_position)
        self._cascade.run(run.batch, step)
        stats.then(step)

    @property
    def kind(self) -> str:
        """What the model is a model of, as its checkpoints' seals name it: its rules family
        and what-if (a checkpoint of another family's or a what-if's model is not this one's)."""
        return json.dumps([self.family, self.what_if.to_json() if self.what_if else None])

    @property
    def checkpoints_dir(self) -> Path:
        return checkpoints_dir(self.path)

    def checkpoint(self) -> None:
        """Start a copy of the read model as it stands, for `--as-known-at`
        (projections.timetravel), sealed by `seals` (projections.seals; unsealed, no read uses
        it). Its snapshot is taken here, in a connection of its own (a read transaction of the
        model as this catch-up left it, the position read from it); the pages are copied in a
        thread (SQLite's backup), while the model goes on, and written under a temporary name
        that no read lists (`CopyInProgress`), sealed whole, then linked in (docs/decisions.md,
        "A checkpoint copied beside the catch-up"). The previous copy is finished first."""
        self.wait_for_checkpoint()
        self.checkpoints_dir.mkdir(exist_ok=True)
        source = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            source.execute(f"PRAGMA cache_size = {SCAN_CACHE_KIB}")
            source.execute("begin")
            found = source.execute("select value from meta where key = 'last_position'")
            position = int(found.fetchone()[0])
            seal = None if self.seals is None else self.seals.sealer(position, self.kind)
        except BaseException:
            source.close()
            raise
        copy = CopyInProgress(self.checkpoints_dir / f"{position:012d}.db", source, seal)
        self._copying = threading.Thread(target=copy.run, name="checkpoint copy", daemon=True)
        self._copying.start()

    def wait_for_checkpoint(self) -> None:
        """Return once the checkpoint being copied, if any, is linked in (or failed)."""
        if self._copying is not None:
            self._copying.join()
            self._copying = None

    def rebuild(self, entries: Iterable[LedgerEntry], settle: Settle = None) -> CatchUp:
        """Drop the read model and replay the whole ledger into it (holding its lock), kept
        once `settle` returned (as in `catch_up`)."""
        self.wait_for_checkpoint()
        with exclusive(self.path):
            shutil.rmtree(self.checkpoints_dir, ignore_errors=True)
            return self._catch_up(entries, dry_run=False, fresh=True, settle=settle)

    def digest(self) -> str:
        """SHA-256 over the read model's content (`schema.content`: every table's rows in key
        order, whatever the layout stores them as): rebuild identity, `verify --view`."""
        h = hashlib.sha256()
        with self._scanning():
            for table, query in content(self.family).items():
                h.update(table.encode())
                for row in self.db.execute(query):
                    h.update(json.dumps(row, default=str).encode())
        return h.hexdigest()

    @contextmanager
    def _scanning(self) -> Iterator[None]:
        """SQLite's page cache held to SCAN_CACHE_KIB while the whole model is read once, the
        catch-up's set again after (its pages let go: they count in the process's memory)."""
        cache = self.db.execute("PRAGMA cache_size").fetchone()[0]
        self.db.execute(f"PRAGMA cache_size = {SCAN_CACHE_KIB}")
        try:
            yield
        finally:
            self.db.execute(f"PRAGMA cache_size = {int(cache)}")


class CopyInProgress:
    """One checkpoint's copy: the pages of `source`'s snapshot (a read transaction already
    begun) copied to `target`'s temporary name (`TARGET.PID.HEX.tmp`, which
    `timetravel.checkpoints` never lists: only `POSITION.db`), sealed once complete (`seal`:
    the seal of `target` made from the file written), then renamed to `target`. A copy that
    fails leaves nothing under `target`'s name (nor an unsealed one, where a seal is asked for:
    one warning line); a killed process leaves its temporary file, removed by the next copy."""

    def __init__(self, target: Path, source: sqlite3.Connection, seal: Sealer | None) -> None:
        self.target, self.source, self.seal = target, source, seal
        self.written = target.with_name(temporary_name(target.name))

    def run(self) -> None:
        try:
            drop_abandoned(self.target.parent)
            self.target.unlink(missing_ok=True)
            with closing(sqlite3.connect(self.written)) as copy:
                self.source.backup(copy, pages=COPY_PAGES)
                # in WAL mode already: opening it later writes nothing
                copy.execute("PRAGMA journal_mode=WAL")
            if self.seal is not None:
                self.seal(self.written, self.target)
            os.replace(self.written, self.target)
        except (OSError, sqlite3.Error) as exc:
            why = getattr(exc, "strerror", None) or exc
            warn(f"checkpoint file {self.target} not made ({why}): no read uses one")
        finally:
            self.source.close()
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(f"{self.written}{suffix}").unlink(missing_ok=True)


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


def checkpoints_dir(path: str | Path) -> Path:
    """Where a read model's checkpoints are kept: `VIEW.db.checkpoints/POSITION.db`."""
    return Path(str(path) + ".checkpoints")
