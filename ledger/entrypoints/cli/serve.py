"""`serve`: the read-only audit site over the read model, on waitress (threads, timeouts)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import Family, Store, ViewPath, reported
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.entrypoints.web.app import Site

THREADS = 8  # requests answered at once; a request is handed over only once fully read
CHANNEL_TIMEOUT_SECONDS = 30  # a connection silent this long is closed
# A request must arrive whole (request line, headers, body) within this many seconds of its
# first byte, however slowly it drips: waitress' own timeout restarts at every byte.
REQUEST_DEADLINE_SECONDS = 10
# Connections held at once (waitress' default is 100, which 100 slow clients exhaust); the
# loop polls (select() stops at 1,024 descriptors).
CONNECTION_LIMIT = 4000
CLEANUP_INTERVAL_SECONDS = 1  # how often silent and overdue connections are looked for
LOOP_SECONDS = 1.0  # the longest one wait for network events lasts


def register(app: typer.Typer) -> None:
    """Add `serve` to the `ratings-ledger` app."""
    app.command("serve")(serve)


class Server:
    """A waitress server for one site: `serve_forever` in one thread, `shutdown` from another.

    Slow clients cannot take it down: it holds `CONNECTION_LIMIT` connections, and closes one
    whose request is not whole `deadline` seconds after its first byte (`_Deadlines`)."""

    def __init__(
        self, site: Site, host: str, port: int, deadline: float = REQUEST_DEADLINE_SECONDS
    ) -> None:
        from waitress.server import create_server

        self.map: dict = {}
        self.stopping = threading.Event()
        self.inner = create_server(
            site,
            map=self.map,
            host=host,
            port=port,
            threads=THREADS,
            channel_timeout=CHANNEL_TIMEOUT_SECONDS,
            cleanup_interval=CLEANUP_INTERVAL_SECONDS,
            connection_limit=CONNECTION_LIMIT,
            ident="ratings-ledger",
            clear_untrusted_proxy_headers=True,
        )
        self.inner.channel_class = _timed_channel()
        self.inner.maintenance = _Deadlines(self.inner, deadline)
        self.server_port: int = self.inner.effective_port

    def serve_forever(self) -> None:
        """Answer requests until `shutdown`; then close every connection, in this thread."""
        from waitress.wasyncore import close_all, loop

        while not self.stopping.is_set():
            loop(timeout=LOOP_SECONDS, map=self.map, use_poll=True, count=1)
        self.inner.task_dispatcher.shutdown()
        close_all(self.map)

    def shutdown(self) -> None:
        """Stop accepting and answering; `serve_forever` returns soon after."""
        self.stopping.set()
        self.inner.pull_trigger()

    def server_close(self) -> None:
        self.inner.close()


def _timed_channel() -> type:
    """waitress' channel whose request parser notes when the request's first byte came."""
    from waitress.channel import HTTPChannel
    from waitress.parser import HTTPRequestParser

    class TimedParser(HTTPRequestParser):
        def __init__(self, adj: object) -> None:
            super().__init__(adj)
            self.started = time.monotonic()

    class TimedChannel(HTTPChannel):
        parser_class = TimedParser

    return TimedChannel


class _Deadlines:
    """waitress' maintenance, plus: a connection still reading a request `deadline` seconds
    after its first byte is closed (a drip of one header line a second never ends otherwise)."""

    def __init__(self, inner: object, deadline: float) -> None:
        self.inner = inner
        self.idle = inner.maintenance  # type: ignore[attr-defined]
        self.deadline = deadline

    def __call__(self, now: float) -> None:
        self.idle(now)
        overdue = time.monotonic() - self.deadline
        for channel in list(self.inner.active_channels.values()):  # type: ignore[attr-defined]
            request = channel.request
            if request is not None and getattr(request, "started", overdue) < overdue:
                channel.will_close = True


def server(
    site: Site,
    host: str = "127.0.0.1",
    port: int = 8000,
    quiet: bool = False,
    deadline: float = REQUEST_DEADLINE_SECONDS,
) -> Server:
    """A threaded server for `site` (port 0: any free port; see `server_port`). waitress logs
    nothing per request, so `quiet` changes nothing; it is kept for callers."""
    return Server(site, host, port, deadline)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (only this machine by default)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port")] = 8000,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """Serve the read-only audit site: players, sections, histories, explain, the log (its read
    model kept caught up as entries are appended)."""
    from ledger.entrypoints.web.app import Site
    from ledger.entrypoints.web.follow import Follower
    from ledger.reading import open_ledger
    from ledger.store import view_path

    with reported():
        open_ledger(store).close()  # refuse to start on a store that is not there
    httpd = server(Site(store, view, family), host, port)
    follower = Follower(store, view_path(store, view, family), family).start()
    typer.echo(f"serving http://{host}:{httpd.server_port}/ (read-only); Ctrl-C stops")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        follower.stop()
        httpd.server_close()
