"""`estimate`: rate one section from given pre-event states, without a ledger."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ledger.entrypoints.cli.common import usage
from ledger.errors import InputError, InvalidCommand


def register(app: typer.Typer) -> None:
    """Add `estimate` to the `ratings-ledger` app."""
    app.command("estimate")(estimate)


def read_json(path: Path) -> object:
    from ledger.inputs import read_text

    try:
        return json.loads(read_text(path, "json"))
    except InvalidCommand as exc:
        usage(exc.message)
    except json.JSONDecodeError as exc:
        usage(f"{path}: not valid JSON ({exc})")


def estimate(
    section_file: Annotated[Path, typer.Argument(help="Section JSON with pre-event states")],
    rules: Annotated[
        str | None,
        typer.Option(
            help="Rules version or family (default: the file's `rules`, else US Chess's in "
            "force on the section's dates: estimate reads no ledger, so no ledger's family)"
        ),
    ] = None,
    explain: Annotated[bool, typer.Option(help="Add every intermediate value")] = False,
) -> None:
    """Rate one section from given pre-event states and print JSON."""
    from ledger import estimate as est

    data = read_json(section_file)
    try:
        section = est.load_section(data)
        est.warn(est.unknown_fields(section))
        out = est.estimate(section, rules, explain)
    except (InputError, ValueError) as exc:
        usage(str(exc))
    print(json.dumps(out, indent=2))
