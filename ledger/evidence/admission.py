"""The server's side of a remote write (issue 32): a write signed on its writer's machine
(`ledger.evidence.remote`), checked and appended by the store's own recorder.

`head` is what a writer signs at: the last position, the verified tree frontier before the next
entry (`ledger.evidence.appending.extended`, as a local write extends it) and the keys and roles
the signed log holds there. `authenticated` checks a posted write before anything else is done
for it: the ledger it was signed for, one actor, the signature over the checkpoint it names
with the key the log holds for that actor now (a revoked key holds none). `admit` appends it
through the recorder's own append: its transaction, after the store's lock, checks the actor's
authority and key at the head the write is appended to (`may_append`), and instead of signing,
the recorder is handed the writer's signature, which must sign the very checkpoint the write
makes there (the same ledger, size, root and last position); else nothing is appended:
`Moved` (409) when the head is no longer the one signed, `InvalidCommand` when the entries are
not the ones signed. The server never holds a writer's key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from eventsourcing.persistence import ApplicationRecorder, IntegrityError, StoredEvent

from ledger.commands import parse
from ledger.errors import AccessDenied, ConflictError, InvalidCommand
from ledger.evidence.appending import extended, may_append
from ledger.evidence.chain import Head
from ledger.evidence.checkpoints import Checkpoint, identity
from ledger.evidence.remote import RemoteHead, decoded
from ledger.evidence.signing import json_object
from ledger.evidence.tables import links_of
from ledger.evidence.wire import Write

MOVED = "the ledger moved while the write was decided; nothing was appended — run it again"


class Moved(ConflictError):
    """The head a write was signed at is no longer the ledger's (409): decide it again."""


@dataclass(frozen=True)
class Posted:
    """A posted write, read and authenticated: its actor, the key the log holds for them,
    the checkpoint they signed, their signature and the stored entries."""

    actor: str
    key: str
    checkpoint: Checkpoint
    signature: bytes
    events: list[StoredEvent]


def head(recorder: ApplicationRecorder) -> RemoteHead:
    """The ledger's head for a writer to sign at (module docstring). Its tree is the last
    checkpoint whose signature checks, extended by the entries after it (`extended`'s `past`):
    where the last write fails verification a director signs a set-aside at this head, and any
    other write signed there is refused at its append, as on the store's own machine."""
    position = recorder.max_notification_id() or 0
    with links_of(recorder) as links:
        held = recorder.held.at(links, position)  # type: ignore[attr-defined]
        cached = getattr(recorder, "cached", None)
        state, _ = extended(links, held, links.tree_rows(), position + 1, cached, True)
    following = recorder.next_position()  # type: ignore[attr-defined]
    return RemoteHead(
        _identity(recorder) or state.ledger, position, following, state.frontier, held
    )


def _identity(recorder: ApplicationRecorder) -> str | None:
    first = recorder.select_notifications(1, 1)
    if not first:
        return None
    n = first[0]
    return identity(n.id, n.originator_id, n.topic, n.state)


def authenticated(recorder: ApplicationRecorder, body: Any, entries: int) -> Posted:
    """A posted write (`body`, JSON) read and its signature checked (module docstring); at most
    `entries` entries. InvalidCommand for a malformed one or one for another ledger,
    AccessDenied for a signature that is not the actor's key's."""
    write, events, signature = _read(body, entries)
    ours = _identity(recorder)
    if ours is None or write.ledger != ours:
        raise InvalidCommand(
            (), f"the write is signed for ledger {write.ledger}, not this one ({ours})"
        )
    actor = write.actor
    if any(json_object(e.state).get("actor") != actor for e in events):
        raise InvalidCommand((), f"every entry of a write is {actor!r}'s, its signer's")
    held = recorder.held_at(recorder.max_notification_id() or 0)  # type: ignore[attr-defined]
    key = held.keys.get(actor)
    if key is None:
        raise AccessDenied(f"the ledger holds no key for {actor!r}; nothing was appended")
    signed = write.checkpoint
    checkpoint = Checkpoint(ours, signed.size, signed.root, position=signed.position)
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(signature, checkpoint.body())
    except InvalidSignature:
        raise AccessDenied(
            f"the write's signature is not {actor!r}'s key's; nothing was appended"
        ) from None
    return Posted(actor, key, checkpoint, signature, events)


def _read(body: Any, entries: int) -> tuple[Write, list[StoredEvent], bytes]:
    """The posted write validated by its model (`ledger.evidence.wire.Write`), its entries
    as stored events and its signature's bytes; InvalidCommand naming what is not right."""
    write = parse(Write, body)
    if not 0 < len(write.events) <= entries:
        raise InvalidCommand((), f"a write holds 1 to {entries} entries, not {len(write.events)}")
    try:
        events = [decoded(e.model_dump()) for e in write.events]
    except ValueError as exc:
        raise InvalidCommand((), f"the write cannot be read (ValueError: {exc})") from None
    return write, events, bytes.fromhex(write.signature)


def admit(recorder: ApplicationRecorder, posted: Posted) -> tuple[Sequence[int], Head]:
    """Append `posted` through the recorder's checked append (module docstring): its
    positions and the new head; nothing appended when it is refused."""
    signed = posted.checkpoint

    def signer(body: bytes) -> bytes:
        if body == signed.body():
            return posted.signature
        lines = body.decode().splitlines()
        if lines[2:3] == [str(signed.size)] and lines[4:5] == [str(signed.position)]:
            raise InvalidCommand((), "the entries posted are not the ones signed")
        raise Moved(MOVED)

    sealed = list[Head]()
    try:
        ids = recorder.insert_events(
            posted.events,
            signer=signer,
            authority=may_append(posted.actor, posted.key),
            sealed=sealed,
        )
    except IntegrityError:
        raise Moved(MOVED) from None
    return ids or [], sealed[-1]
