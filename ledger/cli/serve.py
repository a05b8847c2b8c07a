"""`serve`: the read-only audit site over the read model."""

from __future__ import annotations

from typing import Annotated
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import typer

from ledger.cli.common import Family, Store, ViewPath
from ledger.store import DEFAULT_STORE
from ledger.web.app import Site


def register(app: typer.Typer) -> None:
    """Add `serve` to the `ratings-ledger` app."""
    app.command("serve")(serve)


class QuietHandler(WSGIRequestHandler):
    """A request handler that does not log each request."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return


def server(
    site: Site, host: str = "127.0.0.1", port: int = 8000, quiet: bool = False
) -> WSGIServer:
    """A WSGI server for `site` (port 0: any free port; see `server_port`)."""
    handler = QuietHandler if quiet else WSGIRequestHandler
    return make_server(host, port, site, handler_class=handler)


def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (only this machine by default)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port")] = 8000,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """Serve the read-only audit site: players, histories, explain, crosstables, the log."""
    httpd = server(Site(store, view, family), host, port)
    typer.echo(f"serving http://{host}:{httpd.server_port}/ (read-only); Ctrl-C stops")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        typer.echo("stopped")
    finally:
        httpd.server_close()
