"""Checkpoints: a ledger's identity, size and Merkle root (ledger/evidence/merkle.py), signed.

Every write's signature is a signature over the checkpoint the write makes: its signer states
"this ledger, with these N entries, the last at position P, has this root", so a deleted,
reordered, inserted or renumbered entry, or a write copied from another ledger, no longer
matches any signature (docs/decisions.md, "Signatures that bind their place" and "Positions
are signed"). A checkpoint's text form is a few lines anyone can keep:

    ratings-ledger checkpoint 3
    <ledger id>
    <size>
    <root, hex>
    <position of the last entry>

    — <signer> <signature, hex>        (the writer's, then any witness's cosignature)

A signer's name may hold spaces: the signature is a line's last word. A checkpoint proves
nothing by itself: an offline check trusts it only once a signature checks against a key the
verifier already holds (ledger/evidence/trust.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from uuid import UUID

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ledger.errors import LedgerError
from ledger.text import digits

HEADER = "ratings-ledger checkpoint 3"
HEADER_V2 = "ratings-ledger checkpoint 2"  # without the position: writes before positions
V2 = b"\x02"  # a stored write signature over a checkpoint without the position starts so
V3 = b"\x03"  # a stored write signature over a checkpoint with its position starts so


class CheckpointError(LedgerError):
    """A checkpoint that cannot be read, or whose signature does not check."""


def identity(position: int, aggregate_id: UUID | str, topic: str, state: bytes) -> str:
    """A ledger's identity: a digest of its first entry (32 hex digits)."""
    h = hashlib.sha256(f"{position}\n{aggregate_id}\n{topic}\n".encode())
    h.update(state)
    return h.hexdigest()[:32]


@dataclass(frozen=True)
class Checkpoint:
    """The head of a ledger's Merkle tree: `size` entries with root `root` (hex), the last
    at ledger position `position` (None: a checkpoint signed before positions were)."""

    ledger: str
    size: int
    root: str
    signatures: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    position: int | None = None

    def body(self) -> bytes:
        """The bytes a writer signs and a witness cosigns."""
        if self.position is None:
            return f"{HEADER_V2}\n{self.ledger}\n{self.size}\n{self.root}\n".encode()
        head = f"{HEADER}\n{self.ledger}\n{self.size}\n{self.root}\n{self.position}\n"
        return head.encode()

    @property
    def prefix(self) -> bytes:
        """The byte that starts a stored write signature over this checkpoint."""
        return V2 if self.position is None else V3

    def signed(self, signer: str, key: Ed25519PrivateKey) -> Checkpoint:
        return self.with_signature(signer, key.sign(self.body()))

    def with_signature(self, signer: str, signature: bytes) -> Checkpoint:
        sigs = (*self.signatures, (signer, signature.hex()))
        return Checkpoint(self.ledger, self.size, self.root, sigs, self.position)

    def check(self, signer: str, public_key: str) -> None:
        """CheckpointError unless `signer` signed this checkpoint with `public_key` (hex)."""
        found = [s for who, s in self.signatures if who == signer]
        if not found:
            raise CheckpointError(f"the checkpoint carries no signature of {signer!r}")
        if not self.signed_by(public_key, found[-1]):
            raise CheckpointError(
                f"{signer!r}'s signature on the checkpoint of size {self.size} does not check"
            )

    def signed_by(self, public_key: str, signature: str) -> bool:
        """Whether `signature` (hex) over this checkpoint checks against the Ed25519
        `public_key` (hex); False for either that is not one (the one check of a checkpoint
        signature: the writer's at a write, a writer's or witness's offline)."""
        try:
            key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key))
            key.verify(bytes.fromhex(signature), self.body())
        except (InvalidSignature, ValueError):
            return False
        return True

    def text(self) -> str:
        lines = [self.body().decode(), *(f"— {who} {sig}" for who, sig in self.signatures)]
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        lines = text.strip("\n").split("\n")
        width = {HEADER: 5, HEADER_V2: 4}.get(lines[0], 0)
        if not width or len(lines) < width:
            raise CheckpointError(f"not a checkpoint (its first line is not {HEADER!r})")
        ledger, size, root = lines[1], lines[2], lines[3]
        position = lines[4] if width == 5 else "0"
        if not (digits(size) and digits(position) and len(root) == 64):
            raise CheckpointError(
                "not a checkpoint (expected ledger id, size, a hex root and a position)"
            )
        if not _hex(root) or not _hex(ledger):
            raise CheckpointError("not a checkpoint (expected ledger id, size and a hex root)")
        signatures = []
        for line in lines[width:]:
            if not line.strip():
                continue
            signatures.append(_signature_line(line))
        at = int(position) if width == 5 else None
        return cls(ledger, int(size), root, tuple(signatures), at)


def _signature_line(line: str) -> tuple[str, str]:
    """A signature line's signer and signature: `— NAME HEX`, the signature its last word and
    the signer everything between (a name may hold spaces: "Ed Smith")."""
    dash, _, rest = line.partition(" ")
    signer, _, signature = rest.rpartition(" ")
    if dash != "—" or not signer.strip() or not _hex(signature):
        raise CheckpointError(f"not a checkpoint signature line: {line[:60]!r}")
    return signer, signature


def _hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdef" for c in text)
