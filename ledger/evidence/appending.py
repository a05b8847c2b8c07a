"""Authority and append in one step, and a verified frontier (issue 28).

A write's recorder runs these after the store's lock is taken (SQLite: in the write's
transaction, after its insert; PostgreSQL: after eventsourcing's `LOCK TABLE`), through the
write's own cursor (`ledger.evidence.tables.links_in`), so what they read is the head the write is
appended to, and no other write can commit between the check and the append:

- `HeldKeys.at`: the keys and roles the log's signed key events give at that head (a Verifier
  kept per recorder and taught only the key events after the last write it knew);
- `may_append(actor, key)`: the check `RatingsLedger.append` hands the recorder with its
  signer: every entry allowed to the actor's roles there (`ledger.roles.lacks_authority`, the
  rating fields it changes judged too, as every read checks it) and the signing key the one
  the log holds for them; else `LostRace`;
- `extended`: the tree the write signs over is the last signed checkpoint, its signature
  checked with the key its signer held there (a set-aside: the last one that checks, past
  forged writes), its stored rows giving that root, extended by the leaves of the entries
  after it (unsigned ones an insider added) hashed from their stored bytes (their stored
  rows, where present, must be those; missing ones are added); else `TreeRefused`, naming
  the row or entry. A key write ignored because the tree rows under it were changed (not
  forged) is named by `HeldKeys.at`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from eventsourcing.persistence import StoredEvent

from ledger.errors import ConflictError, StoreError
from ledger.evidence.asides import SET_ASIDE, profiles
from ledger.evidence.chain import parsed
from ledger.evidence.checkpoints import V2, V3, Checkpoint
from ledger.evidence.merkle import Frontier
from ledger.evidence.reads import verifier_at
from ledger.evidence.signing import KEY_EVENTS, SignatureError, Signed, Verifier
from ledger.evidence.tables import LastWrite, Links, as_signed
from ledger.evidence.tree import (
    Cached,
    Node,
    TreeMismatch,
    TreeRows,
    frontier_before,
    hashed_before,
)
from ledger.log import entry_type
from ledger.roles import lacks_authority, may_change_rating_fields

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


Authority = Callable[[Held, Sequence[StoredEvent], Links, int], None]


class HeldKeys:
    """A recorder's Verifier of the log's key events, kept between writes and taught only the
    key events after the last write it knew; made again when that write's link changed (a store
    restored or rewritten). Thread-safe; `at` hands out copies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._verifier: Verifier | None = None
        self._end, self._link = 0, ""

    def at(self, links: Links, head: int) -> Held:
        """The keys and roles after `head`, read through `links` (a transaction's)."""
        with self._lock:
            last = links.last_write(head)
            end, link = last.position, last.link
            if not self._end:
                then = ""  # nothing known yet
            elif self._end == end:
                then = link
            else:  # the link the last write known holds in the store now
                then = links.at(self._end) or ""
            known = self._verifier is not None and self._end <= end and then == self._link
            seen = len(self._verifier.ignored) if known and self._verifier is not None else 0
            try:
                if not known:
                    self._verifier = verifier_at(links, end)
                elif end > self._end and links.rows_after(self._end, 1, KEY_EVENTS, end):
                    verifier_at(links, end, self._verifier, self._end)
                assert self._verifier is not None
                _named(links, self._verifier.ignored[seen:])
            except BaseException:
                self._verifier = None
                raise
            self._end, self._link = end, link
            v = self._verifier
            assert v is not None
            roles = {h: set(r) for h, r in v.roles.items()}
            return Held(end, dict(v.keys), roles, v.checkpoint, last)


def _named(links: Links, ignored: Sequence[SignatureError]) -> None:
    """Refuse (TreeRefused, naming the row) a key write ignored because the stored tree rows
    its check read were changed, not its entries: one that a forged write would be is
    ignored (`asides.keys_at`), a changed row is named (it would refuse honest writers)."""
    for failed in ignored:
        row = _changed_row(links, failed.position)
        if row is not None:
            raise TreeRefused(
                f"{row} does not match the checkpoint the key write at position "
                f"{failed.position} signed (changed outside the ledger): {VERIFY}"
            )


def may_append(actor: str, key: str | None) -> Authority:
    """The check a write by `actor`, signed with the public key `key`, passes at the head it
    is appended to: the ledger's founding write only on an empty ledger; any other, each of its
    entries' kinds allowed to the roles `actor` holds there, and `key` the one held for them."""

    def check(held: Held, stored: Sequence[StoredEvent], links: Links, head: int) -> None:
        kinds = [entry_type(s.topic) for s in stored]
        if kinds[0] == "LedgerInitialized":
            if held.keys or held.roles:
                raise LostRace(
                    f"the ledger was set up by another write (up to position {held.end}) while "
                    "this one was decided: nothing was appended"
                )
            return
        roles = held.roles.get(actor, set())
        changed = _rating_changes(links, roles, stored, head)
        whys = (lacks_authority(k, roles, c) for k, c in zip(kinds, changed, strict=True))
        why = next((w for w in whys if w is not None), None)
        if why is None and held.keys.get(actor) == key:
            return
        raise LostRace(_lost(links, actor, head, why))

    return check


def _rating_changes(
    links: Links, roles: set[str], stored: Sequence[StoredEvent], head: int
) -> list[list[str]]:
    """The rating fields each entry changes, judged at the head as every read judges them
    (`Verifier.rating_changes`, against the player's profile before it in this transaction);
    none asked for a holder who may change them."""
    if may_change_rating_fields(roles):
        return [[] for _ in stored]
    judge = Verifier()
    judge.profile_before = profiles(links)
    return [
        judge.rating_changes(
            Signed(head + 1 + i, s.originator_id, s.originator_version, s.topic, s.state, None),
            entry_type(s.topic),
        )
        for i, s in enumerate(stored)
    ]


def _lost(links: Links, actor: str, head: int, why: str | None) -> str:
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


def extended(
    links: Links, held: Held, rows: TreeRows, position: int, cached: Cached | None, past: bool
) -> tuple[Cached, list[Node]]:
    """The tree before the entry at `position` that a write signs over, and the rows the store
    lacks for it: the last signed checkpoint, checked (`_anchor`), extended by the leaves of
    the entries after it hashed from their stored bytes (`_extend`). `past` (a set-aside): the
    last checkpoint whose signature checks, past writes whose signature does not. A ledger whose
    last write signed no tree (written before trees, or its tree emptied) has its tree made
    from, and checked against, its verified entries. TreeRefused, naming the row or the entry,
    when none of these holds. `held` and `links`: the write's head, in its transaction."""
    last = held.last
    before, stored = rows.entries_before(position), rows.size()
    if last is None or not last.position or stored == 0 or stored > before or not _signs(last):
        state, made = frontier_before(rows, position, cached)  # TreeMismatch: a deleted tail
        _check_recomputed(links, state.frontier, position)
        return state, made
    ledger = cached.ledger if cached is not None else rows.first_identity() or ""
    end, state = _anchor(links, held, rows, ledger, (position, before, cached), past)
    return _extend(rows, state, end, position)


def _signs(write: LastWrite) -> bool:
    """Whether a write's stored signature signs a checkpoint (V2 or V3), not its entries."""
    return len(write.signature) == 65 and write.signature[:1] in (V2, V3)


def _check_recomputed(links: Links, frontier: Frontier, position: int) -> None:
    """Refuse a frontier (before `position`) that is not the verified entries' tree."""
    if frontier.size == 0:
        return
    try:
        same = verified_frontier(links, position).root() == frontier.root()
    except SignatureError:
        same = False
    if not same:
        raise TreeRefused(_mismatch(links, frontier, position, "the ledger's signed entries"))


def _anchor(
    links: Links,
    held: Held,
    rows: TreeRows,
    ledger: str,
    write: tuple[int, int, Cached | None],
    past: bool,
) -> tuple[int, Cached]:
    """The end of the last write (`held.last`; with `past`, the last back to the last key write
    `held` checked) whose checkpoint, made from the stored rows (or the recorder's own frontier,
    `cached`), checks with the key its signer held, and that frontier. `write`: the position,
    the entries before it and `cached` of the write being sealed. Else TreeRefused."""
    position, before, cached = write
    last = held.last
    assert last is not None
    w = last
    bound = held.checkpoint.position if held.checkpoint is not None else None
    while w.position:
        size = before if w.position == position - 1 else rows.entries_before(w.position + 1)
        frontier = _stored_at(rows, size, cached)
        if frontier is not None and _signed_over(held, w, ledger, frontier):
            return w.position, Cached(ledger, frontier)
        if not past or w.position <= (bound or 0):
            break
        w = links.last_write(w.position - 1)
    stored = _stored_at(rows, rows.entries_before(last.position + 1), None)
    where = f"the checkpoint signed at position {last.position}"
    raise TreeRefused(_mismatch(links, stored, last.position + 1, where))


def _stored_at(rows: TreeRows, size: int, cached: Cached | None) -> Frontier | None:
    """The frontier of the first `size` leaves: the recorder's own (what it signed last) when
    it has that size, else the stored rows' (None: a row is missing)."""
    if cached is not None and cached.frontier.size == size:
        return cached.frontier
    return rows.stored_frontier(size)


def _signed_over(held: Held, write: LastWrite, ledger: str, frontier: Frontier) -> bool:
    """Whether `write`'s stored signature signs the checkpoint `frontier` makes, with the key
    its signer holds (`held`; a key write's checkpoint `held` checked already)."""
    if not write.topic or not _signs(write):
        return False
    tag = write.signature[:1]
    checkpoint = Checkpoint(
        ledger, frontier.size, frontier.root().hex(), (), write.position if tag == V3 else None
    )
    if entry_type(write.topic) in KEY_EVENTS:
        signed = held.checkpoint
        return signed is not None and signed.body() == checkpoint.body()
    key = held.keys.get(write.actor)
    return key is not None and checkpoint.signed_by(key, write.signature[1:].hex())


def _extend(rows: TreeRows, state: Cached, end: int, position: int) -> tuple[Cached, list[Node]]:
    """`state` (the tree up to the signed write ending at `end`) extended by the leaves of the
    entries after it, before `position`, hashed from their stored bytes; the rows the store
    lacks for them. A stored row that is not the one computed refuses (TreeRefused)."""
    frontier, made = state.frontier.copy(), list[Node]()
    for p, leaf in rows.earlier(position, end) if end < position - 1 else ():
        for level, index, h in frontier.append(leaf):
            try:
                ours = rows.node(level, index)
            except TreeMismatch:
                made.append((level, index, h, p if level == 0 else None))
                continue
            if ours != h:
                raise TreeRefused(
                    f"the stored tree row (level {level}, index {index}) does not match the "
                    f"entries after the checkpoint signed at position {end} (changed outside "
                    f"the ledger): {VERIFY}"
                )
    return Cached(state.ledger, frontier), made


def verified_frontier(links: Links, position: int) -> Frontier:
    """The tree frontier of the entries before `position`, every write's signature and
    authority checked as every read checks them (`ledger.evidence.reads.verifier_at`: past the
    entries a director set aside, a profile change judged against the profile before it);
    SignatureError at the first that fails."""
    verifier = verifier_at(links, 0)
    for n, signature in links.entries(0):
        if n.id >= position:
            break
        verifier.check_one(as_signed(n, signature), parsed(n.state))
    verifier.finish()
    assert verifier.frontier is not None
    return verifier.frontier


def _mismatch(links: Links, stored: Frontier | None, position: int, where: str) -> str:
    """One line naming what does not match `where`: the first entry that does not check, else
    the first stored tree row that differs from the verified entries' tree."""
    try:
        true = verified_frontier(links, position)
    except SignatureError as exc:
        return (
            f"the entry at position {exc.position} does not check ({exc.reason}); the tree over "
            f"it does not match {where}: {VERIFY}"
        )
    row = _differing(stored, true) if stored is not None else None
    if row is not None:
        return f"{row} does not match {where} (changed outside the ledger): {VERIFY}"
    return f"the stored tree ({true.size} entries) does not match {where}: {VERIFY}"


def _changed_row(links: Links, position: int) -> str | None:
    """The first stored tree row before the entry at `position` that differs from the tree the
    stored entries make (hashed from their bytes; None: none does, or a row is missing)."""
    tree = links.tree_rows()
    stored = tree.stored_before(position)
    return None if stored is None else _differing(stored, hashed_before(tree, position)[0])


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
    links: Links,
    ids: Sequence[int],
    stored: Sequence[StoredEvent],
    authority: Authority,
) -> Callable[[TreeRows, int, Cached | None], tuple[Cached, list[Node]]]:
    """Check a write just inserted at `ids` against the head before it (its authority, read
    through `links`, the write's own transaction); the verified frontier it extends, for
    `ledger.evidence.tree.seal_write` (a set-aside extends the last checkpoint that checks)."""
    head = ids[0] - 1
    held = keys.at(links, head)
    authority(held, stored, links, head)
    past = all(entry_type(s.topic) == SET_ASIDE for s in stored)
    return lambda rows, position, cached: extended(links, held, rows, position, cached, past)
