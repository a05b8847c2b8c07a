"""Entries set aside, and what a check learns around a bad entry (issue 28).

An entry that fails verification (a write an insider forged, or one whose signer had no
authority there) stops every check at its position until a director sets it aside with a
signed `EntrySetAside`. `set_asides` finds the set-aside positions a check passes over: only
those named by a set-aside write that itself verifies (a one-entry write, signed by a director
holding his key there). `keys_at` learns the keys and roles up to a position from the key
events, ignoring a key-event write that does not verify (a forged grant grants nothing, a
forged revocation revokes nothing), so one bad entry never refuses every writer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import ApplicationRecorder

from ledger.evidence.signing import KEY_EVENTS, SignatureError, Signed, Verifier, json_object
from ledger.evidence.tables import Links, as_signed, links_of
from ledger.evidence.tree import TreeRows

SET_ASIDE = "EntrySetAside"


@dataclass(frozen=True)
class SetAsideNote:
    """Why a position is set aside: the set-aside entry's position, its director and reason."""

    by_position: int
    actor: str
    reason: str


def set_asides(links: Links, tree: TreeRows) -> dict[int, SetAsideNote]:
    """Every position set aside by a verified `EntrySetAside` (none: one indexed query)."""
    found: dict[int, SetAsideNote] = {}
    for n, signature in links.rows_after(0, None, (SET_ASIDE,)):
        if not signature:
            continue  # not a write of its own: it cannot be the director's
        verifier = keys_at(links, tree, n.id - 1)
        verifier.seek(tree.stored_before(n.id))
        try:
            verifier.check([as_signed(n, signature)])
        except SignatureError:
            continue  # a forged set-aside sets nothing aside (a check stops at it instead)
        data = json_object(n.state)
        note = SetAsideNote(n.id, str(data.get("actor")), str(data.get("reason")))
        for position in data.get("positions") or ():
            if isinstance(position, int) and 0 < position < n.id:
                found.setdefault(position, note)
    return found


def keys_at(
    links: Links,
    tree: TreeRows,
    position: int,
    skip: Collection[int] = (),
    verifier: Verifier | None = None,
    after: int = 0,
) -> Verifier:
    """A Verifier knowing the keys, roles and federation the verified key events up to
    `position` give (each write checked from the tree before it; `skip`: positions set aside).
    A key-event write that does not verify is ignored, and noted in `ignored`. `verifier`: one
    that knows them up to `after` (a write's end), taught only the key events after it."""
    verifier = Verifier(ledger=tree.first_identity()) if verifier is None else verifier
    rows = links.rows_after(after, None, KEY_EVENTS, position) if position > 0 else []
    write: list[Signed] = []
    for n, s in rows:
        if n.id in skip:
            verifier.skipped.append(n.id)
            continue
        if not write:
            verifier.seek(tree.stored_before(n.id))
        write.append(as_signed(n, s))
        if s:
            _learn(verifier, write)
            write = []
    if write:
        _learn(verifier, write)
    return verifier


def _learn(verifier: Verifier, write: list[Signed]) -> None:
    try:
        verifier.check(write)
    except SignatureError as exc:
        verifier.abandon(exc)


def profiles(
    recorder: ApplicationRecorder | Links, links: Links | None = None
) -> Callable[[Signed], dict[str, Any] | None]:
    """The Verifier's `profile_before`: a player's stored profile before a profile change,
    read in `links`' transaction (None: each in a read-only transaction of its own)."""

    def before(s: Signed) -> dict[str, Any] | None:
        if links is not None:
            state = links.profile_before(s.aggregate_id, s.version)
        else:
            with links_of(recorder) as own:
                state = own.profile_before(s.aggregate_id, s.version)
        return None if state is None else json_object(state)

    return before
