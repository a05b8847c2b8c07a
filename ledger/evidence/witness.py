"""A stateful witness, as in the transparency-log witness protocols (C2SP tlog-witness): an
auditor whose key the ledger grants cosigns a checkpoint only if it extends the last one it
cosigned of that ledger, and remembers what it cosigned; anyone holding two cosigned
checkpoints of one ledger can show that they do not extend each other (`split_views`).

The witness's state is a JSON file of its own (default beside its keyring, NAME.witness.json):
for each ledger id, the last checkpoint it cosigned. It is read and replaced under an exclusive
lock, written whole to a new file and renamed over the old one, so two cosigns never both pass
the check against the same last checkpoint and a crash leaves the old state or the new.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import combinations, product
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.errors import InvalidCommand, LedgerError
from ledger.evidence import transparency
from ledger.evidence.checkpoints import Checkpoint, CheckpointError
from ledger.evidence.reads import verifier_at
from ledger.evidence.signing import KeyRefused, Keyring, public_text
from ledger.inputs import read_text
from ledger.log import HasRecorder
from ledger.roles import Role

STATE = "ratings-ledger witness state 1"


class WitnessRefused(LedgerError):
    """A checkpoint a witness will not cosign: a split view, a rollback, or unreadable state."""


def state_path(keyring: Keyring, actor: str) -> Path:
    """Where `actor` keeps its witness state by default: beside its key."""
    return keyring.path / f"{quote(actor, safe='')}.witness.json"


@contextmanager
def held_state(path: Path) -> Iterator[dict[str, Any]]:
    """The witness state at `path`, locked against another cosign until the block ends
    (`save` replaces it). A state that cannot be read is refused, never started afresh: a
    witness that forgot what it cosigned would cosign a split view."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield _read(path)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {"state": STATE, "ledgers": {}}
    try:
        state = json.loads(read_text(path, "json"))  # refused by its size first
    except InvalidCommand as exc:
        raise WitnessRefused(f"the witness state {exc.message}") from None
    except ValueError as exc:
        raise WitnessRefused(f"cannot read the witness state {path} ({exc})") from None
    if not isinstance(state, dict) or state.get("state") != STATE:
        raise WitnessRefused(f"{path} is not a witness state (expected {STATE!r})")
    if not isinstance(state.get("ledgers"), dict):
        raise WitnessRefused(f"{path} holds no ledgers (the witness state was altered)")
    return state


def save(path: Path, state: dict[str, Any]) -> None:
    """Replace the state at `path` atomically (a new file written and synced, renamed over)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as out:
            out.write(json.dumps(state, indent=2, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise WitnessRefused(f"cannot write the witness state {path}: {exc.strerror}") from None


def last_cosigned(state: dict[str, Any], ledger: str) -> Checkpoint | None:
    """The last checkpoint of `ledger` the state records as cosigned."""
    held = state["ledgers"].get(ledger)
    if held is None:
        return None
    try:
        return Checkpoint.parse(held["checkpoint"])
    except (CheckpointError, KeyError, TypeError):
        raise WitnessRefused(
            f"the witness state's checkpoint of ledger {ledger} is unreadable"
        ) from None


def extends(last: Checkpoint, new: Checkpoint, proof: dict[str, Any] | None) -> None:
    """WitnessRefused unless `new` extends `last` (the one cosigned before): a smaller size is
    a rollback; the same size with another root, or a consistency proof that fails, a split
    view."""
    if new.size < last.size:
        raise WitnessRefused(
            f"rollback: the checkpoint holds {new.size} entries, fewer than the {last.size} of "
            "the last one cosigned of this ledger"
        )
    if new.size == last.size:
        if new.root != last.root:
            raise WitnessRefused(
                f"split view: the checkpoint of {new.size} entries has root {new.root[:16]}…, "
                f"the one cosigned before of the same size {last.root[:16]}…"
            )
        return
    try:
        transparency.verify_consistency(last, new, proof or {})
    except CheckpointError as exc:
        raise WitnessRefused(
            f"split view: the checkpoint of {new.size} entries does not extend the one of "
            f"{last.size} cosigned before ({exc})"
        ) from None


def granted_key(ledger: HasRecorder, actor: str, key: Ed25519PrivateKey) -> None:
    """KeyRefused unless the verified log grants `actor` the auditor role with this key."""
    head = ledger.recorder.max_notification_id() or 0
    held = verifier_at(ledger, head)
    if Role.AUDITOR not in held.roles.get(actor, ()):
        raise KeyRefused(f"{actor!r} is not an auditor of this ledger; an auditor witnesses")
    if held.keys.get(actor) != public_text(key):
        raise KeyRefused(
            f"the ledger holds no key or another key for {actor!r}: a director grants the "
            "witness its key (grant-role NAME auditor --public-key KEY)"
        )


def cosign(
    ledger: HasRecorder,
    checkpoint: Checkpoint,
    actor: str,
    key: Ed25519PrivateKey,
    path: Path,
    proof: dict[str, Any] | None = None,
) -> Checkpoint:
    """`checkpoint` cosigned by `actor`, its state at `path` updated: only once its writer's
    signature checks against the key the verified log holds for the writer, the ledger grants
    `actor` this key, and `checkpoint` extends the last one `actor` cosigned of the ledger
    (through `proof`, else a consistency proof computed from the store)."""
    granted_key(ledger, actor, key)
    transparency.witnessed(ledger, checkpoint)
    with held_state(path) as state:
        last = last_cosigned(state, checkpoint.ledger)
        if last is not None:
            if proof is None and last.size < checkpoint.size:
                proof = transparency.consistency(ledger, last.size, checkpoint.size)
            extends(last, checkpoint, proof)
        signed = checkpoint.signed(actor, key)
        state["ledgers"][checkpoint.ledger] = {
            "size": signed.size,
            "root": signed.root,
            "checkpoint": signed.text(),
            "cosigned_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        save(path, state)
    return signed


def split_views(
    held: Sequence[tuple[str, Checkpoint]],
    proof_for: Callable[[int, int], dict[str, Any] | None],
) -> list[str]:
    """Each pair of the named checkpoints `held` that do not extend each other, as a sentence:
    the same size with different roots, or neighbouring sizes whose consistency proof
    (`proof_for(old, new)`) fails. Extension is transitive, so neighbours suffice."""
    ledgers = sorted({c.ledger for _, c in held})
    if len(ledgers) > 1:
        raise InvalidCommand((), f"the checkpoints are of {len(ledgers)} ledgers: {ledgers}")
    sizes: dict[int, dict[str, tuple[str, Checkpoint]]] = {}
    for name, checkpoint in held:
        sizes.setdefault(checkpoint.size, {}).setdefault(checkpoint.root, (name, checkpoint))
    found = [
        f"split view: {a[0]} and {b[0]} both hold {a[1].size} entries, with roots "
        f"{a[1].root[:16]}… and {b[1].root[:16]}…"
        for roots in sizes.values()
        for a, b in combinations(roots.values(), 2)
    ]
    ordered = sorted(sizes)
    for small, big in zip(ordered, ordered[1:], strict=False):
        proof = proof_for(small, big)
        if proof is None:
            raise InvalidCommand(
                (), f"no consistency proof from {small} to {big} entries: give --proof or --store"
            )
        for (old_name, old), (new_name, new) in product(sizes[small].values(), sizes[big].values()):
            try:
                transparency.verify_consistency(old, new, proof)
            except CheckpointError as exc:
                found.append(f"split view: {new_name} does not extend {old_name} ({exc})")
    return found
