"""Tamper evidence: what the ledger guarantees about its own past.

Every write is signed by its actor's key (`Keyring`), checked against the roles and keys the
signed log gives at the head it is appended to, and sealed into a SHA-256 hash chain and a
Merkle tree in the transaction that appends it (the recorders of `sealing` and `postgres`).
`verify` recomputes both and names the first entry that no longer matches (`Verification`,
its `Head`); a write whose signature does not check stops every checked read there
(`read_verified_entries`; `signing.SignatureError`) until a director sets it aside
(`asides`). Each signature covers a `Checkpoint` (ledger, size, root), so inclusion and
consistency proofs (`transparency`) are checked offline against keys the verifier already
trusts (`trust`), and witnesses cosign only checkpoints that extend the last they saw
(`witness`).
"""

from ledger.evidence.chain import Head, Verification, verify
from ledger.evidence.checkpoints import Checkpoint, CheckpointError
from ledger.evidence.signing import Keyring
from ledger.evidence.verified import read_verified_entries

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "Head",
    "Keyring",
    "Verification",
    "read_verified_entries",
    "verify",
]
