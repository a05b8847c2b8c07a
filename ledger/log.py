"""Reading the ledger in order: the contract between the write side and the projections."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

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


def to_entry(notification: Notification, payload: dict[str, Any] | None = None) -> LedgerEntry:
    """Decode one stored event with the plain JSON the ledger writes (no datetime parsing);
    `payload`: its state parsed already (consumed)."""
    if payload is None:
        payload = json.loads(notification.state)
    recorded_at = payload.pop("timestamp")["_data_"]
    payload.pop("originator_topic", None)
    return LedgerEntry(
        position=notification.id,
        type=entry_type(notification.topic),
        recorded_at=recorded_at,
        actor=payload.pop("actor"),
        aggregate_id=str(notification.originator_id),
        payload=payload,
    )


def read_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder, after_position: int = 0, batch: int = 5000
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
    app_or_recorder: HasRecorder | ApplicationRecorder, after_position: int = 0, batch: int = 5000
) -> Iterator[LedgerEntry]:
    """Like `read_entries`, but no entry is yielded before the signature of its write checks
    against the key its actor held at that position (`ledger.signing.Verifier`, in bulk, keys
    cached); a bad one raises SignatureError naming its position. The read model's catch-up and
    rebuild read the ledger through this."""
    from ledger.chain import signed_entries, verifier_at, write_start
    from ledger.signing import SignatureError

    start = write_start(app_or_recorder, after_position)
    verifier = verifier_at(app_or_recorder, start)
    held: list[tuple[Notification, dict[str, Any]]] = []
    for rows in signed_entries(app_or_recorder, start, batch):
        for notification, signed in rows:
            try:
                payload = json.loads(notification.state)
            except ValueError:
                raise SignatureError(signed.position, "the entry is not JSON (altered)") from None
            ends_write = verifier.check_one(signed, payload)
            held.append((notification, dict(payload)))  # the verifier keeps `payload`
            if ends_write:
                for n, checked in held:
                    if n.id > after_position:
                        yield _checked_entry(n, checked)
                held = []
    verifier.finish()


def _checked_entry(notification: Notification, payload: dict[str, Any]) -> LedgerEntry:
    try:
        return to_entry(notification, payload)
    except (KeyError, TypeError):
        from ledger.signing import SignatureError

        raise SignatureError(notification.id, "the entry is not a ledger entry") from None
