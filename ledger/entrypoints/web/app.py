"""The audit site: a read-only WSGI application over the read model, one JSON twin per page.

Every page takes `?as_of=YYYY-MM-DD` (ratings after every item that ended on or before that
day) and `?as_known_at=ISO` (the read model as the ledger stood then). Everything shown is
escaped (Jinja2 autoescape, templates in `templates/`); only GET and HEAD are answered; only
the files of `static/` are served. The pages live in `players.py`, `sections.py`,
`lists.py` and `ledgerlog.py`, listed in `routes.py`; this module routes a request to one and
answers it as HTML or as JSON (issue 32: at `/api/v1/...`, and `/api/...` its unversioned
alias; the twin validated into its model of `answers.py`; an error as problem details).
"""

from __future__ import annotations

import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import replace
from pathlib import Path
from typing import Any
from wsgiref.types import StartResponse

import msgspec
from pydantic import BaseModel

from ledger.entrypoints.web import answers, openapi, routes
from ledger.entrypoints.web.families import Served
from ledger.entrypoints.web.params import HttpError, When, parameters
from ledger.entrypoints.web.params import when as asked_when
from ledger.entrypoints.web.render import (
    API,
    BASE,
    BROKEN,
    FEDERATION,
    SWITCH,
    SYSTEM_WORDS,
    TWIN,
    render,
)
from ledger.entrypoints.web.routes import Asked
from ledger.entrypoints.web.sessions import (
    KEPT_BYTES,
    Kept,
    Known,
    Memos,
    NotModified,
    Sessions,
    Validator,
    build,
    snapshot,
    tag,
)
from ledger.entrypoints.web.writes import Door
from ledger.errors import LedgerError
from ledger.evidence.remote import DOOR
from ledger.log import ReadBreak, breaks_reported
from ledger.reading import Readable
from ledger.rules.families import DEFAULT
from ledger.rules.families import family as rules_family
from ledger.store import view_path
from projections import queries
from projections.projector import View
from projections.session import NothingKnownYet

__all__ = ["Site", "HttpError", "When"]

STATIC = Path(__file__).with_name("static")
PROBLEM = "application/problem+json"
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
LOCKED_ATTEMPTS = 3  # a read model locked by a writer: tries before answering 503
LOCKED_PAUSE_SECONDS = 0.2
RETRY_AFTER_SECONDS = 2
SECURITY_HEADERS = [
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
]
VALIDATOR: ContextVar[Validator] = ContextVar("validator")  # set by `_page` per request
# The times of a request whose family is being looked for (`Site._page`): an error page's
# switch then links each family's home with them.
HOMES: ContextVar[When | None] = ContextVar("homes", default=None)


class Site:
    """The WSGI application: `Site(store, view, family)` is called once per request. It serves
    every family of `families` (all of them when None), each from its own read model: `family`
    at `/` (its read model `view`, else the one beside the store) and each one under
    `/<family>/` (ledger/entrypoints/web/families.py)."""

    def __init__(
        self,
        store: str,
        view: Path | None = None,
        family: str = DEFAULT,
        busy_ms: int = 1000,
        families: Sequence[str] | None = None,
        catches_up: bool = True,
        door: Door | None = None,
        kept: int = KEPT_BYTES,
    ) -> None:
        self.store = store
        self.door = door  # the write door (`serve --writes`), else the site is read-only
        self.served = Served.of(family, families)
        self.views = {
            f: view_path(store, view if f == family else None, f) for f in self.served.families
        }
        self.view = self.views[family]
        if door is not None:
            door.views = self.views  # a write's ratings report, from the site's read models
        self.family = family
        self.busy_ms = busy_ms  # how long one try waits for a read model another writer holds
        self.static = {p.name: p for p in STATIC.iterdir() if p.suffix in STATIC_TYPES}
        # each thread's sessions kept open (catching up only when the ledger changed; never
        # with `catches_up` False: a worker process whose server's follower does it)
        self.sessions = Sessions(store, self.views, busy_ms, catches_up)
        self.build = build()
        self.kept = Kept(kept)  # answers made, by the position they reflect: `kept` bytes
        self.memos = Memos()  # what pages worked out from a model's state, for the next page

    def close(self) -> None:
        """Remove what the site built for its requests (the past read models)."""
        self.sessions.close()

    def __call__(
        self, environ: Mapping[str, Any], start_response: StartResponse
    ) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "/").encode("latin-1").decode("utf-8", "replace")
        asked = environ.get("QUERY_STRING", "")
        if self.door is not None and (path == DOOR or path.startswith(DOOR + "/")):
            return self.door(environ, start_response)  # issue 32: writes, signed
        api, route = _api(path)
        found: list[ReadBreak] = []
        request = f"{path}?{asked}"  # what a kept answer answered
        validator = Validator(environ.get("HTTP_IF_NONE_MATCH"), kept=self.kept, request=request)
        with _page(route, asked, found, validator):
            status, ctype, body, extra = self._respond(method, route, asked, api, found)
        headers = [("Content-Type", ctype), ("Content-Length", str(len(body))), *extra]
        if status.startswith("304"):
            headers = extra  # no body, and none of its headers (RFC 9110 15.4.5)
        if status.startswith("405"):
            headers.append(("Allow", "GET, HEAD"))
        start_response(status, headers + SECURITY_HEADERS)
        return [b""] if method == "HEAD" else [body]

    def _respond(
        self, method: str, route: str, asked: str, api: bool, found: list[ReadBreak]
    ) -> tuple[str, str, bytes, list[tuple[str, str]]]:
        """(status, content type, body, extra headers) of a request for `route` (without
        `/api`) with the query string `asked` (refused by its size first); an error as one
        line, on a page or in JSON."""
        try:
            query = parameters(asked)
            if method not in ("GET", "HEAD"):
                raise HttpError("405 Method Not Allowed", "this site is read-only")
            if route.startswith("/static/") and not api:
                return "200 OK", *self._static(route[len("/static/") :]), []
            if api and route == "/" + openapi.DOCUMENT:
                return "200 OK", "application/json", openapi.text().encode(), []
            answer = self._page(route, query, api)
            validator = VALIDATOR.get()
            if isinstance(answer, BaseModel):  # a JSON twin
                if found:
                    answer = answer.model_copy(update={"ledger_break": str(found[0])})  # issue 28
                ctype, body = "application/json", _indented(answers.dump(answer))
            elif isinstance(answer, dict):  # a twin as its model writes it (`Route.typed`)
                if found:
                    answer["ledger_break"] = str(found[0])
                ctype, body = "application/json", _indented(msgspec.json.encode(answer))
            else:
                assert isinstance(answer, str)  # a page's HTML (`_answer`)
                ctype, body = "text/html; charset=utf-8", answer.encode()
            if not found:  # an answer that stopped at a break says so: never kept
                validator.keep(ctype, body)
            return "200 OK", ctype, body, validator.headers()
        except NotModified:
            return "304 Not Modified", "", b"", VALIDATOR.get().headers()
        except Known as known:
            return "200 OK", known.ctype, known.body, VALIDATOR.get().headers()
        except Exception as raised:
            exc = raised if isinstance(raised, HttpError) else _unexpected(raised)
            if api:
                return exc.status, PROBLEM, _indented(answers.dump(_problem(exc))), exc.headers
            if not SWITCH.get() and (when := HOMES.get()) is not None:
                SWITCH.get().extend(self.served.homes(when))  # each family's home
            page = render(
                "error.html", title=exc.status, when=When(), keep=None, message=exc.message
            )
            return exc.status, "text/html; charset=utf-8", page.encode(), exc.headers

    def _static(self, name: str) -> tuple[str, bytes]:
        """Only a file listed in `static/` at start-up, by its bare name."""
        found = self.static.get(name)
        if found is None:
            raise HttpError("404 Not Found", f"no static file {name!r}")
        return STATIC_TYPES[found.suffix], found.read_bytes()

    def _page(self, route: str, query: dict[str, str], api: bool) -> object:
        """The answer of the family `route` names (the default one without a prefix): its
        words, its address and its switch set for the page's templates."""
        HOMES.set(asked_when(query))  # an error page's switch, made only for one
        family, prefix, rest = self.served.split(route)
        words = rules_family(family).words
        FEDERATION.set(words.federation)
        SYSTEM_WORDS.set(words.systems)
        BASE.set(prefix)
        return self._locked_retry(family, rest, query, api)

    def _locked_retry(self, family: str, route: str, query: dict[str, str], api: bool) -> object:
        """The answer; a read model locked by another writer is tried again briefly, then
        answered 503 with Retry-After."""
        for attempt in range(LOCKED_ATTEMPTS):
            try:
                return self._answer(family, route, query, api)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if attempt + 1 < LOCKED_ATTEMPTS:
                    time.sleep(LOCKED_PAUSE_SECONDS)
        raise HttpError(
            "503 Service Unavailable",
            "the read model is busy being updated; try again in a moment",
            [("Retry-After", str(RETRY_AFTER_SECONDS))],
        )

    def _answer(self, family: str, route: str, query: dict[str, str], api: bool) -> object:
        """The JSON twin's data (`api`: validated into its model, or as it stands for a
        `Route.typed` page), else the page's HTML: only the one asked for is made (a page's
        data may be a function, called only for its twin), while `family`'s read model is
        open."""
        when = asked_when(query)
        page, values = routes.route(route)
        player = values.get("player") if page.known is not None else None
        with self._read(family, when, player) as (view, ledger, when, known, memo):
            if not api:
                lists = [(x.family, x.name) for x in queries.published_lists(view)]
                switch = self.served.switch(family, route, query, when, lists)
                SWITCH.get()[:] = switch
            asked = Asked(view, ledger, values, query, when, self.served, memo)
            if known is None or page.known is None:
                data, html = page.page(asked)
            else:
                data, html = page.known(asked, known)
            if not api:
                return html()
            found = data() if callable(data) else data
            return found if page.typed else page.adapter.validate_python(found)

    @contextmanager
    def _read(
        self, family: str, when: When, player: str | None = None
    ) -> Iterator[tuple[View, Readable, When, int | None, dict[Any, Any]]]:
        """`family`'s read model caught up (or as known at `when`), the ledger opened
        read-only, from this thread's session (ledger/entrypoints/web/sessions.py), and what
        pages worked out from that model's state (`Memos`); a missing store is never created.
        NotModified once the answer's ETag is known, if the request holds it already. As known
        at a position that the caught-up model's record answers for `player` (his reads and
        his profile, `queries.answers`): that model and the position, with a memo of its own
        (issue 33: no past model built); else the past model and None."""
        try:
            held = self.sessions.session(family)
        except (LedgerError, ValueError) as exc:
            raise HttpError("503 Service Unavailable", str(exc)) from None
        session, known = held.session, when.as_known_at
        if known is None and when.position is None:
            with snapshot(session.view) as now:
                VALIDATOR.get().check(tag(self.build, family, now, held.head), bool(BROKEN.get()))
                memo = self.memos.at(family, session.view, now)
                yield session.view, session.ledger, when, None, memo
            return
        try:
            past = when.position if known is None else held.position(known)
        except NothingKnownYet:
            raise HttpError("404 Not Found", f"the ledger had no entries at {known}") from None
        position = past or 0
        VALIDATOR.get().check(tag(self.build, family, position, held.head), bool(BROKEN.get()))
        when = replace(when, position=position)
        if player is not None:
            with snapshot(session.view):
                if queries.answers(session.view, player, position, profile=True):
                    yield session.view, session.ledger, when, position, {}
                    return
        view = self.sessions.past(held, family, position)  # built once per position
        memo = self.memos.at(family, view, position)
        yield view, session.ledger, when, None, memo


@contextmanager
def _page(route: str, asked: str, found: list[ReadBreak], validator: Validator) -> Iterator[None]:
    """The context a page's templates read, for one request: its JSON twin, the breaks its
    reads stop at (filled as they stop), and its family's words, address and switch (set by
    `Site._page` once the family is known); and the answer's validator (its ETag)."""
    tokens: list[tuple[ContextVar[Any], Token[Any]]] = [
        (VALIDATOR, VALIDATOR.set(validator)),
        (TWIN, TWIN.set(API + route + ("?" + asked if asked else ""))),
        (FEDERATION, FEDERATION.set("")),
        (SYSTEM_WORDS, SYSTEM_WORDS.set({})),
        (BASE, BASE.set("")),
        (SWITCH, SWITCH.set([])),
        (HOMES, HOMES.set(None)),
        (BROKEN, BROKEN.set(found)),
    ]
    try:
        with breaks_reported(found.append):
            yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def _api(path: str) -> tuple[bool, str]:
    """Whether `path` asks for JSON, and the page it asks for: `/api/v1/...` (the versioned
    API, issue 32) and `/api/...` (its unversioned alias) both answer the page at `...`."""
    for prefix in (API, "/api"):
        if path == prefix or path.startswith(prefix + "/"):
            return True, path[len(prefix) :]
    return False, path


def _problem(exc: HttpError) -> answers.ProblemDetails:
    """An API error as problem details (RFC 9457, `answers.problem`): its kind its status's."""
    code, _, phrase = exc.status.partition(" ")
    return answers.problem(int(code), phrase, exc.message)


def _unexpected(exc: Exception) -> HttpError:
    """Anything else a page met (a store that cannot be used, a bug) as one line on the page
    and in the server's log, never a traceback (503 for a fault of the machine, else 500)."""
    from ledger.faults import describe, machine_faults

    if isinstance(exc, machine_faults()):
        status, message = "503 Service Unavailable", describe(exc)
    else:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        status, message = "500 Internal Server Error", f"unexpected {type(exc).__name__}: {first}"
    print(f"error: {message}", file=sys.stderr)
    return HttpError(status, message)


def _indented(raw: bytes) -> bytes:
    """The twin's JSON, indented by two spaces (msgspec: the standard library's indenting
    encoder is pure Python, most of a large twin's time)."""
    return msgspec.json.format(raw, indent=2)
