"""What every command group shares: the store and actor options, one error style, entry lines.

Bad input exits 2, a conflict with other writers 3, an unusable store 1, a write the actor's
roles do not allow 4; each with one `error:` line on stderr.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, overload

import typer

from ledger.errors import AccessDenied, ConflictError, InvalidCommand, LedgerError, field_path
from ledger.rules import families
from ledger.store import STORE_VARIABLE

if TYPE_CHECKING:
    from ledger.log import LedgerEntry

Store = Annotated[
    str,
    typer.Option(
        envvar=STORE_VARIABLE,
        help="sqlite:///PATH.db (default in the current directory), "
        "postgresql://USER@HOST:PORT/DB[?schema=NAME] or a server's https://HOST[:PORT] "
        "(writes through its door)",
    ),
]
Actor = Annotated[str, typer.Option(help="Who makes this change; recorded with it.")]
ViewPath = Annotated[
    Path | None,
    typer.Option(
        "--view",
        envvar="RATINGS_LEDGER_VIEW",
        help="The read model's SQLite file (default: LEDGER.view.db beside a SQLite store, "
        "else ./ratings-ledger.HOST-PORT-DB-SCHEMA.view.db)",
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON")]
Family = Annotated[
    str | None,
    typer.Option(
        "--rules-family",
        metavar="FAMILY",
        help=f"Rate under {', '.join(families.NAMES)} (default: the ledger's own, `init "
        "--family`, `set-family`), each by date; one read model each",
    ),
]


def rules_family(store: str, given: str | None) -> str:
    """The family a command rates under: `--rules-family` as given, else the ledger's
    federation (`ledger.federation`: its verified log; no ledger there: exit 1)."""
    if given is not None:
        return given
    from ledger.federation import ledger_family

    with reported():
        found = ledger_family(store)
    return found


@overload
def system_name(value: str) -> str: ...
@overload
def system_name(value: list[str]) -> list[str]: ...
@overload
def system_name(value: None) -> None: ...


def system_name(value: str | list[str] | None) -> str | list[str] | None:
    """A --system value (or several) matched case-insensitively; an unknown one is refused."""
    if value is None:
        return None
    if isinstance(value, list):
        return [system_name(v) for v in value]
    systems = [s for f in families.every() for s in f.systems]
    for known in systems:
        if value.upper() == known:
            return known
    usage(f"unknown system {value} (one of {', '.join(systems)})")


SystemName = Annotated[
    str,
    typer.Option(
        "--system", callback=system_name, metavar="SYSTEM", help="Rating system (OTBR…, FIDE, ICU)"
    ),
]
SUBJECT_KEYS = (
    "holder",
    "role",
    "section_id",
    "match_id",
    "member_id",
    "into",
    "system",
    "action",
    "rating_list",
    "family",
    "list_name",
    "parameter",
    "position",
)


class Report:
    listed = False


@contextmanager
def reported() -> Iterator[Report]:
    """Turn a refused command into one line on stderr and exit code 2 (bad input),
    3 (conflict with other writers), 4 (roles) or 1 (store); `listed`: the file held a list."""
    report = Report()
    try:
        yield report
    except InvalidCommand as exc:
        located = (exc.index,) if report.listed and exc.index is not None else ()
        path = located + exc.path
        fail(2, f"{field_path(path)}: {exc.message}" if path else exc.message)
    except ConflictError as exc:
        fail(3, str(exc))
    except AccessDenied as exc:
        fail(4, str(exc))
    except LedgerError as exc:
        fail(1, str(exc))
    except Exception as exc:
        from ledger.faults import describe, machine_faults

        if isinstance(exc, BrokenPipeError) or not isinstance(exc, machine_faults()):
            raise
        fail(1, describe(exc))


def fail(code: int, message: str) -> NoReturn:
    """One `error:` line on stderr (control characters escaped) and exit `code`."""
    from ledger.text import shown

    typer.echo(f"error: {shown(message)}", err=True)
    raise typer.Exit(code)


def usage(message: str) -> NoReturn:
    """Bad input: exit 2."""
    fail(2, message)


@overload
def iso_day(option: str, text: str) -> str: ...
@overload
def iso_day(option: str, text: None) -> None: ...
@overload
def iso_day(option: str, text: str | None) -> str | None: ...


def iso_day(option: str, text: str | None) -> str | None:
    """A date option as YYYY-MM-DD (None when not given); bad input: exit 2 naming it."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        usage(f"{option}: {text!r} is not a date (YYYY-MM-DD)")


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _required_day(option: str, text: str) -> str:
    from ledger.errors import InvalidCommand

    try:
        if not _ISO_DATE.fullmatch(text):
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidCommand((), f"{option}: {text!r} is not a date (YYYY-MM-DD)") from None


def missing(message: str) -> NoReturn:
    """Nothing to show: exit 1."""
    fail(1, message)


def print_json(data: object) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def subject(entry: LedgerEntry) -> str:
    """The fields that say what an entry is about, as `key=value` pairs."""
    from ledger.text import shown

    payload = entry.payload
    return shown(" ".join(f"{k}={payload[k]}" for k in SUBJECT_KEYS if payload.get(k) is not None))


def entry_line(verb: str, e: LedgerEntry) -> str:
    """`recorded RoleGranted at position 3: holder=ann role=auditor` (no colon when the entry
    names no subject)."""
    about = subject(e)
    return f"{verb} {e.type} at position {e.position}" + (f": {about}" if about else "")


def print_entries(
    entries: list[LedgerEntry], receipt: object | None = None, each: bool = True
) -> None:
    """Each entry recorded (not `each`: counted by type in one line), then the write's receipt
    DIGEST@POS (`verify --expect` checks it)."""
    if not entries:
        typer.echo("nothing new to record")
    elif not each:
        kinds = Counter(e.type for e in entries)
        typer.echo(
            f"recorded {len(entries):,} entries at positions {entries[0].position}–"
            f"{entries[-1].position}: " + ", ".join(f"{n:,} {kind}" for kind, n in kinds.items())
        )
    for e in entries if each else ():
        typer.echo(entry_line("recorded", e))
    if entries and receipt is not None:
        typer.echo(f"receipt {receipt}")
        checkpoint = getattr(receipt, "checkpoint", None)
        if checkpoint is not None:
            typer.echo(
                f"checkpoint {checkpoint.size} {checkpoint.root} (`checkpoint` prints it signed)"
            )


def show_entries(
    entries: list[LedgerEntry], dry_run: bool, as_json: bool, receipt: object | None
) -> None:
    """The entries a write recorded (and its receipt), or with `dry_run` would record."""
    if as_json:
        found = {"entries": entries_json(entries)}
        print_json({"dry_run": True, **found} if dry_run else found | receipt_fields(receipt))
    elif dry_run:
        for e in entries:
            typer.echo(entry_line("would record", e))
        if not entries:
            typer.echo("nothing new to record")
    else:
        print_entries(entries, receipt)


def entries_json(entries: list[LedgerEntry]) -> list[dict[str, object]]:
    """Entries in a write's JSON: position, type and subject."""
    return [{"position": e.position, "type": e.type, "subject": subject(e)} for e in entries]


def receipt_fields(receipt: object | None) -> dict[str, str]:
    """A write's receipt in JSON: DIGEST@POS, and the signed checkpoint it made."""
    if receipt is None:
        return {}
    checkpoint = getattr(receipt, "checkpoint", None)
    found = {"receipt": str(receipt)}
    return found | ({"checkpoint": checkpoint.text()} if checkpoint is not None else {})
