"""The exports: `list` (the rating supplement), `export-history`, `export-trf`, `crosstable`."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    SystemName,
    ViewPath,
    _required_day,
    missing,
    reported,
    rules_family,
    system_name,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.entrypoints.cli.reading import ListName, caught_up
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.entrypoints.interchange.exports import Crosstable


def register(app: typer.Typer) -> None:
    """Add the export commands to the `ratings-ledger` app."""
    app.command("list")(rating_list)
    app.command("export-history")(export_history)
    app.command("export-trf")(export_trf)
    app.command("crosstable")(crosstable)


def rating_list(
    system: SystemName,
    as_of: Annotated[str | None, typer.Option("--as-of", help="YYYY-MM-DD")] = None,
    list_name: ListName = None,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """The rating supplement: every player's rating in a system on a date (or as a published
    list said it), N, floor."""
    from ledger.entrypoints.interchange import exports
    from ledger.entrypoints.player_text import earlier_games
    from ledger.errors import InvalidCommand

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    with reported():
        if (as_of is None) == (list_name is None):
            raise InvalidCommand((), "give exactly one of --as-of and --list")
        day = None if as_of is None else _required_day("--as-of", as_of)
    family = rules_family(store, family)
    with caught_up(store, view, family, list_name=list_name) as v:
        rows = exports.rating_supplement(v, system, day, list_name)

    def table() -> None:
        for r in rows:
            provisional = r["established"] is False  # None where the family has none
            rating = f"{r['official_rating']}" + (f"P{r['games']}" if provisional else "")
            games = f"{r['games']}{earlier_games(r)}"
            typer.echo(
                f"{r['id']:<12} {r['name'] or '':<32} {rating:>9}  N {games:<5} "
                + ("" if r["floor"] is None else f"floor {r['floor']}")
            )

    emit(fmt, rows, exports.SUPPLEMENT_COLUMNS, table)


def export_history(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: SystemName,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """A player's rating history in one system with every value behind each change, one row
    per change: a table, or --csv, --tsv, --json, --nl."""
    from ledger.entrypoints.interchange import exports
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        known = queries.player(v, player_id) is not None
        rows = exports.history_export(v, player_id, system)
    if not known:
        missing(f"player {player_id!r} is not in the ledger")
    emit(fmt, rows, exports.HISTORY_EXPORT_COLUMNS)


def export_trf(
    section_id: Annotated[str, typer.Argument(help="The section's id")],
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """A section as a TRF16 file (`import trf` reads it back as the same section)."""
    from ledger.entrypoints.interchange.trf_export import to_trf
    from projections import queries

    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        report = queries.section_report(v, section_id)
        status = queries.section_status(v, section_id)
        profiles = queries.profiles(v)
    if report is None or status == "withdrawn":
        missing(f"section {section_id!r} is not in the ledger" if report is None else
                f"section {section_id!r} was withdrawn")  # fmt: skip
    typer.echo(to_trf(report, profiles), nl=False)


def crosstable(
    section_id: Annotated[str, typer.Argument(help="The section's id")],
    system: Annotated[
        list[str] | None,
        typer.Option(
            "--system",
            callback=system_name,
            help="Rating system (repeat for several; default: all rated)",
        ),
    ] = None,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
) -> None:
    """A section's crosstable: results by round, total, pre → post rating (P<n>: provisional);
    --csv, --tsv, --nl: a record a player and system."""
    from ledger.entrypoints.interchange import exports
    from ledger.text import shown
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        status = queries.section_status(v, section_id)
        table = exports.crosstable(v, section_id, system)
    if status == "withdrawn":
        missing(f"section {section_id!r} was withdrawn")
    if table is None:
        missing(f"section {section_id!r} is not in the ledger")

    def lines() -> None:
        for line in exports.crosstable_lines(table):
            typer.echo(shown(line))

    emit(fmt, _crosstable_records(table), CROSSTABLE_COLUMNS, lines, asdict(table))


CROSSTABLE_COLUMNS = (
    "pair",
    "player",
    "name",
    "results",
    "total",
    "system",
    "pre",
    "post",
    "official",
    "games_before",
    "games_after",
)


def _crosstable_records(table: Crosstable) -> list[dict[str, Any]]:
    """One record a player and rating system (a player rated in none: one record)."""
    out = []
    for row in table.rows:
        base = {
            "pair": row.pair,
            "player": row.player,
            "name": row.name,
            "results": " ".join(row.cells),
            "total": row.total,
        }
        changes = row.ratings.items() or [(None, None)]
        for system, change in changes:
            out.append(base | {"system": system} | (asdict(change) if change else {}))
    return out
