"""The ledger as a transparency log (RFC 9162 in spirit): its signed checkpoints, inclusion
proofs for entries and consistency proofs between checkpoints, read from the stored tree
(ledger/evidence/tree.py) and checkable by anyone without the database (`verify_*`)."""

from __future__ import annotations

import json
from typing import Any

from ledger.evidence import merkle
from ledger.evidence.checkpoints import V2, V3, Checkpoint, CheckpointError
from ledger.evidence.reads import signature_at, tree_reader, verifier_at, write_start
from ledger.evidence.tree import TreeMismatch
from ledger.log import HasRecorder


def latest(ledger: HasRecorder) -> Checkpoint:
    """The checkpoint the last write signed, with its signature."""
    with tree_reader(ledger) as tree:
        size = tree.size()
        if size == 0:
            raise CheckpointError("the ledger signs no checkpoint yet (no write since trees)")
        position = tree.position_of(size - 1)
        root = merkle.root(tree.node, size).hex()
        ledger_id = tree.first_identity() or ""
        last = tree.message_at(position or 0) or b""
    if not last:
        raise CheckpointError(
            f"the ledger's tree holds {size} entries but there is no entry at position "
            f"{position}: the store was changed outside the ledger (run verify)"
        )
    signature = signature_at(ledger, position or 0)
    if signature[:1] not in (V2, V3) or len(signature) != 65:
        raise CheckpointError(f"the write ending at position {position} signed no checkpoint")
    at = position if signature[:1] == V3 else None
    checkpoint = Checkpoint(ledger_id, size, root, (), at)
    return checkpoint.with_signature(_actor(last), signature[1:])


def inclusion(ledger: HasRecorder, position: int, size: int | None = None) -> dict[str, Any]:
    """The proof that the entry at `position` is in the tree of `size` entries (default: all)."""
    with tree_reader(ledger) as tree:
        size = tree.size() if size is None else size
        index = tree.leaf_of(position)
        if index is None or not 0 <= index < size:
            raise CheckpointError(f"no entry at position {position} in a tree of {size}")
        try:
            proof = merkle.inclusion_proof(tree.node, index, size)
            root = merkle.root(tree.node, size)
        except TreeMismatch as exc:
            raise CheckpointError(f"the stored tree is incomplete ({exc})") from None
        ledger_id = tree.first_identity() or ""
        data = tree.message_at(position) or b""
    return {
        "ledger": ledger_id,
        "position": position,
        "leaf_index": index,
        "tree_size": size,
        "leaf": data.decode("utf-8", "replace"),
        "root": root.hex(),
        "proof": [p.hex() for p in proof],
    }


def consistency(ledger: HasRecorder, old: int, new: int | None = None) -> dict[str, Any]:
    """The proof that the tree of `new` entries (default: all) extends the tree of `old`."""
    with tree_reader(ledger) as tree:
        new = tree.size() if new is None else new
        if not 0 < old <= new <= tree.size():
            raise CheckpointError(f"no consistency proof from {old} to {new} entries")
        proof = merkle.consistency_proof(tree.node, old, new)
        roots = merkle.root(tree.node, old), merkle.root(tree.node, new)
        ledger_id = tree.first_identity() or ""
    return {
        "ledger": ledger_id,
        "old_size": old,
        "new_size": new,
        "old_root": roots[0].hex(),
        "new_root": roots[1].hex(),
        "proof": [p.hex() for p in proof],
    }


def verify_inclusion(proof: dict[str, Any], checkpoint: Checkpoint) -> None:
    """CheckpointError unless `proof` places its entry in `checkpoint`'s tree (offline)."""
    if proof.get("ledger") != checkpoint.ledger:
        raise CheckpointError(
            f"the proof is for ledger {proof.get('ledger')}; the checkpoint is of ledger "
            f"{checkpoint.ledger}"
        )
    if proof.get("tree_size") != checkpoint.size:
        raise CheckpointError(
            f"the proof is for a tree of {proof.get('tree_size')} entries; the checkpoint "
            f"holds {checkpoint.size}"
        )
    leaf = merkle.leaf_hash(str(proof["leaf"]).encode())
    path = [bytes.fromhex(p) for p in proof["proof"]]
    root = bytes.fromhex(checkpoint.root)
    if not merkle.verify_inclusion(leaf, int(proof["leaf_index"]), checkpoint.size, path, root):
        raise CheckpointError(
            f"the entry at position {proof.get('position')} is not in the checkpoint's tree"
        )


def verify_consistency(old: Checkpoint, new: Checkpoint, proof: dict[str, Any]) -> None:
    """CheckpointError unless `new` extends `old` (anyone holding `old` detects a rewritten
    past this way)."""
    if old.ledger != new.ledger:
        raise CheckpointError(
            f"the two checkpoints are of different ledgers ({old.ledger}, {new.ledger})"
        )
    if old.size > new.size:
        raise CheckpointError(
            f"the newer checkpoint holds {new.size} entries, fewer than the {old.size} of the "
            "one you hold (give the older one as --checkpoint)"
        )
    if proof.get("ledger", old.ledger) != old.ledger:
        raise CheckpointError(
            f"the proof is for ledger {proof.get('ledger')}; the checkpoints are of ledger "
            f"{old.ledger}"
        )
    sizes = proof.get("old_size", old.size), proof.get("new_size", new.size)
    if sizes != (old.size, new.size):
        raise CheckpointError(
            f"the proof is from a tree of {sizes[0]} entries to one of {sizes[1]}; the "
            f"checkpoints hold {old.size} and {new.size}"
        )
    path = [bytes.fromhex(p) for p in proof.get("proof", [])]
    if not merkle.verify_consistency(
        old.size, new.size, bytes.fromhex(old.root), bytes.fromhex(new.root), path
    ):
        raise CheckpointError(
            f"the ledger of {new.size} entries does not extend the checkpoint of {old.size} "
            "you hold: its past was rewritten"
        )


def witnessed(ledger: HasRecorder, held: Checkpoint) -> None:
    """What a witness checks of the store before cosigning `held`: the ledger's head extends
    it, and it carries its writer's signature, checked against the key the verified log gave
    the writer just before that write. CheckpointError otherwise. (What it checks against its
    own memory is `ledger.evidence.witness.cosign`'s.)"""
    head = latest(ledger)
    verify_consistency(held, head, consistency(ledger, held.size, head.size))
    with tree_reader(ledger) as tree:
        position = tree.position_of(held.size - 1) or 0
        writer = _actor(tree.message_at(position) or b"")
    stored = signature_at(ledger, position)
    if stored[:1] != held.prefix or (writer, stored[1:].hex()) not in held.signatures:
        raise CheckpointError(
            f"the checkpoint of size {held.size} does not carry its writer {writer!r}'s "
            "signature as the ledger holds it"
        )
    key = verifier_at(ledger, write_start(ledger, position - 1)).keys.get(writer)
    if key is None:
        raise CheckpointError(f"the ledger held no key for {writer!r} at position {position}")
    held.check(writer, key)


def _actor(data: bytes) -> str:
    """The actor named in a leaf's data (its signed message: a header line, then the state)."""
    try:
        found = json.loads(data.partition(b"\n")[2]).get("actor")
    except (ValueError, AttributeError):
        found = None
    return found if isinstance(found, str) else "?"


def dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, indent=2, sort_keys=True)
