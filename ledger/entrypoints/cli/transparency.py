"""The transparency log: `checkpoint`, `prove-inclusion`, `prove-consistency`,
`verify-proof` (offline, no database) and `cosign` (an auditor witnesses a checkpoint)."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer

from ledger.entrypoints.cli.common import Store, reported
from ledger.store import DEFAULT_STORE

CheckpointFile = Annotated[
    Path, typer.Option("--checkpoint", help="A checkpoint you hold (from `checkpoint`)")
]


def register(app: typer.Typer) -> None:
    """Add the transparency log's commands to the `ratings-ledger` app."""
    for command in (checkpoint, prove_inclusion, prove_consistency, verify_proof, cosign):
        app.command(command.__name__.replace("_", "-"))(command)


def checkpoint(store: Store = DEFAULT_STORE) -> None:
    """Print the checkpoint the last write signed: ledger id, size, Merkle root, signatures.
    Keep it: `verify-proof --checkpoint` later shows whether the ledger still extends it."""
    from ledger import transparency
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        found = transparency.latest(ledger)
    typer.echo(found.text(), nl=False)


def prove_inclusion(
    position: Annotated[int, typer.Argument(help="The entry's ledger position")],
    size: Annotated[int | None, typer.Option(help="The tree size (default: all entries)")] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the proof (RFC 9162 §2.1.3) that the entry at POSITION is in the ledger's tree."""
    from ledger import transparency
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        proof = transparency.inclusion(ledger, position, size)
    typer.echo(transparency.dumps({"inclusion": proof}))


def prove_consistency(
    old: Annotated[int, typer.Argument(help="The size of the older checkpoint")],
    new: Annotated[int | None, typer.Argument(help="The newer size (default: all)")] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the proof (RFC 9162 §2.1.4) that the ledger's tree of NEW entries extends OLD."""
    from ledger import transparency
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        proof = transparency.consistency(ledger, old, new)
    typer.echo(transparency.dumps({"consistency": proof}))


def verify_proof(
    proof: Annotated[Path, typer.Argument(help="A proof from prove-inclusion/-consistency")],
    held: CheckpointFile,
    against: Annotated[
        Path | None,
        typer.Option("--new", help="The newer checkpoint (for a consistency proof)"),
    ] = None,
) -> None:
    """Check a proof against checkpoints you hold, offline (no database): an entry's inclusion,
    or that the newer checkpoint extends the one you hold (a rewritten past fails)."""
    from ledger import transparency
    from ledger.checkpoints import Checkpoint, CheckpointError

    with reported():
        try:
            data = json.loads(proof.read_text())
            old = Checkpoint.parse(held.read_text())
            if "inclusion" in data:
                transparency.verify_inclusion(data["inclusion"], old)
                said = f"entry {data['inclusion']['position']} is in the checkpoint of {old.size}"
            elif "consistency" in data and against is not None:
                new = Checkpoint.parse(against.read_text())
                transparency.verify_consistency(old, new, data["consistency"])
                said = f"the checkpoint of {new.size} entries extends the one of {old.size}"
            else:
                raise CheckpointError("give an inclusion proof, or a consistency proof and --new")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CheckpointError(f"cannot read the proof or checkpoint ({exc})") from None
    typer.echo(f"ok: {said}")


def cosign(
    held: Annotated[Path, typer.Argument(help="The checkpoint to witness")],
    actor: Annotated[str, typer.Option(help="The witness (an auditor), with a key")],
    store: Store = DEFAULT_STORE,
) -> None:
    """Witness a checkpoint: check that the ledger's signed head extends it and that its
    writer's signature checks, then print it with ACTOR's cosignature added."""
    from ledger import transparency
    from ledger.checkpoints import Checkpoint, CheckpointError
    from ledger.reading import open_ledger
    from ledger.signing import Keyring

    with reported(), closing(open_ledger(store)) as ledger:
        try:
            found = Checkpoint.parse(held.read_text())
        except OSError as exc:
            raise CheckpointError(f"cannot read {held} ({exc.strerror})") from None
        transparency.witnessed(ledger, found)
        key = Keyring().private_key(actor)
        if key is None:
            raise CheckpointError(f"{actor!r} has no key in the keyring to cosign with")
        signed = found.signed(actor, key)
    typer.echo(signed.text(), nl=False)
