"""The ledger's write verbs and `log`, registered in the order `--help` lists them; here the
verbs that append a file's items (`register`, `opening-balance`, `submit`, `fide-adjust`,
`match`) or change a section (`correct`, `withdraw`, `reinstate`, `review`).

The others live by concern: `admin` (`init`, roles), `decisions`, `publishing`, `log`; what
they share (options, the report of a write) in `writing`.

Bad input exits 2, a conflict with other writers 3, an unusable store 1, a write the actor's
roles do not allow (or any write to a ledger never set up with `init --actor NAME`) 4; each with
one line on stderr and nothing appended.
"""

from __future__ import annotations

from contextlib import closing
from typing import Annotated

import typer

from ledger.entrypoints.cli.admin import grant_role, init, revoke_role, set_family
from ledger.entrypoints.cli.common import Actor, Store, reported
from ledger.entrypoints.cli.decisions import (
    amend_rules,
    award_money_floor,
    fide_uplift,
    merge_players,
    override,
    revoke_override,
    set_aside,
    void,
)
from ledger.entrypoints.cli.log import log
from ledger.entrypoints.cli.publishing import publish_list
from ledger.entrypoints.cli.writing import (
    AsJson,
    DryRun,
    JsonFile,
    Reason,
    SectionId,
    ViewOption,
    _append_file,
    _report,
    corrected,
)
from ledger.store import DEFAULT_STORE


def register(app: typer.Typer) -> None:
    """Add the ledger's commands to the `ratings-ledger` app."""
    app.command("init")(init)
    app.command("register")(register_players)
    app.command("opening-balance")(opening_balance)
    app.command("submit")(submit)
    app.command("correct")(correct)
    app.command("withdraw")(withdraw)
    app.command("reinstate")(reinstate)
    app.command("review")(review)
    app.command("fide-adjust")(fide_adjust)
    app.command("award-money-floor")(award_money_floor)
    app.command("fide-uplift")(fide_uplift)
    app.command("match")(match)
    app.command("override")(override)
    app.command("revoke-override")(revoke_override)
    app.command("amend-rules")(amend_rules)
    app.command("publish-list")(publish_list)
    app.command("void")(void)
    app.command("set-aside")(set_aside)
    app.command("merge-players")(merge_players)
    app.command("grant-role")(grant_role)
    app.command("revoke-role")(revoke_role)
    app.command("set-family")(set_family)
    app.command("log")(log)


def register_players(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Register players from a player file; a registered player's changed fields are updated."""
    from ledger.commands import RegisterPlayer

    _append_file(
        file, RegisterPlayer, lambda app: app.players.register, actor, store, dry_run, as_json, view
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
    from ledger.commands import RecordOpeningBalance

    _append_file(
        file,
        RecordOpeningBalance,
        lambda app: app.players.record_opening_balance,
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
    from ledger.commands import SubmitSection

    _append_file(
        file, SubmitSection, lambda app: app.sections.submit, actor, store, dry_run, as_json, view
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
    from ledger.errors import InvalidCommand

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
            entries, changes = corrected(ledger, sections[0], reason, actor)
            _report(ledger, store, view, entries, dry_run, as_json, changes=changes)


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
        entries = ledger.sections.withdraw(section_id, reason=reason, actor=actor)
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
        entries = ledger.sections.reinstate(section_id, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def review(
    section_id: SectionId,
    actor: Actor,
    note: Annotated[
        str | None, typer.Option(help="What the office found; recorded with the review.")
    ] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record the office's review of a section a tournament director uploaded: it leaves
    `requests` (issue 32); its ratings do not change."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.sections.review(section_id, note=note, actor=actor)
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
    from ledger.commands import SubmitFideAdjustment

    _append_file(
        file,
        SubmitFideAdjustment,
        lambda app: app.decisions.submit_fide_adjustment,
        actor,
        store,
        dry_run,
        as_json,
        view,
    )


def match(
    file: JsonFile,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Submit matches from a match file."""
    from ledger.commands import SubmitMatch

    _append_file(
        file,
        SubmitMatch,
        lambda app: app.sections.submit_match,
        actor,
        store,
        dry_run,
        as_json,
        view,
    )
