"""What an import tells its user: its summary, and its notes on the file, the teams and the
sections or players no family rates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import typer

from ledger.entrypoints.cli.common import print_entries, print_json

if TYPE_CHECKING:
    from ledger.commands import SubmitSection
    from ledger.entrypoints.interchange.trf_records import TrfReport
    from ledger.log import LedgerEntry


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
            "the ledger assigns (see matched)"
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
