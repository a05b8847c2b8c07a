"""`publish-list`: record a federation's published rating list, then commit its ratings."""

from __future__ import annotations

from contextlib import closing
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import (
    Actor,
    Store,
    entries_json,
    print_entries,
    print_json,
    receipt_fields,
    reported,
    rules_family,
    show_entries,
)
from ledger.entrypoints.cli.proofs import NotReadView, not_read
from ledger.entrypoints.cli.writing import AsJson, DryRun, _number
from ledger.rules.families import NAMES as FAMILIES
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.application import RatingsLedger


def publish_list(
    name: Annotated[str, typer.Option(help="The list's name, unique in its family")],
    as_of: Annotated[str, typer.Option(help="The list's as-of date (YYYY-MM-DD)")],
    actor: Actor,
    family: Annotated[
        str | None,
        typer.Option(help=f"{' | '.join(FAMILIES)} (default: the ledger's own, `init --family`)"),
    ] = None,
    cutoff_position: Annotated[
        str | None,
        typer.Option(help="Last ledger position it takes items from (default: the last now)"),
    ] = None,
    store: Store = DEFAULT_STORE,
    view: NotReadView = None,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Record that a federation published a rating list of a rules family, then commit its
    ratings (the Merkle root over its rows, replayed from the verified log)."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import PublishList
    from ledger.rules.families import family as family_named

    not_read(view)
    data: dict[str, object] = {"family": rules_family(store, family), "name": name, "as_of": as_of}
    if cutoff_position is not None:
        data["cutoff_position"] = _number(cutoff_position)
    with reported():
        publication = commands.parse(PublishList, data)
        note = family_named(publication.family).off_schedule(publication.as_of)
        if note is not None:  # recorded all the same: the as-of date is the office's cut-off
            typer.echo(f"warning: {note}", err=True)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.lists.publish(publication, actor=actor)
            if dry_run or as_json:
                show_entries(entries, dry_run, as_json, ledger.receipt)
            else:
                print_entries(entries, ledger.receipt)
            if dry_run:
                if not as_json:
                    typer.echo("would then commit its ratings (ListRatingsCommitted)")
                return
            _commit_ratings(ledger, publication.family, publication.name, actor, as_json)


def _commit_ratings(
    ledger: RatingsLedger,
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
        entries = commit(ledger, family, name, actor)
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
