"""The ledger's Merkle tree in its store: one row per perfect subtree, written in the append's
transaction, so a checkpoint, an inclusion proof or a consistency proof costs O(log n) lookups.

Leaf i is the i-th entry in ledger order (positions may have gaps on PostgreSQL; a leaf row keeps
its entry's position). The rows are not trusted: every write's signature covers the root its
entries make (ledger/evidence/checkpoints.py), so a changed row gives a root no signature matches.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import StoredEvent

from ledger.evidence import merkle
from ledger.evidence.checkpoints import Checkpoint, identity
from ledger.evidence.signing import as_uuid, message

TREE_TABLE = "ratingsledger_tree"

Signer = Callable[[bytes], bytes]
Row = tuple[Any, ...]  # a row as a store's cursor returns it (the driver's own column types)
Run = Callable[[str, Sequence[Any]], list[Row]]  # a query and its parameters: the rows
Node = tuple[int, int, bytes, int | None]  # a tree row to store: level, index, hash, position


class TreeMismatch(Exception):
    """The stored tree does not cover the ledger's entries: the write is refused."""


@dataclass
class Cached:
    """A recorder's frontier after its last write (reused while no one else has written)."""

    ledger: str
    frontier: merkle.Frontier


class TreeRows:
    """The tree table and the events table, read through one cursor (`mark`: ? or %s)."""

    def __init__(
        self,
        run: Run,
        events: str,
        pos: str,
        tree: str | None = TREE_TABLE,
    ) -> None:
        self.run, self.events, self.pos, self.tree = run, events, pos, tree

    def size(self) -> int:
        if self.tree is None:
            return 0
        return int(self.run(f"SELECT count(*) FROM {self.tree} WHERE level = 0", ())[0][0])

    def node(self, level: int, index: int) -> bytes:
        if self.tree is None:
            raise TreeMismatch("the store has no tree")
        rows = self.run(f"SELECT hash FROM {self.tree} WHERE level = ? AND idx = ?", (level, index))
        if not rows:
            raise TreeMismatch(f"the tree has no node ({level}, {index})")
        return bytes.fromhex(rows[0][0])

    def entries_before(self, position: int) -> int:
        sql = f"SELECT count(*) FROM {self.events} WHERE {self.pos} < ?"
        return int(self.run(sql, (position,))[0][0])

    def stored_frontier(self, size: int) -> merkle.Frontier | None:
        """The frontier of the first `size` leaves, from the stored rows (None: a row is
        missing, as in a ledger from before trees, or one changed outside the ledger)."""
        try:
            return merkle.Frontier.at(self.node, size)
        except TreeMismatch:
            return None

    def stored_before(self, position: int) -> merkle.Frontier | None:
        """The stored rows' frontier just before the entry at `position` (None: as above);
        `hashed_before` recomputes it from the entries, `frontier_before` refuses a gap."""
        return self.stored_frontier(self.entries_before(position))

    def leaf_of(self, position: int) -> int | None:
        rows = self.run(
            f"SELECT idx FROM {self.tree} WHERE level = 0 AND position = ?", (position,)
        )
        return int(rows[0][0]) if rows else None

    def position_of(self, leaf: int) -> int | None:
        if self.tree is None:
            return None
        sql = f"SELECT position FROM {self.tree} WHERE level = 0 AND idx = ?"
        rows = self.run(sql, (leaf,))
        return int(rows[0][0]) if rows else None

    def message_at(self, position: int) -> bytes | None:
        """The signed message of the entry at `position` (a leaf's data)."""
        rows = self.run(
            f"SELECT originator_id, originator_version, topic, state FROM {self.events} "
            f"WHERE {self.pos} = ?",
            (position,),
        )
        if not rows:
            return None
        o, v, t, s = rows[0]
        return message(as_uuid(o), v, t, as_bytes(s))

    def first_identity(self) -> str | None:
        rows = self.run(
            f"SELECT {self.pos}, originator_id, topic, state FROM {self.events} "
            f"ORDER BY {self.pos} LIMIT 1",
            (),
        )
        if not rows:
            return None
        position, originator, topic, state = rows[0]
        return identity(int(position), as_uuid(originator), topic, as_bytes(state))

    def earlier(self, position: int, after: int = 0) -> list[tuple[int, bytes]]:
        """(position, leaf hash) of every entry before `position` (after `after`), hashed from
        the stored entries (to fill an older ledger's tree once, at its first write that signs
        a checkpoint; to extend a signed checkpoint by the entries after it)."""
        rows = self.run(
            f"SELECT {self.pos}, originator_id, originator_version, topic, state "
            f"FROM {self.events} WHERE {self.pos} > ? AND {self.pos} < ? ORDER BY {self.pos}",
            (after, position),
        )
        return [
            (int(p), merkle.leaf_hash(message(as_uuid(o), v, t, as_bytes(s))))
            for p, o, v, t, s in rows
        ]


def frontier_before(
    rows: TreeRows, position: int, cached: Cached | None
) -> tuple[Cached, list[Node]]:
    """The ledger's id and tree frontier just before the entry at `position`, and the rows to
    store for entries the tree does not hold yet (a ledger written before trees)."""
    before = rows.entries_before(position)
    stored = rows.size()
    if cached is not None and cached.frontier.size == before == stored:
        return cached, []
    ledger = rows.first_identity()
    if stored == before:
        return Cached(ledger or "", merkle.Frontier.at(rows.node, before)), []
    if stored != 0:
        raise TreeMismatch(
            f"the ledger's tree holds {stored} entries but the ledger {before} before position "
            f"{position}: the store was changed outside the ledger (run verify)"
        )
    frontier, made = hashed_before(rows, position)
    return Cached(ledger or "", frontier), made


def hashed_before(rows: TreeRows, position: int) -> tuple[merkle.Frontier, list[Node]]:
    """The frontier of the entries before `position` hashed from their stored bytes (never
    from the stored rows), and the rows it makes: (level, index, hash, leaf's position)."""
    frontier, made = merkle.Frontier(), list[Node]()
    for p, leaf in rows.earlier(position):
        made += [(lv, ix, h, p if lv == 0 else None) for lv, ix, h in frontier.append(leaf)]
    return frontier, made


def seal_write(
    rows: TreeRows,
    ids: Sequence[int],
    stored_events: Sequence[StoredEvent],
    signer: Signer,
    cached: Cached | None,
    extends: Callable[[TreeRows, int, Cached | None], tuple[Cached, list[Node]]],
) -> tuple[list[bytes], list[tuple[int, int, str, int | None]], Checkpoint, Cached]:
    """Add the write's entries to the tree, sign the checkpoint they make: the signatures to
    store (the write's on its last entry), the tree rows to insert, the signed checkpoint.
    `extends` gives the verified frontier before the write and the rows the tree lacks before
    it, refusing a tree the ledger did not sign (`ledger.evidence.appending.extended`)."""
    state, made = extends(rows, ids[0], cached)
    frontier = state.frontier.copy()
    ledger = state.ledger
    for position, s in zip(ids, stored_events, strict=True):
        leaf = merkle.leaf_hash(message(s.originator_id, s.originator_version, s.topic, s.state))
        made += [(lv, ix, h, position if lv == 0 else None) for lv, ix, h in frontier.append(leaf)]
    checkpoint = Checkpoint(ledger, frontier.size, frontier.root().hex(), position=ids[-1])
    signature = signer(checkpoint.body())
    actor = _actor(stored_events[-1].state)
    signatures = [b""] * (len(stored_events) - 1) + [checkpoint.prefix + signature]
    tree_rows = [(lv, ix, h.hex(), p) for lv, ix, h, p in made]
    return (
        signatures,
        tree_rows,
        checkpoint.with_signature(actor, signature),
        Cached(ledger, frontier),
    )


def tree_mismatch(
    tree: TreeRows, frontier: merkle.Frontier | None, count: int, last: int
) -> tuple[int, str] | None:
    """The stored tree against the `count` verified entries (`frontier`, ending at position
    `last`): (position, why) when it holds more leaves than there are entries (a deleted tail,
    which the chain alone cannot show) or another root (a tree changed outside the ledger);
    None when it matches, or the ledger has no tree (written before trees)."""
    stored = tree.size()
    if stored == 0:
        return None
    if stored > count:
        after = tree.position_of(count) or last + 1
        return after, (
            f"the ledger's tree holds {stored} entries but the ledger {count}: "
            f"the entries from position {after} on were deleted (truncated)"
        )
    try:
        same = frontier is not None and merkle.root(tree.node, stored) == frontier.root()
    except TreeMismatch:
        same = False
    if stored == count and same:
        return None
    return (
        last,
        f"the ledger's tree does not match its {count} entries (changed outside the ledger)",
    )


def _actor(state: bytes) -> str:
    try:
        found = json.loads(state).get("actor")
    except (ValueError, AttributeError):
        found = None
    return found if isinstance(found, str) else "?"


def as_bytes(state: str | bytes | memoryview) -> bytes:
    return state.encode() if isinstance(state, str) else bytes(state)
