"""The write verbs' shared options and the report of what a write recorded and changed."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar
from urllib.parse import urlsplit

import typer

from ledger.entrypoints.cli.common import (
    entries_json,
    entry_line,
    print_entries,
    print_json,
    receipt_fields,
    reported,
)
from ledger.store import view_path

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ledger.application import RatingsLedger
    from ledger.log import LedgerEntry


M = TypeVar("M", bound="BaseModel")

DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; append nothing")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the consequences as JSON")]
ViewOption = Annotated[
    Path | None,
    typer.Option(
        "--view",
        help="The read model to report from (default: beside a SQLite store; a PostgreSQL "
        "store's writes report only with --view or --dry-run)",
    ),
]
Reason = Annotated[str, typer.Option(help="Why; recorded with the change.")]
JsonFile = Annotated[
    Path, typer.Argument(metavar="FILE", help="JSON file holding one object or a list")
]
SectionId = Annotated[str, typer.Argument(metavar="ID", help="The section's id")]


def _append_file(
    file: Path,
    model: type[M],
    verb: Callable[[RatingsLedger], Callable[..., list[LedgerEntry]]],
    actor: str,
    store: str,
    dry_run: bool,
    as_json: bool,
    view: Path | None,
) -> None:
    """Validate every command in `file`, then append them all with the verb `verb` picks of the
    ledger (or none, or none with `dry_run`); print the consequences."""
    from ledger import commands
    from ledger.application import RatingsLedger

    with reported() as report:
        items, report.listed = commands.load_file(file, model)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = verb(ledger)(*items, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def _number(text: str) -> object:
    """A number given as an option, else the text (for the model to report)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _report(
    ledger: RatingsLedger,
    store: str,
    view: Path | None,
    entries: list[LedgerEntry],
    dry_run: bool,
    as_json: bool,
    always: bool = True,
) -> None:
    """The entries recorded (or that would be), then the ratings they change (unless not
    `always` and the read model is not known: a PostgreSQL store without --view; never for
    a server's ledger, whose read model is its site's)."""
    from projections.consequences import consequences, render

    scheme = urlsplit(ledger.store).scheme
    known = always or dry_run or view is not None or scheme == "sqlite"
    known = known and scheme not in ("https", "http")  # a server's model is its site's
    report, problem = None, None
    if entries and known:
        try:
            report = consequences(ledger, view_path(store, view), entries, dry_run)
        except Exception as exc:  # noqa: BLE001 - the write is committed: it reports success
            if dry_run:
                raise
            from ledger.faults import describe

            problem = describe(exc)
    if as_json:
        out = report if report is not None else {"entries": entries_json(entries)}
        if not dry_run and ledger.receipt is not None:
            out = {**out, **receipt_fields(ledger.receipt)}
        print_json(out | ({"report_problem": problem} if problem else {}))
        return
    if dry_run:
        for e in entries:
            typer.echo(entry_line("would record", e))
    else:
        print_entries(entries, ledger.receipt)
    if report is not None:
        typer.echo(render(report))
    if problem is not None:
        typer.echo(f"warning: recorded; the ratings report could not be made: {problem}", err=True)
