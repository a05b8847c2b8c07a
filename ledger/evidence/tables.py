"""The chain and events tables, read in one read-only transaction (SQLite or PostgreSQL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, Protocol
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification, PersistenceError
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.errors import StoreError
from ledger.evidence.checkpoints import identity
from ledger.evidence.signing import Signed, as_uuid
from ledger.evidence.tree import TREE_TABLE, TreeRows, as_bytes
from ledger.log import HasRecorder, to_entry
from ledger.roles import PROFILE_KINDS
from ledger.store import CHAIN_TABLE

BATCH = 5000
# a stored event's columns with its signature, and the join that gives it (`Links`)
_SIGNED = "e.{p}, e.originator_id, e.originator_version, e.topic, e.state, c.signature"
_JOINED = "FROM {e} e LEFT JOIN {t} c ON c.position = e.{p}"


class Glance(NamedTuple):
    """What one statement saw of a store (`Links.glance`): its last position (`head`), its
    first entry (None: it has none), the chain link at position `at`, and the signed entries
    after `after`, each with its signature and link: all of them if `whole`."""

    head: int
    first: Notification | None
    at: int
    link: str | None
    after: int
    rows: list[tuple[Notification, bytes | None, str | None]]
    whole: bool

    def identity(self) -> str | None:
        """The ledger's identity (`checkpoints.identity`: a digest of its first entry)."""
        f = self.first
        return None if f is None else identity(f.id, f.originator_id, f.topic, f.state)


class LastWrite(NamedTuple):
    """A write's end as stored: its position, link, signature, last entry's topic and actor
    (empty when its entry is missing)."""

    position: int
    link: str
    signature: bytes
    topic: str
    actor: str


def as_signed(notification: Notification, signature: bytes | None) -> Signed:
    return Signed(
        notification.id,
        notification.originator_id,
        notification.originator_version,
        notification.topic,
        notification.state,
        signature,
    )


def recorder_of(app_or_recorder: HasRecorder | ApplicationRecorder) -> ApplicationRecorder:
    if isinstance(app_or_recorder, ApplicationRecorder):
        return app_or_recorder
    return app_or_recorder.recorder


class Cursor(Protocol):
    """A cursor the tables are read through: eventsourcing's SQLite cursor or psycopg's."""

    def execute(self, sql: str, params: Sequence[Any], /) -> object: ...

    def fetchall(self) -> Sequence[Any]: ...


class Links:
    """The chain table and the events table, read in one transaction (`ids`: an event's
    originator id as its store gives it back)."""

    def __init__(
        self,
        cursor: Cursor,
        tables: tuple[str, str, str, str],
        mark: str,
        ids: Callable[[str], UUID | str],
    ) -> None:
        self.cursor, self.mark, self.to_id = cursor, mark, ids
        self.table, self.events, self.position, self.tree = tables

    def tree_rows(self) -> TreeRows:
        """The ledger's Merkle tree (tree.py), read in this transaction (a ledger from
        before trees has none: its nodes are then not found)."""
        if self.mark == "?":
            sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
            found = self._rows(sql, (TREE_TABLE,))[0][0]
        else:
            found = self._rows("SELECT to_regclass(?) IS NOT NULL", (self.tree,))[0][0]
        return TreeRows(self._rows, self.events, self.position, self.tree if found else None)

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        sql = sql.format(t=self.table, e=self.events, p=self.position).replace("?", self.mark)
        self.cursor.execute(sql, params)
        rows = self.cursor.fetchall()
        return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in rows]

    def all(self) -> list[tuple[int, str, bytes]]:
        rows = self._rows("SELECT position, hash, signature FROM {t} ORDER BY position")
        return [(int(p), str(h), unhex(s) or b"") for p, h, s in rows]

    def last_write(self, upto: int) -> LastWrite:
        """The last write that ends at or before `upto` (position 0: none does)."""
        rows = self._rows(
            "SELECT c.position, c.hash, c.signature, e.topic, e.state FROM {t} c "
            "LEFT JOIN {e} e ON e.{p} = c.position WHERE c.position <= ? AND c.signature <> '' "
            "ORDER BY c.position DESC LIMIT 1",
            (upto,),
        )
        if not rows:
            return LastWrite(0, "", b"", "", "")
        position, link, signature, topic, state = rows[0]
        actor = "" if state is None else _actor(int(position), topic, as_bytes(state))
        return LastWrite(int(position), str(link), unhex(signature) or b"", topic or "", actor)

    def last_write_end(self, upto: int) -> int:
        rows = self._rows(
            "SELECT max(position) FROM {t} WHERE position <= ? AND signature <> ''", (upto,)
        )
        return int(rows[0][0] or 0)

    def chain_between(self, after: int, upto: int) -> list[tuple[int, str, str]]:
        """The chain rows after position `after` up to `upto`, as stored (position, link,
        signature text)."""
        rows = self._rows(
            "SELECT position, hash, signature FROM {t} WHERE position > ? AND position <= ? "
            "ORDER BY position",
            (after, upto),
        )
        return [(int(p), str(h), str(s)) for p, h, s in rows]

    def at(self, position: int) -> str | None:
        rows = self._rows("SELECT hash FROM {t} WHERE position = ?", (position,))
        return str(rows[0][0]) if rows else None

    def signature_at(self, position: int) -> bytes:
        """The stored write signature at `position` (empty inside a write)."""
        rows = self._rows("SELECT signature FROM {t} WHERE position = ?", (position,))
        return (unhex(rows[0][0]) or b"") if rows else b""

    def rows_after(
        self,
        after: int,
        limit: int | None,
        kinds: Sequence[str] = (),
        upto: int | None = None,
    ) -> list[tuple[Notification, bytes | None]]:
        """Stored events after position `after` (of `kinds`, up to `upto`), with signatures."""
        where, params = ["e.{p} > ?"], list[int | str]([after])
        if kinds:
            where.append(f"e.topic IN ({', '.join('?' * len(kinds))})")
            params += [f"ratings-ledger:{k}" for k in kinds]
        if upto is not None:
            where.append("e.{p} <= ?")
            params.append(upto)
        sql = f"SELECT {_SIGNED} {_JOINED} WHERE {' AND '.join(where)} ORDER BY e.{{p}}"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [(self._stored(row), unhex(row[5])) for row in self._rows(sql, params)]

    def glance(self, after: int, at: int, limit: int) -> Glance:
        """In one statement: the ledger's last position and first entry, the chain link at
        position `at`, and up to `limit` stored events after position `after` with their
        signatures and links (a server's follower after a notification: issue 33)."""
        sql = (
            f"SELECT * FROM (SELECT {_SIGNED}, c.hash, 0 AS part {_JOINED} "
            "WHERE e.{p} > ? ORDER BY e.{p} LIMIT ?) AS n UNION ALL "
            "SELECT * FROM (SELECT {p}, originator_id, originator_version, topic, state, NULL, "
            "NULL, 1 FROM {e} ORDER BY {p} LIMIT 1) AS f UNION ALL "
            "SELECT (SELECT max({p}) FROM {e}), NULL, NULL, NULL, NULL, NULL, "
            "(SELECT hash FROM {t} WHERE position = ?), 2"
        )
        parts: list[list[tuple[Any, ...]]] = [[], [], []]
        for row in self._rows(sql, (after, limit, at)):
            parts[int(row[-1])].append(row)
        (head, *_, link, _), first = parts[2][0], parts[1][0] if parts[1] else None
        signed = sorted(parts[0], key=lambda row: int(row[0]))
        return Glance(
            int(head or 0),
            None if first is None else self._stored(first),
            at,
            None if link is None else str(link),
            after,
            [(self._stored(row), unhex(row[5]), row[6]) for row in signed],
            len(signed) < limit,
        )

    def _stored(self, row: Sequence[Any]) -> Notification:
        position, originator, version, topic, state = row[:5]
        return Notification(
            id=int(position),
            originator_id=self.to_id(originator),
            originator_version=version,
            topic=topic,
            state=state.encode() if isinstance(state, str) else bytes(state),
        )

    def profile_before(self, aggregate_id: UUID | str, version: int) -> bytes | None:
        """The stored state of a player's last profile entry before `version` of his record
        (None: none), which a later profile change is judged against."""
        uuid = as_uuid(aggregate_id)
        rows = self._rows(
            "SELECT state FROM {e} WHERE originator_id = ? AND originator_version < ? "
            "AND topic IN (?, ?) ORDER BY originator_version DESC LIMIT 1",
            (
                uuid.hex if self.mark == "?" else uuid,
                version,
                *(f"ratings-ledger:{k}" for k in PROFILE_KINDS),
            ),
        )
        if not rows:
            return None
        return as_bytes(rows[0][0])

    def entries(self, after: int) -> Iterator[tuple[Notification, bytes | None]]:
        """The stored events after position `after`, in ledger order, BATCH at a time."""
        while True:
            rows = self.rows_after(after, BATCH)
            yield from rows
            if len(rows) < BATCH:
                return
            after = rows[-1][0].id


def _actor(position: int, topic: str, state: bytes) -> str:
    """The actor an entry's envelope names (as `ledger.log.to_entry` reads it)."""
    entry = Notification(
        id=position, originator_id="", originator_version=0, topic=topic, state=state
    )
    return to_entry(entry).actor


def unhex(text: str | None) -> bytes | None:
    try:
        return bytes.fromhex(text) if text is not None else None
    except ValueError:
        return b"?"  # an overwritten signature: it cannot check


def links_in(cursor: Cursor, recorder: ApplicationRecorder) -> Links:
    """The chain and events tables read through `cursor`, a transaction the caller holds open
    on `recorder`'s store (a write's, to check it against the head it is appended to)."""
    events: str = getattr(recorder, "events_table_name", "")
    if isinstance(recorder, SQLiteApplicationRecorder):
        ids = getattr(recorder, "convert_originator_id", str)
        return Links(cursor, (CHAIN_TABLE, events, "rowid", TREE_TABLE), "?", ids)
    return _postgres_names(cursor, getattr(recorder, "datastore", None), events)


@contextmanager
def links_of(recorder: ApplicationRecorder | Links, single: bool = False) -> Iterator[Links]:
    """The chain and events tables of the recorder's store, in one read-only transaction;
    a missing chain table is a StoreError. Given a `Links` (`links_in`), that transaction; a
    server's recorder, the copy of its log on this machine. `single`: the caller reads them in
    one statement, which sees one snapshot by itself: on PostgreSQL no transaction is opened
    around it (a round trip each to open, set and end it, and a check of the chain table's
    presence, made only if the statement fails)."""
    if isinstance(recorder, Links):
        yield recorder
        return
    datastore: Any = getattr(recorder, "datastore", None)
    events: str = getattr(recorder, "events_table_name", "")
    copied = getattr(recorder, "copied_links", None)
    if copied is not None:  # a server's (ledger.evidence.remote): its log copied here, checked
        with copied() as links:  # here (ledger.evidence.mirror)
            yield links
        return
    try:
        if isinstance(recorder, SQLiteApplicationRecorder):
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                    (CHAIN_TABLE,),
                )
                _check_table(cursor.fetchone()[0])
                yield links_in(cursor, recorder)
        elif single:
            with _postgres_statement(datastore, events) as links:
                yield links
        else:
            with _postgres_links(datastore, events) as links:
                yield links
    except (sqlite3.Error, OSError, PersistenceError) as exc:
        raise StoreError(f"chain table: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("psycopg"):
            raise StoreError(f"chain table: {exc}") from None
        raise


def _check_table(found: object) -> None:
    if not found:
        raise StoreError(
            f"the chain table {CHAIN_TABLE} is missing: the ledger's seals were dropped"
        )


@contextmanager
def _postgres_links(datastore: Any, events: str) -> Iterator[Links]:
    with datastore.transaction(commit=False) as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        links = _postgres_names(cursor, datastore, events)
        cursor.execute("SELECT to_regclass(%s) AS found", (links.table,))
        _check_table(cursor.fetchone()["found"])
        yield links


@contextmanager
def _postgres_statement(datastore: Any, events: str) -> Iterator[Links]:
    """The tables read in one statement on an autocommit connection; if it fails, whether
    the chain table is there says why (`_check_table`)."""
    with datastore.get_connection() as conn, conn.cursor() as cursor:
        links = _postgres_names(cursor, datastore, events)
        try:
            yield links
        except Exception:
            cursor.execute("SELECT to_regclass(%s) AS found", (links.table,))
            _check_table(cursor.fetchone()["found"])
            raise


def _postgres_names(cursor: Any, datastore: Any, events: str) -> Links:
    from psycopg.sql import SQL, Identifier

    schema = Identifier(datastore.schema or "public")
    names = tuple(
        SQL("{}.{}").format(schema, Identifier(name)).as_string(cursor.connection)
        for name in (CHAIN_TABLE, events, TREE_TABLE)
    )
    return Links(
        cursor, (names[0], names[1], "notification_id", names[2]), "%s", lambda value: value
    )
