"""Reading the ledger in order: the contract between the write side and the projections."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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
    state: bytes
    _payload: dict[str, Any] | None

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

    @property
    def payload(self) -> dict[str, Any]:
        payload = self._payload
        if payload is None:
            try:
                read = json.loads(self.state)
            except (ValueError, RecursionError):
                read = None
            if isinstance(read, dict):
                for key in ENVELOPE:
                    read.pop(key, None)
                payload = read
            else:  # stored bytes that are not a JSON object: shown, never rated
                payload = {UNREADABLE: self.state[:200].decode("utf-8", "replace")}
            object.__setattr__(self, "_payload", payload)
        return payload


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
    recorder = app_or_recorder.recorder if hasattr(app_or_recorder, "recorder") else app_or_recorder
    position = after_position
    while True:
        notifications = recorder.select_notifications(position, batch, inclusive_of_start=False)
        for notification in notifications:
            yield to_entry(notification)
        if len(notifications) < batch:
            return
        position = notifications[-1].id


@dataclass(frozen=True, slots=True)
class ReadBreak:
    """Where a checked read stopped: the first position of a write that does not verify, why,
    and the position the ledger is verified up to before it (what the read answers from)."""

    position: int
    reason: str
    verified: int

    def __str__(self) -> str:
        return (
            f"entry {self.position} fails verification ({self.reason}): reads answer from the "
            f"ledger as verified up to position {self.verified}; a director may set it aside "
            f"(`ratings-ledger set-aside {self.position} --reason R --actor A`)"
        )


_Listener = tuple[Callable[[ReadBreak], None], set[ReadBreak]]
_LISTENERS: ContextVar[tuple[_Listener, ...]] = ContextVar("break_listeners", default=())


@contextmanager
def breaks_reported(report: Callable[[ReadBreak], None]) -> Iterator[None]:
    """While inside, each break a checked read in this context (this thread, this web request)
    stops at (`ledger.evidence.verified`) is passed to `report` once (its `str` is one line naming
    the position and why: the CLI's warning)."""
    token = _LISTENERS.set((*_LISTENERS.get(), (report, set[ReadBreak]())))
    try:
        yield
    finally:
        _LISTENERS.reset(token)


def report_break(found: ReadBreak) -> None:
    """Pass `found` once to each reporter of this context (`breaks_reported`)."""
    for reporter, seen in _LISTENERS.get():
        if found not in seen:
            seen.add(found)
            reporter(found)
