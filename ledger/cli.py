"""The `ratings-ledger` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ledger.cli_interchange import register as register_interchange_commands
from ledger.cli_keys import register as register_key_commands
from ledger.cli_ledger import register as register_ledger_commands
from ledger.cli_verify import register as register_verify_commands
from ledger.cli_view import register as register_view_commands
from ledger.cli_web import register as register_web_commands
from ledger.errors import InputError

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


register_ledger_commands(app)
register_view_commands(app)
register_interchange_commands(app)
register_web_commands(app)
register_verify_commands(app)
register_key_commands(app)


def fail(message: str) -> NoReturn:
    """One clear line on stderr, exit code 2."""
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


def read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        fail(f"{path}: no such file")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        fail(f"{path}: not valid JSON ({exc})")


@app.command()
def estimate(
    section_file: Annotated[Path, typer.Argument(help="Section JSON with pre-event states")],
    rules: Annotated[
        str | None, typer.Option(help="Rules version (default: by the section's start date)")
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
        fail(str(exc))
    print(json.dumps(out, indent=2))
