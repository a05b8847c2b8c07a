"""What an import tells its user: its summary, and its notes on the file, the teams and the
sections or players no family rates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import print_entries, print_json
from ledger.text import counted

if TYPE_CHECKING:
    from ledger.commands import SubmitSection
    from ledger.entrypoints.interchange.trf_records import TrfReport
    from ledger.log import LedgerEntry


FEW = 3  # warnings an import shows without --verbose
Verbose = Annotated[
    bool,
    typer.Option(
        "--verbose",
        help="Also print each warning, player not rated, member id assigned and entry recorded",
    ),
]


def _report(
    summary: dict[str, Any],
    entries: list[LedgerEntry],
    sections: Sequence[SubmitSection],
    dry_run: bool,
    as_json: bool,
    listed: bool,
    verbose: bool = False,
) -> None:
    """The JSON summary (`--json`); else a line for each file and section read and one for
    what was recorded, the first few warnings, and the details with `verbose` (a dry run
    prints the section JSON `submit` would accept on stdout, the rest on stderr)."""
    if as_json:
        print_json(summary)
        return
    for f in summary["files"]:
        typer.echo(f"read {f['file']}: {counted(f['records'], 'record')}", err=dry_run)
    warnings = summary["warnings"]
    for warning in warnings if verbose else warnings[:FEW]:
        typer.echo(f"warning: {warning}", err=True)
    if not verbose and len(warnings) > FEW:
        more = counted(len(warnings) - FEW, "more warning")
        typer.echo(f"warning: {more} (--verbose or --json shows them)", err=True)
    for s in summary["sections"]:
        for line in _section_lines(s, verbose):
            typer.echo(line, err=dry_run)
    registered = summary["players_registered"]
    if registered:
        verb = "would register" if dry_run else "registered"
        typer.echo(f"{verb} {counted(len(registered), 'new player')}", err=dry_run)
    for m in summary.get("matched", []) if verbose else ():
        if m["by"] == "assigned":
            typer.echo(f"player {m['start']} {m['name']}: member {m['member']}", err=dry_run)
    if dry_run:
        submitted = [s.model_dump(mode="json", exclude_none=True) for s in sections]
        print_json(submitted if listed else submitted[0])
    else:
        print_entries(entries, summary.get("receipt"), each=verbose or len(entries) <= FEW)


def _section_lines(s: dict[str, Any], verbose: bool) -> list[str]:
    """A section's line (its players, games and byes, and how many of its players no game
    rates), its team file's and each family's reason to rate none of it; with `verbose`, each
    player not rated."""
    unrated = s.get("unrated_players", {})
    lines = [
        f"section {s['section_id']}: {counted(s['players'], 'player')}, "
        f"{counted(s['games'], 'game')}, {counted(s['byes'], 'bye')}"
        + (f"; {len(unrated):,} with no rated game" if unrated else "")
    ]
    if "team" in s:
        lines.append(f"{s['section_id']}: {team_line(s['team'])}")
    lines += [
        f"{s['section_id']}: not rated under {family}: {reason}"
        for family, reason in s.get("not_rated", {}).items()
    ]
    if verbose:
        lines += [f"{s['section_id']}: {m} not rated: {why}" for m, why in unrated.items()]
    return lines


def trf_notes(
    report: TrfReport, section: SubmitSection, partial: bool, rounds: int | None = None
) -> list[str]:
    """What the import decided about the file beyond its lines: online, in progress, the
    time control it did not give, where its points column contradicts its results, the
    member ids the ledger assigned."""
    from ledger.entrypoints.interchange import trf, trf_header
    from ledger.entrypoints.interchange.trf_players import assigned_ids
    from ledger.rules.time_controls import NOT_GIVEN

    notes = []
    detected = trf_header.online(report.header)
    if detected is not None:
        notes.append(f"{detected}: played online (the section is recorded as online)")
    why = trf.in_progress(report, rounds)
    if why is not None and partial:
        notes.append(f"{report.source}: in progress ({why}); only the rounds played are imported")
    if section.time_control == NOT_GIVEN:
        notes.append(
            f"{report.source}: no time control (122/222); recorded as not given "
            "(--time-control gives it)"
        )
    unread = unread_values(report)
    if unread:
        notes.append(
            f"{report.source}: values the ledger does not record, left out of the profiles: "
            + unread
        )
    disagree = trf.points_disagree(report)
    if disagree:
        notes.append(
            f"{report.source}: points column disagrees with the results for {len(disagree)} "
            f"of {len(report.players)} players (the results are rated)"
        )
    left_out = trf.reserves(report, _last_round(section))
    if left_out:
        notes.append(
            f"{report.source}: players on the teams' lists fielded in no round (reserves) are "
            f"not players of the section: {len(left_out)}, line "
            + ", ".join(str(p.line) for p in left_out)
        )
    kept = {p.id for p in section.players}
    assigned = [m for m in assigned_ids(report).values() if m in kept]
    if assigned:
        notes.append(
            f"{report.source}: {len(assigned)} players without a FIDE id get the member ids "
            "the ledger assigns (--verbose or --json lists them)"
        )
    return notes


def unread_values(report: TrfReport) -> str:
    """The player lines' values the import did not read (an arena's title, a two-letter
    federation, an ambiguous birth date), each with how many lines give it: `title 'LM' (2),
    'BOT' (1); federation 'DE' (5)`; empty when there are none (issue 31)."""
    counts = Counter(u for p in report.players for u in p.unread)
    columns: dict[str, list[str]] = {}
    for (column, text), count in counts.items():
        columns.setdefault(column, []).append(f"{text!r} ({count})")
    return "; ".join(f"{column} {', '.join(texts)}" for column, texts in columns.items())


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
