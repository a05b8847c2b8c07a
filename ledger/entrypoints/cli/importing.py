"""The `import` group: `import trf` and `import uschess-dbf` submit a federation's report as
sections (write verbs: bad input exits 2, nothing appended)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import Actor, Store, _required_day, receipt_fields, reported
from ledger.entrypoints.cli.import_report import (
    Verbose,
    _last_round,
    _report,
    section_notes,
    trf_notes,
)
from ledger.errors import field_path
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.application import RatingsLedger
    from ledger.commands import RegisterPlayer, SubmitSection
    from ledger.entrypoints.interchange import Imported
    from ledger.entrypoints.interchange.fide_list import Plan
    from ledger.entrypoints.interchange.trf_players import Match
    from ledger.entrypoints.interchange.trf_records import TrfPlayer, TrfReport
    from ledger.log import LedgerEntry

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
# `import trf`'s flags beyond the shared ones: each tournament line's (trf.FLAGS) and the map.
SectionId = Annotated[
    str | None,
    typer.Option("--section-id", help="Default: the start date and the name (012, --name)"),
]
IdMapFile = Annotated[
    Path | None,
    typer.Option(
        "--map",
        "--id-map",
        help="CSV or JSON: TRF starting rank or FIDE id → member id (default: FIDE ids)",
    ),
]
Name = Annotated[str | None, typer.Option("--name", help="The tournament's name, instead of 012")]
Rounds = Annotated[
    int | None,
    typer.Option("--rounds", min=1, help="The rounds the tournament had, instead of XXR/142"),
]


def register(app: typer.Typer) -> None:
    """Add the import commands to the `ratings-ledger` app."""
    imports = typer.Typer(
        help="Submit a federation's tournament report as sections.", no_args_is_help=True
    )
    imports.command("trf")(import_trf)
    imports.command("uschess-dbf")(import_uschess_dbf)
    imports.command("fide-list")(import_fide_list)
    app.add_typer(imports, name="import")


def import_trf(
    file: Annotated[Path, typer.Argument(help="A FIDE Tournament Report File (TRF16)")],
    actor: Actor,
    section_id: SectionId = None,
    tournament_id: TournamentId = None,
    id_map: IdMapFile = None,
    name: Name = None,
    time_control: TimeControl = None,
    start: Annotated[str | None, typer.Option("--start", help="Start date, instead of 042")] = None,
    end: Annotated[str | None, typer.Option("--end", help="End date, instead of 052")] = None,
    rounds: Rounds = None,
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
    verbose: Verbose = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Submit the section of a TRF: its players (with what the file says of them; players
    without a FIDE id get a member id the ledger assigns), rounds, colours, results, forfeits
    and byes."""
    from ledger.application import RatingsLedger
    from ledger.entrypoints.interchange import trf, validated
    from ledger.entrypoints.interchange.trf_map import read_map
    from ledger.entrypoints.interchange.trf_players import match

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        report = trf.read_trf(file)
        mapping = None if id_map is None else read_map(id_map)
        matches = match(report, mapping, _registered(ledger))
        imported = trf.to_section(
            report,
            section_id=section_id,
            tournament_id=tournament_id,
            members={n: m.member for n, m in matches.items()},
            name=name,
            time_control=time_control,
            start=_day("--start", start),
            end=_day("--end", end),
            rounds=rounds,
            online=online,
            rules=rules,
            partial=partial,
        )
        section = validated(imported)
        reserved = {p.start for p in trf.reserves(report, _last_round(section))}
        profile = _trf_profiles(report, matches, reserved, section)
        if correct:
            return _correct(ledger, store, section, reason, actor, dry_run, as_json)
        files = [{"file": str(file), "records": len(report.players)}]
        warnings = report.warnings + trf_notes(report, section, partial, rounds)
        summary, entries = _submit(
            ledger, [imported], [section], actor, register, profile, files, warnings
        )
        _add_trf_summary(summary, file, report, matches, reserved, section)
    summary |= receipt_fields(ledger.receipt)
    _report(summary, entries, [section], dry_run, as_json, listed=False, verbose=verbose)


def _trf_profiles(
    report: TrfReport, matches: Mapping[int, Match], reserved: set[int], section: SubmitSection
) -> Callable[[str], dict[str, Any]]:
    """Each member's `register` item from its `001` line (the players fielded, by member id)."""
    from ledger.entrypoints.interchange.trf_players import rating_kind

    players = {matches[p.start].member: p for p in report.players if p.start not in reserved}
    kind = rating_kind(section.online, section.time_control, section.start_date)
    return partial(_trf_profile, players, section.start_date, kind)


def _trf_profile(
    players: Mapping[str, TrfPlayer], start: date, kind: str, member: str
) -> dict[str, Any]:
    from ledger.entrypoints.interchange.trf_players import profile

    return profile(players[member], member, start, kind)


def _add_trf_summary(
    summary: dict[str, Any],
    file: Path,
    report: TrfReport,
    matches: Mapping[int, Match],
    reserved: set[int],
    section: SubmitSection,
) -> None:
    """What the summary says of a TRF beyond the submission: whom each line matched, the
    section's notes and a team file's teams (and where its team points disagree)."""
    from ledger.entrypoints.interchange import trf

    names = {p.start: p.name for p in report.players}
    summary["matched"] = [
        {"start": n, "member": m.member, "by": m.how, "name": names[n]}
        for n, m in sorted(matches.items())
        if n not in reserved
    ]
    summary["sections"][0] |= section_notes(section)
    team = trf.team_report(report)
    if team is not None:
        summary["sections"][0]["team"] = team
        summary["warnings"] += [f"{file}: {d}" for d in team["points_disagree"]]


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
    verbose: Verbose = False,
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
    _report(summary, entries, sections, dry_run, as_json, listed=True, verbose=verbose)


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
    from ledger.entrypoints.interchange import locate_submission
    from ledger.errors import InvalidCommand

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
        entries = ledger.sections.submit(*sections, actor=actor, register=list(new.values()))
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


def _correct(
    ledger: RatingsLedger,
    store: str,
    section: SubmitSection,
    reason: str | None,
    actor: str,
    dry_run: bool,
    as_json: bool,
) -> None:
    """A revised report as a correction: what `correct` prints (the per-game diff first)."""
    from ledger.entrypoints.cli.writing import _report as consequences
    from ledger.entrypoints.cli.writing import corrected
    from ledger.errors import InvalidCommand

    if reason is None:
        raise InvalidCommand((), "--correct needs --reason")
    entries, changes = corrected(ledger, section, reason, actor)
    consequences(ledger, store, None, entries, dry_run, as_json, changes=changes)


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


def import_fide_list(
    file: Annotated[Path, typer.Argument(help="FIDE's rating-list TXT (players_list_foa.txt)")],
    actor: Actor,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="The list's date, instead of the file's (SEP26, …frl)"),
    ] = None,
    dry_run: DryRun = False,
    register: Register = False,
    as_json: Summary = False,
    verbose: Verbose = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Record FIDE's list for the players the ledger knows (by FIDE id): an opening balance
    per list (standard, rapid, blitz) with the rating, games and K, and the K and flags on the
    profile (issue 30)."""
    from ledger.application import RatingsLedger
    from ledger.entrypoints.interchange import fide_list
    from ledger.errors import InvalidCommand

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        listed = fide_list.read_list(file)
        day = _day("--as-of", as_of) or listed.as_of
        if day is None:
            raise InvalidCommand((), f"{file}: the list's date is not in its name; give --as-of")
        registered = _registered(ledger)  # as `import trf`: his profile's FIDE id, else his id
        members = {r.fide_id: r.fide_id for r in listed.rows if r.fide_id in registered}
        members |= {fid: m for m, fid in registered.items() if fid is not None}
        known = set(members.values())
        planned = fide_list.plan(listed.rows, day, members, *_records_of(ledger, known), register)
        entries = _record_list(ledger, planned, actor)
    summary = {
        "dry_run": dry_run,
        "file": str(file),
        "as_of": day.isoformat(),
        "rows": len(listed.rows),
        "matched": planned.matched,
        "players_registered": [p["id"] for p in planned.register if p.get("fide_id")],
        "profiles": len(planned.register),
        "opening_balances": len(planned.balances),
        "skipped": len(planned.skipped),
        "warnings": list(listed.warnings),
        "entries": len(entries),
    } | receipt_fields(ledger.receipt)
    _list_report(summary, planned, as_json, verbose)


def _records_of(
    ledger: RatingsLedger, members: set[str]
) -> tuple[dict[str, dict[str, object]], dict[str, set[str]]]:
    """The profiles of `members` and the systems each has an opening balance in."""
    from ledger.domain import Player, player_key

    profiles: dict[str, dict[str, object]] = {}
    balances: dict[str, set[str]] = {}
    for member in members:
        player = ledger.records.get(Player, player_key(member))
        profiles[member], balances[member] = dict(player.profile), set(player.opening_balances)
    return profiles, balances


def _record_list(ledger: RatingsLedger, planned: Plan, actor: str) -> list[LedgerEntry]:
    """Every command validated first (one bad row: nothing appended), then the profiles and
    the balances appended in one write (each player's profile, then his balances)."""
    from ledger.commands import RecordOpeningBalance, RegisterPlayer, parse
    from ledger.errors import InvalidCommand

    try:
        players = [parse(RegisterPlayer, p) for p in planned.register]
        balances = [parse(RecordOpeningBalance, b) for b in planned.balances]
    except InvalidCommand as exc:
        raise InvalidCommand((), f"FIDE list: {field_path(exc.path)}: {exc.message}") from None
    return ledger.players.register_with_balances(tuple(players), tuple(balances), actor=actor)


def _list_report(summary: dict[str, Any], planned: Plan, as_json: bool, verbose: bool) -> None:
    """One summary line (or the JSON); `--verbose`: each profile, balance and row left."""
    import json

    details = {"profiles": planned.register, "balances": planned.balances}
    if as_json:
        out = summary | (details | {"skipped_rows": planned.skipped} if verbose else {})
        typer.echo(json.dumps(out, indent=2))
        return
    would = "would record" if summary["dry_run"] else "recorded"
    typer.echo(
        f"{summary['file']}: FIDE list of {summary['as_of']}, {summary['rows']} rows; {would} "
        f"{summary['opening_balances']} opening balances and {summary['profiles']} profiles "
        f"({len(summary['players_registered'])} new players); {summary['skipped']} rows left"
    )
    if verbose:
        for item in (*planned.register, *planned.balances, *planned.skipped):
            typer.echo("  " + json.dumps(item))


def _time_control_option(text: str) -> str:
    """`--time-control` in any notation a TRF's 122 line may use, in the ledger's."""
    from ledger.errors import InvalidCommand
    from ledger.rules.time_notation import ledger_time_control

    try:
        return ledger_time_control(text)
    except ValueError as exc:
        raise InvalidCommand((), f"--time-control: {exc}") from None


def _day(option: str, text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(_required_day(option, text))
