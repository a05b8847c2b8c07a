"""The cascade of a catch-up: from the earliest changed item, re-rate only the players whose
stored rows change (only the stored rows of the items it re-rates read), and the `ratings`
rows written only where they differ (projections/ratings_writer.py)."""

from __future__ import annotations

import operator
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from projections import history_store, knowledge, periods, queries
from projections.batch import Incremental
from projections.catchup import CatchUp
from projections.change import Change
from projections.history_store import (
    DETAIL,
    SEEN_DETAIL,
    SEEN_GAMES,
    SEEN_ID,
    SEEN_PLAYER,
    SEEN_POST,
    SEEN_PRE,
    SEEN_PRINT,
    SEEN_SORT_KEY,
    SEEN_SYSTEM,
    Layout,
    fingerprint,
)
from projections.items import Item, stored_fact
from projections.profiles import ProfilesOnDemand
from projections.rating import history_layout
from projections.rating_step import RatingStep
from projections.ratings_writer import RatingsWriter
from projections.schema import (
    GAMES_AFTER,
    POST_RATING,
    SORT_KEY,
    STATE,
    ReadModel,
)
from projections.standing import UNRATED, Standing

_PLAYERS = msgspec.json.Decoder(list[str])  # an item's players, as `run` reads them
Row = tuple[Any, ...]  # a history row as the rater makes it (HISTORY_COLUMNS)
Seen = tuple[Any, ...]  # a stored row as a cascade reads it (history_store.SEEN)
Stored = Sequence[Seen]  # an item's stored rows
# Rows a cascade holds to write (replaced, added or gone) before it writes them, between two
# items: a year-old correction at 10M games replaces 401,091 rows, and held to its end they
# and their stored rows were some 700 MB of its 2.2 GB (docs/decisions.md, "A cascade writes
# as it goes (issue 33)"). Not `Final`: read when a cascade runs, so a script may set it.
WRITE_EVERY = 20_000


class Cascade:
    """A catch-up's re-rating of what its entries changed, once its batch has read them."""

    def __init__(self, model: ReadModel, step: RatingStep, ratings: RatingsWriter) -> None:
        self.model, self.step, self.ratings = model, step, ratings

    def run(self, batch: Incremental, stats: CatchUp) -> None:
        """Re-rate from the earliest changed item, following the players whose rows change."""
        family = self.model.family
        lists = queries.published_lists(self.model, family)
        if periods.in_periods(family, lists):
            if batch.dirty or batch.seeds or batch.amended or batch.listed:
                self._by_lists(lists, stats, batch)
            return
        start = _start(self.model, batch)
        if start is not None:
            _Rerating(self, batch, stats, start).run()

    def _by_lists(
        self, lists: list[periods.PublishedList], stats: CatchUp, batch: Incremental
    ) -> None:
        """Every item again by the family's lists (projections.periods): a replay's rows."""
        model = self.model
        items = queries.items_in_order(model)
        for item in items:
            batch.drop_problems(item.revision, item.key)  # rated again below
        rows, live = periods.rate(
            items,
            lists,
            self.step.for_periods(ProfilesOnDemand(model), batch),
            self.step.uplift,
            self.step.named,
        )
        stored = {tuple(r[1:4]): tuple(r) for r in model.db.execute("select * from history")}
        new = {tuple(r[1:4]): tuple(r) for r in rows}
        # Only rows that changed are written: the others stay as they are.
        changed = [r for k, r in new.items() if stored.get(k) != r]
        gone = [k for k in stored if k not in new]
        for key in {(k[0], k[1]) for k in [*(r[1:4] for r in changed), *gone]}:
            stats.row_changed(*key)
            stats.players.add(key[0])
        history_store.delete_keys(model.db.conn, gone)
        history_layout(model.family).replace(
            model.db.conn, sorted(changed, key=operator.itemgetter(1, 2, 3))
        )
        for player, system in model.db.execute("select player, system from ratings").fetchall():
            live.setdefault((player, system), UNRATED)
        self.ratings.write_changes(live, stats, model.db.conn)
        stats.items_rated += len(items)
        stats.rows_rated += len(rows)
        stats.rows += len(changed)


def _start(model: ReadModel, batch: Incremental) -> str | None:
    """The sort key the cascade starts at: the earliest of the items the batch changed, those
    under an amended range of dates (touched here) and a re-seeded player's first item."""
    db = model.db
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
    return min(starts) if starts else None


class _Standings:
    """The standings a cascade rates with: those it follows in memory (`live`: the players
    whose rows change), and of the others the one read before the item that asks for it
    (`stored`), forgotten when an item the cascade passes over names them."""

    def __init__(self, model: ReadModel, start: str) -> None:
        self.model = model
        self.layout = history_layout(model.family)  # its history: its state columns
        self.current = start  # the sort key of the item being rated
        self.live: dict[tuple[str, str], Standing[object]] = {}
        # a standing met since the last item naming its player (not followed) passed over, by
        # player, then system (an item passed over forgets a player's at once)
        self.stored: dict[str, dict[str, Standing[object]]] = {}
        # The followed standings that differ from the one after the stored row the cascade
        # passed last for them (or that have none): those whose ratings row may differ.
        self.apart: set[tuple[str, str]] = set()
        self.systems: set[str] = set()  # the systems of the standings it has held

    def lookup(self, player: str, system: str) -> Standing[object]:
        """The player's standing before the current item (the rater's `lookup`)."""
        key = (player, system)
        s = self.live.get(key)
        if s is not None:
            return s
        held = self.stored.setdefault(player, {})
        s = held.get(system)
        if s is None:
            s = held[system] = queries.standing_before(self.model, player, system, self.current)
            self.systems.add(system)
        return s

    def read_ahead(self, rows: Iterable[Seen], sort_key: str) -> None:
        """The standings rating an item (at `sort_key`) may ask for that the cascade does not
        hold, in one query: of each player its stored rows rate, in their system and,
        if he was unrated there, in the others (his background)."""
        systems, stored, live = self.systems, self.stored, self.live
        for r in rows:
            systems.add(r[SEEN_SYSTEM])
        wanted = set()
        for r in rows:
            player = r[SEEN_PLAYER]
            held = stored.get(player, {})
            for system in systems if r[SEEN_PRE] is None else (r[SEEN_SYSTEM],):
                if system not in held and (player, system) not in live:
                    wanted.add((player, system))
        if wanted:
            found = self.layout.standings_before(self.model.db.conn, sorted(wanted), sort_key)
            for (player, system), standing in found.items():
                stored.setdefault(player, {})[system] = standing

    def passed(self, players: Iterable[str]) -> None:
        """An item passed over (its stored rows stand): the standings held of the players it
        names are forgotten, read again after it when asked for. Its rows are never read."""
        stored = self.stored
        for player in players:
            stored.pop(player, None)

    def unseat(self, player: str, system: str, standing: Standing[object]) -> None:
        """A player followed from the cascade's start, on `standing` (his rows are gone)."""
        self.live.setdefault((player, system), standing)

    def back(self, player: str, system: str) -> None:
        """A followed standing put back to the one before the item (its row is gone)."""
        self.live[(player, system)] = self.lookup(player, system)
        self.apart.add((player, system))

    def follow(
        self, changes: list[Change], same: list[bool], affected: set[str], stats: CatchUp
    ) -> None:
        """The standings after an item. Only players whose rows changed are followed in
        memory; the others' rows stand (their standing after the item is the one their row
        there keeps). A followed standing is never read from `stored` again."""
        for c, kept in zip(changes, same, strict=True):
            key = (c.player, c.system)
            if c.player in affected:
                self.live[key] = c.standing
                stats.players.add(c.player)
                if kept:
                    self.apart.discard(key)
                else:
                    self.apart.add(key)
            else:
                self.stored.setdefault(c.player, {})[c.system] = c.standing
                self.systems.add(c.system)

    def to_write(self, forced: set[tuple[str, str]]) -> dict[tuple[str, str], Standing[object]]:
        """The followed standings whose ratings rows may differ: a standing the stored rows
        end on already has its ratings row (the same as a replay's)."""
        return {k: v for k, v in self.live.items() if k in forced or k in self.apart}


class _Rewrites:
    """The history rows a cascade replaces, written between two items once it holds
    `WRITE_EVERY` of them, and at its end: a row it writes is of an item it has rated, and a
    player not followed in memory reads the same standing from it as from the row it
    replaced (had it changed, the player would be followed: docs/decisions.md, "A cascade
    writes as it goes (issue 33)")."""

    def __init__(self) -> None:
        self.stale: list[int] = []  # ids of rows that no new row replaces
        self.rewritten: list[tuple[Seen, Row, int]] = []  # (old, new, new's fingerprint)
        self.added: list[Row] = []  # rows with no stored row of their item

    def held(self) -> int:
        """How many rows it holds to write."""
        return len(self.stale) + len(self.rewritten) + len(self.added)

    def old(self, rows: Stored, sort_key: str) -> dict[tuple[str, str], tuple[int | None, Seen]]:
        """An item's stored rows by (player, system), each with the id a new row replaces (None:
        the item moved to `sort_key`, new dates, and its rows go to their new keys)."""
        old: dict[tuple[str, str], tuple[int | None, Seen]] = {}
        for r in rows:
            rid = r[SEEN_ID]
            moved = r[SEEN_SORT_KEY] != sort_key
            if moved:
                self.drop(rid)
            old[(r[SEEN_PLAYER], r[SEEN_SYSTEM])] = (None if moved else rid, r)
        return old

    def drop(self, rid: int) -> None:
        """The stored row `rid`, which no new row replaces."""
        self.stale.append(rid)

    def put(self, rid: int | None, before: Seen | None, row: Row, print_: int) -> None:
        """`row` (its fingerprint `print_`) in place of the stored row `rid` (None: a new
        row)."""
        if rid is None:
            self.added.append(row)
        else:
            assert before is not None  # a stored row's id comes with the row (`old`)
            self.rewritten.append((before, row, print_))

    def write(
        self,
        conn: sqlite3.Connection,
        layout: Layout,
        stats: CatchUp,
        record: knowledge.Keeping | None,
    ) -> None:
        """The rows held, written and let go. Rows keep their keys (player, system, the
        item's sort key): replaced in place (`record`: what keeps the rows as they were,
        projections/knowledge.py)."""
        history_store.delete_ids(conn, self.stale, record)
        layout.rewrite(conn, self.rewritten, record)
        self.added.sort(key=operator.itemgetter(1, 2, 3))
        layout.replace(conn, self.added, record)
        stats.rows += len(self.rewritten) + len(self.added)
        self.stale, self.rewritten, self.added = [], [], []


class _Rerating:
    """One cascade from `start`: the items after it re-rated in order, those naming a player
    it follows (or changed themselves), and the rows that differ written at the end."""

    def __init__(self, cascade: Cascade, batch: Incremental, stats: CatchUp, start: str) -> None:
        self.model, self.step, self.ratings = cascade.model, cascade.step, cascade.ratings
        self.batch, self.stats, self.start = batch, stats, start
        self.dirty = set(batch.dirty)
        self.affected = set(batch.seeds)  # the players followed in memory
        self.forced: set[tuple[str, str]] = set()  # their ratings rows compared whatever
        self.standings = _Standings(self.model, start)
        self.rows = _Rewrites()
        # what keeps the rows it changes as they were (None: no record kept)
        self.record = knowledge.keeping(
            self.model.db.conn, history_layout(self.model.family).own_columns
        )
        self.rater = self.step.rater(
            self.standings.lookup,
            ProfilesOnDemand(self.model),
            queries.amendments(self.model),
            merged=batch.merges(),
        )

    def run(self) -> None:
        self._unseat()
        conn = self.model.db.conn
        layout = self.standings.layout
        # Every item from the start, with the players it names (`item_players`, a JSON list):
        # an item is read and decoded only if it is re-rated.
        for found in conn.execute(
            "select key, kind, start, end, position, revision, sort_key, (select "
            "json_group_array(p.player) from item_players p where p.item_key = i.key) "
            "from items i where sort_key >= ? order by sort_key",
            [self.start],
        ):
            row, key, players = found[:7], found[0], _PLAYERS.decode(found[7])
            if key not in self.dirty and self.affected.isdisjoint(players):
                self.standings.passed(players)  # its rows stand
                continue
            old_rows = layout.rows_of_item(conn, key)
            self.standings.read_ahead(old_rows, row[6])
            self._rerate(row, old_rows)
            if self.rows.held() >= WRITE_EVERY:
                self.rows.write(conn, layout, self.stats, self.record)
        self.rows.write(conn, layout, self.stats, self.record)
        self.ratings.write_changes(self.standings.to_write(self.forced), self.stats, conn)

    def _unseat(self) -> None:
        """Rows of items no longer rated (withdrawn, voided) or rated elsewhere in the order (a
        correction with other dates) go first: their players' later rows may all change, so
        they are followed from where the cascade starts (every item of theirs after it is
        re-rated). Their ratings rows are compared whatever their stored rows say."""
        db = self.model.db
        for key in self.dirty:
            now = db.execute("select sort_key from items where key = ?", [key]).fetchone()
            rows = db.execute(
                "select player, system, sort_key from history where item_key = ?", [key]
            ).fetchall()
            if now is not None and all(r[2] == now[0] for r in rows):
                continue  # re-rated in place below, row against row
            for player, system, _ in rows:
                before = queries.standing_before(self.model, player, system, self.start)
                self.standings.unseat(player, system, before)
                self.forced.add((player, system))
                self.affected.add(player)
                if now is None:
                    self.stats.row_changed(player, system)
            history_store.delete_item(db.conn, key, self.record)

    def _rerate(self, row: Row, old_rows: Stored) -> None:
        """One item rated again, its rows compared with the stored ones."""
        key, kind, s, e, position, revision, sort_key = row
        conn = self.model.db.conn
        # its JSON as bytes, as the decoder takes it: not made a str and encoded again
        payload = conn.execute(
            "select cast(payload as blob) from items where key = ?", [key]
        ).fetchone()[0]
        item = Item(key, kind, s, e, position, revision, stored_fact(kind, payload))
        self.standings.current = sort_key
        self.batch.drop_problems(revision, key)
        changes = self.step.rate(item, self.rater.rate, self.batch) or []
        self.stats.items_rated += 1
        self.stats.rows_rated += len(changes)
        old = self.rows.old(old_rows, sort_key)
        same = self._compare(changes, old)
        for (player, system), (rid, _) in old.items():  # no longer in the item
            if rid is not None:
                self.rows.drop(rid)
            self.standings.back(player, system)
            self.affected.add(player)
            self.stats.row_changed(player, str(system))
        self.standings.follow(changes, same, self.affected, self.stats)

    def _compare(
        self, changes: list[Change], old: dict[tuple[str, str], tuple[int | None, Seen]]
    ) -> list[bool]:
        """Each change's row against its stored one (taken from `old`), the ones that differ
        to be written; whether each change's standing is the one its stored row keeps. A
        stored row is the same as the new one if its key, detail and fingerprint are
        (docs/decisions.md, "A stored row known by its fingerprint (issue 33)")."""
        same = []
        for c in changes:
            row = c.row
            pair = (c.player, str(c.system))
            rid, before = old.pop(pair, (None, None))
            if before is None:
                self.rows.put(None, None, row, 0)  # the fingerprint is made when it is stored
                same.append(False)
                self.affected.add(c.player)
                self.stats.row_changed(*pair)
                continue
            print_ = fingerprint(row)
            if (
                before[SEEN_PRINT] == print_
                and before[SEEN_SORT_KEY] == row[SORT_KEY]
                and before[SEEN_DETAIL] == row[DETAIL]
            ):  # the same row: left as it is (only changed rows are written)
                same.append(True)
                continue
            self.rows.put(rid, before, row, print_)
            if self._moved_on(before, row, print_):
                same.append(False)
                self.affected.add(c.player)
                self.stats.row_changed(*pair)
            else:
                same.append(True)
        return same

    def _moved_on(self, before: Seen, row: Row, print_: int) -> bool:
        """Whether the standing after a history row differs from the one after `before`'s (the
        rating first: it differs in most rows that differ; the own values, read, only if the
        rating and N are the same and the fingerprints differ)."""
        if before[SEEN_POST] != row[POST_RATING] or before[SEEN_GAMES] != row[GAMES_AFTER]:
            return True
        if before[SEEN_PRINT] == print_:
            return False
        own = self.standings.layout.own_values(self.model.db.conn, before[SEEN_ID])
        return own != tuple(row[STATE])
