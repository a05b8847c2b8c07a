"""A server's log copied to the reader's machine (issue 32), so that what it reads of a ledger
behind a write door is verified there, never taken on the server's word.

The server answers `GET /api/v1/writes/log` from its tables as stored (`log_page`: the entries
and the chain rows, signatures and links as they are). The reader (`ledger.evidence.remote`)
keeps them in a `Mirror`, a private temporary SQLite database (deleted when closed), and
computes the ledger's Merkle tree there from the entries' bytes (the server's tree rows are
not read). `Mirror.links` gives the chain and events tables as `ledger.evidence.tables.Links`,
so every checked read (`verify`, the verified log a list is committed from, what `set-aside`
finds failing verification) runs on the reader's machine as it runs on the store's: each
write's signature checked against the Merkle root computed here, with the key the checked
log holds for its actor. A server that changes an entry can only make it fail verification.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder

from ledger.errors import StoreError
from ledger.evidence import merkle
from ledger.evidence.signing import message
from ledger.evidence.tables import Links, links_of
from ledger.evidence.tree import TREE_TABLE
from ledger.evidence.wire import LogPage
from ledger.store import CHAIN_TABLE

EVENTS = "stored_events"
LOG_PAGE = 1000  # entries a log page holds at most


def log_page(recorder: ApplicationRecorder, after: int, upto: int | None) -> LogPage:
    """The server's answer: at most `LOG_PAGE` entries after position `after` (up to `upto`,
    else the head) and the chain rows of the positions the page covers, read in one read
    transaction."""
    from ledger.evidence.remote import encoded

    head = recorder.max_notification_id() or 0
    last = head if upto is None else min(upto, head)
    with links_of(recorder) as links:
        rows = links.rows_after(after, LOG_PAGE, (), last)
        covered = rows[-1][0].id if len(rows) == LOG_PAGE else max(last, after)
        chain = links.chain_between(after, covered)
    return LogPage.model_validate(
        {
            "entries": [encoded(n) for n, _ in rows],
            "chain": [{"position": p, "link": h, "signature": s} for p, h, s in chain],
            "covered": covered,
        }
    )


class Mirror:
    """The log of one ledger as its server served it, up to `covered` (module docstring)."""

    def __init__(self) -> None:
        self.db = sqlite3.connect("")  # a private temporary database, deleted on close
        self.db.executescript(
            f"CREATE TABLE {EVENTS} (originator_id TEXT NOT NULL, originator_version INTEGER "
            "NOT NULL, topic TEXT NOT NULL, state BLOB NOT NULL);"
            f"CREATE INDEX {EVENTS}_topic ON {EVENTS} (topic);"
            f"CREATE TABLE {CHAIN_TABLE} (position INTEGER PRIMARY KEY, hash TEXT NOT NULL, "
            "signature TEXT NOT NULL);"
            f"CREATE TABLE {TREE_TABLE} (level INTEGER NOT NULL, idx INTEGER NOT NULL, "
            "hash TEXT NOT NULL, position INTEGER, PRIMARY KEY (level, idx));"
            f"CREATE INDEX {TREE_TABLE}_position ON {TREE_TABLE} (position);"
        )
        self.covered = 0
        self.frontier = merkle.Frontier()

    def catch_up(self, upto: int, page: Callable[[int, int], dict[str, Any]]) -> None:
        """Copy the log after `covered` up to position `upto`, a page (`page(after, upto)`,
        the door's JSON) at a time, hashing each entry into the tree."""
        while self.covered < upto:
            found = LogPage.model_validate(page(self.covered, upto))
            if found.covered <= self.covered:
                raise StoreError(f"the server's log stops at {self.covered}, before {upto}")
            self._add(found)
            self.covered = found.covered

    def _add(self, found: LogPage) -> None:
        from ledger.evidence.remote import decoded

        events, nodes = [], []
        for entry in found.entries:
            s = decoded(entry.model_dump())
            leaf = merkle.leaf_hash(
                message(s.originator_id, s.originator_version, s.topic, s.state)
            )
            made = self.frontier.append(leaf)
            nodes += [(lv, ix, h.hex(), entry.id if lv == 0 else None) for lv, ix, h in made]
            uuid = UUID(str(s.originator_id))
            events.append((entry.id, uuid.hex, s.originator_version, s.topic, bytes(s.state)))
        with self.db:
            self.db.executemany(f"INSERT INTO {EVENTS} (rowid, originator_id, "
                                "originator_version, topic, state) VALUES (?, ?, ?, ?, ?)",
                                events)  # fmt: skip
            self.db.executemany(
                f"INSERT INTO {CHAIN_TABLE} VALUES (?, ?, ?)",
                [(r.position, r.link, r.signature) for r in found.chain],
            )
            self.db.executemany(f"INSERT INTO {TREE_TABLE} VALUES (?, ?, ?, ?)", nodes)

    @contextmanager
    def links(self) -> Iterator[Links]:
        """The copied chain and events tables, as a store's are read (`tables.Links`)."""
        cursor = self.db.cursor()
        try:
            yield Links(cursor, (CHAIN_TABLE, EVENTS, "rowid", TREE_TABLE), "?", UUID)
        finally:
            cursor.close()

    def close(self) -> None:
        self.db.close()
