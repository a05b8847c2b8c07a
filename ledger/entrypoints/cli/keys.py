"""`ratings-ledger keys new NAME` and `keys show NAME`: an actor's Ed25519 key pair in the
keyring."""

from __future__ import annotations

from typing import Annotated

import typer

from ledger.entrypoints.cli.common import missing, reported

keys = typer.Typer(help="Actors' signing keys (the keyring: $RATINGS_LEDGER_KEYRING).")


def register(app: typer.Typer) -> None:
    """Add `keys` to the `ratings-ledger` app."""
    app.add_typer(keys, name="keys")


@keys.command("new")
def new(name: Annotated[str, typer.Argument(help="The actor the key is for")]) -> None:
    """Make NAME's key pair in the keyring (never overwriting one) and print its public key,
    for a director's `grant-role NAME ROLE --public-key KEY`."""
    from ledger import commands
    from ledger.evidence import Keyring
    from ledger.evidence.signing import public_text

    with reported():
        key = Keyring().create(commands.actor(name))
    typer.echo(public_text(key))


@keys.command("show")
def show(name: Annotated[str, typer.Argument(help="The actor whose key it is")]) -> None:
    """Print NAME's public key again, from the keyring (exit 1 if it holds none)."""
    from ledger import commands
    from ledger.evidence import Keyring

    ring = Keyring()
    with reported():
        key = ring.public_key(commands.actor(name))
    if key is None:
        missing(f"no key for {name!r} in the keyring {ring.path} (`keys new {name}` makes one)")
    typer.echo(key)
