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
    from ledger.commands import SubmitSection
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


def corrected(
    ledger: RatingsLedger, section: SubmitSection, reason: str, actor: str
) -> tuple[list[LedgerEntry], list[str]]:
    """Record (or with a preview ledger decide) the correction of `section`; its entries, and
    how its report differs from the one it replaces, a line each (`section_diff.diff`)."""
    from ledger.entrypoints.interchange.section_diff import diff
    from ledger.errors import LedgerError

    try:
        current = ledger.sections.current_report(section.section_id)
    except LedgerError:
        current = {}  # the correction refuses it, once the actor's roles are checked
    entries = ledger.sections.correct(section, reason=reason, actor=actor)
    return entries, diff(current, section.model_dump(mode="json", exclude_none=True))


def _report(
    ledger: RatingsLedger,
    store: str,
    view: Path | None,
    entries: list[LedgerEntry],
    dry_run: bool,
    as_json: bool,
    always: bool = True,
    changes: list[str] | None = None,
) -> None:
    """The entries recorded (or that would be), then the ratings they change in the read
    model of the ledger's family (`ledger.federation`; unless not `always` and the read model
    is not known: a PostgreSQL store without --view; a server's ledger's, from its site's read
    model, as the server answered the write: none for a dry run); a correction's `changes` to
    the report first."""
    from ledger.entrypoints.interchange.section_diff import tally
    from ledger.federation import ledger_family
    from projections.consequences import consequences, render

    scheme = urlsplit(ledger.store).scheme
    known = always or dry_run or view is not None or scheme == "sqlite"
    known = known and scheme not in ("https", "http")  # a server's model is its site's
    report, problem = None, None
    if entries and scheme in ("https", "http") and not dry_run:
        report = getattr(ledger.recorder, "report", None)  # the server's (evidence/remote.py)
    if entries and known:
        try:
            family = ledger_family(ledger)
            path = view_path(store, view, family)
            report = consequences(ledger, path, entries, dry_run, family)
        except Exception as exc:  # noqa: BLE001 - the write is committed: it reports success
            if dry_run:
                raise
            from ledger.faults import describe

            problem = describe(exc)
    if as_json:
        out = report if report is not None else {"entries": entries_json(entries)}
        if not dry_run and ledger.receipt is not None:
            out = {**out, **receipt_fields(ledger.receipt)}
        if changes is not None:
            out = {**out, "report_changes": changes}
        print_json(out | ({"report_problem": problem} if problem else {}))
        return
    if changes is not None:
        typer.echo(f"the report: {tally(changes)}" + (":" if changes else ""))
        for line in changes:
            typer.echo(f"  {line}")
    if dry_run:
        for e in entries:
            typer.echo(entry_line("would record", e))
    else:
        print_entries(entries, ledger.receipt)
    if report is not None:
        typer.echo(render(report))
    if problem is not None:
        typer.echo(f"warning: recorded; the ratings report could not be made: {problem}", err=True)
