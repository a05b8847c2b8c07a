"""The cascade of a catch-up: from the earliest changed item, re-rate only the players whose
stored rows change (a chunk of stored rows and standings read at a time), and the `ratings`
rows written only where they differ; mixed into `View` (projections/projector.py)."""

from __future__ import annotations

import json
import operator
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from projections import history_store, periods, queries
from projections.batch import Incremental, decode_item
from projections.items import Item
from projections.profiles import ProfilesOnDemand
from projections.rating import history_layout
from projections.schema import (
    GAMES_AFTER,
    POST_RATING,
    PRE_RATING,
    STATE,
    RatingsTable,
    rating_row,
    ratings_table,
)
from projections.standing import UNRATED, Standing

if TYPE_CHECKING:
    from projections.projector import CatchUp

# Items whose stored rows a catch-up's cascade reads in one query.
CASCADE_CHUNK = 256
# `ratings` rows a rebuild builds and hands to the writer at a time: a million games' 60,000
# rows built at once were about 100 MiB, the rebuild's peak (issue 21).
RATINGS_CHUNK = 4_000


class Cascade:
    """`View`'s catch-up by cascade and by lists, and its `ratings` rows."""

    def _cascade(self, batch: Incremental, stats: CatchUp) -> None:
        """Re-rate from the earliest changed item, following the players whose rows change."""
        lists = queries.published_lists(self, self.family)
        if periods.in_periods(self.family, lists):
            if batch.dirty or batch.seeds or batch.amended or batch.listed:
                self._rate_in_periods(lists, stats, batch)
            return
        db = self.db
        conn = db.conn
        layout = history_layout(self.family)  # its history: its state columns
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
        live: dict[tuple[str, str], Standing] = {}
        affected = set(batch.seeds)
        current = [start]
        # Each (player, system)'s standing after his last stored row the cascade has passed
        # (that row, until asked for: `lookup` makes it), or read before an item that
        # asks for it: what a player not followed in memory stands on.
        stored: dict[tuple[str, str], Any] = {}
        # The followed standings that differ from the one after the stored row the cascade
        # passed last for them (or that have none): those whose ratings row may differ.
        apart: set[tuple[str, str]] = set()

        def lookup(player: str, system: str) -> Standing:
            key = (player, system)
            s = live.get(key)
            if s is not None:
                return s
            s = stored.get(key)
            if type(s) is Standing:
                return s
            if s is None:
                s = queries.standing_before(self, player, system, current[0])
            else:
                s = layout.standing_of_row(s)
            stored[key] = s
            return s

        systems: set[str] = set()  # the systems of the rows the cascade has read

        def read_ahead(rows: Iterable[tuple[int, tuple[Any, ...]]], sort_key: str) -> None:
            """The standings rating a chunk's items may ask for that the cascade has not met,
            before its first item (`sort_key`; they have no row since the cascade's start), in
            a query a system: of each player its stored rows rate, in their system and, if he
            was unrated there, in the others (his background)."""
            for _, r in rows:
                systems.add(r[2])
            wanted = set()
            for _, r in rows:
                player = r[1]
                for system in systems if r[PRE_RATING] is None else (r[2],):
                    if (player, system) not in stored and (player, system) not in live:
                        wanted.add((player, system))
            if wanted:
                stored.update(layout.standings_before(conn, sorted(wanted), sort_key))

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
            rows_of = layout.rows_of_items(conn, chunk[0][6], chunk[-1][6])
            read_ahead([r for rows in rows_of.values() for r in rows], chunk[0][6])
            for key, kind, s, e, position, revision, sort_key in chunk:
                old_rows = rows_of.get(key, ())
                if key not in dirty and affected.isdisjoint(named.get(key, ())):
                    for _, r in old_rows:  # they stand
                        stored[(r[1], r[2])] = r
                    continue
                payload = db.execute("select payload from items where key = ?", [key]).fetchone()[0]
                item = Item(key, kind, s, e, position, revision, decode_item(kind, payload))
                current[0] = sort_key
                batch.drop_problems(revision, key)
                changes = self._rate(item, rater.rate, batch) or []
                stats.items_rated += 1
                old: dict[tuple[str, str], tuple[int | None, tuple[Any, ...]]] = {}
                for rid, r in old_rows:
                    moved = r[3] != sort_key  # (new dates): a new row at its new key
                    if moved:
                        stale.append(rid)
                    old[(r[1], r[2])] = (None if moved else rid, r)
                same = []  # whether each change's standing is the one its stored row keeps
                for c in changes:
                    row = c.row
                    pair = (c.player, str(c.system))
                    rid, before = old.pop(pair, (None, None))
                    if before == row:  # the same row: left as it is (only changed rows are written)
                        same.append(True)
                        continue
                    if rid is None:
                        added.append(row)
                    else:
                        rewritten.append((rid, before, row))
                    if before is None or _moved_on(before, row):
                        same.append(False)
                        affected.add(c.player)
                        count(pair)
                    else:
                        same.append(True)
                for (player, system), (rid, _) in old.items():  # no longer in the item
                    if rid is not None:
                        stale.append(rid)
                    live[(player, system)] = lookup(player, system)  # back to the prior state
                    apart.add((player, system))
                    affected.add(player)
                    count((player, str(system)))
                # Only players whose rows changed are followed in memory; the others' rows
                # stand (their standing after the item is the one their row there keeps). A
                # followed standing is never read from `stored` again.
                for c, kept in zip(changes, same, strict=True):
                    key = (c.player, c.system)
                    if c.player in affected:
                        live[key] = c.standing
                        stats.players.add(c.player)
                        if kept:
                            apart.discard(key)
                        else:
                            apart.add(key)
                    else:
                        stored[key] = c.standing
        # Rows keep their keys (player, system, the item's sort key): replaced in place.
        history_store.delete_ids(conn, stale)
        layout.rewrite(conn, rewritten)
        added.sort(key=operator.itemgetter(1, 2, 3))
        layout.replace(conn, added)
        stats.rows += len(rewritten) + len(added)
        # A standing the stored rows end on already has its ratings row (the same as a
        # replay's): only the others are compared with theirs.
        self._write_ratings({k: v for k, v in live.items() if k in forced or k in apart}, stats)

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
        history_layout(self.family).replace(
            self.db.conn, sorted(changed, key=operator.itemgetter(1, 2, 3))
        )
        for player, system in self.db.execute("select player, system from ratings").fetchall():
            live.setdefault((player, system), UNRATED)
        self._write_ratings(live, stats)
        stats.items_rated += len(items)
        stats.rows += len(changed)

    def _write_ratings(
        self,
        live: dict[tuple[str, str], Standing],
        stats: CatchUp | None = None,
        conn: Any = None,
    ) -> None:
        """The `ratings` rows of the standings in `live` (a rating of None: no row). With
        `stats` (a catch-up), only rows that differ from the stored ones are written, and each
        is noted in `stats.changes` as (before, after)."""
        conn = conn or self.db.conn
        table = ratings_table(self.family)
        if stats is None:  # a rebuild: in key order (each b-tree appended to), a chunk at a time
            rated = sorted(k for k, st in live.items() if st.rating is not None)
            for start in range(0, len(rated), RATINGS_CHUNK):
                chunk = rated[start : start + RATINGS_CHUNK]
                rows = [table.values(rating_row(self.family, p, s, live[(p, s)])) for p, s in chunk]
                conn.executemany(table.insert, rows)
            return
        gone = [(p, str(s)) for (p, s), st in live.items() if st.rating is None]
        rows = [
            rating_row(self.family, p, s, st)
            for (p, s), st in live.items()
            if st.rating is not None
        ]
        # a catch-up: only the rows that changed are written, and noted
        keys = [*gone, *((r["player"], r["system"]) for r in rows)]
        before = self._ratings(conn, table, keys)
        gone = [k for k in gone if k in before]
        for key in gone:
            stats.changes[key] = (table.as_dict(before[key]), None)
        written, kept = [], []  # new rows; rows that were there (updated in place)
        for r in rows:
            key, values = _RATING_KEY(r), table.values(r)
            was = before.get(key)
            if was is None:
                written.append(r)
            elif was != values:
                kept.append((*values[2:], *key))
            else:
                continue
            stats.changes[key] = (table.as_dict(was), r)
        conn.executemany(table.update, kept)
        conn.executemany("delete from ratings where player = ? and system = ?", gone)
        conn.executemany(table.insert, list(map(table.values, written)))

    @staticmethod
    def _ratings(
        conn: Any, table: RatingsTable, keys: list[tuple[str, str]]
    ) -> dict[tuple[str, str], tuple[Any, ...]]:
        """The `ratings` rows of (player, system) keys (their values, in the table's column
        order), in one query."""
        found = conn.execute(table.of_keys, [json.dumps(keys)])
        return {(row[0], row[1]): row for row in found}


_RATING_KEY = operator.itemgetter("player", "system")


def _moved_on(before: tuple[Any, ...], row: tuple[Any, ...]) -> bool:
    """Whether the standing after a history row differs from the one after `before`'s (the
    rating first: it differs in most rows that differ)."""
    return (
        before[POST_RATING] != row[POST_RATING]
        or before[GAMES_AFTER] != row[GAMES_AFTER]
        or before[STATE] != row[STATE]
    )
