"""Setting the ledger up and who may write to it: `init`, `grant-role`, `revoke-role`; and
the family it rates under by default, `set-family` (issue 30)."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import parse_qs, urlsplit

import typer

from ledger.entrypoints.cli.common import (
    Actor,
    Store,
    print_json,
    receipt_fields,
    reported,
    show_entries,
)
from ledger.entrypoints.cli.writing import AsJson, DryRun
from ledger.roles import Role
from ledger.rules.families import DEFAULT, NAMES
from ledger.store import DEFAULT_STORE, one_line, redacted, require_postgres, store_url

if TYPE_CHECKING:
    from ledger.commands import SetFamily
    from ledger.log import LedgerEntry


Holder = Annotated[str, typer.Argument(help="The actor who gets or loses the role")]
RoleName = Annotated[str, typer.Argument(help=" | ".join(Role))]


FamilyName = Annotated[str, typer.Argument(metavar="FAMILY", help=" | ".join(NAMES))]


def init(
    actor: Annotated[str, typer.Option(help="Who sets the ledger up; they become its director.")],
    family: Annotated[
        str,
        typer.Option(
            metavar="FAMILY",
            help=f"The rules family every command rates under unless told ({' | '.join(NAMES)}); "
            "a director changes it with set-family",
        ),
    ] = DEFAULT,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Set the ledger up, once, with ACTOR as its first director and FAMILY as its federation
    (creating its tables, and on PostgreSQL its schema); ACTOR's key is made in the keyring if
    it has none, and its public key recorded."""
    from ledger.application import RatingsLedger

    with reported():
        federation = _family(family)
        _where_the_store_is(store_url(store))
    if dry_run:
        show_entries(_init_preview(store, actor, federation), True, as_json, None)
        return
    with reported():
        create_schema(store_url(store))
    with reported(), closing(RatingsLedger(store)) as ledger:
        director = ledger.roles.initialize(actor=actor, family=federation)[0].actor
        count = ledger.recorder.max_notification_id() or 0
    if as_json:
        print_json(
            {
                "store": redacted(store),
                "director": director,
                "family": federation.family,
                "entries": count,
                **receipt_fields(ledger.receipt),
            }
        )
        return
    typer.echo(
        f"ledger ready at {redacted(store)}, director {director!r}, family "
        f"{federation.family} ({count} entries)"
    )
    typer.echo(f"receipt {ledger.receipt}")


def _where_the_store_is(store: str) -> None:
    """`init` runs where the store is (issue 32): it makes the store's tables, which a
    server's door does not; StoreError in one line for a server's https://HOST."""
    from ledger.errors import StoreError
    from ledger.evidence.remote import is_remote

    if is_remote(store):
        raise StoreError(
            f"init sets a ledger up where its store is: run it on the server's machine, not "
            f"through {store} (its door writes to a ledger set up)"
        )


def _family(family: str, reason: str | None = None) -> SetFamily:
    """A family given on the command line (an unknown one: InvalidCommand naming the known)."""
    from ledger import commands
    from ledger.commands import SetFamily

    given = {"family": family} | ({"reason": reason} if reason is not None else {})
    return commands.parse(SetFamily, given)


def set_family(
    family: FamilyName,
    actor: Actor,
    reason: Annotated[str | None, typer.Option(help="Why (recorded with it)")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Make FAMILY the rules family every command, export and page of this ledger rates under
    unless told another (directors only; its family already: nothing recorded). Nothing is
    re-rated: each family keeps its own read model."""
    from ledger.application import RatingsLedger

    with reported():
        change = _family(family, reason)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.roles.set_family(change, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def _init_preview(store: str, actor: str, family: SetFamily) -> list[LedgerEntry]:
    """The entries `init` would append, touching nothing: no store, table, schema or key is
    made (a ledger already set up refuses, as `init` would)."""
    import tempfile

    from ledger.application import RatingsLedger
    from ledger.errors import StoreError
    from ledger.reading import open_ledger

    with reported():
        try:
            open_ledger(store).close()
        except StoreError:
            pass
        else:
            with closing(RatingsLedger(store, preview=True, read_only=True)) as existing:
                return existing.roles.initialize(actor=actor, family=family)
        with tempfile.TemporaryDirectory() as empty:
            fresh = f"sqlite:///{Path(empty) / 'preview.db'}"
            with closing(RatingsLedger(fresh, preview=True)) as ledger:
                return ledger.roles.initialize(actor=actor, family=family)


def create_schema(url: str) -> None:
    """Create the schema a PostgreSQL store URL names (`?schema=NAME`) if it does not exist."""
    from ledger.errors import StoreError

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
        raise StoreError(
            f"cannot create schema {schema!r} in {redacted(url)}: {one_line(exc)}"
        ) from None


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
        entries = ledger.roles.grant(holder, role, actor=actor, public_key=public_key)
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
        entries = ledger.roles.revoke(holder, role, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)
