"""Tamper evidence: a SHA-256 hash chain over the ledger's signed entries, in ledger order.

Link i is `sha256(link[i-1] || canonical(entry i) || signature i)` (link 0 is GENESIS). The
recorders (`ledger.evidence.sealing`, `ledger.evidence.postgres`) store each entry's link and
signature in the chain table in the transaction that appends the entry, so an entry is never
committed unsealed; `verify` only reads: it recomputes the chain and checks every signature
(`ledger.evidence.signing`), reporting the first position where the stored entries no longer match.
See docs/decisions.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, Notification

from ledger.evidence.asides import SetAsideNote, profiles, set_asides
from ledger.evidence.checkpoints import Checkpoint
from ledger.evidence.signing import SignatureError, Verifier
from ledger.evidence.tables import as_signed, links_of, recorder_of
from ledger.evidence.tree import tree_mismatch
from ledger.log import HasRecorder
from ledger.submissions import Submissions
from ledger.text import digits
from ledger.times import Times

GENESIS = "0" * 64


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
    set_aside: dict[int, SetAsideNote] = field(default_factory=dict)  # each position's why


def parsed(state: bytes) -> Any:
    """A stored state's JSON; a row overwritten with something else is hashed as it is."""
    try:
        return json.loads(state)
    except ValueError:
        return {"unparsable": state.hex()}


def canonical(notification: Notification, state: object = None) -> bytes:
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


def link(previous: str, notification: Notification, signature: bytes, state: object = None) -> str:
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
    if not digits(position):
        raise ValueError(f"{text!r}: the position is not a number (expected DIGEST@POS)")
    return Head(digest, int(position))


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
    with links_of(recorder_of(app_or_recorder)) as links:
        sealed = links.all()
        verifier.set_aside = aside = set_asides(links, links.tree_rows())
        verifier.profile_before = profiles(recorder_of(app_or_recorder), links)
        for notification, signature in links.entries(0):
            count += 1
            state = parsed(notification.state)
            while k < len(sealed) and sealed[k][0] < notification.id:
                _first(breaks, Break(sealed[k][0], "the sealed entry is missing (deleted)"))
                k += 1
            position = notification.id
            if k < len(sealed) and sealed[k][0] == position:
                previous = link(previous, notification, sealed[k][2], state)
                if sealed[k][1] != previous and position in aside:
                    previous = sealed[k][1]  # set aside (edited): the chain runs on from its seal
                elif sealed[k][1] != previous:
                    _first(
                        breaks, Break(position, "the entry differs from the one sealed (edited)")
                    )
                k += 1
            elif position not in aside:  # not sealed (one set aside: the chain runs past it)
                previous = link(previous, notification, b"", state)
                _first(breaks, Break(position, "the entry is not sealed (inserted or unchained)"))
            if not breaks:
                try:
                    ended = verifier.check_one(as_signed(notification, signature), state)
                except SignatureError as exc:
                    _first(breaks, Break(exc.position, exc.reason))
                else:
                    kind = notification.topic.rpartition(":")[2]
                    why = None  # a set-aside entry is not dated nor submitted: it does not count
                    if position not in aside:
                        why = timed.misdated(position, state)
                        why = why or submitted.second(kind, position, state)
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
    return Verification(Head(previous, position), count, broken, keys, roles, aside)


def _first(breaks: list[Break], found: Break | None) -> None:
    if not breaks and found is not None:
        breaks.append(found)
