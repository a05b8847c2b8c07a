"""The PostgreSQL recorder that seals every write in its own transaction (`ledger.chain`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry
from psycopg.sql import SQL, Identifier

from ledger.chain import CHAIN_TABLE, Head, Signer, receipt, sealed_rows, sealing, sign_all


class SealingPostgresRecorder(PostgresApplicationRecorder):
    """Appends signed entries and their chain rows in one PostgreSQL transaction, under the
    events table's lock (so links are computed in commit order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chain_table = SQL("{}.{}").format(
            Identifier(self.datastore.schema or "public"), Identifier(CHAIN_TABLE)
        )
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {} "
                "(position BIGINT PRIMARY KEY, hash TEXT NOT NULL, signature TEXT NOT NULL)"
            ).format(self.chain_table)
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        signer: Signer | None = None,
        sealed: list[Head] | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """Insert (under the table lock), sign and seal; the new head is appended to `sealed`."""
        signatures = sign_all(stored_events, signer)
        with (
            self.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor() as curs,
        ):
            self._insert_stored_events(curs, stored_events)  # locks the table, then inserts
            ids = [row["notification_id"] for row in curs.fetchall()]
            with sealing():
                last = SQL("SELECT hash FROM {} ORDER BY position DESC LIMIT 1")
                curs.execute(last.format(self.chain_table))
                row = curs.fetchone()
                rows = sealed_rows(row["hash"] if row else None, ids, stored_events, signatures)
                curs.executemany(
                    SQL("INSERT INTO {} VALUES (%s, %s, %s)").format(self.chain_table), rows
                )
        receipt(sealed, rows)
        return ids
