"""One output convention for every command that prints records (sqlite-utils' own): a table by
default, or `--json` (the command's JSON document), `--csv`, `--tsv` (a header row, then one row
a record) or `--nl` (newline-delimited JSON: one record a line). Two of them exit 2."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated

import typer

from ledger.entrypoints.cli.common import print_json, usage

AsCsv = Annotated[bool, typer.Option("--csv", help="Print CSV (a header row, a row a record)")]
AsTsv = Annotated[bool, typer.Option("--tsv", help="Print tab-separated values (as --csv)")]
AsNl = Annotated[bool, typer.Option("--nl", help="Print newline-delimited JSON: one record a line")]
TABLE = "table"


def chosen(as_json: bool, as_csv: bool, as_tsv: bool, as_nl: bool) -> str:
    """The format the flags ask for (`table` when none); two flags: exit 2."""
    flags = {"csv": as_csv, "tsv": as_tsv, "nl": as_nl, "json": as_json}
    picked = [name for name, on in flags.items() if on]
    if len(picked) > 1:
        usage(f"--{picked[0]} and --{picked[1]}: choose one")
    return picked[0] if picked else TABLE


def emit(
    fmt: str,
    records: Sequence[Mapping[str, object]],
    columns: Sequence[str] | None = None,
    table: Callable[[], None] | None = None,
    document: object = None,
) -> None:
    """Print `records` as `fmt` asks: JSON prints `document` (default: the records), CSV and
    TSV the `columns` (default: every key of the first record), the table `table()` (default:
    the columns aligned)."""
    columns = list(columns) if columns is not None else _keys(records)
    if fmt == "json":
        print_json(list(records) if document is None else document)
    elif fmt == "nl":
        for r in records:
            typer.echo(json.dumps(r, ensure_ascii=False))
    elif fmt in ("csv", "tsv"):
        typer.echo(delimited(records, columns, "," if fmt == "csv" else "\t"), nl=False)
    elif table is not None:
        table()
    else:
        for line in aligned(records, columns):
            typer.echo(line)


def delimited(records: Iterable[Mapping[str, object]], columns: Sequence[str], sep: str) -> str:
    """A header row and one row a record; booleans true/false, None empty, lists and objects
    as JSON."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, lineterminator="\n")
    writer.writerow(columns)
    for r in records:
        writer.writerow([cell(r.get(c)) for c in columns])
    return out.getvalue()


def cell(value: object) -> str:
    """One value as text in a CSV, TSV or table cell."""
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return ""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def aligned(records: Sequence[Mapping[str, object]], columns: Sequence[str]) -> list[str]:
    """A plain table: the header, a rule, then each record; numbers right-aligned."""
    from ledger.text import shown

    rows = [[shown(cell(r.get(c))) for c in columns] for r in records]
    widths = [max([len(c), *(len(row[i]) for row in rows)]) for i, c in enumerate(columns)]
    numeric = [
        all(isinstance(r.get(c), int | float) or r.get(c) is None for r in records) for c in columns
    ]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{x:>{w}}" if num else f"{x:<{w}}"
            for x, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    return [line(columns), line(["-" * w for w in widths]), *(line(row) for row in rows)]


def _keys(records: Sequence[Mapping[str, object]]) -> list[str]:
    return list(records[0]) if records else []
