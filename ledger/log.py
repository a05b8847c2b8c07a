"""Reading the ledger in order: the contract between the write side and the projections."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from eventsourcing.persistence import ApplicationRecorder, Notification

from ledger.domain import LedgerError


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


class UnreadableEntry(LedgerError):
    """A stored row that is not an entry the ledger wrote (not JSON, or missing its fields)."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"the entry at position {position} cannot be read: {reason}")
        self.position = position
        self.reason = reason


def to_entry(notification: Notification, payload: dict[str, Any] | None = None) -> LedgerEntry:
    """Decode one stored event with the plain JSON the ledger writes (no datetime parsing);
    `payload`: its state parsed already (consumed). UnreadableEntry if it is not one."""
    try:
        if payload is None:
            payload = json.loads(notification.state)
        if not isinstance(payload, dict):
            raise TypeError(f"its state is a JSON {type(payload).__name__}, not an object")
        recorded_at = payload.pop("timestamp")["_data_"]
        payload.pop("originator_topic", None)
        actor = payload.pop("actor")
        if not isinstance(recorded_at, str) or not isinstance(actor, str):
            raise TypeError("its time or actor is not text")
    except (ValueError, TypeError) as exc:  # JSONDecodeError and UnicodeDecodeError too
        raise UnreadableEntry(notification.id, str(exc)) from None
    except KeyError as exc:
        raise UnreadableEntry(notification.id, f"its state has no {exc} field") from None
    return LedgerEntry(
        position=notification.id,
        type=entry_type(notification.topic),
        recorded_at=recorded_at,
        actor=actor,
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

    start = write_start(app_or_recorder, after_position)
    verifier = verifier_at(app_or_recorder, start)
    held: list[tuple[Notification, dict[str, Any]]] = []
    for rows in signed_entries(app_or_recorder, start, batch):
        for notification, signed in rows:
            try:
                payload = json.loads(notification.state)
            except ValueError as exc:  # not JSON: written behind the ledger's back
                raise UnreadableEntry(signed.position, f"its state is not JSON ({exc})") from None
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
    except UnreadableEntry:
        from ledger.signing import SignatureError

        raise SignatureError(notification.id, "the entry is not a ledger entry") from None
