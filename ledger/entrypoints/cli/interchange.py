"""Federation file formats on the command line: `import trf`, `import uschess-dbf` (write verbs:
bad input exits 2, nothing appended) and the exports `list`, `export-history`, `crosstable`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    Actor,
    AsJson,
    Family,
    Store,
    SystemName,
    ViewPath,
    missing,
    print_entries,
    print_json,
    receipt_fields,
    reported,
    system_name,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.entrypoints.cli.reading import ListName, caught_up
from ledger.errors import field_path
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.application import RatingsLedger
    from ledger.commands import RegisterPlayer, SubmitSection
    from ledger.entrypoints.interchange import Imported
    from ledger.log import LedgerEntry

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
    typer.Option(
        "--time-control", help="The time control (90+30, G/90;d30…), instead of the file's"
    ),
]
Summary = Annotated[
    bool,
    typer.Option("--json", help="Print a JSON summary: files read, sections, players, warnings"),
]
TournamentId = Annotated[str | None, typer.Option("--tournament-id", help="The tournament's id")]
AsOf = Annotated[str, typer.Option("--as-of", help="YYYY-MM-DD")]


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
    app.command("export-trf")(export_trf)
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
        typer.Option(
            "--map",
            "--id-map",
            help="CSV or JSON: TRF starting rank or FIDE id → member id (default: FIDE ids)",
        ),
    ] = None,
    time_control: TimeControl = None,
    start: Annotated[str | None, typer.Option("--start", help="Start date, instead of 042")] = None,
    end: Annotated[str | None, typer.Option("--end", help="End date, instead of 052")] = None,
    online: Online = False,
    rules: Annotated[str | None, typer.Option("--rules", help="uschess, fide or icu")] = None,
    partial: Annotated[
        bool,
        typer.Option("--partial", help="Import the rounds played of a tournament in progress"),
    ] = False,
    correct: Annotated[
        bool,
        typer.Option(
            "--correct",
            help="A revised report of a section in the ledger: record it as a correction",
        ),
    ] = False,
    reason: Annotated[
        str | None, typer.Option("--reason", help="Why the report is corrected (--correct)")
    ] = None,
    dry_run: DryRun = False,
    register: Register = False,
    as_json: Summary = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Submit the section of a TRF: its players (with what the file says of them; players
    without a FIDE id get a member id the ledger assigns), rounds, colours, results, forfeits
    and byes."""
    from ledger.application import RatingsLedger
    from ledger.entrypoints.interchange import trf, validated

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        report = trf.read_trf(file)
        mapping = None if id_map is None else trf.read_map(id_map)
        matches = trf.match(report, mapping, _registered(ledger))
        imported = trf.to_section(
            report,
            section_id=section_id,
            tournament_id=tournament_id,
            members={n: m.member for n, m in matches.items()},
            time_control=time_control,
            start=_day("--start", start),
            end=_day("--end", end),
            online=online,
            rules=rules,
            partial=partial,
        )
        section = validated(imported)
        reserved = {p.start for p in trf.reserves(report, _last_round(section))}
        players = {matches[p.start].member: p for p in report.players if p.start not in reserved}
        kind = trf.rating_kind(section.online, section.time_control, section.start_date)

        def profile(member: str) -> dict[str, Any]:
            return trf.profile(players[member], member, section.start_date, kind)

        if correct:
            return _correct(ledger, store, section, reason, actor, dry_run, as_json)
        files = [{"file": str(file), "records": len(report.players)}]
        warnings = report.warnings + trf_notes(report, section, partial)
        summary, entries = _submit(
            ledger, [imported], [section], actor, register, profile, files, warnings
        )
        summary["matched"] = [
            {"start": n, "member": m.member, "by": m.how, "name": report_names[n]}
            for n, m in sorted(matches.items())
            if n not in reserved
            for report_names in [{p.start: p.name for p in report.players}]
        ]
        summary["sections"][0] |= section_notes(section)
        team = trf.team_report(report)
        if team is not None:
            summary["sections"][0]["team"] = team
            summary["warnings"] += [f"{file}: {d}" for d in team["points_disagree"]]
    summary |= receipt_fields(ledger.receipt)
    _report(summary, entries, [section], dry_run, as_json, listed=False)


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
    as_json: Summary = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Submit every section of a US Chess rating report (all or none)."""
    from ledger.application import RatingsLedger
    from ledger.entrypoints.interchange import uschess_dbf, validated

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        report = uschess_dbf.read_report(directory)
        if time_control is not None:
            time_control = _time_control_option(time_control)
        imported = uschess_dbf.to_sections(
            report, tournament_id=tournament_id, time_control=time_control, online=online
        )
        sections = [validated(i) for i in imported]
        files = [{"file": name, "records": count} for name, count in report.files]
        summary, entries = _submit(
            ledger, imported, sections, actor, register, lambda m: {"id": m}, files, []
        )
        for row, section in zip(summary["sections"], sections, strict=True):
            row |= section_notes(section)
    summary |= receipt_fields(ledger.receipt)
    _report(summary, entries, sections, dry_run, as_json, listed=True)


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
    family: Family = "uschess",
) -> None:
    """The rating supplement: every player's rating in a system on a date (or as a published
    list said it), N, floor."""
    from ledger.domain import InvalidCommand
    from ledger.entrypoints.interchange import exports

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    with reported():
        if (as_of is None) == (list_name is None):
            raise InvalidCommand((), "give exactly one of --as-of and --list")
        day = None if as_of is None else _required_day("--as-of", as_of)
    with caught_up(store, view, family, list_name=list_name) as v:
        rows = exports.rating_supplement(v, system, day, list_name)

    def table() -> None:
        for r in rows:
            provisional = r["established"] is False
            rating = f"{r['official_rating']}" + (f"P{r['games']}" if provisional else "")
            typer.echo(
                f"{r['id']:<12} {r['name'] or '':<32} {rating:>9}  N {r['games']:<5} "
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
    family: Family = "uschess",
) -> None:
    """A player's rating history in one system with every value behind each change, one row
    per change: a table, or --csv, --tsv, --json, --nl."""
    from ledger.entrypoints.interchange import exports
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
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
    family: Family = "uschess",
) -> None:
    """A section as a TRF16 file (`import trf` reads it back as the same section)."""
    from ledger.entrypoints.interchange.trf_export import to_trf
    from projections import queries

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
    family: Family = "uschess",
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
) -> None:
    """A section's crosstable: results by round, total, pre -> post rating (P<n>: provisional);
    --csv, --tsv, --nl: a record a player and system."""
    from ledger.entrypoints.interchange import exports
    from ledger.plausibility import shown
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
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


def _crosstable_records(table: Any) -> list[dict[str, Any]]:
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


def _submit(
    ledger: RatingsLedger,
    imported: Sequence[Imported],
    sections: Sequence[SubmitSection],
    actor: str,
    register: bool,
    profile: Callable[[str], Mapping[str, Any]],
    files: list[dict[str, Any]],
    warnings: list[str],
) -> tuple[dict[str, Any], list[LedgerEntry]]:
    """Submit the validated sections, registering in the same append (with `register`) the
    players the ledger does not know yet (`profile`: a member's `register` item); a preview
    ledger (`--dry-run`) appends nothing. The JSON summary, and the entries."""
    from ledger.commands import RegisterPlayer, parse
    from ledger.domain import InvalidCommand
    from ledger.entrypoints.interchange import locate_submission

    new: dict[str, RegisterPlayer] = {}
    for source, section in zip(imported, sections, strict=True):
        for j, p in enumerate(section.players):
            if p.id in new or ledger.is_registered(p.id):
                continue
            if not register:
                raise source.locate(
                    InvalidCommand(
                        ("players", j, "id"),
                        f"{p.id!r} is not a registered player; give --register-players "
                        "to register it",
                    )
                )
            try:
                new[p.id] = parse(RegisterPlayer, profile(p.id))
            except InvalidCommand as exc:
                place = source.origins.get(("players", j), source.where)
                raise InvalidCommand(
                    (), f"{place}: {field_path(exc.path)}: {exc.message}"
                ) from None
    try:
        entries = ledger.submit_section(*sections, actor=actor, register=list(new.values()))
    except InvalidCommand as exc:
        raise locate_submission(exc, imported) from None
    summary = {
        "dry_run": ledger.preview,
        "files": files,
        "sections": [
            {
                "section_id": s.section_id,
                "players": len(s.players),
                "games": len(s.games),
                "byes": len(s.byes),
            }
            for s in sections
        ],
        "players_registered": list(new),
        "games": sum(len(s.games) for s in sections),
        "warnings": warnings,
    }
    return summary, entries


def _report(
    summary: dict[str, Any],
    entries: list[LedgerEntry],
    sections: Sequence[SubmitSection],
    dry_run: bool,
    as_json: bool,
    listed: bool,
) -> None:
    """The JSON summary (`--json`); else what was read and recorded (a dry run prints the
    section JSON `submit` would accept on stdout, the rest on stderr)."""
    if as_json:
        print_json(summary)
        return
    for f in summary["files"]:
        records = f"{f['records']} record" + ("" if f["records"] == 1 else "s")
        typer.echo(f"read {f['file']}: {records}", err=dry_run)
    for warning in summary["warnings"]:
        typer.echo(f"warning: {warning}", err=True)
    for s in summary["sections"]:
        if "team" in s:
            typer.echo(f"{s['section_id']}: {team_line(s['team'])}", err=dry_run)
        for family, reason in s.get("not_rated", {}).items():
            typer.echo(f"{s['section_id']}: not rated under {family}: {reason}", err=dry_run)
        for member, reason in s.get("unrated_players", {}).items():
            typer.echo(f"{s['section_id']}: {member} not rated: {reason}", err=dry_run)
    for m in summary.get("matched", []):
        if m["by"] == "assigned":
            typer.echo(f"player {m['start']} {m['name']}: member {m['member']}", err=dry_run)
    if dry_run:
        submitted = [s.model_dump(mode="json", exclude_none=True) for s in sections]
        print_json(submitted if listed else submitted[0])
    else:
        print_entries(entries, summary.get("receipt"))


def _correct(
    ledger: RatingsLedger,
    store: str,
    section: SubmitSection,
    reason: str | None,
    actor: str,
    dry_run: bool,
    as_json: bool,
) -> None:
    """A revised report as a correction: the per-game diff, then what `correct` prints."""
    from ledger.domain import InvalidCommand
    from ledger.entrypoints.cli.writing import _report as consequences
    from ledger.entrypoints.interchange.section_diff import diff

    if reason is None:
        raise InvalidCommand((), "--correct needs --reason")
    current = ledger.current_report(section.section_id)
    changes = diff(current, section.model_dump(mode="json", exclude_none=True))
    entries = ledger.correct_section(section, reason=reason, actor=actor)
    if not as_json:
        for line in changes:
            typer.echo(line)
    consequences(ledger, store, None, entries, dry_run, as_json)


def trf_notes(report: Any, section: SubmitSection, partial: bool) -> list[str]:
    """What the import decided about the file beyond its lines: online, in progress, the
    time control it did not give, the member ids the ledger assigned."""
    from ledger.entrypoints.interchange import trf, trf_header
    from ledger.rules.time_controls import NOT_GIVEN

    notes = []
    detected = trf_header.online(report.header)
    if detected is not None:
        notes.append(f"{detected}: played online (the section is recorded as online)")
    why = trf.in_progress(report)
    if why is not None and partial:
        notes.append(f"{report.source}: in progress ({why}); only the rounds played are imported")
    if section.time_control == NOT_GIVEN:
        notes.append(f"{report.source}: no time control (122/222); recorded as not given")
    left_out = trf.reserves(report, _last_round(section))
    if left_out:
        notes.append(
            f"{report.source}: players on the teams' lists fielded in no round (reserves) are "
            f"not players of the section: {len(left_out)}, line "
            + ", ".join(str(p.line) for p in left_out)
        )
    kept = {p.id for p in section.players}
    assigned = [m for m in trf.assigned_ids(report).values() if m in kept]
    if assigned:
        notes.append(
            f"{report.source}: {len(assigned)} players without a FIDE id get the member ids "
            "the ledger assigns (see matched)"
        )
    return notes


def team_line(team: dict[str, Any]) -> str:
    """What the import read of a team file's teams, in one line."""
    forfeited = team["forfeited_matches"]
    return (
        f"team file: {team['teams']} teams of {team['players_in_teams']} players, "
        f"{team['team_matches']} team matches in {team['team_rounds']} rounds"
        + (f" ({forfeited} forfeited)" if forfeited else "")
        + f" on up to {team['boards']} boards; recorded as the players' individual games"
    )


def section_notes(section: SubmitSection) -> dict[str, Any]:
    """Each rules family's reason for rating none of the section's games (none: it rates them)."""
    from ledger.results import RATED_RESULTS
    from ledger.rules.families import every
    from projections.unrated import NO_GAME

    reasons = {
        f.name: f.section_not_rated(section.time_control, section.online, section.start_date)
        for f in every()
    }
    played = {p for g in section.games if g.result in RATED_RESULTS for p in (g.white, g.black)}
    return {
        "not_rated": {f: r for f, r in reasons.items() if r is not None},
        "unrated_players": {p.id: NO_GAME for p in section.players if p.id not in played},
    }


def _last_round(section: SubmitSection) -> int:
    """The last round the section holds (a game's or a bye's)."""
    return max((x.round for x in [*section.games, *section.byes]), default=0)


def _registered(ledger: RatingsLedger) -> dict[str, str | None]:
    """Every registered member id and the FIDE id in its profile (None: none)."""
    from ledger.domain import TOPIC_PREFIX
    from ledger.log import to_entry

    topics = [f"{TOPIC_PREFIX}PlayerRegistered", f"{TOPIC_PREFIX}PlayerProfileUpdated"]
    members: dict[str, str | None] = {}
    position = 0
    while True:
        batch = ledger.recorder.select_notifications(
            position, 5000, topics=topics, inclusive_of_start=False
        )
        for notification in batch:
            payload = to_entry(notification).payload
            members[payload["member_id"]] = payload.get("fide_id")
        if len(batch) < 5000:
            return members
        position = batch[-1].id


def _time_control_option(text: str) -> str:
    """`--time-control` in any notation a TRF's 122 line may use, in the ledger's."""
    from ledger.domain import InvalidCommand
    from ledger.entrypoints.interchange.time_controls import ledger_time_control

    try:
        return ledger_time_control(text)
    except ValueError as exc:
        raise InvalidCommand((), f"--time-control: {exc}") from None


def _day(option: str, text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(_required_day(option, text))


def _required_day(option: str, text: str) -> str:
    from ledger.domain import InvalidCommand

    try:
        if not _ISO_DATE.fullmatch(text):
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise InvalidCommand((), f"{option}: {text!r} is not a date (YYYY-MM-DD)") from None
