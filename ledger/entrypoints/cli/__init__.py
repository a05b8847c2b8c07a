"""The `ratings-ledger` command line: one module per command group."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from ledger.entrypoints.cli import (
    browse,
    estimate,
    exporting,
    importing,
    keys,
    office,
    proofs,
    reads,
    serve,
    transparency,
    verify,
    writes,
)
from ledger.entrypoints.quick import silence_stdout

DATES = {"as_of", "effective", "until", "since", "date", "start", "end", "known_at"}


def metavar(name: str, is_path: bool, is_int: bool) -> str:
    """The placeholder a parameter shows in help: FILE, DATE, ID, N or the name in capitals."""
    if is_path:
        return "FILE"
    if name in DATES:
        return "DATE"
    if name in ("player", "player_id", "section_id", "holder") or name.endswith("_id"):
        return "ID"
    if is_int:
        return "N"
    return name.upper()


class TidyArgument(TyperArgument):
    """An argument shown by its metavar alone."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class TidyHelp(TyperCommand):
    """A command whose help shows metavars (FILE, DATE, ID), never `<str>` or `{file}`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        for param in self.params:
            if (
                isinstance(param, TyperArgument | TyperOption)  # each of a Typer command's
                and param.metavar is None
                and not getattr(param, "is_flag", False)
            ):
                desc = param.type_descriptor
                param.metavar = metavar(param.name, desc.is_path, desc.annotation is int)
            if isinstance(param, TyperArgument):
                param.__class__ = TidyArgument
        super().format_help(ctx, formatter)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [p.strip("{}") for p in super().collect_usage_pieces(ctx)]

    def invoke(self, ctx: Any) -> Any:
        _refuse_unstorable(ctx.params)
        return super().invoke(ctx)


def _refuse_unstorable(params: dict[str, Any]) -> None:
    """A number no store holds refused in one line before the command runs (issue 18:
    "integers beyond SQLite's range ... are refused in one line"); text is checked by each
    command's model, and any error line escapes control characters (`common.fail`)."""
    from ledger.bounds import MAX_INTEGER
    from ledger.entrypoints.cli.common import usage

    for name, value in params.items():
        for one in value if isinstance(value, list | tuple) else [value]:
            if isinstance(one, int) and not isinstance(one, bool) and abs(one) > MAX_INTEGER:
                option = "--" + name.replace("_", "-")
                usage(f"{option}: {one} is beyond what the ledger stores (at most {MAX_INTEGER})")


class OneLineErrors(TyperGroup):
    """Usage errors as one `error:` line (exit 2), not a panel; a closed pipe (`| head`) ends
    the output quietly with exit 0."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            code = super().main(
                args,
                prog_name,
                complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
        except typer.Abort:
            code = 1
        except typer.TyperException as exc:
            ctx = getattr(exc, "ctx", None)
            where = ctx.command_path if ctx is not None else "ratings-ledger"
            message = exc.format_message().rstrip(".")
            typer.echo(f"error: {message} (see {where} --help)", err=True)
            code = exc.exit_code
        if not standalone_mode:
            return code
        sys.exit(code or 0)

    def invoke(self, ctx: Any) -> Any:
        from ledger.log import breaks_reported

        try:
            with breaks_reported(lambda text: typer.echo(f"warning: {text}", err=True)):
                return super().invoke(ctx)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                silence_stdout()
                raise typer.Exit(0) from None
            _one_line(exc)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except Exception as exc:  # noqa: BLE001 - every error is one line (issue 18)
            _one_line(exc)


def _one_line(exc: Exception) -> None:
    """A fault no command turned into its own line: one line, exit 1 (the traceback with
    RATINGS_LEDGER_TRACEBACK=1)."""
    from ledger.entrypoints.cli.common import fail
    from ledger.faults import describe, machine_faults

    if os.environ.get("RATINGS_LEDGER_TRACEBACK"):
        raise exc
    if isinstance(exc, machine_faults()):
        fail(1, describe(exc))
    fail(
        1,
        f"unexpected {type(exc).__name__}: {describe(exc)} "
        "(RATINGS_LEDGER_TRACEBACK=1 shows where)",
    )


app = typer.Typer(
    name="ratings-ledger",
    help="An event-sourced ledger for chess rating federations.",
    cls=OneLineErrors,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ratings-ledger")
    except PackageNotFoundError:
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"ratings-ledger {_version()}")
        raise typer.Exit()


@app.callback()
def main(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit"
        ),
    ] = False,
) -> None:
    """Rate, record and audit chess ratings."""


writes.register(app)
reads.register(app)
importing.register(app)
exporting.register(app)
office.register(app)
serve.register(app)
verify.register(app)
keys.register(app)
transparency.register(app)
proofs.register(app)
estimate.register(app)
browse.register(app)
for info in [
    *app.registered_commands,
    *(
        c
        for g in app.registered_groups
        if g.typer_instance is not None
        for c in g.typer_instance.registered_commands
    ),
]:
    info.cls = TidyHelp
