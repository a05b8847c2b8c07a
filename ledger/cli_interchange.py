"""Federation file formats on the command line: `import trf`, `import uschess-dbf` (write verbs:
bad input exits 2, nothing appended) and the exports `list`, `export-history`, `crosstable`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from contextlib import closing
from datetime import date
from pathlib import Path
from typing import Annotated, Any

import typer

from ledger.application import RatingsLedger
from ledger.cli_ledger import Actor, Store, _print_entries, _reported, receipt_of
from ledger.cli_view import AsJson, Family, ViewPath, _missing, _view
from ledger.commands import RegisterPlayer, parse
from ledger.domain import InvalidCommand
from ledger.interchange import Imported, exports, locate_submission, trf, uschess_dbf, validated
from ledger.log import LedgerEntry
from ledger.store import DEFAULT_STORE

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run", help="Print the section JSON that would be submitted; append nothing"
    ),
]
Online = Annotated[bool, typer.Option("--online", help="The section was played online")]
Register = Annotated[
    bool,
    typer.Option("--register-players", help="Register the players the ledger does not know yet"),
]
TimeControl = Annotated[
    str | None,
    typer.Option("--time-control", help="The time control (G/90;d30), instead of the file's"),
]
TournamentId = Annotated[str | None, typer.Option("--tournament-id", help="The tournament's id")]
AsCsv = Annotated[bool, typer.Option("--csv", help="Print CSV")]
AsOf = Annotated[str, typer.Option("--as-of", help="YYYY-MM-DD")]
SystemName = Annotated[str, typer.Option("--system", help="Rating system (OTBR…, FIDE, ICU)")]


def register(app: typer.Typer) -> None:
    """Add the import and export commands to the `ratings-ledger` app."""
    imports = typer.Typer(
        help="Submit a federation's tournament report as sections.", no_args_is_help=True
    )
    imports.command("trf")(import_trf)
    imports.command("uschess-dbf")(import_uschess_dbf)
    app.add_typer(imports, name="import")
    app.command("list")(rating_list)
    app.command("export-history")(export_history)
    app.command("crosstable")(crosstable)


def import_trf(
    file: Annotated[Path, typer.Argument(help="A FIDE Tournament Report File (TRF16)")],
    actor: Actor,
    section_id: Annotated[
        str | None,
        typer.Option("--section-id", help="Default: the start date and the 012 name"),
    ] = None,
    tournament_id: TournamentId = None,
    id_map: Annotated[
        Path | None,
        typer.Option("--id-map", help="CSV of starting rank, member id (default: FIDE ids)"),
    ] = None,
    time_control: TimeControl = None,
    start: Annotated[str | None, typer.Option("--start", help="Start date, instead of 042")] = None,
    end: Annotated[str | None, typer.Option("--end", help="End date, instead of 052")] = None,
    online: Online = False,
    rules: Annotated[str | None, typer.Option("--rules", help="uschess, fide or icu")] = None,
    dry_run: DryRun = False,
    register: Register = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Submit the section of a TRF: its players, rounds, colours, results, forfeits and byes."""
    with _reported():
        report = trf.read_trf(file)
        ids = None if id_map is None else trf.read_id_map(id_map)
        imported = trf.to_section(
            report,
            section_id=section_id,
            tournament_id=tournament_id,
            ids=ids,
            time_control=time_control,
            start=_day("--start", start),
            end=_day("--end", end),
            online=online,
            rules=rules,
        )
        names = {trf.member_id(report, p, ids): p.name for p in report.players}
        entries = _submit(
            [imported], actor, store, dry_run, listed=False, register=register, names=names
        )
    if entries is not None:
        _print_entries(entries, receipt_of(store, entries))


def import_uschess_dbf(
    directory: Annotated[
        Path, typer.Argument(help="The folder of THEXPORT.DBF, TSEXPORT.DBF and TDEXPORT.DBF")
    ],
    actor: Actor,
    tournament_id: Annotated[
        str | None,
        typer.Option("--tournament-id", help="Default: H_EVENT_ID, else date and H_NAME"),
    ] = None,
    time_control: TimeControl = None,
    online: Online = False,
    dry_run: DryRun = False,
    register: Register = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Submit every section of a US Chess rating report (all or none)."""
    with _reported():
        report = uschess_dbf.read_report(directory)
        imported = uschess_dbf.to_sections(
            report, tournament_id=tournament_id, time_control=time_control, online=online
        )
        entries = _submit(imported, actor, store, dry_run, listed=True, register=register)
    if entries is not None:
        _print_entries(entries, receipt_of(store, entries))


def rating_list(
    system: SystemName,
    as_of: AsOf,
    as_csv: AsCsv = False,
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """The rating supplement: every player's rating in a system on a date, N, floor."""
    with _reported():
        day = _required_day("--as-of", as_of)
        _one_format(as_csv, as_json)
    with _view(store, view, family) as v:
        rows = exports.rating_supplement(v, system, day)
    if as_json:
        _print_json(rows)
    elif as_csv:
        typer.echo(exports.to_csv(rows, exports.SUPPLEMENT_COLUMNS), nl=False)
    else:
        for r in rows:
            provisional = r["established"] is False
            rating = f"{r['official_rating']}" + (f"P{r['games']}" if provisional else "")
            typer.echo(
                f"{r['id']:<12} {r['name'] or '':<32} {rating:>9}  N {r['games']:<5} "
                + ("" if r["floor"] is None else f"floor {r['floor']}")
            )


def export_history(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: SystemName,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV (the default)")] = False,
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """A player's rating history in one system as CSV (or JSON), one row per change."""
    with _reported():
        _one_format(as_csv, as_json)
    with _view(store, view, family) as v:
        known = v.player(player_id) is not None
        rows = exports.history_export(v, player_id, system)
    if not known:
        _missing(f"player {player_id!r} is not in the ledger")
    if as_json:
        _print_json(rows)
    else:
        typer.echo(exports.to_csv(rows, exports.HISTORY_EXPORT_COLUMNS), nl=False)


def crosstable(
    section_id: Annotated[str, typer.Argument(help="The section's id")],
    system: Annotated[
        list[str] | None,
        typer.Option("--system", help="Rating system (repeat for several; default: all rated)"),
    ] = None,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
) -> None:
    """A section's crosstable: results by round, total, pre -> post rating (P<n>: provisional)."""
    with _view(store, view, family) as v:
        status = exports.section_status(v, section_id)
        table = exports.crosstable(v, section_id, system)
    if status == "withdrawn":
        _missing(f"section {section_id!r} was withdrawn")
    if table is None:
        _missing(f"section {section_id!r} is not in the ledger")
    for line in exports.crosstable_lines(table):
        typer.echo(line)


def _submit(
    imported: Sequence[Imported],
    actor: str,
    store: str,
    dry_run: bool,
    listed: bool,
    register: bool = False,
    names: Mapping[str, str] | None = None,
) -> list[LedgerEntry] | None:
    """Validate every section as `submit` does; print them (dry run) or submit them all,
    first registering the players the ledger does not know yet when `register`."""
    sections = [validated(i) for i in imported]
    if dry_run:
        data = [s.model_dump(mode="json", exclude_none=True) for s in sections]
        _print_json(data if listed else data[0])
        return None
    with closing(RatingsLedger(store)) as ledger:
        entries: list[LedgerEntry] = []
        if register:
            ids = dict.fromkeys(p.id for s in sections for p in s.players)
            missing = [i for i in ids if not ledger.is_registered(i)]
            if missing:
                names = names or {}
                players = [
                    parse(
                        RegisterPlayer, {"id": i, "name": names[i]} if names.get(i) else {"id": i}
                    )
                    for i in missing
                ]
                entries += ledger.register_player(*players, actor=actor)
        try:
            return entries + ledger.submit_section(*sections, actor=actor)
        except InvalidCommand as exc:
            raise locate_submission(exc, imported) from None


def _day(option: str, text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(_required_day(option, text))


def _required_day(option: str, text: str) -> str:
    try:
        if not _ISO_DATE.fullmatch(text):
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidCommand((), f"{option}: {text!r} is not a date (YYYY-MM-DD)") from None


def _one_format(as_csv: bool, as_json: bool) -> None:
    if as_csv and as_json:
        raise InvalidCommand((), "--csv and --json: choose one")


def _print_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
