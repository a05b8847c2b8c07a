"""Sealing a write: its chain rows stored in its transaction (SQLite here; postgres.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from uuid import UUID

from eventsourcing.persistence import Notification, PersistenceError, StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.errors import LedgerError
from ledger.evidence.appending import Authority, Held, HeldKeys, checked
from ledger.evidence.chain import GENESIS, Head, link
from ledger.evidence.checkpoints import Checkpoint
from ledger.evidence.tables import Links, links_in, links_of
from ledger.evidence.tree import TREE_TABLE, Cached, Row, TreeRows, seal_write
from ledger.store import CHAIN_TABLE

E = TypeVar("E", bound=StoredEvent)  # a stored event, or a notification (its subclass)

Signer = Callable[[bytes], bytes]
ChainRow = tuple[int, str, str]  # position, link, signature


class SealError(PersistenceError):
    """The chain rows of a write could not be stored: the write is rolled back."""


def sealed_rows(
    last: str | None,
    ids: Sequence[int],
    stored_events: Sequence[StoredEvent],
    signatures: list[bytes],
) -> list[ChainRow]:
    """The chain rows (position, link, signature) of entries just inserted after link `last`."""
    previous, rows = last or GENESIS, []
    for position, s, signature in zip(ids, stored_events, signatures, strict=True):
        notification = Notification(
            id=position,
            originator_id=s.originator_id,
            originator_version=s.originator_version,
            topic=s.topic,
            state=s.state,
        )
        previous = link(previous, notification, signature)
        rows.append((position, previous, signature.hex()))
    return rows


def receipt(sealed: list[Head] | None, rows: list[ChainRow], checkpoint: Checkpoint) -> None:
    """Hand the write's new head, and the checkpoint it signed, to its caller."""
    if sealed is not None and rows:
        sealed.append(Head(rows[-1][1], rows[-1][0], checkpoint))


@dataclasses.dataclass(frozen=True)
class WriteTables:
    """A write's transaction in its store's SQL (SQLite here, postgres.py): the chain and
    events tables it is checked against, the tree, the chain table's name, and `many`, which
    inserts rows (`?` marks a parameter in every statement)."""

    links: Links
    tree: TreeRows
    chain: str
    many: Callable[[str, Sequence[Sequence[Any]]], None]


def seal(
    held: HeldKeys,
    cached: Cached | None,
    tables: WriteTables,
    ids: Sequence[int],
    stored_events: Sequence[StoredEvent],
    signer: Signer,
    authority: Authority,
) -> tuple[list[ChainRow], Checkpoint, Cached]:
    """Check the actor's authority and the tree at the head the inserted entries are appended
    to, sign the checkpoint and store the chain and tree rows in the write's transaction: the
    chain rows, the checkpoint and the frontier to keep once it commits."""
    with sealing():
        extends = checked(held, tables.links, ids, stored_events, authority)
        signatures, tree_rows, checkpoint, after = seal_write(
            tables.tree, ids, stored_events, signer, cached, extends
        )
        last = tables.tree.run(
            f"SELECT hash FROM {tables.chain} ORDER BY position DESC LIMIT 1", ()
        )
        rows = sealed_rows(last[0][0] if last else None, ids, stored_events, signatures)
        tables.many(f"INSERT INTO {tables.chain} VALUES (?, ?, ?)", rows)
        tables.many(f"INSERT INTO {tables.tree.tree} VALUES (?, ?, ?, ?)", tree_rows)
    return rows, checkpoint, after


@contextmanager
def sealing() -> Iterator[None]:
    """Any failure to store the chain rows fails the write (its transaction rolls back)."""
    try:
        yield
    except LedgerError:
        raise  # a refusal in one line (ledger/evidence/appending.py): the transaction rolls back
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SealError(f"the write could not be sealed, nothing was appended ({first})") from exc


class SealingSQLiteRecorder(SQLiteApplicationRecorder):
    """Appends signed entries, their chain rows and tree rows in one SQLite transaction; reads
    every stored state as bytes (a row edited in place may hold text)."""

    cached: Cached | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held = HeldKeys()  # the log's keys and roles, taught each write's new key events

    def held_at(self, head: int) -> Held:
        """The keys and roles the signed log gives at `head`, read in one read transaction."""
        with links_of(self) as links:
            return self.held.at(links, head)

    def next_position(self) -> int:
        """The position the next entry takes if no other write comes first (SQLite reuses
        none: a rolled-back write leaves no gap)."""
        return (self.max_notification_id() or 0) + 1

    def select_notifications(self, *args: Any, **kwargs: Any) -> Sequence[Notification]:
        return [_as_bytes(n) for n in super().select_notifications(*args, **kwargs)]

    def existing(self, ids: Sequence[UUID]) -> set[UUID]:
        """Those of `ids` that have an event, read in one read transaction (a section's
        players checked in a query or a few, not one each: issue 33's generation)."""
        found: set[UUID] = set()
        with self.datastore.transaction(commit=False) as c:
            for chunk in chunks(ids):
                marks = ", ".join("?" * len(chunk))
                c.execute(
                    f"SELECT DISTINCT originator_id FROM {self.events_table_name} "
                    f"WHERE originator_id IN ({marks})",
                    [i.hex for i in chunk],
                )
                found.update(UUID(row[0]) for row in c.fetchall())
        return found

    def select_events(self, *args: Any, **kwargs: Any) -> Sequence[StoredEvent]:
        return [_as_bytes(e) for e in super().select_events(*args, **kwargs)]

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {CHAIN_TABLE} "
            "(position INTEGER PRIMARY KEY, hash TEXT NOT NULL, signature TEXT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {TREE_TABLE} (level INTEGER NOT NULL, "
            "idx INTEGER NOT NULL, hash TEXT NOT NULL, position INTEGER, PRIMARY KEY (level, idx))",
            f"CREATE INDEX IF NOT EXISTS {TREE_TABLE}_position ON {TREE_TABLE} (position)",
            # a checked read finds the key events and commitments by kind (reads.py
            # verifier_at), not by scanning every entry: issue 21's append → visible at 1M
            f"CREATE INDEX IF NOT EXISTS {self.events_table_name}_topic "
            f"ON {self.events_table_name} (topic)",
        ]

    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        signer: Signer | None = None,
        authority: Authority | None = None,
        sealed: list[Head] | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """Insert (taking the write lock), check the actor's authority and the tree at the head
        the write is appended to, sign the checkpoint and seal; the new head is appended to
        `sealed`."""
        if signer is None or authority is None:
            raise PersistenceError("an unsigned write: every write must be signed by its actor")
        with self.datastore.transaction(commit=True) as c:
            ids = self._insert_events(c, stored_events, **kwargs) or []

            def run(sql: str, params: Sequence[Any]) -> list[Row]:
                c.execute(sql, params)
                return [tuple(r) for r in c.fetchall()]

            tree = TreeRows(run, self.events_table_name, "rowid")
            tables = WriteTables(links_in(c, self), tree, CHAIN_TABLE, c.executemany)
            rows, checkpoint, cached = seal(
                self.held, self.cached, tables, ids, stored_events, signer, authority
            )
        self.cached = cached
        receipt(sealed, rows, checkpoint)
        return ids


def chunks(ids: Sequence[UUID], size: int = 500) -> Iterator[Sequence[UUID]]:
    """`ids` in runs of at most `size` (a statement's parameters stay few)."""
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _as_bytes(stored: E) -> E:
    """A notification or stored event whose state SQLite returned as text, with it as bytes."""
    if isinstance(stored.state, str):
        return dataclasses.replace(stored, state=stored.state.encode())
    return stored
