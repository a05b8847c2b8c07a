"""The PostgreSQL recorder that seals every write in its own transaction (`chain.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry
from psycopg.sql import SQL, Composed, Identifier

from ledger.evidence.appending import Authority, Held, HeldKeys
from ledger.evidence.chain import Head
from ledger.evidence.sealing import Signer, WriteTables, chunks, receipt, seal
from ledger.evidence.tables import links_in, links_of
from ledger.evidence.tree import TREE_TABLE, Cached, Row, TreeRows
from ledger.store import CHAIN_TABLE


class SealingPostgresRecorder(PostgresApplicationRecorder):
    """Appends signed entries, their chain rows and tree rows in one PostgreSQL transaction,
    under the events table's lock (so links and the tree follow commit order)."""

    cached: Cached | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # eventsourcing NOTIFYs `channel_name` in every append's transaction (in
        # `_insert_stored_events`, which `insert_events` calls), delivered when it commits; named
        # here by the schema too, so a server following this ledger wakes for its appends only
        # (ledger/entrypoints/web/follow.py; issue 33)
        self.channel_name = f"{self.datastore.schema}.{self.events_table_name}"
        self.held = HeldKeys()  # the log's keys and roles, taught each write's new key events
        self.chain_table = self.table(CHAIN_TABLE)
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {} "
                "(position BIGINT PRIMARY KEY, hash TEXT NOT NULL, signature TEXT NOT NULL)"
            ).format(self.chain_table)
        )
        self.tree_table = self.table(TREE_TABLE)
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {} (level INTEGER NOT NULL, idx BIGINT NOT NULL, "
                "hash TEXT NOT NULL, position BIGINT, PRIMARY KEY (level, idx))"
            ).format(self.tree_table)
        )
        self.sql_create_statements.append(
            SQL("CREATE INDEX IF NOT EXISTS {} ON {} (position)").format(
                Identifier(TREE_TABLE + "_position"), self.tree_table
            )
        )
        # a checked read finds the key events and commitments by kind (reads.py)
        self.sql_create_statements.append(
            SQL("CREATE INDEX IF NOT EXISTS {} ON {} (topic)").format(
                Identifier(self.events_table_name + "_topic"),
                self.table(self.events_table_name),
            )
        )

    def held_at(self, head: int) -> Held:
        """The keys and roles the signed log gives at `head`, read in one read transaction."""
        with links_of(self) as links:
            return self.held.at(links, head)

    def next_position(self) -> int:
        """The position the next entry takes if no other write comes first: the events
        sequence's next value (a write rolled back has used its values: positions skip)."""
        sequence = self.table(f"{self.events_table_name}_notification_id_seq")
        with self.datastore.transaction(commit=False) as curs:
            curs.execute(SQL("SELECT last_value, is_called FROM {}").format(sequence))
            row = curs.fetchone()
        assert row is not None
        return int(row["last_value"]) + (1 if row["is_called"] else 0)

    def existing(self, ids: Sequence[UUID]) -> set[UUID]:
        """Those of `ids` that have an event, read in one read transaction."""
        found: set[UUID] = set()
        query = SQL("SELECT DISTINCT originator_id FROM {} WHERE originator_id = ANY(%s)")
        with self.datastore.transaction(commit=False) as curs:
            for chunk in chunks(ids):
                curs.execute(query.format(self.table(self.events_table_name)), [list(chunk)])
                found.update(UUID(str(row["originator_id"])) for row in curs.fetchall())
        return found

    def table(self, name: str) -> Composed:
        """Table `name` in the store's schema."""
        return SQL("{}.{}").format(Identifier(self.datastore.schema or "public"), Identifier(name))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        signer: Signer | None = None,
        authority: Authority | None = None,
        sealed: list[Head] | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """Insert (under the table lock), check the actor's authority and the tree at the head
        the write is appended to, sign the checkpoint and seal; the new head is appended to
        `sealed`."""
        if signer is None or authority is None:
            raise PersistenceError("an unsigned write: every write must be signed by its actor")
        with (
            self.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor() as curs,
        ):
            self._insert_stored_events(curs, stored_events)  # locks the table, then inserts
            ids = [row["notification_id"] for row in curs.fetchall()]

            def run(sql: str, params: Sequence[Any]) -> list[Row]:
                curs.execute(sql.replace("?", "%s"), params)
                return [tuple(r.values()) for r in curs.fetchall()]

            def many(sql: str, rows: Sequence[Sequence[Any]]) -> None:
                curs.executemany(sql.replace("?", "%s"), rows)

            events = self.table(self.events_table_name).as_string(conn)
            tree = TreeRows(run, events, "notification_id", self.tree_table.as_string(conn))
            tables = WriteTables(links_in(curs, self), tree, self.chain_table.as_string(conn), many)
            rows, checkpoint, cached = seal(
                self.held, self.cached, tables, ids, stored_events, signer, authority
            )
        self.cached = cached
        receipt(sealed, rows, checkpoint)
        return ids
