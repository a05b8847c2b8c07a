"""The ledger's write verbs and `log` for the `ratings-ledger` command line.

Bad input exits 2, a conflict with other writers 3, an unusable store 1, a write the actor's
roles do not allow (or any write to a ledger never set up with `init --actor NAME`) 4; each with
one line on stderr and nothing appended.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from contextlib import closing
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar
from urllib.parse import parse_qs, urlsplit

import typer

from ledger.entrypoints.cli.common import (
    Actor,
    Store,
    SystemName,
    entries_json,
    entry_line,
    iso_day,
    print_entries,
    print_json,
    receipt_fields,
    reported,
    show_entries,
    subject,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.roles import Role
from ledger.rules.families import NAMES as FAMILIES
from ledger.store import DEFAULT_STORE, redacted, require_postgres, store_url, view_path

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ledger.application import RatingsLedger
    from ledger.log import LedgerEntry

M = TypeVar("M", bound="BaseModel")

DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; append nothing")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the consequences as JSON")]
ViewOption = Annotated[
    Path | None,
    typer.Option(
        "--view",
        help="The read model to report from (default: beside a SQLite store; a PostgreSQL "
        "store's writes report only with --view or --dry-run)",
    ),
]
Reason = Annotated[str, typer.Option(help="Why; recorded with the change.")]
JsonFile = Annotated[
    Path, typer.Argument(metavar="FILE", help="JSON file holding one object or a list")
]
SectionId = Annotated[str, typer.Argument(metavar="ID", help="The section's id")]
Holder = Annotated[str, typer.Argument(help="The actor who gets or loses the role")]
RoleName = Annotated[str, typer.Argument(help=" | ".join(Role))]


def register(app: typer.Typer) -> None:
    """Add the ledger's commands to the `ratings-ledger` app."""
    app.command("init")(init)
    app.command("register")(register_players)
    app.command("opening-balance")(opening_balance)
    app.command("submit")(submit)
    app.command("correct")(correct)
    app.command("withdraw")(withdraw)
    app.command("reinstate")(reinstate)
    app.command("fide-adjust")(fide_adjust)
    app.command("award-money-floor")(award_money_floor)
    app.command("fide-uplift")(fide_uplift)
    app.command("match")(match)
    app.command("override")(override)
    app.command("revoke-override")(revoke_override)
    app.command("amend-rules")(amend_rules)
    app.command("publish-list")(publish_list)
    app.command("void")(void)
    app.command("merge-players")(merge_players)
    app.command("grant-role")(grant_role)
    app.command("revoke-role")(revoke_role)
    app.command("log")(log)


def init(
    actor: Annotated[str, typer.Option(help="Who sets the ledger up; they become its director.")],
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Set the ledger up, once, with ACTOR as its first director (creating its tables, and on
    PostgreSQL its schema); ACTOR's key is made in the keyring if it has none, and its public
    key recorded."""
    from ledger.application import RatingsLedger

    if dry_run:
        show_entries(_init_preview(store, actor), True, as_json, None)
        return
    with reported():
        create_schema(store_url(store))
    with reported(), closing(RatingsLedger(store)) as ledger:
        director = ledger.initialize(actor=actor)[0].actor
        count = ledger.recorder.max_notification_id() or 0
    if as_json:
        print_json(
            {
                "store": redacted(store),
                "director": director,
                "entries": count,
                **receipt_fields(ledger.receipt),
            }
        )
        return
    typer.echo(f"ledger ready at {redacted(store)}, director {director!r} ({count} entries)")
    typer.echo(f"receipt {ledger.receipt}")


def _init_preview(store: str, actor: str) -> list[LedgerEntry]:
    """The entries `init` would append, touching nothing: no store, table, schema or key is
    made (a ledger already set up refuses, as `init` would)."""
    import tempfile

    from ledger.application import RatingsLedger
    from ledger.domain import StoreError
    from ledger.reading import open_ledger

    with reported():
        try:
            open_ledger(store).close()
        except StoreError:
            pass
        else:
            with closing(RatingsLedger(store, preview=True, read_only=True)) as existing:
                return existing.initialize(actor=actor)
        with tempfile.TemporaryDirectory() as empty:
            fresh = f"sqlite:///{Path(empty) / 'preview.db'}"
            with closing(RatingsLedger(fresh, preview=True)) as ledger:
                return ledger.initialize(actor=actor)


def create_schema(url: str) -> None:
    """Create the schema a PostgreSQL store URL names (`?schema=NAME`) if it does not exist."""
    from ledger.domain import StoreError

    parts = urlsplit(url)
    schema = parse_qs(parts.query).get("schema", [""])[-1]
    if parts.scheme not in ("postgresql", "postgres") or not schema:
        return
    require_postgres()
    import psycopg
    from psycopg import sql

    try:
        with psycopg.connect(parts._replace(query="").geturl(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    except psycopg.Error as exc:
        raise StoreError(f"cannot create schema {schema!r} in {redacted(url)}: {exc}") from None


def grant_role(
    holder: Holder,
    role: RoleName,
    actor: Actor,
    public_key: Annotated[
        str | None,
        typer.Option(
            metavar="KEY",
            help="HOLDER's public key (`keys new`); default: the one held or in keyring; "
            "an auditor needs none",
        ),
    ] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Give HOLDER a role with their public key (directors only); a new key rotates theirs; an
    auditor, who writes nothing, needs no key. See docs/decisions.md for what each role
    allows."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.grant_role(holder, role, actor=actor, public_key=public_key)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def revoke_role(
    holder: Holder,
    role: RoleName,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Take a role from HOLDER (directors only); the last director cannot lose the role."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.revoke_role(holder, role, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def register_players(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Register players from a player file; a registered player's changed fields are updated."""
    from ledger.application import RatingsLedger
    from ledger.commands import RegisterPlayer

    _append_file(
        file, RegisterPlayer, RatingsLedger.register_player, actor, store, dry_run, as_json, view
    )


def opening_balance(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record players' opening balances (their record per system when moving onto the ledger)."""
    from ledger.application import RatingsLedger
    from ledger.commands import RecordOpeningBalance

    _append_file(
        file,
        RecordOpeningBalance,
        RatingsLedger.record_opening_balance,
        actor,
        store,
        dry_run,
        as_json,
        view,
    )


def submit(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Submit sections from a section file (a list is accepted or rejected as a whole)."""
    from ledger.application import RatingsLedger
    from ledger.commands import SubmitSection

    _append_file(
        file, SubmitSection, RatingsLedger.submit_section, actor, store, dry_run, as_json, view
    )


def correct(
    section_id: SectionId,
    file: JsonFile,
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Replace a section's report with the section in FILE (the same section id); print the
    ratings it changes."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import SubmitSection
    from ledger.domain import InvalidCommand

    with reported():
        sections, listed = commands.load_file(file, SubmitSection)
        if listed:
            raise InvalidCommand((), f"{file}: a correction file holds one section, not a list")
        if sections[0].section_id != section_id:
            raise InvalidCommand(
                ("section_id",),
                f"{sections[0].section_id!r} in {file} is not the section being corrected "
                f"({section_id!r})",
            )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.correct_section(sections[0], reason=reason, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def withdraw(
    section_id: SectionId,
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Withdraw a section from rating (final); print the ratings it changes."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.withdraw_section(section_id, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def reinstate(
    section_id: SectionId,
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Rate a withdrawn section again with its last report (a new fact; the withdrawal stays in
    the ledger); print the ratings it changes."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.reinstate_section(section_id, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def fide_adjust(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Submit players' games in foreign FIDE events for one FIDE rating list (§6)."""
    from ledger.application import RatingsLedger
    from ledger.commands import SubmitFideAdjustment

    _append_file(
        file,
        SubmitFideAdjustment,
        RatingsLedger.submit_fide_adjustment,
        actor,
        store,
        dry_run,
        as_json,
        view,
    )


def fide_uplift(
    effective: Annotated[str, typer.Option(help="The FIDE list it raises (YYYY-MM-DD)")],
    reason: Annotated[str, typer.Option(help="Why: the decision it records")],
    actor: Actor,
    ceiling: Annotated[str, typer.Option(help="Ratings below this are raised")] = "2000",
    share: Annotated[str, typer.Option(help="By this share of the gap to the ceiling")] = "0.4",
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record FIDE's one-time uplift of a list (1 March 2024: every rating below 2000 raised
    by 0.4 × (2000 − R)), once; the FIDE read model applies it to that list."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import RecordFideUplift

    data = {"effective": effective, "reason": reason}
    with reported():
        uplift = commands.parse(
            RecordFideUplift, {**data, "ceiling": _number(ceiling), "share": _number(share)}
        )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.record_fide_uplift(uplift, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def award_money_floor(
    player: Annotated[str, typer.Option(help="Member id of the prize winner")],
    amount: Annotated[str, typer.Option(help="Prize amount in dollars")],
    limit: Annotated[str, typer.Option(help="The prize's rating limit: 1800 for under-1800")],
    date: Annotated[str, typer.Option(help="Date of the prize (YYYY-MM-DD)")],
    actor: Actor,
    system: SystemName = "OTBR",
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a large cash prize that may raise the winner's floor (§5); print what it changes,
    or why it changes nothing."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import AwardMoneyFloor

    data = {"player": player, "amount": _number(amount), "limit": _number(limit), "date": date}
    with reported():
        award = commands.parse(AwardMoneyFloor, {**data, "system": system})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.award_money_floor(award, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def match(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Submit matches from a match file."""
    from ledger.application import RatingsLedger
    from ledger.commands import SubmitMatch

    _append_file(
        file, SubmitMatch, RatingsLedger.submit_match, actor, store, dry_run, as_json, view
    )


def override(
    player: Annotated[str, typer.Option(help="Member id")],
    action: Annotated[
        str,
        typer.Option(
            help="impose_ceiling, lift_ceiling, set_floor, grant_floor_lowering or adjust_rating"
        ),
    ],
    effective: Annotated[str, typer.Option(help="Effective date (YYYY-MM-DD)")],
    reason: Reason,
    actor: Actor,
    system: SystemName = "OTBR",
    value: Annotated[str | None, typer.Option(help="The ceiling, floor or rating")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a director's decision about a player's rating (§7); print what it changes."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import DirectorOverride

    data = {"player": player, "action": action, "system": system, "effective": effective}
    if value is not None:
        data["value"] = _number(value)
    with reported():
        decision = commands.parse(DirectorOverride, {**data, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.override(decision, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def revoke_override(
    position: Annotated[
        int, typer.Argument(metavar="POSITION", min=1, help="The decision's ledger position")
    ],
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Revoke a director's decision (a new fact; the decision stays in the ledger); print the
    ratings it changes."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.revoke_override(position, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def amend_rules(
    parameter: Annotated[str, typer.Option(help="bonus_multiplier, fide_conversion, ...")],
    value: Annotated[str, typer.Option(help='A number, or JSON {"split", "low", "high"}')],
    effective: Annotated[str, typer.Option(help="First date in force (YYYY-MM-DD)")],
    reason: Reason,
    actor: Actor,
    until: Annotated[str | None, typer.Option(help="First date no longer in force")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a rules parameter's value from a date (it may be recorded after that date);
    print the ratings the (retroactive) change re-rates."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import AmendRules

    try:
        parsed: object = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    data = {"parameter": parameter, "value": parsed, "effective": effective, "reason": reason}
    if until is not None:
        data["until"] = until
    with reported():
        amendment = commands.parse(AmendRules, data)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.amend_rules(amendment, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def publish_list(
    family: Annotated[str, typer.Option(help=" | ".join(FAMILIES))],
    name: Annotated[str, typer.Option(help="The list's name, unique in its family")],
    as_of: Annotated[str, typer.Option(help="The list's as-of date (YYYY-MM-DD)")],
    actor: Actor,
    cutoff_position: Annotated[
        str | None,
        typer.Option(help="Last ledger position it takes items from (default: the last now)"),
    ] = None,
    store: Store = DEFAULT_STORE,
    view: ViewOption = None,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Record that a federation published a rating list of a rules family, then commit its
    ratings (the Merkle root over its rows, from the family's read model)."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import PublishList
    from ledger.rules.families import family as rules_family

    data = {"family": family, "name": name, "as_of": as_of}
    if cutoff_position is not None:
        data["cutoff_position"] = _number(cutoff_position)
    with reported():
        publication = commands.parse(PublishList, data)
        note = rules_family(publication.family).off_schedule(publication.as_of)
        if note is not None:  # recorded all the same: the as-of date is the office's cut-off
            typer.echo(f"warning: {note}", err=True)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.publish_list(publication, actor=actor)
            if dry_run or as_json:
                show_entries(entries, dry_run, as_json, ledger.receipt)
            else:
                print_entries(entries, ledger.receipt)
            if dry_run:
                if not as_json:
                    typer.echo("would then commit its ratings (ListRatingsCommitted)")
                return
            _commit_ratings(
                ledger, store, view, publication.family, publication.name, actor, as_json
            )


def _commit_ratings(
    ledger: RatingsLedger,
    store: str,
    view: Path | None,
    family: str,
    name: str,
    actor: str,
    as_json: bool = False,
) -> None:
    """After a list is published: commit its rows (the published list stands if this fails;
    `commit-list` does it later)."""
    from ledger.entrypoints.cli.proofs import commit
    from ledger.faults import describe

    try:
        entries = commit(ledger, store, view, family, name, actor)
    except Exception as exc:  # noqa: BLE001 - the list is published: it reports success
        typer.echo(
            f"warning: published; its ratings are not committed ({describe(exc)}): "
            f"run `ratings-ledger commit-list --list {name} --rules-family {family}`",
            err=True,
        )
        return
    if as_json:
        print_json({"entries": entries_json(entries), **receipt_fields(ledger.receipt)})
    else:
        print_entries(entries, ledger.receipt)


def void(
    position: Annotated[int, typer.Argument(help="The ledger position of the entry to void")],
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Take back one entry's effect on ratings (directors only); a section is withdrawn or
    corrected instead."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import VoidEntry

    with reported():
        decision = commands.parse(VoidEntry, {"position": position, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.void(decision, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def merge_players(
    source: Annotated[str, typer.Argument(metavar="FROM", help="The record merged away")],
    into: Annotated[str, typer.Argument(metavar="INTO", help="The record it joins")],
    reason: Reason,
    actor: Actor,
    force: Annotated[
        bool, typer.Option("--force", help="Merge over a profile conflict (INTO's fields stand)")
    ] = False,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Join two records of one person: FROM's games, items and the profile fields INTO lacks
    count as INTO's, its history re-rated; print the ratings it changes."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import MergePlayers

    with reported():
        merge = commands.parse(
            MergePlayers, {"player": source, "into": into, "reason": reason, "force": force}
        )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.merge_players(merge, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def log(
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of entries")] = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    after: Annotated[
        int, typer.Option(metavar="POSITION", min=0, help="Only entries after this position")
    ] = 0,
    limit: Annotated[
        int | None, typer.Option(metavar="N", min=1, help="At most this many entries")
    ] = None,
    entry_type: Annotated[
        str | None,
        typer.Option(
            "--type", metavar="TYPE", help="Only entries of this type (SectionCorrected…)"
        ),
    ] = None,
    by: Annotated[
        str | None, typer.Option("--actor", metavar="NAME", help="Only entries by this actor")
    ] = None,
    section: Annotated[
        str | None, typer.Option("--section", metavar="ID", help="Only entries about this section")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="Only entries recorded on or after"),
    ] = None,
    newest_first: Annotated[
        bool, typer.Option("--newest-first", help="The latest entries first")
    ] = False,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the ledger's entries in order (or newest first), filtered."""
    from ledger.log import read_entries
    from ledger.plausibility import shown
    from ledger.reading import open_ledger

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    since = iso_day("--since", since)
    with reported(), closing(open_ledger(store)) as ledger:
        entries: Iterable[LedgerEntry] = (
            e
            for e in read_entries(ledger, after)
            if (entry_type is None or e.type.lower() == entry_type.lower())
            and (by is None or e.actor == by)
            and (section is None or e.payload.get("section_id") == section)
            and (since is None or e.recorded_at[:10] >= since)
        )
        if newest_first:
            entries = reversed(list(entries))
        if limit is not None:
            entries = islice(entries, limit)
        if fmt in ("json", "nl"):
            _print_json(entries, fmt == "nl")
            return
        rows = [
            (str(e.position), e.recorded_at, e.type, shown(e.actor), subject(e)) for e in entries
        ]
    columns = ("position", "recorded_at", "type", "actor", "subject")

    def table() -> None:
        widths = [max([0, *(len(r[i]) for r in rows)]) for i in range(4)]
        for r in rows:
            typer.echo(
                f"{r[0]:>{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
                f"{r[3]:<{widths[3]}}  {r[4]}".rstrip()
            )

    emit(fmt, [dict(zip(columns, r, strict=True)) for r in rows], columns, table)


def _append_file(
    file: Path,
    model: type[M],
    verb: Callable[..., list[LedgerEntry]],
    actor: str,
    store: str,
    dry_run: bool,
    as_json: bool,
    view: Path | None,
) -> None:
    """Validate every command in `file`, then append them all with `verb` (or none, or none
    with `dry_run`); print the consequences."""
    from ledger import commands
    from ledger.application import RatingsLedger

    with reported() as report:
        items, report.listed = commands.load_file(file, model)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = verb(ledger, *items, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def _number(text: str) -> object:
    """A number given as an option, else the text (for the model to report)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _report(
    ledger: RatingsLedger,
    store: str,
    view: Path | None,
    entries: list[LedgerEntry],
    dry_run: bool,
    as_json: bool,
    always: bool = True,
) -> None:
    """The entries recorded (or that would be), then the ratings they change (unless not
    `always` and the read model is not known: a PostgreSQL store without --view)."""
    from ledger.consequences import consequences, render

    known = always or dry_run or view is not None or urlsplit(ledger.store).scheme == "sqlite"
    report, problem = None, None
    if entries and known:
        try:
            report = consequences(ledger, view_path(store, view), entries, dry_run)
        except Exception as exc:  # noqa: BLE001 - the write is committed: it reports success
            if dry_run:
                raise
            from ledger.faults import describe

            problem = describe(exc)
    if as_json:
        out = report if report is not None else {"entries": entries_json(entries)}
        if not dry_run and ledger.receipt is not None:
            out = {**out, **receipt_fields(ledger.receipt)}
        print_json(out | ({"report_problem": problem} if problem else {}))
        return
    if dry_run:
        for e in entries:
            typer.echo(entry_line("would record", e))
    else:
        print_entries(entries, ledger.receipt)
    if report is not None:
        typer.echo(render(report))
    if problem is not None:
        typer.echo(f"warning: recorded; the ratings report could not be made: {problem}", err=True)


def _print_json(entries: Iterable[LedgerEntry], lines: bool = False) -> None:
    """Entries as a JSON list written as they are read (`lines`: one object a line, --nl)."""
    out = sys.stdout
    if not lines:
        out.write("[")
    written = 0
    for e in entries:
        item = {
            "position": e.position,
            "type": e.type,
            "recorded_at": e.recorded_at,
            "actor": e.actor,
            "aggregate_id": e.aggregate_id,
            "payload": e.payload,
        }
        text = json.dumps(item, ensure_ascii=False)
        out.write(text + "\n" if lines else ("," if written else "") + "\n  " + text)
        written += 1
    if not lines:
        out.write("\n]\n" if written else "]\n")
