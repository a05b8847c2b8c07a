"""`log`: the ledger's entries in order (or newest first), filtered, as a table or records."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from contextlib import closing
from itertools import islice
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import Store, iso_day, reported, subject
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.log import LedgerEntry


def log(
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of entries")] = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    after: Annotated[
        int, typer.Option(metavar="POSITION", min=0, help="Only entries after this position")
    ] = 0,
    limit: Annotated[
        int | None, typer.Option(metavar="N", min=1, help="At most this many entries")
    ] = None,
    entry_type: Annotated[
        str | None,
        typer.Option(
            "--type", metavar="TYPE", help="Only entries of this type (SectionCorrected…)"
        ),
    ] = None,
    by: Annotated[
        str | None, typer.Option("--actor", metavar="NAME", help="Only entries by this actor")
    ] = None,
    section: Annotated[
        str | None, typer.Option("--section", metavar="ID", help="Only entries about this section")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="Only entries recorded on or after"),
    ] = None,
    newest_first: Annotated[
        bool, typer.Option("--newest-first", help="The latest entries first")
    ] = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the ledger's entries in order (or newest first), filtered."""
    from ledger.log import read_entries
    from ledger.reading import open_ledger
    from ledger.text import shown

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    since = iso_day("--since", since)
    with reported(), closing(open_ledger(store)) as ledger:
        entries: Iterable[LedgerEntry] = (
            e
            for e in read_entries(ledger, after)
            if (entry_type is None or e.type.lower() == entry_type.lower())
            and (by is None or e.actor == by)
            and (section is None or e.payload.get("section_id") == section)
            and (since is None or e.recorded_at[:10] >= since)
        )
        if newest_first:
            entries = reversed(list(entries))
        if limit is not None:
            entries = islice(entries, limit)
        if fmt in ("json", "nl"):
            _print_json(entries, fmt == "nl")
            return
        rows = [
            (str(e.position), e.recorded_at, e.type, shown(e.actor), subject(e)) for e in entries
        ]
    columns = ("position", "recorded_at", "type", "actor", "subject")

    def table() -> None:
        widths = [max([0, *(len(r[i]) for r in rows)]) for i in range(4)]
        for r in rows:
            typer.echo(
                f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
                f"{r[3]:<{widths[3]}}  {r[4]}".rstrip()
            )

    emit(fmt, [dict(zip(columns, r, strict=True)) for r in rows], columns, table)


def _print_json(entries: Iterable[LedgerEntry], lines: bool = False) -> None:
    """Entries as a JSON list written as they are read (`lines`: one object a line, --nl)."""
    out = sys.stdout
    if not lines:
        out.write("[")
    written = 0
    for e in entries:
        item = {
            "position": e.position,
            "type": e.type,
            "recorded_at": e.recorded_at,
            "actor": e.actor,
            "aggregate_id": e.aggregate_id,
            "payload": e.payload,
        }
        text = json.dumps(item, ensure_ascii=False)
        out.write(text + "\n" if lines else ("," if written else "") + "\n  " + text)
        written += 1
    if not lines:
        out.write("\n]\n" if written else "]\n")
