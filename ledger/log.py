"""Reading the ledger in order: the contract between the write side and the projections."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
from eventsourcing.persistence import ApplicationRecorder, Notification


class HasRecorder(Protocol):
    recorder: ApplicationRecorder


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One recorded fact: its ledger position, type, when and by whom, and its data."""

    position: int
    type: str
    recorded_at: str
    actor: str
    aggregate_id: str
    payload: dict[str, Any]


_TYPES: dict[str, str] = {}


def entry_type(topic: str) -> str:
    """`ratings-ledger:SectionSubmitted` (or `module:Class.SectionSubmitted`) → the name."""
    try:
        return _TYPES[topic]
    except KeyError:
        name = _TYPES[topic] = topic.rpartition(":")[2].rpartition(".")[2]
        return name


ENVELOPE = ("timestamp", "originator_topic", "actor")  # stored beside the payload's fields
UNREADABLE = "unreadable"  # the payload of a stored entry that is not a JSON object


class _Stamp(msgspec.Struct):
    data: str = msgspec.field(name="_data_")


class _Envelope(msgspec.Struct):
    timestamp: _Stamp
    actor: str


_ENVELOPE = msgspec.json.Decoder(_Envelope)


class StoredEntry(LedgerEntry):
    """A LedgerEntry read from the store: `state` is the stored JSON, and `payload` is decoded
    from it when first read (the projector decodes typed facts from `state` instead)."""

    __slots__ = ("state", "_payload")

    def __init__(
        self,
        position: int,
        type: str,
        recorded_at: str,
        actor: str,
        aggregate_id: str,
        state: bytes,
    ) -> None:
        for name, value in (
            ("position", position),
            ("type", type),
            ("recorded_at", recorded_at),
            ("actor", actor),
            ("aggregate_id", aggregate_id),
            ("state", state),
            ("_payload", None),
        ):
            object.__setattr__(self, name, value)

    @property  # type: ignore[override]
    def payload(self) -> dict[str, Any]:
        if self._payload is None:
            try:
                payload = json.loads(self.state)
            except (ValueError, RecursionError):
                payload = None
            if isinstance(payload, dict):
                for key in ENVELOPE:
                    payload.pop(key, None)
            else:  # stored bytes that are not a JSON object: shown, never rated
                payload = {UNREADABLE: self.state[:200].decode("utf-8", "replace")}
            object.__setattr__(self, "_payload", payload)
        return self._payload


def _lenient_envelope(state: bytes) -> _Envelope:
    """The envelope of an entry msgspec cannot read (Python's JSON reads NaN); "?" for what
    cannot be found at all: reading the log never fails on one entry."""
    try:
        data = json.loads(state)
        stamp = data["timestamp"]["_data_"]
        actor = data["actor"]
        if isinstance(stamp, str) and isinstance(actor, str):
            return _Envelope(_Stamp(stamp), actor)
    except (ValueError, RecursionError, TypeError, KeyError):
        pass
    return _Envelope(_Stamp("?"), "?")


def to_entry(notification: Notification) -> LedgerEntry:
    """One stored event: the envelope decoded now, the payload when first read (plain JSON,
    no datetime parsing)."""
    state = notification.state
    try:
        envelope = _ENVELOPE.decode(state)
    except (msgspec.ValidationError, msgspec.DecodeError):  # NaN, or not what the ledger writes
        envelope = _lenient_envelope(state)
    return StoredEntry(
        notification.id,
        entry_type(notification.topic),
        envelope.timestamp.data,
        envelope.actor,
        str(notification.originator_id),
        state if isinstance(state, bytes) else bytes(state),
    )


def read_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder, after_position: int = 0, batch: int = 500
) -> Iterator[LedgerEntry]:
    """Every entry after `after_position`, in ledger order, read `batch` at a time."""
    recorder = getattr(app_or_recorder, "recorder", app_or_recorder)
    position = after_position
    while True:
        notifications = recorder.select_notifications(position, batch, inclusive_of_start=False)
        for notification in notifications:
            yield to_entry(notification)
        if len(notifications) < batch:
            return
        position = notifications[-1].id


def read_verified_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder, after_position: int = 0, batch: int = 500
) -> Iterator[LedgerEntry]:
    """Like `read_entries`, but no entry is yielded before the signature of its write checks
    against the key its actor held at that position (`ledger.signing.Verifier`, in bulk, keys
    cached); a bad one raises SignatureError naming its position. The read model's catch-up and
    rebuild read the ledger through this. Only key events' and list commitments' payloads are
    parsed here; every other entry is checked from its envelope (its actor) and its stored bytes."""
    from ledger.chain_reads import signed_entries, verifier_at, write_start
    from ledger.signing import READ_EVENTS

    start = write_start(app_or_recorder, after_position)
    verifier = verifier_at(app_or_recorder, start)
    held: list[LedgerEntry] = []
    for rows in signed_entries(app_or_recorder, start, batch):
        for notification, signed in rows:
            entry = to_entry(notification)
            data = entry.payload | {"actor": entry.actor} if entry.type in READ_EVENTS else None
            ends_write = verifier.check_one(signed, data or {"actor": entry.actor})
            held.append(entry)
            if ends_write:
                yield from (e for e in held if e.position > after_position)
                held = []
    verifier.finish()
