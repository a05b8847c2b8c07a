"""The write door (issue 32): `serve --writes` answers signed writes under `/api/v1/writes`.

Paths (JSON; every refusal `application/problem+json`, RFC 9457, its `detail` the one line the
command line prints for it):

- `GET /api/v1/writes/head`: the head a writer signs at (`ledger.evidence.admission.head`);
- `GET /api/v1/writes/records/ID?gt=&lte=&desc=&limit=`: a record's stored events;
- `GET /api/v1/writes/entries?start=&limit=&stop=&topic=&inclusive=`: entries by position;
- `GET /api/v1/writes/log?after=&upto=`: the entries and chain rows as stored, for a reader
  to verify on its own machine (`ledger.evidence.mirror`: `verify`, `set-aside`,
  `commit-list` against a server);
- `POST /api/v1/writes`: a write signed on its writer's machine, appended or refused whole.

A client is `ledger.evidence.remote.RemoteRecorder` (the CLI with `--store https://HOST`).
Authentication is the write's signature alone (no session, no password); a body over
`MAX_WRITE_BYTES` is refused 413 from its Content-Length before it is read (waitress refuses
it first, `serve.Server`), a slow one is closed by the server's request deadline; writes per
actor's key are limited (`WRITES_PER_MINUTE`, a burst of `WRITE_BURST`; then 429 with
Retry-After).
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs
from uuid import UUID
from wsgiref.types import StartResponse

from eventsourcing.persistence import Notification, StoredEvent

from ledger.entrypoints.web import answers
from ledger.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    LedgerError,
    UnknownRecord,
)
from ledger.evidence import wire
from ledger.evidence.remote import DOOR, READ_PAGE, encoded, head_json

MAX_WRITE_BYTES = 4 * 1024 * 1024  # a write's body: a section of 500 players is under 1 MiB
MAX_WRITE_ENTRIES = 5000  # entries in one write (an import's players and its section)
WRITES_PER_MINUTE = 60  # per actor's key, after a burst of WRITE_BURST
WRITE_BURST = 20
PROBLEM_TYPE = "application/problem+json"
TITLES = {
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    411: "Length Required",
    413: "Content Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class Refused(Exception):
    """A request the door answers with a problem: its status, kind and one-line detail."""

    def __init__(
        self, status: int, kind: str, detail: str, headers: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(detail)
        self.status, self.kind, self.detail = status, kind, detail
        self.headers = headers or []


def problem(status: int, kind: str, detail: str) -> dict[str, Any]:
    """RFC 9457 problem details, the site's convention (`answers.problem`): every refusal of
    the door is made by this function."""
    return answers.problem(status, TITLES.get(status, "Error"), detail, kind).model_dump()


def refused(exc: LedgerError) -> Refused:
    """A refused write as the problem the client turns back into the same exception."""
    from ledger.evidence.admission import Moved

    if isinstance(exc, Moved):
        return Refused(409, "head-moved", str(exc))
    if isinstance(exc, InputError):
        return Refused(400, "bad-input", str(exc))
    if isinstance(exc, ConflictError):
        return Refused(409, "conflict", str(exc))
    if isinstance(exc, AccessDenied):
        return Refused(403, "roles", str(exc))
    if isinstance(exc, UnknownRecord):
        return Refused(404, "store-says", str(exc))
    return Refused(503, "store", str(exc))


@dataclass
class Limiter:
    """Writes per key: a bucket of `burst` refilled at `per_minute`; Refused 429 when empty."""

    per_minute: float = WRITES_PER_MINUTE
    burst: float = WRITE_BURST
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, key: str) -> None:
        rate = self.per_minute / 60
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * rate)
            if tokens < 1:
                wait = math.ceil((1 - tokens) / rate)
                raise Refused(
                    429,
                    "rate-limited",
                    f"too many writes with this key; try again in {wait} s (nothing was appended)",
                    [("Retry-After", str(wait))],
                )
            self._buckets[key] = (tokens - 1, now)


class Door:
    """The write door of one store: its own `RatingsLedger` (opened on first use, kept) whose
    recorder reads, and appends what `ledger.evidence.admission` admits, one write at a time."""

    def __init__(self, store: str, limiter: Limiter | None = None) -> None:
        self.store = store
        self.limiter = limiter or Limiter()
        self._ledger: Any = None
        self._lock = threading.Lock()
        self.views: dict[str, Path] = {}  # each family's read model (the site's), else beside

    def __call__(
        self, environ: Mapping[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        route = environ.get("PATH_INFO", "")[len(DOOR) :].strip("/")
        query = parse_qs(environ.get("QUERY_STRING", ""))
        extra: list[tuple[str, str]] = []
        try:
            status, ctype, answer = 200, "application/json", self._answer(method, route, query,
                                                                          environ)  # fmt: skip
        except Refused as exc:
            status, ctype, answer = exc.status, PROBLEM_TYPE, problem(exc.status, exc.kind,
                                                                      exc.detail)  # fmt: skip
            extra = exc.headers
        except LedgerError as exc:
            r = refused(exc)
            status, ctype, answer = r.status, PROBLEM_TYPE, problem(r.status, r.kind, r.detail)
        except Exception as exc:  # noqa: BLE001 - a fault or a bug: one line, never a traceback
            status, ctype, answer = 500, PROBLEM_TYPE, problem(500, "fault", _fault(exc))
        body = json.dumps(answer).encode()
        start_response(
            f"{status} {TITLES.get(status, 'OK')}",
            [("Content-Type", ctype), ("Content-Length", str(len(body))), *extra],
        )
        return [body]

    def _answer(
        self, method: str, route: str, query: dict[str, list[str]], environ: Mapping[str, Any]
    ) -> object:
        if method == "POST" and route == "":
            return self._write(_body(environ))
        if method != "GET":
            raise Refused(405, "method", f"{method} is not a write door's method here")
        recorder = self._recorder()
        if route == "head":
            from ledger.evidence.admission import head

            return head_json(head(recorder)).model_dump()
        if route.startswith("records/"):
            found = recorder.select_events(_uuid(route[len("records/") :]), **_events_asked(query))
            return wire.Events.model_validate({"events": list(map(encoded, found))}).model_dump()
        if route == "entries":
            found = recorder.select_notifications(**_entries_asked(query))
            answer = {"entries": list(map(encoded, found))}
            return wire.Entries.model_validate(answer).model_dump()
        if route == "log":
            from ledger.evidence.mirror import log_page

            after = _number(query, "after") or 0
            return log_page(recorder, after, _number(query, "upto")).model_dump()
        raise Refused(404, "not-found", f"no write door path {route!r}")

    def _write(self, body: object) -> object:
        from ledger.evidence.admission import admit, authenticated

        recorder = self._recorder()
        posted = authenticated(recorder, body, MAX_WRITE_ENTRIES)
        self.limiter.take(posted.key)
        with self._lock:
            report = self._report(recorder, posted.events)
            ids, sealed = admit(recorder, posted)
        answer = {"positions": list(ids), "link": sealed.digest, "position": sealed.position}
        made = {"report": report} if report is not None else {}
        return wire.Written.model_validate(answer | made).model_dump(exclude_unset=True)

    def _report(self, recorder: Any, stored: list[StoredEvent]) -> dict[str, Any] | None:
        """The ratings report of a write (projections/consequences.py, as a local write
        prints it), made just before its append, under the door's lock: the entries at the
        positions they take, through the read model caught up to the head, rolled back (after
        the append a follower may have caught the model up first, leaving nothing to report).
        None when it cannot be made: the write is appended all the same."""
        from ledger.federation import ledger_family
        from ledger.log import to_entry
        from ledger.store import view_path
        from projections.consequences import consequences

        start = recorder.max_notification_id() or 0
        entries = [to_entry(_at(e, start + i)) for i, e in enumerate(stored, start=1)]
        try:
            family = ledger_family(self._ledger)
            path = self.views.get(family) or view_path(self.store, None, family)
            report = consequences(self._ledger, path, entries, True, family)
        except Exception:  # noqa: BLE001 - a report is not the write: the laptop says so
            return None
        return report | {"dry_run": False}

    def _recorder(self) -> Any:
        with self._lock:
            if self._ledger is None:
                from ledger.application import RatingsLedger

                self._ledger = RatingsLedger(self.store)
            return self._ledger.recorder

    def close(self) -> None:
        if self._ledger is not None:
            self._ledger.close()


def _at(event: StoredEvent, position: int) -> Notification:
    return Notification(
        originator_id=event.originator_id,
        originator_version=event.originator_version,
        topic=event.topic,
        state=event.state,
        id=position,
    )


def _fault(exc: Exception) -> str:
    """An unexpected failure as one line, in the answer and the server's log."""
    import sys

    from ledger.faults import describe

    line = f"unexpected {type(exc).__name__}: {describe(exc)}"
    print(f"error: {line}", file=sys.stderr)
    return line


def _body(environ: Mapping[str, Any]) -> object:
    """The request's JSON body, its length bounded before it is read."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or "")
    except ValueError:
        raise Refused(411, "length", "a write states its Content-Length") from None
    if length > MAX_WRITE_BYTES:
        raise Refused(413, "too-large", f"a write's body is at most {MAX_WRITE_BYTES} bytes")
    try:
        return json.loads(environ["wsgi.input"].read(length))
    except ValueError:
        raise Refused(400, "bad-input", "the write is not JSON") from None


def _uuid(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise Refused(400, "bad-input", f"{text!r} is not a record id") from None


def _number(query: dict[str, list[str]], name: str) -> int | None:
    values = query.get(name)
    if not values:
        return None
    try:
        return int(values[-1])
    except ValueError:
        raise Refused(400, "bad-input", f"{name}: {values[-1]!r} is not a number") from None


def _events_asked(query: dict[str, list[str]]) -> dict[str, Any]:
    asked = {k: _number(query, k) for k in ("gt", "lte", "limit")}
    return {k: v for k, v in asked.items() if v is not None} | {"desc": _number(query, "desc") == 1}


def _entries_asked(query: dict[str, list[str]]) -> dict[str, Any]:
    limit = min(_number(query, "limit") or READ_PAGE, READ_PAGE)
    return {
        "start": _number(query, "start"),
        "limit": limit,
        "stop": _number(query, "stop"),
        "topics": query.get("topic", []),
        "inclusive_of_start": _number(query, "inclusive") != 0,
    }
