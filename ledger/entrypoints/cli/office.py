"""The ratings office's daily work: `section` (the report to edit and feed back to `correct`),
`requests` (what awaits an admin) and `supplement` (the rating list a federation publishes)."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    ViewPath,
    iso_day,
    missing,
    print_json,
    rules_family,
    system_name,
    usage,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.entrypoints.cli.reading import ListName, caught_up
from ledger.rules.families import DEFAULT, known
from ledger.rules.families import family as family_named
from ledger.store import DEFAULT_STORE

REQUEST_COLUMNS = (
    "kind",
    "player",
    "name",
    "system",
    "rating",
    "floor",
    "new_floor",
    "rating_if_granted",
    "ceiling",
    "section",
    "uploaded_by",
)


def register(app: typer.Typer) -> None:
    """Add the office commands to the `ratings-ledger` app."""
    app.command("section")(section)
    app.command("requests")(requests)
    app.command("supplement")(supplement)


def section(
    section_id: Annotated[str, typer.Argument(metavar="ID", help="The section's id")],
    as_json: Annotated[
        bool, typer.Option("--json", help="The report as JSON, as `submit` and `correct` read it")
    ] = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """A section's current report: with --json exactly the file `correct ID FILE` reads, to
    edit and feed back; else its crosstable."""
    from ledger.entrypoints.interchange import exports
    from projections import queries

    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        status = queries.section_status(v, section_id)
        report = queries.section_report(v, section_id)
        table = None if as_json or report is None else exports.crosstable(v, section_id)
    if status is None:
        missing(f"section {section_id!r} is not in the ledger")
    if report is None:
        missing(f"section {section_id!r} was withdrawn (`reinstate` rates it again)")
    if as_json:
        print_json(submission(report))
        return
    if table is not None:
        for line in exports.crosstable_lines(table):
            typer.echo(line)


def submission(report: dict[str, Any]) -> dict[str, Any]:
    """A stored report as a section file: the correction's reason and empty fields left out."""
    return {k: v for k, v in report.items() if k != "reason" and v is not None}


def requests(
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """What awaits an admin: pending floor-lowering requests (§7; grant with `override --action
    grant_floor_lowering`), ceilings set below the floor (none in a family without floors) and
    sections tournament directors uploaded, until the office reviews them (`review`)."""
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        rows = queries.awaiting_admin(v)

    def table() -> None:
        if not rows:
            typer.echo("nothing awaits an admin")
        width = max([4, *(len(r["name"] or "") for r in rows)])
        for r in rows:
            if r["kind"] == "upload_awaiting_review":
                typer.echo(
                    f"{r['kind']:<22} {r['section']:<10} {r['name'] or '':<{width}} "
                    f"uploaded by {r['uploaded_by']}, awaiting the office's review"
                )
                continue
            what = (
                f"floor {r['floor']} → {r['new_floor']}, rating if granted {r['rating_if_granted']}"
                if r["kind"] == "floor_lowering_request"
                else f"ceiling {r['ceiling']} below floor {r['floor']}"
            )
            typer.echo(
                f"{r['kind']:<22} {r['player']:<10} {r['name'] or '':<{width}} "
                f"{r['system']:<5} {r['rating']:>5}  {what}"
            )

    emit(fmt, rows, REQUEST_COLUMNS, table)


def supplement(
    as_of: Annotated[
        str | None, typer.Option("--as-of", metavar="DATE", help="The list's date")
    ] = None,
    list_name: ListName = None,
    fide_txt: Annotated[
        bool, typer.Option("--fide-txt", help="FIDE's rating-list TXT layout (one system)")
    ] = False,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    legacy: Annotated[
        str | None,
        typer.Option("--format", metavar="FORMAT", hidden=True, help="Old spelling of the flags"),
    ] = None,
    system: Annotated[
        list[str] | None,
        typer.Option(
            "--system",
            callback=system_name,
            metavar="SYSTEM",
            help="Only this system (repeat for several; default: the six US Chess systems, "
            "OTBR for --fide-txt; FIDE or ICU in those families)",
        ),
    ] = None,
    min_games: Annotated[
        int, typer.Option("--min-games", metavar="N", min=0, help="Only ratings of N+ games")
    ] = 0,
    sort: Annotated[
        str, typer.Option("--sort", metavar="KEY", help="id (default), name or rating")
    ] = "id",
    federation: Annotated[
        str | None,
        typer.Option("--federation", metavar="FED", help="Only players of this federation"),
    ] = None,
    sex: Annotated[
        str | None, typer.Option("--sex", metavar="SEX", help="Only men (m) or women (w)")
    ] = None,
    age: Annotated[
        str | None,
        typer.Option(
            "--age",
            metavar="GROUP",
            help="Only this age group by the list's year: U8 … U20, 50+, 65+",
        ),
    ] = None,
    club: Annotated[
        str | None, typer.Option("--club", metavar="CLUB", help="Only members of this club")
    ] = None,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """The rating supplement a federation publishes: every member's ratings on a date, with
    provisional marks (P) and N, names, sorted and filtered (as the list pages: federation,
    sex, age group, club); a table (US Chess layout), or --fide-txt, --json, --csv, --tsv,
    --nl."""
    from ledger.entrypoints.interchange import exports
    from projections import queries

    fmt = _supplement_format(legacy, fide_txt, as_json, as_csv, as_tsv, as_nl)
    asked = {"federation": federation, "sex": sex, "age": age, "club": club}
    _check_supplement(asked, sort, as_of, list_name)
    day = iso_day("--as-of", as_of)
    family = rules_family(store, family)
    systems = _supplement_systems(family, system, fmt)
    with caught_up(store, view, family, list_name=list_name) as v:
        if list_name is not None:
            listed = queries.published_list(v, list_name)
            assert listed is not None  # the list's own view holds it (timetravel.list_view)
            day = listed.as_of
        assert day is not None  # --as-of gave it, or the list did
        rows = exports.supplement(v, day, systems, min_games, sort, list_name, asked)
    _print_supplement(fmt, rows, systems, day, list_name)


def _check_supplement(
    asked: dict[str, str | None], sort: str, as_of: str | None, list_name: str | None
) -> None:
    """Refuse (usage) a filter the list pages refuse, an unknown sort key, and a supplement
    dated both or neither by --as-of and --list."""
    from projections import list_filters

    why = list_filters.refused(asked)
    if why is not None:
        usage(f"--{why}")
    if sort not in ("id", "name", "rating"):
        usage(f"--sort: {sort!r} is not one of id, name, rating")
    if (as_of is None) == (list_name is None):
        usage("give exactly one of --as-of and --list")


def _supplement_systems(family: str, system: list[str] | None, fmt: str) -> list[str]:
    """The systems asked for, else the family's list system (or all its systems); a FIDE TXT
    list has one."""
    rated = known(family) or family_named(DEFAULT)  # caught_up refuses an unknown family
    default = [rated.list_system] if rated.list_system else list(rated.systems)
    systems = system or (default[:1] if fmt == "fide-txt" else default)
    if fmt == "fide-txt" and len(systems) != 1:
        usage("--fide-txt: give one --system (a FIDE list has one rating column)")
    return systems


def _print_supplement(
    fmt: str, rows: list[dict[str, Any]], systems: list[str], day: str, list_name: str | None
) -> None:
    """The supplement in the format asked for: FIDE's TXT, a table (US Chess layout) or the
    records of the output convention."""
    from ledger.entrypoints.interchange import exports

    if fmt == "fide-txt":
        for line in exports.fide_txt(rows, systems[0], day):
            typer.echo(line)
        return
    columns, flat = exports.supplement_records(rows, systems)
    document = {"as_of": day, "list": list_name, "systems": systems, "players": rows}
    records = rows if fmt == "nl" else flat
    emit(fmt, records, columns, partial(_supplement_table, rows, systems), document)


def _supplement_table(rows: list[dict[str, Any]], systems: list[str]) -> None:
    from ledger.entrypoints.interchange import exports

    for line in exports.supplement_lines(rows, systems):
        typer.echo(line)


def _supplement_format(legacy: str | None, fide_txt: bool, *flags: bool) -> str:
    """The output the flags ask for: `fide-txt`, a format of the convention (`output.chosen`),
    or the old `--format uschess|fide-txt|csv|json`."""
    fmt = chosen(*flags)
    if legacy is not None:
        known = {"uschess": "table", "fide-txt": "fide-txt", "csv": "csv", "json": "json"}
        if legacy not in known:
            usage(f"--format: {legacy!r} is not one of {', '.join(known)}")
        if fide_txt or fmt != "table":
            usage(f"--format {legacy}: give --format or a flag, not both")
        return known[legacy]
    if fide_txt and fmt != "table":
        usage(f"--fide-txt and --{fmt}: choose one")
    return "fide-txt" if fide_txt else fmt
