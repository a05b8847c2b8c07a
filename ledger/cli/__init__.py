"""The `ratings-ledger` command line: one module per command group."""

from __future__ import annotations

import typer

from ledger.cli import browse, estimate, interchange, reads, serve, verify, writes

app = typer.Typer(
    name="ratings-ledger",
    help="An event-sourced ledger for chess rating federations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def main() -> None:
    """Rate, record and audit chess ratings."""


writes.register(app)
reads.register(app)
interchange.register(app)
serve.register(app)
verify.register(app)
estimate.register(app)
browse.register(app)
