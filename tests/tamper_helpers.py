"""Changing a store behind the ledger's back, as an attacker with database access would."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.persistence import Notification

from ledger.evidence import merkle
from ledger.evidence.chain import GENESIS, link
from ledger.evidence.checkpoints import Checkpoint, identity
from ledger.evidence.signing import message
from ledger.evidence.tree import TREE_TABLE
from ledger.store import CHAIN_TABLE

FAR = 10**9  # a free position to move a row through while swapping two


@contextmanager
def raw_store(url: str) -> Iterator[tuple[Any, str, str, str, str]]:
    """A direct connection: (connection, events table, position column, mark, chain table)."""
    if url.startswith("sqlite"):
        conn = sqlite3.connect(url[len("sqlite:///") :])
        with closing(conn):
            yield conn, "stored_events", "rowid", "?", CHAIN_TABLE
            conn.commit()
        return
    import psycopg

    schema = parse_qs(urlsplit(url).query)["schema"][0]
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        yield (
            conn,
            f'"{schema}".ratingsledger_events',
            "notification_id",
            "%s",
            f'"{schema}".{CHAIN_TABLE}',
        )


def edit(url: str, position: int, old: str = "30000002", new: str = "30000009") -> None:
    """Change a text inside the stored payload of the entry at `position`."""
    with raw_store(url) as (conn, table, pos, mark, _):
        if mark == "?":
            changed, params = "replace(state, ?, ?)", (old.encode(), new.encode())
        else:
            changed = "convert_to(replace(convert_from(state, 'UTF8'), %s, %s), 'UTF8')"
            params = (old, new)
        conn.execute(
            f"UPDATE {table} SET state = {changed} WHERE {pos} = {mark}", (*params, position)
        )


def delete(url: str, position: int) -> None:
    with raw_store(url) as (conn, table, pos, mark, _):
        conn.execute(f"DELETE FROM {table} WHERE {pos} = {mark}", (position,))


def swap(url: str, first: int, second: int) -> None:
    with raw_store(url) as (conn, table, pos, mark, _):
        for old, new in ((first, FAR), (second, first), (FAR, second)):
            conn.execute(f"UPDATE {table} SET {pos} = {mark} WHERE {pos} = {mark}", (new, old))


def renumber(url: str, start: int, by: int = 1) -> None:
    """Move every entry from position `start` on (with its chain row) `by` positions later,
    then recompute the chain and the tree: the same entries and signatures, other positions."""
    with raw_store(url) as (conn, table, pos, mark, chain):
        moved = conn.execute(
            f"SELECT {pos} FROM {table} WHERE {pos} >= {mark} ORDER BY {pos} DESC", (start,)
        ).fetchall()
        for (position,) in moved:
            new = (position + by, position)
            conn.execute(f"UPDATE {table} SET {pos} = {mark} WHERE {pos} = {mark}", new)
            conn.execute(f"UPDATE {chain} SET position = {mark} WHERE position = {mark}", new)
    reseal(url)


def truncate_entries(url: str, after: int) -> None:
    """Delete every entry after `after` and its chain row, but not its tree rows."""
    with raw_store(url) as (conn, table, pos, mark, chain):
        conn.execute(f"DELETE FROM {table} WHERE {pos} > {mark}", (after,))
        conn.execute(f"DELETE FROM {chain} WHERE position > {mark}", (after,))


def truncate(url: str, after: int) -> None:
    """Delete every entry after `after`, its chain row and its tree rows (the tree recomputed):
    a clean-looking shorter ledger."""
    truncate_entries(url, after)
    with raw_store(url) as (conn, table, pos, mark, _):
        rebuild_tree(conn, table, pos, mark)


def drop_chain(url: str, empty_only: bool = False) -> None:
    with raw_store(url) as (conn, _, _, _, chain):
        conn.execute(f"DELETE FROM {chain}" if empty_only else f"DROP TABLE {chain}")


def insert(
    url: str,
    aggregate_id: UUID,
    version: int,
    topic: str,
    state: bytes,
    key: Ed25519PrivateKey | None = None,
    seal: bool = False,
) -> int:
    """Insert a correctly shaped entry at the end, signed with `key` (None: unsigned); with
    `seal`, also its chain row, computed as the recorder would. Its position."""
    with raw_store(url) as (conn, table, pos, mark, chain):
        values = (aggregate_id.hex if mark == "?" else aggregate_id, version, topic, state)
        cursor = conn.execute(
            f"INSERT INTO {table} (originator_id, originator_version, topic, state) "
            f"VALUES ({mark}, {mark}, {mark}, {mark}) RETURNING {pos}",
            values,
        )
        position = int(cursor.fetchone()[0])
        if seal:
            row = conn.execute(f"SELECT hash FROM {chain} ORDER BY position DESC LIMIT 1")
            previous = (row.fetchone() or (GENESIS,))[0]
            signature = _signed_checkpoint(conn, table, pos, mark, position, key) if key else b""
            entry = Notification(
                id=position,
                originator_id=aggregate_id,
                originator_version=version,
                topic=topic,
                state=state,
            )
            conn.execute(
                f"INSERT INTO {chain} VALUES ({mark}, {mark}, {mark})",
                (position, link(previous, entry, signature), signature.hex()),
            )
        rebuild_tree(conn, table, pos, mark)
    return position


def drop_tree_rows(url: str, position: int) -> None:
    """Delete the stored tree rows the last entry (at `position`) made: its leaf and every
    perfect subtree it completed (an insider's row added with no tree rows)."""
    with raw_store(url) as (conn, table, pos, mark, _):
        tree = TREE_TABLE if mark == "?" else table.replace("ratingsledger_events", TREE_TABLE)
        leaf = conn.execute(f"SELECT count(*) FROM {table} WHERE {pos} < {mark}", (position,))
        index = int(leaf.fetchone()[0])
        for level in range(index.bit_length() + 1):
            conn.execute(
                f"DELETE FROM {tree} WHERE level = {mark} AND idx = {mark}",
                (level, index >> level),
            )


def reseal(url: str) -> None:
    """Recompute every chain row from the stored entries and signatures (what an attacker who
    rewrote entries would do to hide it from the chain alone)."""
    with raw_store(url) as (conn, table, pos, mark, chain):
        rows = conn.execute(
            f"SELECT e.{pos}, e.originator_id, e.originator_version, e.topic, e.state, "
            f"c.signature FROM {table} e JOIN {chain} c ON c.position = e.{pos} ORDER BY e.{pos}"
        ).fetchall()
        previous = GENESIS
        conn.execute(f"DELETE FROM {chain}")
        for position, aggregate, version, topic, state, signature in rows:
            aggregate_id = UUID(str(aggregate)) if mark == "?" else aggregate
            entry = Notification(
                id=position,
                originator_id=aggregate_id,
                originator_version=version,
                topic=topic,
                state=_bytes(state),
            )
            previous = link(previous, entry, bytes.fromhex(signature))
            conn.execute(
                f"INSERT INTO {chain} VALUES ({mark}, {mark}, {mark})",
                (position, previous, signature),
            )
        rebuild_tree(conn, table, pos, mark)


def resign(url: str, position: int, key: Ed25519PrivateKey) -> None:
    """Replace the signature of the one-entry write at `position` by one made with `key` over
    its current content."""
    with raw_store(url) as (conn, table, pos, mark, chain):
        signature = _signed_checkpoint(conn, table, pos, mark, position, key)
        conn.execute(
            f"UPDATE {chain} SET signature = {mark} WHERE position = {mark}",
            (signature.hex(), position),
        )


def _leaves(conn: Any, table: str, pos: str, mark: str) -> list[tuple[int, bytes, str]]:
    """(position, leaf hash, identity as the first entry) of every stored entry, in order."""
    rows = conn.execute(
        f"SELECT {pos}, originator_id, originator_version, topic, state FROM {table} ORDER BY {pos}"
    ).fetchall()
    found = []
    for position, aggregate, version, topic, state in rows:
        aggregate_id = UUID(str(aggregate)) if mark == "?" else aggregate
        data = message(aggregate_id, version, topic, _bytes(state))
        found.append(
            (
                position,
                merkle.leaf_hash(data),
                identity(position, aggregate_id, topic, _bytes(state)),
            )
        )
    return found


def _signed_checkpoint(
    conn: Any, table: str, pos: str, mark: str, position: int, key: Ed25519PrivateKey
) -> bytes:
    """A write signature made with `key` over the checkpoint of every entry up to `position`,
    as the recorder makes it (what an insider with a key of their own can do)."""
    leaves = [x for x in _leaves(conn, table, pos, mark) if x[0] <= position]
    frontier = merkle.Frontier()
    for _, leaf, _ in leaves:
        frontier.append(leaf)
    checkpoint = Checkpoint(leaves[0][2], frontier.size, frontier.root().hex(), (), position)
    return checkpoint.prefix + key.sign(checkpoint.body())


def rebuild_tree(conn: Any, table: str, pos: str, mark: str) -> None:
    """Recompute the stored Merkle tree from the stored entries (an attacker hiding a change
    from the tree alone)."""
    tree = TREE_TABLE if mark == "?" else table.replace("ratingsledger_events", TREE_TABLE)
    conn.execute(f"DELETE FROM {tree}")
    frontier = merkle.Frontier()
    for position, leaf, _ in _leaves(conn, table, pos, mark):
        for level, index, h in frontier.append(leaf):
            conn.execute(
                f"INSERT INTO {tree} VALUES ({mark}, {mark}, {mark}, {mark})",
                (level, index, h.hex(), position if level == 0 else None),
            )


def _bytes(state: Any) -> bytes:
    """A stored state as bytes (SQLite's replace() turns an edited BLOB into TEXT)."""
    return state.encode() if isinstance(state, str) else bytes(state)


def checked_read(ledger: Any, after: int = 0, batch: int = 500) -> tuple[list[int], Any]:
    """The positions a checked read (`read_verified_entries`) yields after `after`, and the
    break it reports where it stops (None: none): a bad entry ends a read, never raises."""
    from ledger.evidence import read_verified_entries
    from ledger.log import breaks_reported

    found: list[Any] = []
    with breaks_reported(found.append):
        positions = [e.position for e in read_verified_entries(ledger, after, batch)]
    assert len(found) <= 1
    return positions, (found[0] if found else None)
