"""The projector: catch-up, rebuild and the cascade that keep a read model up to date."""

from __future__ import annotations

import hashlib
import json
import operator
import shutil
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils

from ledger.log import LedgerEntry
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import Amendment
from projections import periods, queries
from projections.foreign import RATERS, ForeignRater
from projections.items import ITEM_ENTRIES, WITHDRAWALS, Item, item_key, to_item
from projections.lock import BUSY_TIMEOUT_SECONDS, exclusive
from projections.rating import Change, Rater, parse_amendments
from projections.schema import (
    FAMILIES,
    GAMES_AFTER,
    HISTORY_INSERT,
    POST_RATING,
    RATING_COLUMNS,
    RATINGS_INSERT,
    SECTION_COLUMNS,
    STATE,
    STATE_SELECT,
    create,
    rating_row,
)
from projections.standing import UNRATED, Standing

CHECKPOINT_EVERY = 10_000  # ledger positions between read-model checkpoints (as-known-at)


@dataclass(frozen=True)
class WhatIf:
    """A replay under other rules: a version for every section, and extra amendments."""

    rules: str | None = None
    amendments: tuple[dict[str, Any], ...] = ()

    def to_json(self) -> str:
        return json.dumps(
            {"rules": self.rules, "amendments": list(self.amendments)}, sort_keys=True
        )

    @classmethod
    def from_json(cls, text: str) -> WhatIf:
        data = json.loads(text)
        return cls(data["rules"], tuple(data["amendments"]))

    def __str__(self) -> str:
        parts = [f"rules {self.rules}"] if self.rules else []
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


class View:
    """The read model in one SQLite file; `catch_up` is incremental, `rebuild` starts empty."""

    def __init__(
        self,
        path: str | Path,
        family: str = "uschess",
        what_if: WhatIf | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        self.checkpoint_every = checkpoint_every
        if family not in FAMILIES:
            raise ValueError(f"unknown rules family {family!r}; known: {', '.join(FAMILIES)}")
        if what_if == WhatIf():
            what_if = None  # the ledger's own rules: the same model as the real one
        self.path = str(path)
        self.db = sqlite_utils.Database(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS))
        with exclusive(self.path):  # one process creates the tables; the others wait
            self.db.execute("PRAGMA journal_mode=WAL")
            create(self.db, family, None if what_if is None else what_if.to_json())
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA cache_size=-262144")  # 256 MiB: index writes stay in memory
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

    def _rater(
        self,
        lookup: Callable[[str, str], Standing],
        profiles: dict[str, dict[str, Any]],
        amendments: tuple[Amendment, ...],
        explain: bool = False,
    ) -> Rater | ForeignRater:
        if self.family == "uschess":
            if self.what_if is None:
                return Rater(lookup, profiles, amendments, explain)
            extra = parse_amendments(list(self.what_if.amendments))
            return Rater(lookup, profiles, amendments + extra, explain, self.what_if.rules)
        return RATERS[self.family](lookup, profiles)

    def rerate(self, item: Item) -> list[Change]:
        """The item rated again from the stored standings before it, with every value shown."""
        rater = self._rater(
            lambda p, s: queries.standing_before(self, p, s, item.sort_key),
            queries.profiles(self),
            queries.amendments(self),
            explain=True,
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
            return self._catch_up(entries, dry_run)

    def _catch_up(self, entries: Iterable[LedgerEntry], dry_run: bool) -> CatchUp:
        stats = CatchUp(last_position=self.last_position)
        batch = [e for e in entries if e.position > stats.last_position]
        if not batch:
            return stats
        conn = self.db.conn
        conn.execute("begin")
        try:
            self._apply(batch, stats)
            stats.entries = len(batch)
            stats.last_position = batch[-1].position
            self.db["meta"].upsert({"key": "last_position", "value": str(stats.last_position)})
        except BaseException:
            conn.rollback()
            raise
        if dry_run:
            conn.rollback()
            return stats
        conn.commit()
        before = batch[0].position - 1
        if self.checkpoint_every and (
            stats.last_position // self.checkpoint_every > before // self.checkpoint_every
        ):
            self.checkpoint()
        return stats

    @property
    def checkpoints_dir(self) -> Path:
        return checkpoints_dir(self.path)

    def checkpoint(self) -> Path:
        """A copy of the read model as it stands, for `--as-known-at` (projections.timetravel)."""
        self.checkpoints_dir.mkdir(exist_ok=True)
        target = self.checkpoints_dir / f"{self.last_position:012d}.db"
        target.unlink(missing_ok=True)
        self.db.execute("VACUUM INTO ?", [str(target)])
        return target

    def _apply(self, batch: list[LedgerEntry], stats: CatchUp) -> None:
        if stats.last_position == 0:
            self._replay(batch, stats)
            return
        db = self.db
        dirty: dict[str, str] = {}  # item key → the earliest sort key it touches
        seeds: set[str] = set()  # players whose profile changed: all their rows may change
        amend_from: list[tuple[str, str | None]] = []
        for e in batch:
            if e.type in ("PlayerRegistered", "PlayerProfileUpdated"):
                profile = {k: v for k, v in e.payload.items() if k != "member_id"}
                found = list(db["players"].rows_where("id = ?", [e.payload["member_id"]]))
                row = found[0] if found else None
                if row is not None and json.loads(row["profile"]) != profile:
                    seeds.add(e.payload["member_id"])
                db["players"].upsert(
                    {
                        "id": e.payload["member_id"],
                        "profile": json.dumps(profile, sort_keys=True),
                        "position": e.position,
                    },
                    pk="id",
                )
            elif e.type == "RulesAmended":
                p = e.payload
                db["amendments"].insert(
                    {
                        "position": e.position,
                        "parameter": p["parameter"],
                        "value": json.dumps(p["value"], sort_keys=True),
                        "effective": p["effective"],
                        "until": p.get("until"),
                        "reason": p.get("reason"),
                    }
                )
                amend_from.append((p["effective"], p.get("until")))
            elif e.type in ITEM_ENTRIES:
                self._apply_item(e, dirty)
            elif e.type == "ListPublished":
                db["lists"].insert(periods.PublishedList.from_entry(e).row())
        lists = queries.published_lists(self, self.family)
        if periods.in_periods(self.family, lists):
            self._rate_in_periods(lists, stats)
            return
        for start, until in amend_from:
            rows = db.execute(
                "select key, sort_key from items where start >= ?"
                + (" and start < ?" if until else ""),
                [start, until] if until else [start],
            ).fetchall()
            for key, sk in rows:
                dirty.setdefault(key, sk)
        starts = list(dirty.values())
        for player in seeds:
            first = db.execute(
                "select min(i.sort_key) from item_players p join items i on i.key = p.item_key "
                "where p.player = ?",
                [player],
            ).fetchone()[0]
            if first is not None:
                starts.append(first)
        if starts:
            self._recompute(min(starts), set(dirty), seeds, stats)

    def _apply_item(self, e: LedgerEntry, dirty: dict[str, str]) -> None:
        db = self.db
        key = item_key(e)
        found = list(db["items"].rows_where("key = ?", [key]))
        old = found[0] if found else None
        if e.type.startswith("Section"):
            record: dict[str, dict[str, Any]] = {}
            found_section = list(
                db["sections"].rows_where("section_id = ?", [e.payload["section_id"]])
            )
            if found_section:
                record[e.payload["section_id"]] = found_section[0]
            _section_record(record, e)
            db["sections"].upsert(record[e.payload["section_id"]], pk="section_id")
        if old is not None:
            dirty[key] = old["sort_key"]
            db["item_players"].delete_where("item_key = ?", [key])
        if e.type in WITHDRAWALS:
            if old is not None:
                db["items"].delete(key)
            return
        item = to_item(e, None if old is None else old["position"])
        db["items"].upsert(
            {
                "key": item.key,
                "kind": item.kind,
                "sort_key": item.sort_key,
                "start": item.start,
                "end": item.end,
                "position": item.position,
                "revision": item.revision,
                "payload": json.dumps(item.payload, sort_keys=True),
            },
            pk="key",
        )
        db["item_players"].insert_all(
            [{"item_key": key, "player": p} for p in dict.fromkeys(item.players)]
        )
        dirty[key] = min(dirty.get(key, item.sort_key), item.sort_key)

    def _recompute(self, start: str, dirty: set[str], seeds: set[str], stats: CatchUp) -> None:
        db = self.db
        live: dict[tuple[str, System], Standing] = {}
        affected = set(seeds)
        current = [start]

        def lookup(player: str, system: System) -> Standing:
            s = live.get((player, system))
            return s if s is not None else queries.standing_before(self, player, system, current[0])

        rater = self._rater(lookup, queries.profiles(self), queries.amendments(self))
        # Rows of withdrawn items go; their players' later rows may change.
        gone = [k for k in dirty if not db["items"].count_where("key = ?", [k])]
        for key in gone:
            for player, system, sort_key in db.execute(
                "select player, system, sort_key from history where item_key = ?", [key]
            ).fetchall():
                live.setdefault(
                    (player, system), queries.standing_before(self, player, system, sort_key)
                )
                affected.add(player)
                stats.history_changed[(player, system)] = (
                    stats.history_changed.get((player, system), 0) + 1
                )
            db["history"].delete_where("item_key = ?", [key])
        cursor = db.execute(
            "select key, kind, start, end, position, revision, payload from items "
            "where sort_key >= ? order by sort_key",
            [start],
        ).fetchall()
        for key, kind, s, e, position, revision, payload in cursor:
            item = Item(key, kind, s, e, position, revision, json.loads(payload))
            if key not in dirty and affected.isdisjoint(item.players):
                continue
            current[0] = item.sort_key
            changes: list[Change] = rater.rate(item)
            stats.items_rated += 1
            old = {
                (r[0], r[1]): tuple(r[2:])
                for r in db.execute(
                    f"select player, system, {STATE_SELECT} from history where item_key = ?",
                    [key],
                )
            }
            db["history"].delete_where("item_key = ?", [key])
            self._insert_history([c.row for c in changes])
            for c in changes:
                if old.pop((c.player, str(c.system)), None) != (
                    c.row[POST_RATING],
                    c.row[GAMES_AFTER],
                    *c.row[STATE],
                ):
                    affected.add(c.player)
                    key = (c.player, str(c.system))
                    stats.history_changed[key] = stats.history_changed.get(key, 0) + 1
            for player, system in old:  # no longer in the item: back to the prior state
                live[(player, system)] = lookup(player, system)
                affected.add(player)
                key = (player, str(system))
                stats.history_changed[key] = stats.history_changed.get(key, 0) + 1
            # Only players whose rows changed are followed in memory; the others' rows stand.
            for c in changes:
                if c.player in affected:
                    live[(c.player, c.system)] = c.standing
                    stats.players.add(c.player)
            stats.rows += len(changes)
        self._write_ratings(live, stats)

    def _rate_in_periods(self, lists: list[periods.PublishedList], stats: CatchUp) -> None:
        """Every item again by the family's lists (projections.periods): a replay's rows."""
        items = queries.items_in_order(self)
        profiles = queries.profiles(self)
        rows, live = periods.rate(items, lists, lambda look: self._rater(look, profiles, ()))
        before: dict[tuple[str, str], set[tuple[Any, ...]]] = {}
        for row in self.db.execute("select * from history"):
            before.setdefault((row[1], row[2]), set()).add(tuple(row))
        after: dict[tuple[str, str], set[tuple[Any, ...]]] = {}
        for row in rows:
            after.setdefault((row[1], row[2]), set()).add(row)
        for key in before.keys() | after.keys():
            if before.get(key) != after.get(key):
                stats.history_changed[key] = stats.history_changed.get(key, 0) + 1
                stats.players.add(key[0])
        self.db.execute("delete from history")
        self._insert_history(rows)
        for player, system in self.db.execute("select player, system from ratings").fetchall():
            live.setdefault((player, system), UNRATED)
        self._write_ratings(live, stats)
        stats.items_rated += len(items)
        stats.rows += len(rows)

    def _insert_history(self, rows: list[tuple[Any, ...]]) -> None:
        self.db.conn.executemany(HISTORY_INSERT, rows)

    def _write_ratings(
        self, live: dict[tuple[str, System], Standing], stats: CatchUp | None = None
    ) -> None:
        gone = [(p, str(s)) for (p, s), st in live.items() if st.rating is None]
        rows = [
            rating_row(p, s, st, self.family == "uschess")
            for (p, s), st in live.items()
            if st.rating is not None
        ]
        if stats is not None:
            for key in [*gone, *((r["player"], r["system"]) for r in rows)]:
                stats.changes[key] = (self._rating(*key), None)
        self.db.conn.executemany("delete from ratings where player = ? and system = ?", gone)
        self.db.conn.executemany(
            RATINGS_INSERT, [tuple(r[c] for c in RATING_COLUMNS) for r in rows]
        )
        if stats is not None:
            for r in rows:
                key = (r["player"], r["system"])
                stats.changes[key] = (stats.changes[key][0], self._rating(*key))

    def _rating(self, player: str, system: str) -> dict[str, Any] | None:
        found = list(self.db["ratings"].rows_where("player = ? and system = ?", [player, system]))
        return found[0] if found else None

    def _replay(self, batch: list[LedgerEntry], stats: CatchUp) -> None:
        """Into an empty read model: the whole log in memory, in rating order, one bulk write."""
        profiles: dict[str, dict[str, Any]] = {}
        players: dict[str, tuple[str, str, int]] = {}
        amendments: list[tuple[Any, ...]] = []
        items: dict[str, Item] = {}
        sections: dict[str, dict[str, Any]] = {}
        lists: list[periods.PublishedList] = []
        for e in batch:
            p = e.payload
            if e.type in ("PlayerRegistered", "PlayerProfileUpdated"):
                profile = {k: v for k, v in p.items() if k != "member_id"}
                profiles[p["member_id"]] = profile
                players[p["member_id"]] = (
                    p["member_id"],
                    json.dumps(profile, sort_keys=True),
                    e.position,
                )
            elif e.type == "RulesAmended":
                amendments.append(
                    (
                        e.position,
                        p["parameter"],
                        json.dumps(p["value"], sort_keys=True),
                        p["effective"],
                        p.get("until"),
                        p.get("reason"),
                    )
                )
            elif e.type in ITEM_ENTRIES:
                key = item_key(e)
                if e.type.startswith("Section"):
                    _section_record(sections, e)
                if e.type in WITHDRAWALS:
                    items.pop(key, None)
                    continue
                old = items.get(key)
                items[key] = to_item(e, None if old is None else old.position)
            elif e.type == "ListPublished":
                lists.append(periods.PublishedList.from_entry(e))
        live: dict[tuple[str, System], Standing] = {}
        rater = self._rater(
            lambda player, system: live.get((player, system), UNRATED),
            profiles,
            parse_amendments(
                [
                    {"parameter": a[1], "value": json.loads(a[2]), "effective": a[3], "until": a[4]}
                    for a in amendments
                ]
            ),
        )
        rows: list[tuple[Any, ...]] = []
        ordered = sorted(items.values(), key=lambda i: i.sort_key)
        own = [x for x in lists if x.family == self.family]
        if periods.in_periods(self.family, own):
            rows, live = periods.rate(ordered, own, lambda look: self._rater(look, profiles, ()))
            stats.players.update(p for p, _ in live)
            stats.items_rated = len(ordered)
        else:
            for item in ordered:
                for c in rater.rate(item):
                    live[(c.player, c.system)] = c.standing
                    rows.append(c.row)
                    stats.players.add(c.player)
                stats.items_rated += 1
        stats.rows = len(rows)
        conn = self.db.conn
        conn.executemany("insert into players values (?, ?, ?)", list(players.values()))
        conn.executemany("insert into amendments values (?, ?, ?, ?, ?, ?)", amendments)
        self.db["lists"].insert_all(x.row() for x in lists)
        conn.executemany(
            "insert into items values (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    i.key,
                    i.kind,
                    i.sort_key,
                    i.start,
                    i.end,
                    i.position,
                    i.revision,
                    json.dumps(i.payload, sort_keys=True),
                )
                for i in ordered
            ],
        )
        conn.executemany(
            "insert into item_players values (?, ?)",
            [(i.key, p) for i in ordered for p in dict.fromkeys(i.players)],
        )
        conn.executemany(
            "insert into sections values (?, ?, ?, ?, ?, ?, ?, ?)",
            [tuple(r.get(c) for c in SECTION_COLUMNS) for r in sections.values()],
        )
        rows.sort(key=operator.itemgetter(1, 2, 3))  # primary-key order: sequential index writes
        conn.execute("drop index if exists idx_history_item_key")
        conn.executemany(HISTORY_INSERT, rows)
        conn.execute("create index idx_history_item_key on history (item_key)")
        self._write_ratings(live)

    def rebuild(self, entries: Iterable[LedgerEntry]) -> CatchUp:
        """Drop the read model and replay the whole ledger into it (holding its lock)."""
        with exclusive(self.path):
            self.db.close()
            for suffix in ("-wal", "-shm", ""):
                Path(self.path + suffix).unlink(missing_ok=True)
            shutil.rmtree(self.checkpoints_dir, ignore_errors=True)
            self.__init__(self.path, self.family, self.what_if, self.checkpoint_every)
            return self.catch_up(entries)

    def digest(self) -> str:
        """SHA-256 over every table's rows in primary-key order (rebuild identity)."""
        h = hashlib.sha256()
        for table in sorted(self.db.table_names()):
            t = self.db[table]
            order = ", ".join(t.pks)
            h.update(table.encode())
            for row in self.db.execute(f"select * from [{table}] order by {order}"):
                h.update(json.dumps(row, default=str).encode())
        return h.hexdigest()


def _section_record(sections: dict[str, dict[str, Any]], e: LedgerEntry) -> None:
    """The `sections` row after a SectionSubmitted, SectionCorrected or SectionWithdrawn."""
    p = e.payload
    row = sections.setdefault(p["section_id"], {"section_id": p["section_id"]})
    row["latest_position"] = e.position
    row["reason"] = p.get("reason")
    if e.type == "SectionWithdrawn":
        row["status"] = "withdrawn"
        return
    row["event_name"] = p.get("event_name")
    row["start_date"] = p["start_date"]
    row["end_date"] = p["end_date"]
    row["status"] = {"SectionCorrected": "corrected", "SectionReinstated": "reinstated"}.get(
        e.type, "submitted"
    )
    if e.type == "SectionSubmitted":
        row["submitted_position"] = e.position


def checkpoints_dir(path: str | Path) -> Path:
    """Where a read model's checkpoints are kept: `VIEW.db.checkpoints/POSITION.db`."""
    return Path(str(path) + ".checkpoints")
