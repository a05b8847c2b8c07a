"""A catch-up's entries in runs, for the record of what the model knew when (issue 33).

The record (projections/knowledge.py) keeps each history row as it stood before the entry that
changed it, with that entry's position. Applied one at a time, each entry would run a cascade
of its own. Most entries change no row already stored: a profile of a player no item names, a
section rated after every item of its players (the cascade rates its rows and reaches no other
item). So a `Run` is one batch with one cascade: its first entry may change any row (the rows
stored before the run are kept as known until its position), and every later entry joins it
only if it changes none (`Run.joins`): it adds the rows of its own new item, or none. Each row
it adds carries its item's revision, the entry's position, so the record reads it as absent
before that position with no mark (`queries.history_known_at`): the record is the one an entry-
by-entry catch-up keeps. A late section, a correction, a withdrawal… starts a run: the rows it
changes may be ones an earlier entry of the same catch-up wrote, and what they were in between
is what the record keeps (those items are rated once for each).
"""

from __future__ import annotations

from ledger import events
from ledger.log import LedgerEntry
from projections import statements
from projections.batch import Incremental
from projections.handlers import (
    HANDLERS,
    SUBMISSIONS,
    UNREADABLE,
    read_fact,
    submitted,
)
from projections.items import fact_item, fact_key

# whether an item after a sort key names any of the players (a JSON list of ids, as
# `item_players` holds them): the items from the sort key on, in order, until one does
LATER = (
    "select 1 from items i where i.sort_key > ? and exists (select 1 from item_players p "
    "where p.item_key = i.key and p.player in (select value from json_each(?))) limit 1"
)
NAMED = "select 1 from item_players where player in (?, ?) limit 1"  # an item names either


class Run:
    """Entries applied to one batch and re-rated by one cascade, from `position` (its first
    entry's)."""

    def __init__(self, batch: Incremental, position: int) -> None:
        self.batch, self.position = batch, position

    def joins(self, entry: LedgerEntry) -> bool:
        """Whether `entry`, applied after the run's entries, changes no history row stored
        before it: it adds none (no handler; a profile of a player no item names), or only the
        rows of the item it submits, rated after every item of its players. Anything else (a
        correction, a withdrawal, a late section, a void, a merge, an amendment, an entry that
        cannot be read…) starts a run of its own."""
        if entry.type not in HANDLERS:
            return True
        try:
            fact = read_fact(entry)
        except UNREADABLE:
            return False
        if fact is None:
            return True
        batch = self.batch
        resolve = batch.merges().resolve
        if isinstance(fact, events.PlayerRegistered):  # a profile: it seeds him and his survivor
            named = self.batch.conn.execute(NAMED, [fact.member_id, resolve(fact.member_id)])
            return named.fetchone() is None
        if type(fact) not in SUBMISSIONS:
            return False
        key = fact_key(fact, entry.position)
        if submitted(batch, key):
            return False
        item = fact_item(fact, entry.position)
        return not self._later(item.sort_key, {resolve(p) for p in item.players})

    def _later(self, sort_key: str, players: set[str]) -> bool:
        """Whether an item after `sort_key` names any of `players`."""
        found = self.batch.conn.execute(LATER, [sort_key, statements.json_list(sorted(players))])
        return found.fetchone() is not None
