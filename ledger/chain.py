"""Tamper evidence: a SHA-256 hash chain over the ledger's signed entries, in ledger order.

Link i is `sha256(link[i-1] || canonical(entry i) || signature i)` (link 0 is GENESIS). The
recorders here store each entry's link and signature in the chain table in the transaction that
appends the entry, so an entry is never committed unsealed; `verify` only reads: it recomputes
the chain and checks every signature (`ledger.signing`), reporting the first position where the
stored entries no longer match. See docs/decisions.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from eventsourcing.persistence import (
    ApplicationRecorder,
    Notification,
    PersistenceError,
    StoredEvent,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

from ledger.checkpoints import Checkpoint
from ledger.domain import StoreError
from ledger.merkle import Frontier
from ledger.signing import COMMITMENT, KEY_EVENTS, SignatureError, Signed, Verifier
from ledger.store import CHAIN_TABLE
from ledger.submissions import Submissions
from ledger.times import Times
from ledger.tree import TREE_TABLE, Cached, TreeMismatch, TreeRows, seal_write, tree_mismatch

GENESIS = "0" * 64
BATCH = 5000

Signer = Callable[[bytes], bytes]


class SealError(PersistenceError):
    """The chain rows of a write could not be stored: the write is rolled back."""


class HasRecorder(Protocol):
    recorder: ApplicationRecorder


@dataclass(frozen=True)
class Head:
    """The chain's last link: the digest an auditor records, and its ledger position."""

    digest: str
    position: int
    checkpoint: Checkpoint | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.digest}@{self.position}"


@dataclass(frozen=True)
class Break:
    """The first position where the stored entries no longer match the sealed, signed chain."""

    position: int
    reason: str


@dataclass(frozen=True)
class Verification:
    """What `verify` found: the head over every entry, the first break (None: intact), and the
    public keys and roles the ledger held at position `keys_at` (for checking an anchor)."""

    head: Head
    entries: int
    broken: Break | None
    keys: dict[str, str] = field(default_factory=dict)
    roles: dict[str, set[str]] = field(default_factory=dict)


def parsed(state: bytes) -> Any:
    """A stored state's JSON; a row overwritten with something else is hashed as it is."""
    try:
        return json.loads(state)
    except ValueError:
        return {"unparsable": state.hex()}


def canonical(notification: Notification, state: Any = None) -> bytes:
    """One entry's canonical encoding: position, aggregate, version, topic and the payload as
    sorted, compact JSON (so re-serializing the same facts never breaks the chain); `state`:
    the payload parsed already."""
    if state is None:
        state = parsed(notification.state)
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


def link(previous: str, notification: Notification, signature: bytes, state: Any = None) -> str:
    """The chain's link at `notification`: SHA-256 over the previous link, the entry and its
    signature."""
    body = bytes.fromhex(previous) + canonical(notification, state) + signature
    return hashlib.sha256(body).hexdigest()


def parse_expected(text: str) -> Head:
    """`DIGEST@POS`, a write's receipt or `verify --digest`, as recorded by an auditor."""
    digest, _, position = text.strip().partition("@")
    digest = digest.lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"{text!r}: the digest is not 64 hex digits (expected DIGEST@POS)")
    if not position.isdigit():
        raise ValueError(f"{text!r}: the position is not a number (expected DIGEST@POS)")
    return Head(digest, int(position))


def sealed_rows(
    last: str | None,
    ids: Sequence[int],
    stored_events: Sequence[StoredEvent],
    signatures: list[bytes],
) -> list[tuple[int, str, str]]:
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


def receipt(
    sealed: list[Head] | None, rows: list[tuple[int, str, str]], checkpoint: Checkpoint
) -> None:
    """Hand the write's new head, and the checkpoint it signed, to its caller."""
    if sealed is not None and rows:
        sealed.append(Head(rows[-1][1], rows[-1][0], checkpoint))


@contextmanager
def sealing() -> Iterator[None]:
    """Any failure to store the chain rows fails the write (its transaction rolls back)."""
    try:
        yield
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SealError(f"the write could not be sealed, nothing was appended ({first})") from exc


class SealingSQLiteRecorder(SQLiteApplicationRecorder):
    """Appends signed entries, their chain rows and tree rows in one SQLite transaction; reads
    every stored state as bytes (a row edited in place may hold text)."""

    cached: Cached | None = None

    def select_notifications(self, *args: Any, **kwargs: Any) -> Sequence[Notification]:
        return [_as_bytes(n) for n in super().select_notifications(*args, **kwargs)]

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
        ]

    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        signer: Signer | None = None,
        sealed: list[Head] | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """Insert, sign the checkpoint and seal; the new head is appended to `sealed`."""
        if signer is None:
            raise PersistenceError("an unsigned write: every write must be signed by its actor")
        with self.datastore.transaction(commit=True) as c:
            ids = self._insert_events(c, stored_events, **kwargs) or []
            with sealing():

                def run(sql: str, params: Sequence[Any]) -> list[tuple]:
                    c.execute(sql, params)
                    return [tuple(r) for r in c.fetchall()]

                tree = TreeRows(run, self.events_table_name, "rowid")
                signatures, tree_rows, checkpoint, cached = seal_write(
                    tree, ids, stored_events, signer, self.cached
                )
                c.execute(f"SELECT hash FROM {CHAIN_TABLE} ORDER BY position DESC LIMIT 1")
                row = c.fetchone()
                rows = sealed_rows(row[0] if row else None, ids, stored_events, signatures)
                c.executemany(f"INSERT INTO {CHAIN_TABLE} VALUES (?, ?, ?)", rows)
                c.executemany(f"INSERT INTO {TREE_TABLE} VALUES (?, ?, ?, ?)", tree_rows)
        self.cached = cached
        receipt(sealed, rows, checkpoint)
        return ids


def _as_bytes(stored: Any) -> Any:
    """A notification or stored event whose state SQLite returned as text, with it as bytes."""
    if isinstance(stored.state, str):
        return dataclasses.replace(stored, state=stored.state.encode())
    return stored


def verify(app_or_recorder: HasRecorder | ApplicationRecorder, keys_at: int = 0) -> Verification:
    """Recompute the chain from the stored entries, compare it with the sealed links and check
    every signature; reads only (one read transaction).

    An entry edited, deleted, reordered, inserted or forged breaks the chain at its position;
    so does an entry without a chain row (an emptied chain table), a second submission of an
    item (ledger/submissions.py), a misdated entry (ledger/times.py) and a stored tree that
    does not match the entries (a deleted tail). A missing chain table is a StoreError.
    """
    previous, position, count, k = GENESIS, 0, 0, 0
    breaks: list[Break] = []  # the first one is reported; later links all follow from it
    verifier, submitted, timed, pending = Verifier(), Submissions(), Times(), []
    keys: dict[str, str] = {}
    roles: dict[str, set[str]] = {}
    with _links(_recorder(app_or_recorder)) as links:
        sealed = links.all()
        for notification, signature in links.entries(0):
            count += 1
            state = parsed(notification.state)
            while k < len(sealed) and sealed[k][0] < notification.id:
                _first(breaks, Break(sealed[k][0], "the sealed entry is missing (deleted)"))
                k += 1
            position = notification.id
            if k < len(sealed) and sealed[k][0] == position:
                previous = link(previous, notification, sealed[k][2], state)
                if sealed[k][1] != previous:
                    _first(
                        breaks, Break(position, "the entry differs from the one sealed (edited)")
                    )
                k += 1
            else:
                previous = link(previous, notification, b"", state)
                _first(breaks, Break(position, "the entry is not sealed (inserted or unchained)"))
            if not breaks:
                try:
                    ended = verifier.check_one(_signed(notification, signature), state)
                except SignatureError as exc:
                    _first(breaks, Break(exc.position, exc.reason))
                else:
                    kind = notification.topic.rpartition(":")[2]
                    why = timed.misdated(position, state) or submitted.second(kind, position, state)
                    pending += [Break(position, why)] if why else []
                    if ended:  # reported once its write's signature checks
                        _first(breaks, pending[0] if pending else None)
                        pending = []
            if position <= keys_at:
                keys = dict(verifier.keys)
                roles = {h: set(r) for h, r in verifier.roles.items()}
        if k < len(sealed):
            _first(breaks, Break(sealed[k][0], "the sealed entry is missing (deleted)"))
        if not breaks:
            try:
                verifier.finish()
            except SignatureError as exc:
                _first(breaks, Break(exc.position, exc.reason))
        if not breaks:
            found = tree_mismatch(links.tree_rows(), verifier.frontier, count, position)
            _first(breaks, Break(*found) if found else None)
    broken = breaks[0] if breaks else None
    return Verification(Head(previous, position), count, broken, keys, roles)


def _first(breaks: list[Break], found: Break | None) -> None:
    if not breaks and found is not None:
        breaks.append(found)


def _signed(notification: Notification, signature: bytes | None) -> Signed:
    return Signed(
        notification.id,
        notification.originator_id,
        notification.originator_version,
        notification.topic,
        notification.state,
        signature,
    )


def signed_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder, after: int = 0, batch: int = BATCH
) -> Iterator[list[tuple[Notification, Signed]]]:
    """The entries after position `after` with their signatures, `batch` at a time, each batch
    read in a read-only transaction of its own."""
    recorder = _recorder(app_or_recorder)
    while True:
        with _links(recorder) as links:
            rows = links.rows_after(after, batch)
        if rows:
            yield [(n, _signed(n, s)) for n, s in rows]
        if len(rows) < batch:
            return
        after = rows[-1][0].id


def write_start(app_or_recorder: HasRecorder | ApplicationRecorder, after: int) -> int:
    """The position a checked read after `after` starts from: the end of the last write that
    ends at or before it (a write is checked whole)."""
    if after <= 0:
        return 0
    with _links(_recorder(app_or_recorder)) as links:
        return links.last_write_end(after)


def verifier_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> Verifier:
    """A Verifier knowing the keys and roles held after `position` (a write's end), the
    ledger's tree and the lists committed there: the key events up to there checked, each write
    from the tree before it (the roles record's writes hold nothing else)."""
    with _links(_recorder(app_or_recorder)) as links:
        tree = links.tree_rows()
        verifier = Verifier(ledger=tree.first_identity())
        rows = links.rows_after(0, None, KEY_EVENTS, position) if position > 0 else []
        write: list[Signed] = []
        for n, s in rows:
            if not write:
                verifier.seek(_frontier(tree, n.id))
            write.append(_signed(n, s))
            if s:
                verifier.check(write)
                write = []
        verifier.check(write)
        verifier.seek(_frontier(tree, position + 1))
        for n, _ in links.rows_after(0, None, (COMMITMENT,), position) if position > 0 else []:
            verifier.committed(n.id, parsed(n.state))
    return verifier


def _frontier(tree: TreeRows, position: int) -> Frontier | None:
    """The tree's frontier just before the entry at `position` (None: the store has no tree
    there, as in a ledger from before trees, or one changed outside the ledger)."""
    try:
        return Frontier.at(tree.node, tree.entries_before(position))
    except TreeMismatch:
        return None


@contextmanager
def tree_reader(app_or_recorder: HasRecorder | ApplicationRecorder) -> Iterator[TreeRows]:
    """The ledger's stored Merkle tree, read in one read-only transaction."""
    with _links(_recorder(app_or_recorder)) as links:
        yield links.tree_rows()


def signature_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> bytes:
    """The stored write signature at `position` (empty inside a write)."""
    with _links(_recorder(app_or_recorder)) as links:
        rows = links._rows("SELECT signature FROM {t} WHERE position = ?", (position,))
    return (_unhex(rows[0][0]) or b"") if rows else b""


def link_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> str | None:
    """The sealed link at `position`, if any."""
    with _links(_recorder(app_or_recorder)) as links:
        return links.at(position)


def _recorder(app_or_recorder: HasRecorder | ApplicationRecorder) -> ApplicationRecorder:
    return getattr(app_or_recorder, "recorder", app_or_recorder)


class _Links:
    """The chain table and the events table, read in one transaction."""

    def __init__(self, cursor: Any, tables: tuple[str, str, str, str], mark: str, ids: Any) -> None:
        self.cursor, self.mark, self.to_id = cursor, mark, ids
        self.table, self.events, self.position, self.tree = tables

    def tree_rows(self) -> TreeRows:
        """The ledger's Merkle tree (ledger/tree.py), read in this transaction (a ledger from
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
        return [(int(p), str(h), _unhex(s) or b"") for p, h, s in rows]

    def last_write_end(self, upto: int) -> int:
        rows = self._rows(
            "SELECT max(position) FROM {t} WHERE position <= ? AND signature <> ''", (upto,)
        )
        return int(rows[0][0] or 0)

    def at(self, position: int) -> str | None:
        rows = self._rows("SELECT hash FROM {t} WHERE position = ?", (position,))
        return str(rows[0][0]) if rows else None

    def rows_after(
        self,
        after: int,
        limit: int | None,
        kinds: Sequence[str] = (),
        upto: int | None = None,
    ) -> list[tuple[Notification, bytes | None]]:
        """Stored events after position `after` (of `kinds`, up to `upto`), with signatures."""
        where, params = ["e.{p} > ?"], [after]
        if kinds:
            where.append(f"e.topic IN ({', '.join('?' * len(kinds))})")
            params += [f"ratings-ledger:{k}" for k in kinds]
        if upto is not None:
            where.append("e.{p} <= ?")
            params.append(upto)
        sql = (
            "SELECT e.{p}, e.originator_id, e.originator_version, e.topic, e.state, c.signature "
            "FROM {e} e LEFT JOIN {t} c ON c.position = e.{p} "
            f"WHERE {' AND '.join(where)} ORDER BY e.{{p}}"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [
            (
                Notification(
                    id=position,
                    originator_id=self.to_id(originator),
                    originator_version=version,
                    topic=topic,
                    state=state.encode() if isinstance(state, str) else bytes(state),
                ),
                _unhex(signature),
            )
            for position, originator, version, topic, state, signature in self._rows(sql, params)
        ]

    def entries(self, after: int) -> Iterator[tuple[Notification, bytes | None]]:
        """The stored events after position `after`, in ledger order, BATCH at a time."""
        while True:
            rows = self.rows_after(after, BATCH)
            yield from rows
            if len(rows) < BATCH:
                return
            after = rows[-1][0].id


def _unhex(text: str | None) -> bytes | None:
    try:
        return bytes.fromhex(text) if text is not None else None
    except ValueError:
        return b"?"  # an overwritten signature: it cannot check


@contextmanager
def _links(recorder: ApplicationRecorder) -> Iterator[_Links]:
    """The chain and events tables of the recorder's store, in one read-only transaction;
    a missing chain table is a StoreError."""
    datastore: Any = getattr(recorder, "datastore", None)
    events: str = getattr(recorder, "events_table_name", "")
    try:
        if isinstance(recorder, SQLiteApplicationRecorder):
            ids = getattr(recorder, "convert_originator_id", str)
            with datastore.transaction(commit=False) as cursor:
                cursor.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                    (CHAIN_TABLE,),
                )
                _check_table(cursor.fetchone()[0])
                yield _Links(cursor, (CHAIN_TABLE, events, "rowid", TREE_TABLE), "?", ids)
        else:
            with _postgres_links(datastore, events) as links:
                yield links
    except (sqlite3.Error, OSError, PersistenceError) as exc:
        raise StoreError(f"chain table: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("psycopg"):
            raise StoreError(f"chain table: {exc}") from None
        raise


def _check_table(found: Any) -> None:
    if not found:
        raise StoreError(
            f"the chain table {CHAIN_TABLE} is missing: the ledger's seals were dropped"
        )


@contextmanager
def _postgres_links(datastore: Any, events: str) -> Iterator[_Links]:
    from psycopg.sql import SQL, Identifier

    schema = Identifier(datastore.schema or "public")
    table = SQL("{}.{}").format(schema, Identifier(CHAIN_TABLE))
    with datastore.transaction(commit=False) as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute(
            "SELECT to_regclass(%s) AS found",
            (table.as_string(cursor.connection),),
        )
        _check_table(cursor.fetchone()["found"])
        names = (
            table.as_string(cursor.connection),
            SQL("{}.{}").format(schema, Identifier(events)).as_string(cursor.connection),
            "notification_id",
            SQL("{}.{}").format(schema, Identifier(TREE_TABLE)).as_string(cursor.connection),
        )
        yield _Links(cursor, names, "%s", lambda value: value)
