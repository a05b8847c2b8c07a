"""`ratings-ledger verify`: recompute the hash chain; exit 1 at the first broken position."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer

from ledger.application import RatingsLedger
from ledger.chain import link_at, parse_expected, verify
from ledger.cli.common import AsJson, Family, Store, fail, print_json, reported
from ledger.reading import open_ledger
from ledger.store import DEFAULT_STORE, view_path
from projections import binding
from projections.projector import View


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
    as_json: AsJson = False,
    view: Annotated[
        bool,
        typer.Option("--view", help="Also rebuild the read model apart and compare digests"),
    ] = False,
    view_file: Annotated[
        Path | None,
        typer.Option(
            "--view-file", envvar="RATINGS_LEDGER_VIEW", help="The read model (default beside)"
        ),
    ] = None,
    family: Family = "uschess",
) -> None:
    """Recompute the ledger's SHA-256 chain; print the head digest (exit 0) or the first broken
    position (exit 1). Entries not sealed yet are sealed first, so the head covers every one.
    With --view, also the read model: rebuilt into a temporary file, it must match."""
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
    if view:
        verify_view(store, view_file, family)
    if as_json:
        print_json(
            {
                "intact": True,
                "entries": found.entries,
                "head": str(found.head),
                "matches": None if expected is None else str(expected),
            }
        )
        return
    if digest:
        typer.echo(str(found.head))
        return
    checked = f", matches {expected}" if expected else ""
    typer.echo(f"chain intact: {found.entries} entries, head {found.head}{checked}")


def verify_view(store: str, path: Path | None, family: str) -> None:
    """Exit 1 with one line unless the read model equals its rebuild from the ledger."""
    path = view_path(store, path, family)
    if not path.is_file():
        fail(1, f"no read model at {path}")
    with reported(), closing(open_ledger(store)) as ledger:
        try:
            v = View(path, family)
        except ValueError as exc:
            fail(2, str(exc))
        with closing(v):
            binding.check(v, ledger)
            position, kept, rebuilt = v.last_position, v.digest(), binding.recomputed(v, ledger)
    if kept != rebuilt:
        fail(
            1,
            f"the read model {path} differs from its rebuild at position "
            f"{position} (digest {kept[:16]}…, rebuilt {rebuilt[:16]}…): rebuild it",
        )
    typer.echo(f"read model {path} matches its rebuild at position {position}: {kept}")
