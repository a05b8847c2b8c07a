"""`serve`: the read-only audit site over the read model, on waitress (threads, timeouts)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    Family,
    Store,
    ViewPath,
    fail,
    reported,
    rules_family,
    usage,
)
from ledger.rules.families import NAMES
from ledger.store import DEFAULT_STORE

# `--keep`'s default: web/sessions.py's KEPT_BYTES in MB (not imported here: every command
# would load the site to start)
KEEP_MB = 64

if TYPE_CHECKING:
    from collections.abc import Callable

    from ledger.entrypoints.web.app import Site
    from ledger.entrypoints.web.follow import Follower
    from ledger.entrypoints.web.writes import Door

THREADS = 8  # requests answered at once; a request is handed over only once fully read
CHANNEL_TIMEOUT_SECONDS = 30  # a connection silent this long is closed
# A request must arrive whole (request line, headers, body) within this many seconds of its
# first byte, however slowly it drips: waitress' own timeout restarts at every byte.
REQUEST_DEADLINE_SECONDS = 10
# Connections held at once (waitress' default is 100, which 100 slow clients exhaust); the
# loop polls (select() stops at 1,024 descriptors). When they are all held, the oldest one not
# being answered is closed to make room for the next (`_Waitress.readable`).
CONNECTION_LIMIT = 4000
FILES_BESIDE_CONNECTIONS = 64  # descriptors kept for the stores, the read model, the logs
ACCEPTS_AT_ONCE = 64  # connections accepted per wake-up of the loop (waitress: one)
CLEANUP_INTERVAL_SECONDS = 1  # how often silent and overdue connections are looked for
LOOP_SECONDS = 1.0  # the longest one wait for network events lasts
# The site is read-only (GET and HEAD): a request body over this is refused 413 as soon as
# its Content-Length is read (or its chunks pass it), and no body is ever spooled to disk.
MAX_BODY_BYTES = 8 * 1024
MAX_HEADER_BYTES = 16 * 1024  # request line and headers; more is refused 431
IN_MEMORY_BYTES = 64 * 1024  # waitress spools a body past this to a file: never reached
# A request's thread sends its answer itself once this much is written: a page's header and
# body then leave in one send (waitress' default, 1 byte, sends the header alone first); a
# smaller answer leaves from the loop as its request ends (issue 33: 7 % less CPU a page).
# waitress 3 deprecates the setting (pyproject.toml pins waitress below 4).
SEND_BYTES = 16 * 1024


def register(app: typer.Typer) -> None:
    """Add `serve` and `openapi` to the `ratings-ledger` app."""
    app.command("serve")(serve)
    app.command("openapi")(openapi)


def openapi(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write it to this file (docs/openapi.json)"),
    ] = None,
) -> None:
    """Print the site's OpenAPI 3.1 document, the one `serve` answers at
    /api/v1/openapi.json (issue 32), or write it to --output."""
    from ledger.entrypoints.web.openapi import text

    if output is None:
        typer.echo(text(), nl=False)
        return
    try:
        output.write_text(text(), encoding="utf-8")
    except OSError as exc:
        from ledger.faults import describe

        fail(1, f"cannot write {output}: {describe(exc)}")


class Server:
    """A waitress server for one site: `serve_forever` in one thread, `shutdown` from another.

    Slow and idle clients cannot take it down: it holds `CONNECTION_LIMIT` connections, sheds
    the oldest idle one when they are all held, and closes one whose request is not whole
    `deadline` seconds after its first byte; a request body over `MAX_BODY_BYTES` is 413."""

    def __init__(
        self,
        site: Site,
        host: str,
        port: int,
        deadline: float = REQUEST_DEADLINE_SECONDS,
        sock: socket.socket | None = None,
        body: int = MAX_BODY_BYTES,
    ) -> None:
        self.map: dict[int, object] = {}  # waitress' socket map: file number → channel
        self.stopping = threading.Event()
        # a worker of `--workers` accepts on the socket its server bound before it started
        where: dict[str, Any] = {"host": host, "port": port}
        if sock is not None:
            info = (sock.family, sock.type, sock.proto, sock.getsockname())
            where = {"sockets": [sock], "_sock": sock, "bind_socket": False, "sockinfo": info}
        with warnings.catch_warnings():  # the one deprecation SEND_BYTES names, known
            warnings.filterwarnings("ignore", "send_bytes", DeprecationWarning)
            self.inner = _waitress()(
                site,
                map=self.map,
                **where,
                threads=THREADS,
                send_bytes=SEND_BYTES,
                dispatcher=_dispatcher(site.sessions.warm),
                channel_timeout=CHANNEL_TIMEOUT_SECONDS,
                cleanup_interval=CLEANUP_INTERVAL_SECONDS,
                connection_limit=connection_limit(),
                max_request_body_size=body + 1,  # waitress refuses from this size on
                max_request_header_size=MAX_HEADER_BYTES,
                inbuf_overflow=max(IN_MEMORY_BYTES, body + 1),  # a body never spooled to disk
                ident="ratings-ledger",
                clear_untrusted_proxy_headers=True,
            )
        self.inner.deadline = deadline
        self.inner.shared = sock is not None  # the socket is other workers' too
        self.server_port: int = self.inner.effective_port

    def serve_forever(self) -> None:
        """Answer requests until `shutdown`; then close every connection, in this thread."""
        from waitress.wasyncore import close_all, loop

        while not self.stopping.is_set():
            loop(timeout=LOOP_SECONDS, map=self.map, use_poll=True, count=1)
        self.inner.task_dispatcher.shutdown()
        self.inner.close_trigger()
        close_all(self.map)

    def shutdown(self) -> None:
        """Stop accepting and answering; `serve_forever` returns soon after."""
        self.stopping.set()
        self.inner.pull_trigger()  # nothing once `serve_forever` has closed the trigger

    def server_close(self) -> None:
        self.inner.close_trigger()
        self.inner.close()


def connection_limit() -> int:
    """`CONNECTION_LIMIT`, with the process's soft limit on open files raised to fit it (up
    to the hard limit; fewer connections when the hard limit is lower)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CONNECTION_LIMIT + FILES_BESIDE_CONNECTIONS
    if soft != resource.RLIM_INFINITY and soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return min(CONNECTION_LIMIT, soft - FILES_BESIDE_CONNECTIONS)


def _dispatcher(warm: Callable[[], None]) -> Any:
    """waitress' threads, each running `warm` before it takes its first request (its read
    sessions opened: issue 33, a first request pays nothing more than the next)."""
    from waitress.task import ThreadedTaskDispatcher

    class Warmed(ThreadedTaskDispatcher):
        def handler_thread(self, thread_no: int) -> None:
            warm()
            super().handler_thread(thread_no)

    found = Warmed()
    found.set_thread_count(THREADS)
    return found


def _waitress() -> type:
    """waitress' TCP server, holding its connections as `Server` says (waitress is imported
    only when a server starts)."""
    from waitress.server import TcpWSGIServer

    class _Waitress(TcpWSGIServer):
        channel_class = _timed_channel()
        deadline = REQUEST_DEADLINE_SECONDS
        shared = False  # a worker's: the other workers accept on its socket too

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._trigger_lock = threading.Lock()
            self._trigger_closed = False
            super().__init__(*args, **kwargs)

        def pull_trigger(self) -> None:
            """Wake the loop, if its trigger is still open: pulled once it is closed (by a
            `shutdown` racing the loop's own close, or a worker thread finishing late), it
            would write to a closed descriptor, "Bad file descriptor", or to whatever file
            took its number since."""
            with self._trigger_lock:
                if not self._trigger_closed:
                    super().pull_trigger()

        def close_trigger(self) -> None:
            with self._trigger_lock:
                self._trigger_closed = True
                self.trigger.close()

        def readable(self) -> bool:
            """Keep room for the next connection: when every one is held, the oldest idle
            one is closed (`_shed`); waitress stops listening only when all are being
            answered."""
            if len(self._map) >= self.adj.connection_limit:
                oldest = _shed(list(self.active_channels.values()))
                if oldest is not None:
                    oldest.handle_close()
            return super().readable()

        def handle_accept(self) -> None:
            """Up to `ACCEPTS_AT_ONCE` waiting connections, not one per wake-up; a worker
            holding fewer than that takes one a wake-up, so a burst is shared by the workers
            (issue 33: the first to wake took all 16 of the bench's, the other idled) and a
            worker busy answering takes fewer."""
            few = self.shared and len(self._map) < ACCEPTS_AT_ONCE
            for _ in range(1 if few else ACCEPTS_AT_ONCE):
                held = len(self._map)
                super().handle_accept()
                if len(self._map) == held or not self.readable():
                    return

        def maintenance(self, now: float) -> None:
            """waitress' (close connections silent too long), and: close a connection still
            reading its request `deadline` seconds after its first byte (a drip of one
            header line a second never ends otherwise)."""
            super().maintenance(now)
            overdue = time.monotonic() - self.deadline
            for channel in list(self.active_channels.values()):
                request = channel.request
                if request is not None and getattr(request, "started", overdue) < overdue:
                    channel.will_close = True

    return _Waitress


def _shed(channels: list[Any]) -> Any | None:
    """Of `channels` (in the order accepted), the one to close for the next connection: the
    oldest no request of is being answered and nothing is left to send to (silent, or still
    sending its request), else the oldest whose answer waits for it to read (a client that
    stopped reading); None when a thread is answering each."""
    idle = (c for c in channels if not c.requests and not c.total_outbufs_len)
    return next(idle, None) or next((c for c in channels if not c.requests), None)


def _timed_channel() -> type:
    """waitress' channel whose request parser notes when the request's first byte came, and
    answers 400 to a header `int` cannot read (waitress lets a Content-Length of 5,000 digits
    escape as ValueError, closing the connection with no answer)."""
    from waitress.channel import HTTPChannel
    from waitress.parser import HTTPRequestParser, ParsingError

    class TimedParser(HTTPRequestParser):
        def __init__(self, adj: object) -> None:
            super().__init__(adj)
            self.started = time.monotonic()

        def parse_header(self, header_plus: bytes) -> None:
            try:
                super().parse_header(header_plus)
            except ValueError as exc:
                raise ParsingError(f"a header cannot be read ({exc})") from None

    class TimedChannel(HTTPChannel):
        parser_class = TimedParser

    return TimedChannel


def server(
    site: Site,
    host: str = "127.0.0.1",
    port: int = 8000,
    quiet: bool = False,
    deadline: float = REQUEST_DEADLINE_SECONDS,
) -> Server:
    """A threaded server for `site` (port 0: any free port; see `server_port`). waitress logs
    nothing per request, so `quiet` changes nothing; it is kept for callers."""
    from ledger.entrypoints.web.writes import MAX_WRITE_BYTES

    body = MAX_WRITE_BYTES if site.door is not None else MAX_BODY_BYTES
    return Server(site, host, port, deadline, body=body)


def _listening(site: Site, host: str, port: int) -> Server:
    """A server listening on `host`:`port`; one line when it cannot (exit 2: an address that
    is none, such as a name that does not resolve; exit 1: one in use or not this machine's)."""
    from ledger.faults import describe

    try:
        return server(site, host, port)
    except ValueError as exc:
        usage(f"--host {host!r}: cannot listen there ({exc})")
    except OSError as exc:
        fail(1, f"cannot listen on {host} port {port}: {describe(exc)}")


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (only this machine by default)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port")] = 8000,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    families: Annotated[
        str | None,
        typer.Option(
            "--families",
            help=f"Serve only these rules families, comma-separated (default: every one, "
            f"{','.join(NAMES)}); each at /FAMILY/, the default one (--rules-family) also at /",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Processes answering requests on one port, sharing the read models "
            "read-only; this process keeps them caught up",
        ),
    ] = 1,
    keep: Annotated[
        int,
        typer.Option(
            "--keep",
            min=0,
            max=1 << 20,
            help="MB of answers each process keeps, by the ledger position they reflect, "
            "to answer the same request again without reading (0: none)",
        ),
    ] = KEEP_MB,
    writes: Annotated[
        bool,
        typer.Option(
            "--writes",
            help="Also accept writes signed on the writers' machines (POST /api/v1/writes): "
            "directors and the office then write with --store https://THIS-HOST",
        ),
    ] = False,
) -> None:
    """Serve the read-only audit site: players, sections, histories, explain, lists, the log of
    every rules family, each from its own read model kept caught up as entries are appended
    (`--view` is the default family's); with --writes, the write door too."""
    from ledger.entrypoints.web.writes import Door
    from ledger.reading import open_ledger

    with reported():
        open_ledger(store).close()  # refuse to start on a store that is not there
    default = rules_family(store, family)  # the family at `/`: else the ledger's (issue 30)
    door = Door(store) if writes else None
    site = every_family(store, view, default, families, door=door, kept=keep << 20)
    if workers > 1:
        _prefork(site, host, port, workers, families)
        return
    httpd = _listening(site, host, port)
    followers = follow(site)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"serving http://{shown}:{httpd.server_port}/ "
        f"({'writes signed at /api/v1/writes' if writes else 'read-only'}; "
        f"{', '.join(site.served.families)}); Ctrl-C stops"
    )
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        for follower in followers:
            follower.stop()
        httpd.server_close()
        site.close()
        if door is not None:
            door.close()


def every_family(
    store: str,
    view: Path | None,
    default: str,
    families: str | None,
    catches_up: bool = True,
    door: Door | None = None,
    kept: int = KEEP_MB << 20,
) -> Site:
    """The site of every family `--families` names (all when None), `default` at `/` (else
    the first of them: `--families fide` serves FIDE at `/` too); `view` is its read model
    (caught up by its requests, unless `catches_up` is False: a worker's); `door`, its write
    door (`--writes`); `kept`, the bytes of answers each process keeps (`--keep`)."""
    from ledger.entrypoints.web.app import Site

    served = _served(families)
    first = default if default in served else served[0]
    return Site(store, view, first, families=served, catches_up=catches_up, door=door, kept=kept)


def _prefork(site: Site, host: str, port: int, workers: int, families: str | None) -> None:
    """`workers` processes answering on one socket bound here, each with its own sessions
    of the read models, which it only reads; this process catches each model up once, then
    keeps it caught up (one follower per family) until Ctrl-C or SIGTERM stops them all."""
    import gc

    sock = _bound(host, port)
    bound = int(sock.getsockname()[1])  # the port chosen, for port 0
    _caught_up(site)
    gc.freeze()  # what the workers inherit is never collected by them, so stays shared
    children = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            os._exit(_work(site, sock, families))
        children.append(pid)
    sock.close()
    signal.signal(signal.SIGTERM, _interrupt)
    followers = follow(site)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(
        f"serving http://{shown}:{bound}/ (read-only; "
        f"{', '.join(site.served.families)}; {workers} workers); Ctrl-C stops"
    )
    try:
        while children:
            gone, _ = os.wait()
            children = [c for c in children if c != gone]
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        for follower in followers:
            follower.stop()
        for pid in children:
            os.kill(pid, signal.SIGTERM)
        for pid in children:
            os.waitpid(pid, 0)


def _work(site: Site, sock: socket.socket, families: str | None) -> int:
    """A worker's life: a site of its own that never catches up, answering on `sock` until
    SIGTERM, or until its server is gone (checked every second)."""
    from ledger.entrypoints.web.writes import MAX_WRITE_BYTES, Door

    door = Door(site.store) if site.door is not None else None  # its own connections
    view, kept = site.views[site.family], site.kept.budget
    worker = every_family(site.store, view, site.family, families, False, door, kept)
    body = MAX_WRITE_BYTES if door is not None else MAX_BODY_BYTES
    httpd = Server(worker, "", 0, sock=sock, body=body)
    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: httpd.shutdown())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the server, which stops us

    def orphaned() -> None:
        while not httpd.stopping.wait(1):
            if os.getppid() != parent:
                httpd.shutdown()

    threading.Thread(target=orphaned, daemon=True).start()
    httpd.serve_forever()
    httpd.server_close()
    worker.close()
    return 0


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _bound(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, for the workers to share (one line if not)."""
    from ledger.faults import describe

    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        usage(f"--host {host!r}: cannot listen there ({exc})")
    family, kind, proto, _, address = found[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(1024)
    except OSError as exc:
        sock.close()
        fail(1, f"cannot listen on {host} port {port}: {describe(exc)}")
    return sock


def _caught_up(site: Site) -> None:
    """Each family's read model caught up and bound before the workers read it (a model
    that cannot be is left as it is: its pages say why, and the follower tries again)."""
    from ledger.errors import LedgerError
    from projections.session import ReadSession

    for family in site.served.families:
        with (
            contextlib.suppress(LedgerError, ValueError),
            ReadSession.open(site.store, site.views[family], family) as session,
        ):
            session.catch_up()


def follow(site: Site) -> list[Follower]:
    """A follower for each family `site` serves, each keeping its read model caught up."""
    from ledger.entrypoints.web.follow import Follower

    return [Follower(site.store, site.views[f], f).start() for f in site.served.families]


def _served(asked: str | None) -> tuple[str, ...]:
    """The families `--families` names (every one when not given); exit 2 for one that is no
    family."""
    if asked is None:
        return NAMES
    named = {n.strip() for n in asked.split(",")} - {""}
    if not named or not named <= set(NAMES):
        usage(f"--families {asked!r}: name one or more of {', '.join(NAMES)}")
    return tuple(n for n in NAMES if n in named)
