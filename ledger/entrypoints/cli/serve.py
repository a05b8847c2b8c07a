"""`serve`: the read-only audit site over the read model, on waitress (threads, timeouts)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import Family, Store, ViewPath, reported
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.entrypoints.web.app import Site

THREADS = 8  # requests answered at once; a request is handed over only once fully read
CHANNEL_TIMEOUT_SECONDS = 30  # a connection silent this long is closed
CLEANUP_INTERVAL_SECONDS = 5  # how often silent connections are looked for
LOOP_SECONDS = 1.0  # the longest one wait for network events lasts


def register(app: typer.Typer) -> None:
    """Add `serve` to the `ratings-ledger` app."""
    app.command("serve")(serve)


class Server:
    """A waitress server for one site: `serve_forever` in one thread, `shutdown` from another."""

    def __init__(self, site: Site, host: str, port: int) -> None:
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
            ident="ratings-ledger",
            clear_untrusted_proxy_headers=True,
        )
        self.server_port: int = self.inner.effective_port

    def serve_forever(self) -> None:
        """Answer requests until `shutdown`; then close every connection, in this thread."""
        from waitress.wasyncore import close_all, loop

        while not self.stopping.is_set():
            loop(timeout=LOOP_SECONDS, map=self.map, count=1)
        self.inner.task_dispatcher.shutdown()
        close_all(self.map)

    def shutdown(self) -> None:
        """Stop accepting and answering; `serve_forever` returns soon after."""
        self.stopping.set()
        self.inner.pull_trigger()

    def server_close(self) -> None:
        self.inner.close()


def server(site: Site, host: str = "127.0.0.1", port: int = 8000, quiet: bool = False) -> Server:
    """A threaded server for `site` (port 0: any free port; see `server_port`). waitress logs
    nothing per request, so `quiet` changes nothing; it is kept for callers."""
    return Server(site, host, port)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (only this machine by default)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port")] = 8000,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """Serve the read-only audit site: players, sections, histories, explain, the log."""
    from ledger.entrypoints.web.app import Site
    from ledger.reading import open_ledger

    with reported():
        open_ledger(store).close()  # refuse to start on a store that is not there
    httpd = server(Site(store, view, family), host, port)
    typer.echo(f"serving http://{host}:{httpd.server_port}/ (read-only); Ctrl-C stops")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        httpd.server_close()
