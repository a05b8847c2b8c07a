"""The transparency log: `checkpoint`, `prove-inclusion`, `prove-consistency`,
`verify-proof` (offline, no database, against keys the verifier trusts), `trusted-keys` (a
trust file from a verified ledger), `cosign` (a stateful witness) and `split-view`."""

from __future__ import annotations

import json
from contextlib import closing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import Store, fail, reported
from ledger.errors import InvalidCommand
from ledger.inputs import read_text
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.evidence import Checkpoint
    from ledger.evidence.trust import TrustedKeys

CheckpointFile = Annotated[
    Path, typer.Option("--checkpoint", help="A checkpoint you hold (from `checkpoint`)")
]
TrustFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--trusted", help="A trust file you hold (`trusted-keys` of a ledger you verified)"
    ),
]
WriterKeys = Annotated[
    list[str] | None,
    typer.Option("--key", metavar="NAME=HEX", help="A writer's public key you trust"),
]
WitnessKeys = Annotated[
    list[str] | None,
    typer.Option("--witness", metavar="NAME=HEX", help="A witness's public key you trust"),
]
CosignedBy = Annotated[
    list[str] | None,
    typer.Option("--cosigned-by", metavar="NAME", help="Require this witness's cosignature"),
]


def register(app: typer.Typer) -> None:
    """Add the transparency log's commands to the `ratings-ledger` app."""
    for command in (
        checkpoint,
        prove_inclusion,
        prove_consistency,
        verify_proof,
        trusted_keys,
        cosign,
        split_view,
    ):
        app.command(command.__name__.replace("_", "-"))(command)


def trust_of(
    files: list[Path] | None, writers: list[str] | None, witnesses: list[str] | None
) -> TrustedKeys:
    """The keys the verifier trusts, from `--trusted`, `--key` and `--witness` (at least one
    writer's key, or InvalidCommand)."""
    from ledger.evidence import trust

    texts = []
    for path in files or ():
        try:
            texts.append((str(path), read_text(path, "key")))
        except InvalidCommand as exc:
            raise InvalidCommand((), f"--trusted {exc.message}") from None
    return trust.load(texts, writers or (), witnesses or ())


def read_checkpoint(path: Path) -> Checkpoint:
    """The checkpoint in the file at `path` (CheckpointError if unreadable)."""
    from ledger.evidence import Checkpoint, CheckpointError

    try:
        return Checkpoint.parse(read_text(path, "key"))
    except InvalidCommand as exc:
        raise CheckpointError(f"the checkpoint {exc.message}") from None


def trusted_checkpoint(
    path: Path, trust: TrustedKeys, cosigned_by: list[str] | None
) -> tuple[Checkpoint, str]:
    """The checkpoint in the file at `path`, and who signed it once its writer's signature
    (and each `--cosigned-by` witness's) checks against the keys the verifier trusts."""
    found = read_checkpoint(path)
    return found, trust.check(found, cosigned_by or ())


def read_proof(path: Path, *kinds: str) -> tuple[str, dict[str, Any]]:
    """The first of `kinds` of proof ("inclusion", "consistency") the file at `path` holds."""
    from ledger.evidence import CheckpointError

    try:
        data = json.loads(read_text(path, "json"))
    except InvalidCommand as exc:
        raise CheckpointError(f"the proof {exc.message}") from None
    except ValueError as exc:
        raise CheckpointError(f"cannot read the proof {path} ({exc})") from None
    for kind in kinds:
        if isinstance(data, dict) and isinstance(data.get(kind), dict):
            return kind, data[kind]
    raise CheckpointError(f"{path} holds no {' or '.join(kinds)} proof (from prove-{kinds[0]})")


def checkpoint(store: Store = DEFAULT_STORE) -> None:
    """Print the checkpoint the last write signed: ledger id, size, Merkle root, signatures.
    Keep it: `verify-proof --checkpoint` later shows whether the ledger still extends it."""
    from ledger.evidence import transparency
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
    from ledger.evidence import transparency
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        proof = transparency.inclusion(ledger, position, size)
    typer.echo(transparency.dumps({"inclusion": proof}))


def prove_consistency(
    old: Annotated[
        str, typer.Argument(help="The older checkpoint's size, or the checkpoint file you hold")
    ],
    new: Annotated[int | None, typer.Argument(help="The newer size (default: all)")] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the proof (RFC 9162 §2.1.4) that the ledger's tree of NEW entries extends OLD."""
    from ledger.evidence import transparency
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        size = int(old) if old.isascii() and old.isdigit() else read_checkpoint(Path(old)).size
        proof = transparency.consistency(ledger, size, new)
    typer.echo(transparency.dumps({"consistency": proof}))


def verify_proof(
    proof: Annotated[Path, typer.Argument(help="A proof from prove-inclusion/-consistency")],
    held: CheckpointFile,
    against: Annotated[
        Path | None,
        typer.Option("--new", help="The newer checkpoint (for a consistency proof)"),
    ] = None,
    trusted: TrustFiles = None,
    key: WriterKeys = None,
    witness: WitnessKeys = None,
    cosigned_by: CosignedBy = None,
) -> None:
    """Check a proof against checkpoints you hold, offline (no database): each checkpoint
    signed by a writer whose key you trust (--trusted/--key), then an entry's inclusion, or
    that the newer checkpoint extends the one you hold (a rewritten past fails)."""
    from ledger.evidence import CheckpointError, transparency

    with reported():
        trust = trust_of(trusted, key, witness)
        kind, found = read_proof(proof, "inclusion", "consistency")
        old, signed = trusted_checkpoint(held, trust, cosigned_by)
        try:
            if kind == "inclusion":
                transparency.verify_inclusion(found, old)
                said = f"entry {found['position']} is in the checkpoint of {old.size}"
            elif against is not None:
                new, signed = trusted_checkpoint(against, trust, cosigned_by)
                transparency.verify_consistency(old, new, found)
                said = f"the checkpoint of {new.size} entries extends the one of {old.size}"
            else:
                raise CheckpointError("a consistency proof needs the newer checkpoint: --new FILE")
        except (ValueError, KeyError, TypeError) as exc:
            raise CheckpointError(f"the proof {proof} is malformed ({exc!r})") from None
    typer.echo(f"ok: {said} ({signed})")


def trusted_keys(store: Store = DEFAULT_STORE) -> None:
    """Verify the whole ledger (as `verify`), then print the keys it holds at its head as a
    trust file: keep it, and give it to the offline checks (`verify-proof`, `verify-rating`,
    `split-view`) as --trusted FILE."""
    from ledger.evidence import transparency, trust, verify
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        found = verify(ledger, keys_at=ledger.recorder.max_notification_id() or 0)
        if found.broken is not None:
            fail(1, f"chain broken at position {found.broken.position}: {found.broken.reason}")
        ledger_id = transparency.latest(ledger).ledger
    typer.echo(trust.render(ledger_id, str(found.head), found.keys, found.roles), nl=False)


def cosign(
    held: Annotated[Path, typer.Argument(help="The checkpoint to witness")],
    actor: Annotated[str, typer.Option(help="The witness: an auditor the ledger grants a key")],
    state: Annotated[
        Path | None,
        typer.Option(help="The witness's state file (default: ACTOR.witness.json in its keyring)"),
    ] = None,
    proof: Annotated[
        Path | None,
        typer.Option(
            help="A consistency proof from the last checkpoint cosigned (default: the store's)"
        ),
    ] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Witness a checkpoint: its writer's signature checks against the key the verified log
    holds for the writer, ACTOR's key is the one the ledger grants them, and it extends the
    last checkpoint ACTOR cosigned of this ledger (else "split view" or "rollback", nothing
    cosigned); print it with ACTOR's cosignature added and remember it."""
    from ledger.evidence import Keyring, witness
    from ledger.evidence.signing import KeyRefused
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        found = read_checkpoint(held)
        given = read_proof(proof, "consistency")[1] if proof is not None else None
        keyring = Keyring()
        key = keyring.private_key(actor)
        if key is None:
            raise KeyRefused(
                f"{actor!r} has no key in the keyring {keyring.path} to cosign with: a witness "
                f"makes one (`ratings-ledger keys new {actor}`) and a director grants it "
                f"(`grant-role {actor} auditor --public-key KEY`)"
            )
        path = state or witness.state_path(keyring, actor)
        signed = witness.cosign(ledger, found, actor, key, path, given)
    typer.echo(signed.text(), nl=False)


def split_view(
    checkpoints: Annotated[list[Path], typer.Argument(help="Checkpoints of one ledger")],
    proof: Annotated[
        list[Path] | None,
        typer.Option("--proof", help="A consistency proof between two of their sizes"),
    ] = None,
    store: Annotated[
        str | None, typer.Option(help="A store to compute the missing consistency proofs from")
    ] = None,
    trusted: TrustFiles = None,
    key: WriterKeys = None,
    witness: WitnessKeys = None,
    cosigned_by: CosignedBy = None,
) -> None:
    """Show whether cosigned checkpoints of one ledger extend each other (anyone can run it):
    each signed by a writer you trust, then any two of one size with different roots, or of
    two sizes whose consistency proof fails, are a split view (exit 1)."""
    from ledger.evidence import transparency
    from ledger.evidence.witness import split_views
    from ledger.reading import open_ledger

    with reported():
        trust = trust_of(trusted, key, witness)
        held, lines = [], []
        for path in checkpoints:
            found, signed = trusted_checkpoint(path, trust, cosigned_by)
            lines.append(f"{path}: {found.size} entries, {signed}")
            held.append((str(path), found))
        given = {}
        for path in proof or ():
            _, consistency = read_proof(path, "consistency")
            given[consistency.get("old_size"), consistency.get("new_size")] = consistency
        with closing(open_ledger(store)) if store else nullcontext() as ledger:

            def proof_for(old: int, new: int) -> dict[str, Any] | None:
                if (old, new) in given or ledger is None:
                    return given.get((old, new))
                return transparency.consistency(ledger, old, new)

            splits = split_views(held, proof_for)
    for line in lines + splits:
        typer.echo(line)
    if splits:
        fail(1, f"split view: {len(splits)} pair(s) of checkpoints do not extend each other")
    typer.echo(f"ok: the {len(held)} checkpoints extend each other")
