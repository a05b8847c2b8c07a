"""Authority and append in one step, and a verified frontier (issue 28).

A write's recorder runs these after the store's lock is taken (SQLite: in the write's
transaction, after its insert; PostgreSQL: after eventsourcing's `LOCK TABLE`), through the
write's own cursor (`ledger.chain_tables.links_in`), so what they read is the head the write is
appended to, and no other write can commit between the check and the append:

- `HeldKeys.at`: the keys and roles the log's signed key events give at that head (a Verifier
  kept per recorder and taught only the key events after the last write it knew);
- `may_append(actor, key)`: the check `RatingsLedger._append` hands the recorder with its
  signer: every entry's kind allowed to the actor's roles there (`ledger.roles.lacks_authority`,
  as every read checks it) and the signing key the one the log holds for them; else `LostRace`;
- `check_frontier`: the tree frontier the write extends (stored rows, or the recorder's own
  from its last write) has the root of the last signed checkpoint, whose signature checks with
  the key its signer held there; else `TreeRefused`, naming the row or entry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import StoredEvent

from ledger.chain import parsed
from ledger.chain_reads import verifier_at
from ledger.chain_tables import LastWrite, _Links, _signed
from ledger.checkpoints import V2, V3, Checkpoint
from ledger.errors import ConflictError, StoreError
from ledger.log import entry_type
from ledger.merkle import Frontier
from ledger.roles import lacks_authority
from ledger.signing import KEY_EVENTS, SignatureError, Verifier
from ledger.tree import Cached, TreeMismatch

VERIFY = "nothing was appended; run `ratings-ledger verify`"


class LostRace(ConflictError):
    """A write decided before a role or key change that committed first (exit 3)."""


class TreeRefused(StoreError):
    """The tree a write would extend is not the one the ledger last signed (exit 1)."""


@dataclass(frozen=True)
class Held:
    """The keys and roles the signed log gives after the write ending at `end` (0: none; that
    write as stored: `last`), and the checkpoint of the last key write (as signed; None before
    any)."""

    end: int
    keys: dict[str, str]
    roles: dict[str, set[str]] = field(default_factory=dict)
    checkpoint: Checkpoint | None = None
    last: LastWrite | None = None


Authority = Callable[[Held, Sequence[StoredEvent], _Links, int], None]


class HeldKeys:
    """A recorder's Verifier of the log's key events, kept between writes and taught only the
    key events after the last write it knew; made again when that write's link changed (a store
    restored or rewritten). Thread-safe; `at` hands out copies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._verifier: Verifier | None = None
        self._end, self._link = 0, ""

    def at(self, links: _Links, head: int) -> Held:
        """The keys and roles after `head`, read through `links` (a transaction's)."""
        with self._lock:
            last = links.last_write(head)
            end, link = last.position, last.link
            then = link if self._end == end else (links.at(self._end) or "") if self._end else ""
            known = self._verifier is not None and self._end <= end and then == self._link
            try:
                if not known:
                    self._verifier = verifier_at(links, end)
                elif end > self._end and links.rows_after(self._end, 1, KEY_EVENTS, end):
                    verifier_at(links, end, self._verifier, self._end)
            except SignatureError as exc:
                self._verifier = None
                row = _changed_row(links, exc.position)
                if row is None:
                    raise
                raise TreeRefused(
                    f"{row} does not match the checkpoint the key write at position "
                    f"{exc.position} signed (changed outside the ledger): {VERIFY}"
                ) from None
            except BaseException:
                self._verifier = None
                raise
            self._end, self._link = end, link
            v = self._verifier
            assert v is not None
            roles = {h: set(r) for h, r in v.roles.items()}
            return Held(end, dict(v.keys), roles, v.checkpoint, last)


def may_append(actor: str, key: str | None) -> Authority:
    """The check a write by `actor`, signed with the public key `key`, passes at the head it
    is appended to: the ledger's founding write only on an empty ledger; any other, each of its
    entries' kinds allowed to the roles `actor` holds there, and `key` the one held for them."""

    def check(held: Held, stored: Sequence[StoredEvent], links: _Links, head: int) -> None:
        kinds = [entry_type(s.topic) for s in stored]
        if kinds[0] == "LedgerInitialized":
            if held.keys or held.roles:
                raise LostRace(
                    f"the ledger was set up by another write (up to position {held.end}) while "
                    "this one was decided: nothing was appended"
                )
            return
        roles = held.roles.get(actor, set())
        why = next((w for k in kinds if (w := lacks_authority(k, roles)) is not None), None)
        if why is None and held.keys.get(actor) == key:
            return
        raise LostRace(_lost(links, actor, head, why))

    return check


def _lost(links: _Links, actor: str, head: int, why: str | None) -> str:
    """What changed for `actor` while their write was decided (the last key event about them)."""
    kinds = ("RoleRevoked",) if why is not None else KEY_EVENTS
    for n, _ in reversed(links.rows_after(0, None, kinds, head)):
        data = parsed(n.state)
        if not isinstance(data, dict) or data.get("holder") != actor:
            continue
        if why is not None:
            change = f"{actor}'s role {data.get('role')} was revoked at position {n.id}"
        else:
            change = f"{actor}'s key was changed at position {n.id}"
        return f"{change} while the write was decided: nothing was appended"
    reason = why or "it is not signed with the key the ledger holds for them"
    return f"{actor} may no longer make this write at position {head + 1} ({reason}): " + (
        "nothing was appended"
    )


def check_frontier(links: _Links, held: Held, state: Cached, position: int, filled: bool) -> None:
    """Refuse (TreeRefused, naming the row or entry) unless `state`'s frontier, the tree before
    the entry at `position`, is the one the last write signed: that write's checkpoint (its
    ledger, size, root and position) checks with the key its signer held there (`held`; a key
    write's checkpoint `held` checked already). A ledger whose last write signed no tree (its
    tree just made, `filled`) has its frontier recomputed from its verified entries. `held` is
    read at the write's head (`position` - 1), through `links`."""
    frontier = state.frontier
    if frontier.size == 0:
        return
    last = held.last
    tag = last.signature[:1] if last is not None and len(last.signature) == 65 else b""
    if last is None or not last.position or filled or tag not in (V2, V3):
        try:
            same = verified_frontier(links, position).root() == frontier.root()
        except SignatureError:
            same = False
        if not same:
            raise TreeRefused(_mismatch(links, frontier, position, "the ledger's signed entries"))
        return
    end = last.position
    checkpoint = Checkpoint(
        state.ledger, frontier.size, frontier.root().hex(), (), end if tag == V3 else None
    )
    if not last.topic:
        ok = False
    elif entry_type(last.topic) in KEY_EVENTS:
        signed = held.checkpoint
        ok = signed is not None and signed.body() == checkpoint.body()
    else:
        key = held.keys.get(last.actor)
        ok = key is not None and _checks(key, last.signature[1:], checkpoint.body())
    if not ok:
        where = f"the checkpoint signed at position {end}"
        raise TreeRefused(_mismatch(links, frontier, position, where))


def _checks(key: str, signature: bytes, body: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(signature, body)
    except (InvalidSignature, ValueError):
        return False
    return True


def verified_frontier(links: _Links, position: int) -> Frontier:
    """The tree frontier of the entries before `position`, every write's signature and
    authority checked (`ledger.signing.Verifier`); SignatureError at the first that fails."""
    verifier = Verifier()
    for n, signature in links.entries(0):
        if n.id >= position:
            break
        verifier.check_one(_signed(n, signature), parsed(n.state))
    verifier.finish()
    assert verifier.frontier is not None
    return verifier.frontier


def _mismatch(links: _Links, stored: Frontier, position: int, where: str) -> str:
    """One line naming what does not match `where`: the first entry that does not check, else
    the first stored tree row that differs from the verified entries' tree."""
    try:
        true = verified_frontier(links, position)
    except SignatureError as exc:
        return (
            f"the entry at position {exc.position} does not check ({exc.reason}); the tree over "
            f"it does not match {where}: {VERIFY}"
        )
    row = _differing(stored, true)
    if row is not None:
        return f"{row} does not match {where} (changed outside the ledger): {VERIFY}"
    return f"the stored tree ({stored.size} entries) does not match {where}: {VERIFY}"


def _changed_row(links: _Links, position: int) -> str | None:
    """The stored tree row a check of the write at `position` read that differs from the
    tree of the verified entries before it (None: none does, or an entry does not check)."""
    tree = links.tree_rows()
    try:
        stored = Frontier.at(tree.node, tree.entries_before(position))
        return _differing(stored, verified_frontier(links, position))
    except (TreeMismatch, SignatureError):
        return None


def _differing(stored: Frontier, true: Frontier) -> str | None:
    """The first row of `stored` that is not the one in `true` (the verified entries')."""
    pairs = zip(stored.stack, true.stack, strict=False)
    for (level, index), (ours, good) in zip(_nodes(stored.size), pairs, strict=False):
        if ours != good:
            return f"the stored tree row (level {level}, index {index})"
    return None


def _nodes(size: int) -> Iterator[tuple[int, int]]:
    """(level, index) of each stored row a frontier of `size` leaves reads, as `Frontier.at`."""
    start = 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            yield level, start >> level
            start += 1 << level


def checked(
    keys: HeldKeys,
    links: _Links,
    ids: Sequence[int],
    stored: Sequence[StoredEvent],
    authority: Authority,
) -> Callable[[Cached, bool], None]:
    """Check a write just inserted at `ids` against the head before it (its authority, read
    through `links`, the write's own transaction); the check of the frontier it extends, for
    `ledger.tree.seal_write`."""
    head = ids[0] - 1
    held = keys.at(links, head)
    authority(held, stored, links, head)
    return lambda state, filled: check_frontier(links, held, state, ids[0], filled)
