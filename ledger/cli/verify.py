"""`ratings-ledger verify`: recompute the hash chain; exit 1 at the first broken position."""

from __future__ import annotations

from contextlib import closing
from typing import Annotated

import typer

from ledger.application import RatingsLedger
from ledger.chain import link_at, parse_expected, verify
from ledger.cli.common import Store, fail, reported
from ledger.store import DEFAULT_STORE


def register(app: typer.Typer) -> None:
    """Add `verify` to the `ratings-ledger` app."""
    app.command("verify")(verify_chain)


def verify_chain(
    digest: Annotated[
        bool, typer.Option("--digest", help="Print only the head as DIGEST@POS, to record")
    ] = False,
    expect: Annotated[
        str | None,
        typer.Option(help="A head recorded earlier (DIGEST@POS): the ledger must still hold it"),
    ] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Recompute the ledger's SHA-256 chain; print the head digest (exit 0) or the first broken
    position (exit 1). Entries not sealed yet are sealed first, so the head covers every one."""
    with reported():
        try:
            expected = parse_expected(expect) if expect is not None else None
        except ValueError as exc:
            fail(2, str(exc))
        with closing(RatingsLedger(store)) as ledger:
            found = verify(ledger)
            recorded = link_at(ledger, expected.position) if expected else None
    if found.broken is not None:
        fail(1, f"chain broken at position {found.broken.position}: {found.broken.reason}")
    if expected is not None and recorded != expected.digest:
        held = f"holds {recorded}" if recorded else "has no entry there"
        fail(1, f"expected {expected} but the chain {held}; the ledger was rewritten")
    if digest:
        typer.echo(str(found.head))
        return
    checked = f", matches {expected}" if expected else ""
    typer.echo(f"chain intact: {found.entries} entries, head {found.head}{checked}")
