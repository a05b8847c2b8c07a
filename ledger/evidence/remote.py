"""A remote store (issue 32): the ledger on a server, written through its door, read through it.

`RemoteRecorder` is the recorder a `RatingsLedger` opened on `https://HOST[:PORT]` uses: its
reads (a record's events, entries by position, the head) call the server's write door
(`ledger/entrypoints/web/writes.py`); its append signs, on this machine with the actor's key
from the local keyring, the checkpoint the write makes at the head it read (the ledger's
identity, the size and Merkle root after the write's entries, its last position: what a local
write signs, `ledger.evidence.tree.seal_write`) and posts the entries with that signature.
The server checks it in its own append transaction (`ledger.evidence.admission`): the head
still the one signed, else 409 (`HeadMoved`, an IntegrityError: `RatingsLedger.append`
decides again), the key the one its log holds for the actor, the roles allowing every entry.
The store's credentials never leave the server; this machine holds only its keyring. What a
command reads of the verified log (`verify`, `set-aside`, `commit-list`) it reads from the
server's log copied here and checked here (`copied_links`, `ledger.evidence.mirror`).
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit
from uuid import UUID

from eventsourcing.persistence import (
    ApplicationRecorder,
    InfrastructureFactory,
    IntegrityError,
    Notification,
    ProcessRecorder,
    StoredEvent,
    Subscription,
    TrackingRecorder,
)

from ledger.errors import AccessDenied, ConflictError, InvalidCommand, LedgerError, StoreError
from ledger.evidence.appending import Authority, Held
from ledger.evidence.chain import Head
from ledger.evidence.checkpoints import Checkpoint
from ledger.evidence.merkle import Frontier, leaf_hash
from ledger.evidence.signing import message
from ledger.evidence.wire import Write, WriteHead

if TYPE_CHECKING:
    from ledger.evidence.mirror import Mirror
    from ledger.evidence.tables import Links

DOOR = "/api/v1/writes"  # the write door's paths on the server
REMOTE_URL = "REMOTE_URL"  # the application's setting naming the server
TIMEOUT_SECONDS = 60
READ_PAGE = 1000  # entries the door answers at most per read
PROBLEM = "urn:ratings-ledger:problem:"  # a problem's type: this, then its kind


class HeadMoved(IntegrityError):
    """The server's head is no longer the one the write was signed at (409): decide again."""


@dataclass(frozen=True)
class RemoteHead:
    """The server's head as a write is decided against it: the ledger's identity, the last
    position, the position the next entry takes (PostgreSQL's positions skip those of a write
    rolled back), the tree frontier before it, and the keys and roles held there."""

    ledger: str
    position: int
    next: int
    frontier: Frontier
    held: Held


def encoded(event: StoredEvent) -> dict[str, Any]:
    """A stored event (or notification: with its `id`) as the door's JSON."""
    out: dict[str, Any] = {
        "originator_id": str(event.originator_id),
        "originator_version": event.originator_version,
        "topic": event.topic,
        "state": base64.b64encode(bytes(event.state)).decode(),
    }
    if isinstance(event, Notification):
        out["id"] = event.id
    return out


def decoded(data: dict[str, Any]) -> StoredEvent:
    """The door's JSON as a stored event (a notification when it has an `id`)."""
    fields = (
        UUID(str(data["originator_id"])),
        int(data["originator_version"]),
        str(data["topic"]),
        base64.b64decode(str(data["state"]), validate=True),
    )
    if "id" in data:
        return Notification(*fields, id=int(data["id"]))
    return StoredEvent(*fields)


def head_json(head: RemoteHead) -> WriteHead:
    """The head as the door answers it."""
    held = head.held
    return WriteHead(
        ledger=head.ledger,
        position=head.position,
        next=head.next,
        size=head.frontier.size,
        frontier=[h.hex() for h in head.frontier.stack],
        end=held.end,
        keys=held.keys,
        roles={k: sorted(v) for k, v in held.roles.items()},
    )


def head_of(data: dict[str, Any]) -> RemoteHead:
    """The door's answer as the head a write is decided against."""
    read = WriteHead.model_validate(data)
    frontier = Frontier(read.size, [bytes.fromhex(h) for h in read.frontier])
    held = Held(read.end, dict(read.keys), {k: set(v) for k, v in read.roles.items()})
    return RemoteHead(read.ledger, read.position, read.next, frontier, held)


def checkpoint_after(head: RemoteHead, stored: Sequence[StoredEvent]) -> Checkpoint:
    """The checkpoint a write of `stored` appended at `head` makes (what its actor signs)."""
    frontier = head.frontier.copy()
    for s in stored:
        frontier.append(leaf_hash(message(s.originator_id, s.originator_version, s.topic, s.state)))
    position = head.next + len(stored) - 1
    return Checkpoint(head.ledger, frontier.size, frontier.root().hex(), position=position)


def refusal(status: int, problem: dict[str, Any]) -> Exception:
    """The door's problem (RFC 9457) as the exception a local write raises for it, so the
    command line answers it with the same exit code and line."""
    detail = str(problem.get("detail") or problem.get("title") or f"HTTP {status}")
    kind = str(problem.get("type", "")).removeprefix(PROBLEM)
    if kind == "head-moved":
        return HeadMoved(detail)
    if kind == "bad-input" or status in (400, 413, 422):
        return InvalidCommand((), detail)
    if kind == "roles" or status in (401, 403):
        return AccessDenied(detail)
    if kind == "conflict" or status in (409, 429):
        return ConflictError(detail)
    if kind == "store-says":
        return LedgerError(detail)
    return StoreError(detail)


class RemoteRecorder(ApplicationRecorder):
    """The recorder of a ledger on a server (module docstring)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.head: RemoteHead | None = None
        self.report: dict[str, Any] | None = None  # the last write's ratings report, the server's

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + DOOR + path, data=data, method="GET")
        if data is not None:
            request.method = "POST"
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise refusal(exc.code, _problem(exc)) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why = getattr(exc, "reason", None) or exc
            raise StoreError(f"store {self.url}: cannot reach the server ({why})") from None

    def insert_events(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        signer: Any = None,
        authority: Authority | None = None,
        sealed: list[Head] | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        """Sign the write's checkpoint at the head last read, post it; the new head to `sealed`."""
        head = self.head if self.head is not None else self.read_head()
        checkpoint = checkpoint_after(head, stored_events)
        signature = signer(checkpoint.body())
        actor = json.loads(stored_events[-1].state).get("actor", "")
        posted = Write.model_validate(  # the door's shape, checked before it is sent
            {
                "ledger": head.ledger,
                "actor": actor,
                "head": head.position,
                "checkpoint": {
                    "size": checkpoint.size,
                    "root": checkpoint.root,
                    "position": checkpoint.position,
                },
                "signature": signature.hex(),
                "events": [encoded(e) for e in stored_events],
            }
        )
        self.head = None  # the next write reads the head again
        answer = self._call("", posted.model_dump())
        self.report = answer.get("report")
        if sealed is not None:  # the receipt's checkpoint signed, as a local write's
            signed = checkpoint.with_signature(actor, signature)
            sealed.append(Head(answer["link"], answer["position"], signed))
        return [int(p) for p in answer["positions"]]

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        asked = {"gt": gt, "lte": lte, "desc": int(desc), "limit": limit}
        query = urlencode({k: v for k, v in asked.items() if v is not None})
        found = self._call(f"/records/{originator_id}?{query}")["events"]
        return [decoded(e) for e in found]

    def existing(self, ids: Sequence[UUID]) -> set[UUID]:
        """Those of `ids` that have an event, asked of the door one record at a time."""
        return {i for i in ids if self.select_events(i, limit=1)}

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        """Read a page of `READ_PAGE` at a time (what the door answers at most) up to `limit`."""
        out: list[Notification] = []
        while len(out) < limit:
            page = min(READ_PAGE, limit - len(out))
            asked = {
                "start": start,
                "limit": page,
                "stop": stop,
                "inclusive": int(inclusive_of_start),
            }
            query = {k: v for k, v in asked.items() if v is not None} | {"topic": list(topics)}
            found = self._call(f"/entries?{urlencode(query, doseq=True)}")["entries"]
            out += [n for n in map(decoded, found) if isinstance(n, Notification)]
            if len(found) < page:
                break
            start, inclusive_of_start = out[-1].id, False
        return out

    def read_head(self) -> RemoteHead:
        """The server's head, kept as the one the next write signs at."""
        self.head = head_of(self._call("/head"))
        return self.head

    def max_notification_id(self) -> int | None:
        return self.read_head().position or None

    def held_at(self, head: int) -> Held:
        """The keys and roles the server's verified log gives at its head (`head`, read last)."""
        known = self.head if self.head is not None and self.head.position == head else None
        return (known or self.read_head()).held

    @contextmanager
    def copied_links(self) -> Iterator[Links]:
        """The server's log copied to this machine up to the head last read (read now when
        none is), as a store's tables are read (`ledger.evidence.mirror`): every checked read
        of a ledger behind a door is verified here."""
        head = self.head if self.head is not None else self.read_head()
        mirror = _mirror(self.url, head.ledger)

        def page(after: int, upto: int) -> dict[str, Any]:
            return dict(self._call(f"/log?{urlencode({'after': after, 'upto': upto})}"))

        mirror.catch_up(head.position, page)
        with mirror.links() as links:
            yield links

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        raise StoreError(f"store {self.url}: a remote store is written, not followed")


_MIRRORS: dict[tuple[str, str], Mirror] = {}  # the last ledger copied in this process


def _mirror(url: str, ledger: str) -> Mirror:
    """The copy of the log of `ledger` at `url` this process keeps (one: every recorder of a
    command on that ledger reads it, and only the entries after it are fetched again)."""
    from ledger.evidence.mirror import Mirror

    key = (url, ledger)
    if key not in _MIRRORS:
        for old in _MIRRORS.values():
            old.close()
        _MIRRORS.clear()
        _MIRRORS[key] = Mirror()
    return _MIRRORS[key]


def _problem(exc: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        found = json.loads(exc.read() or b"{}")
    except ValueError:
        found = {}
    return found if isinstance(found, dict) else {}


class RemoteFactory(InfrastructureFactory[TrackingRecorder]):
    """The persistence of a `RatingsLedger` whose store is a server (`REMOTE_URL`)."""

    def aggregate_recorder(self, purpose: str = "events") -> ApplicationRecorder:
        return self.application_recorder()

    def application_recorder(self) -> ApplicationRecorder:
        return RemoteRecorder(self.env.get(REMOTE_URL) or "")

    def tracking_recorder(
        self, tracking_recorder_class: type[TrackingRecorder] | None = None
    ) -> TrackingRecorder:
        raise StoreError("a remote store keeps no tracking records")

    def process_recorder(self) -> ProcessRecorder:
        raise StoreError("a remote store keeps no tracking records")


def is_remote(url: str) -> bool:
    return urlsplit(url).scheme in ("https", "http")
