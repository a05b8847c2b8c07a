"""A rating anyone can verify: `commit-list` (a published list's rows under a Merkle root),
`prove PLAYER --list NAME` (a proof bundle) and `verify-rating` (offline, no database)."""

from __future__ import annotations

import json
from contextlib import closing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ledger.entrypoints.cli.common import (
    Actor,
    AsJson,
    Family,
    Store,
    ViewPath,
    fail,
    reported,
    rules_family,
    show_entries,
    system_name,
)
from ledger.entrypoints.cli.transparency import (
    CheckpointFile,
    CosignedBy,
    TrustFiles,
    WitnessKeys,
    WriterKeys,
    trust_of,
    trusted_checkpoint,
)
from ledger.errors import InvalidCommand, LedgerError
from ledger.store import DEFAULT_STORE, view_path

if TYPE_CHECKING:
    from ledger.application import RatingsLedger
    from ledger.log import LedgerEntry

ListName = Annotated[str, typer.Option("--list", help="The published list's name")]
NotReadView = Annotated[
    Path | None,
    typer.Option(
        "--view",
        help="Not read: a list's rows are replayed from the verified log (accepted, with a "
        "warning, for scripts written before issue 28)",
    ),
]


def not_read(view: Path | None) -> None:
    """Say that a `--view` given to a list's commitment is not read (issue 28)."""
    if view is not None:
        typer.echo(
            f"warning: --view {view} is not read: a list's rows are replayed from the verified log",
            err=True,
        )


def register(app: typer.Typer) -> None:
    """Add `commit-list`, `prove` and `verify-rating` to the `ratings-ledger` app."""
    app.command("commit-list")(commit_list)
    app.command("prove")(prove)
    app.command("verify-rating")(verify_rating)


def commit(ledger: RatingsLedger, family: str, name: str, actor: str) -> list[LedgerEntry]:
    """Commit the rows of the published list `name`: replayed from the verified log up to its
    cutoff, with the lists published up to it (never a read model a folder holds or an actor
    names: docs/decisions.md, issue 28)."""
    from projections import proofs, queries
    from projections.timetravel import list_from_log

    listed = {x.name: x for x in ledger.lists.published(family)}
    if name not in listed:
        raise InvalidCommand(("name",), f"{family} has no published list {name!r}")
    with list_from_log(ledger, family, name, listed[name].cutoff) as past:
        found = queries.published_list(past, name)
        if found is None or found.cutoff_position != listed[name].cutoff:
            raise LedgerError(
                f"the {family} list {name!r} of the verified log is not the one its record "
                "names: run `ratings-ledger verify`"
            )
        tree = proofs.commitment(past, found)
    return ledger.lists.commit_ratings(family, name, tree.size, tree.root(), actor=actor)


def commit_list(
    name: ListName,
    actor: Actor,
    family: Family = None,
    store: Store = DEFAULT_STORE,
    view: NotReadView = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would change; append nothing")
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Commit a published list's ratings: the Merkle root over its rows, recorded once
    (`publish-list` does it; this is for a list published before, or when that step failed),
    replayed from the verified log."""
    from ledger.application import RatingsLedger

    not_read(view)
    family = rules_family(store, family)
    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = commit(ledger, family, name, actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def prove(
    player: Annotated[str, typer.Argument(help="The player's member id")],
    name: ListName,
    system: Annotated[
        str | None, typer.Option("--system", help="Rating system (default: the family's own)")
    ] = None,
    family: Family = None,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
) -> None:
    """Print a proof bundle for PLAYER's row on a published list: the entries behind it with
    inclusion proofs, his and his opponents' rows on the previous list, the rule version;
    `verify-rating` checks it offline."""
    from ledger.rules.families import known
    from projections import proofs, queries
    from projections.session import ReadSession

    family = rules_family(store, family)
    system = system_name(system) if system else getattr(known(family), "list_system", None)
    if system is None:
        fail(2, f"--system: give the rating system of the {family} list")
    with (
        reported(),
        closing(ReadSession.open(store, view_path(store, view, family), family)) as session,
        session.at() as now,
    ):
        lists = [x.name for x in queries.published_lists(now.view, family)]
        if name not in lists:
            fail(1, f"no {family} list named {name!r} has been published")
        previous = lists[lists.index(name) - 1] if lists.index(name) else None
        with (
            session.at(list=name) as at_list,
            session.at(list=previous) if previous else nullcontext() as before,
        ):
            earlier = None if before is None else before.view
            bundle = proofs.make_bundle(session.ledger, at_list.view, earlier, name, player, system)
    if rerated := (bundle["previous"] or {}).get("rerated"):
        typer.echo(
            f"warning: {name!r} was rated from history re-rated after {previous!r} was "
            f"committed ({', '.join(rerated)}): verify-rating cannot recompute it from the "
            "rows that list committed",
            err=True,
        )
    typer.echo(json.dumps(bundle, indent=1, sort_keys=True))


def verify_rating(
    bundle: Annotated[Path, typer.Argument(help="A bundle from `prove`")],
    held: CheckpointFile,
    trusted: TrustFiles = None,
    key: WriterKeys = None,
    witness: WitnessKeys = None,
    cosigned_by: CosignedBy = None,
) -> None:
    """Check a rating proof bundle against a checkpoint you hold, offline (no database): the
    checkpoint signed by a writer whose key you trust (--trusted/--key), the entries in the
    ledger, the row under the list's committed root, and the rating recomputed from the games
    and the previous list's rows."""
    from ledger.inputs import read_text
    from projections.proof_check import verify_bundle
    from projections.proofs import BundleError

    with reported():
        trust = trust_of(trusted, key, witness)
        checkpoint, signed = trusted_checkpoint(held, trust, cosigned_by)
        text = read_text(bundle, "json")
        try:
            data = json.loads(text)
        except (OSError, ValueError) as exc:
            raise BundleError(f"cannot read the bundle {bundle} ({exc})") from None
        said = verify_bundle(data, checkpoint)
    if not said["recomputed"]:
        typer.echo(
            f"ok: {said['player']}'s {said['system']} row on {said['list']!r} is "
            f"{said['official_rating']}, committed under checkpoint {said['checkpoint_size']} "
            f"{signed} (not recomputed: {said['why_not_recomputed']})"
        )
        return
    rating = said["official_rating"]
    shown = f"is {rating}" if rating is not None else "publishes no rating yet"
    typer.echo(
        f"ok: {said['player']}'s {said['system']} row on {said['list']!r} {shown}: recomputed "
        f"from {said['items']} items and the previous list, committed under checkpoint "
        f"{said['checkpoint_size']} {signed}"
    )
