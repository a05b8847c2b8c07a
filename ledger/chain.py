"""Tamper evidence: a SHA-256 hash chain over the ledger's entries, in ledger order.

Link i is `sha256(link[i-1] || canonical(entry i))` (link 0 is GENESIS). `seal` stores the link
of every entry not sealed yet in the store's chain table; `verify` recomputes the chain from the
stored events and reports the first position whose entry no longer matches its stored link.
See docs/decisions.md.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from eventsourcing.persistence import ApplicationRecorder, Notification, PersistenceError

from ledger.domain import StoreError

GENESIS = "0" * 64
CHAIN_TABLE = "ratingsledger_chain"
SEAL_LOCK = 0x6C65_6467_6572_6368  # PostgreSQL advisory lock key ("ledgerch"): one sealer
BATCH = 5000


class HasRecorder(Protocol):
    recorder: ApplicationRecorder


@dataclass(frozen=True)
class Head:
    """The chain's last link: the digest an auditor records, and its ledger position."""

    digest: str
    position: int

    def __str__(self) -> str:
        return f"{self.digest}@{self.position}"


@dataclass(frozen=True)
class Break:
    """The first position where the stored entries no longer match the sealed chain."""

    position: int
    reason: str


@dataclass(frozen=True)
class Verification:
    """What `verify` found: the head over every entry, and the first break (None: intact)."""

    head: Head
    entries: int
    broken: Break | None


def canonical(notification: Notification) -> bytes:
    """One entry's canonical encoding: position, aggregate, version, topic and the payload as
    sorted, compact JSON (so re-serializing the same facts never breaks the chain)."""
    try:
        state: Any = json.loads(notification.state)
    except ValueError:  # a row overwritten with something else: hashed as it is, so it differs
        state = {"unparsable": notification.state.hex()}
    return json.dumps(
        {
            "position": notification.id,
            "aggregate_id": str(notification.originator_id),
            "version": notification.originator_version,
            "topic": notification.topic,
            "state": state,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode()


def link(previous: str, notification: Notification) -> str:
    """The chain's link at `notification`: SHA-256 over the previous link and the entry."""
    return hashlib.sha256(bytes.fromhex(previous) + canonical(notification)).hexdigest()


def parse_expected(text: str) -> Head:
    """`DIGEST@POS` as recorded by an auditor from `verify --digest`."""
    digest, _, position = text.strip().partition("@")
    digest = digest.lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"{text!r}: the digest is not 64 hex digits (expected DIGEST@POS)")
    if not position.isdigit():
        raise ValueError(f"{text!r}: the position is not a number (expected DIGEST@POS)")
    return Head(digest, int(position))


def seal(app_or_recorder: HasRecorder | ApplicationRecorder) -> Head:
    """Store the link of every entry after the last sealed one; the new head.

    Sealers are serialized (SQLite write lock, PostgreSQL advisory lock), so concurrent
    writers each seal what is committed and no link is written twice.
    """
    with _links(_recorder(app_or_recorder), write=True) as links:
        previous, position = links.last() or (GENESIS, 0)
        for notification in links.entries(position):
            previous = link(previous, notification)
            position = notification.id
            links.add(position, previous)
        return Head(previous, position)


def verify(
    app_or_recorder: HasRecorder | ApplicationRecorder, *, seal_tail: bool = True
) -> Verification:
    """Recompute the chain from the stored entries and compare it with the sealed links.

    An entry edited, deleted, reordered or inserted after sealing breaks the chain at its
    position. Entries not sealed yet are sealed first (`seal_tail`), so the head covers all.
    """
    recorder = _recorder(app_or_recorder)
    if seal_tail:
        seal(recorder)
    previous, position, count, k = GENESIS, 0, 0, 0
    breaks: list[Break] = []  # the first one is reported; later links all follow from it
    with _links(recorder, write=False) as links:
        sealed = links.all()
        for notification in links.entries(0):
            count += 1
            while k < len(sealed) and sealed[k][0] < notification.id:
                _first(breaks, Break(sealed[k][0], "the sealed entry is missing (deleted)"))
                k += 1
            previous, position = link(previous, notification), notification.id
            if k < len(sealed) and sealed[k][0] == position:
                if sealed[k][1] != previous:
                    _first(
                        breaks, Break(position, "the entry differs from the one sealed (edited)")
                    )
                k += 1
            elif k < len(sealed):
                _first(breaks, Break(position, "the entry was not sealed but later ones were"))
    if k < len(sealed):
        _first(breaks, Break(sealed[k][0], "the sealed entry is missing (deleted)"))
    return Verification(Head(previous, position), count, breaks[0] if breaks else None)


def _first(breaks: list[Break], found: Break) -> None:
    if not breaks:
        breaks.append(found)


def link_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> str | None:
    """The sealed link at `position`, if any."""
    with _links(_recorder(app_or_recorder), write=False) as links:
        return links.at(position)


def _recorder(app_or_recorder: HasRecorder | ApplicationRecorder) -> ApplicationRecorder:
    return getattr(app_or_recorder, "recorder", app_or_recorder)


class _Links:
    """The chain table and the events table, read and written in one transaction (on SQLite
    of a connection of its own: the recorder's pool would make readers wait on its writer,
    which may be waiting on our lock)."""

    def __init__(self, cursor: Any, tables: tuple[str, str, str], mark: str, ids: Any) -> None:
        self.cursor, self.mark, self.to_id = cursor, mark, ids
        self.table, self.events, self.position = tables

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        sql = sql.format(t=self.table, e=self.events, p=self.position).replace("?", self.mark)
        self.cursor.execute(sql, params)
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in self.cursor]

    def last(self) -> tuple[str, int] | None:
        rows = self._rows("SELECT hash, position FROM {t} ORDER BY position DESC LIMIT 1")
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def all(self) -> list[tuple[int, str]]:
        rows = self._rows("SELECT position, hash FROM {t} ORDER BY position")
        return [(int(p), str(h)) for p, h in rows]

    def at(self, position: int) -> str | None:
        rows = self._rows("SELECT hash FROM {t} WHERE position = ?", (position,))
        return str(rows[0][0]) if rows else None

    def add(self, position: int, digest: str) -> None:
        self._rows(
            "INSERT INTO {t} (position, hash) VALUES (?, ?) RETURNING position", (position, digest)
        )

    def entries(self, after: int) -> Iterator[Notification]:
        """The stored events after position `after`, in ledger order, BATCH at a time."""
        while True:
            rows = self._rows(
                "SELECT {p}, originator_id, originator_version, topic, state FROM {e} "
                "WHERE {p} > ? ORDER BY {p} LIMIT ?",
                (after, BATCH),
            )
            for position, originator, version, topic, state in rows:
                yield Notification(
                    id=position,
                    originator_id=self.to_id(originator),
                    originator_version=version,
                    topic=topic,
                    state=state.encode() if isinstance(state, str) else bytes(state),
                )
            if len(rows) < BATCH:
                return
            after = rows[-1][0]


@contextmanager
def _links(recorder: ApplicationRecorder, write: bool) -> Iterator[_Links]:
    """The chain table of the recorder's store (created if missing), in one transaction."""
    datastore: Any = getattr(recorder, "datastore", None)
    events: str = getattr(recorder, "events_table_name", "")
    try:
        if hasattr(datastore, "pool") and hasattr(datastore.pool, "db_name"):
            ids = getattr(recorder, "convert_originator_id", str)
            with _sqlite_links(datastore.pool, events, ids, write) as links:
                yield links
        else:
            with _postgres_links(datastore, events, write) as links:
                yield links
    except (sqlite3.Error, OSError, PersistenceError) as exc:
        raise StoreError(f"chain table: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("psycopg"):
            raise StoreError(f"chain table: {exc}") from None
        raise


@contextmanager
def _sqlite_links(pool: Any, events: str, ids: Any, write: bool) -> Iterator[_Links]:
    conn = sqlite3.connect(pool.db_name, timeout=pool.lock_timeout or 5, isolation_level=None)
    with closing(conn):
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {CHAIN_TABLE} "
            "(position INTEGER PRIMARY KEY, hash TEXT NOT NULL)"
        )
        conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield _Links(conn.cursor(), (CHAIN_TABLE, events, "rowid"), "?", ids)
        except BaseException:
            conn.rollback()
            raise
        conn.commit()


@contextmanager
def _postgres_links(datastore: Any, events: str, write: bool) -> Iterator[_Links]:
    from psycopg.sql import SQL, Identifier

    schema = Identifier(datastore.schema or "public")
    table = SQL("{}.{}").format(schema, Identifier(CHAIN_TABLE))
    with datastore.transaction(commit=True) as cursor:
        if write:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SEAL_LOCK,))
        else:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute(
            SQL(
                "CREATE TABLE IF NOT EXISTS {} (position BIGINT PRIMARY KEY, hash TEXT NOT NULL)"
            ).format(table)
            if write
            else SQL("SELECT 1")
        )
        names = (
            table.as_string(cursor.connection),
            SQL("{}.{}").format(schema, Identifier(events)).as_string(cursor.connection),
            "notification_id",
        )
        yield _Links(cursor, names, "%s", lambda value: value)
