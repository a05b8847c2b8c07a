"""Finding things: `search` (players by name or id) and `sections` (the sections index)."""

from __future__ import annotations

from typing import Annotated

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    ViewPath,
    iso_day,
    missing,
    rules_family,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.entrypoints.cli.reading import caught_up
from ledger.store import DEFAULT_STORE

SECTION_COLUMNS = ("section_id", "event_name", "start_date", "end_date", "status", "players")


def register(app: typer.Typer) -> None:
    """Add `search` and `sections` to the `ratings-ledger` app."""
    app.command("search")(search)
    app.command("sections")(sections)


def search(
    text: Annotated[str, typer.Argument(help="Name (any order, accents optional) or member id")],
    limit: Annotated[int, typer.Option("--limit", min=0, help="Players to show")] = 20,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Players to skip")] = 0,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """Players by member id (prefix) or name, accents, transliteration and word order ignored
    ("Muller" and "Mueller" find "Müller"; "Last, First" works)."""
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        found = queries.search_players(v, text, limit, offset)

    def table() -> None:
        for p in found["players"]:
            ratings = ", ".join(
                f"{s} {r['official_rating']} ({r['games']})" for s, r in p["ratings"].items()
            )
            typer.echo(f"{p['id']}  {p['name'] or '(no name)'}  {ratings or 'unrated'}")
        more = found["total"] - offset - len(found["players"])
        if not found["total"]:
            typer.echo(f"no player found for {text!r}")
        elif more > 0:
            typer.echo(f"{more} more (--offset {offset + len(found['players'])})")

    document = {"query": text, "offset": offset, **found}
    emit(fmt, found["players"], ("id", "name", "ratings"), table, document)


def sections(
    player: Annotated[
        str | None, typer.Option("--player", help="Only sections this member played")
    ] = None,
    start: Annotated[
        str | None, typer.Option("--from", help="Only sections ending on or after YYYY-MM-DD")
    ] = None,
    end: Annotated[
        str | None, typer.Option("--to", help="Only sections starting on or before YYYY-MM-DD")
    ] = None,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """Sections newest first: id, event name, dates, status and number of players."""
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    first, last = iso_day("--from", start), iso_day("--to", end)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        if player is not None and queries.player(v, player) is None:
            missing(f"player {player!r} is not in the ledger")
        rows = queries.sections(v, player=player, start=first, end=last)["sections"]

    def table() -> None:
        for r in rows:
            dates = (
                r["start_date"]
                if r["start_date"] == r["end_date"]
                else (f"{r['start_date']}..{r['end_date']}")
            )
            count = "-" if r["players"] is None else f"{r['players']} players"
            typer.echo(
                f"{r['section_id']}  {dates}  {r['status']}  {count}  {r['event_name'] or ''}"
            )
        if not rows:
            typer.echo("no sections")

    emit(fmt, rows, SECTION_COLUMNS, table)
