"""The keys an offline verifier already trusts, and what a checkpoint proves against them.

A checkpoint (checkpoints.py) carries its signers' names and signatures but never their
keys: a key read from the same file would prove only that someone signed it. An offline check
(`verify-proof`, `verify-rating`, `split-view`) takes its keys from the verifier: `--key
NAME=HEX` (a writer's), `--witness NAME=HEX` (a witness's), or a trust file they hold (written
by `trusted-keys` from a ledger they verified), whose lines are

    # comments
    ledger <ledger id>                  (optional: only checkpoints of that ledger)
    writer <name> <public key, hex>
    witness <name> <public key, hex>

A name may hold spaces: the key is a line's last word and the kind its first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ledger.errors import InvalidCommand, LedgerError
from ledger.evidence.checkpoints import Checkpoint
from ledger.evidence.signing import parse_public_key

HEADER = "# ratings-ledger trusted keys 1"
KINDS = ("writer", "witness")


class UntrustedCheckpoint(LedgerError):
    """A checkpoint no key the verifier trusts has signed (or cosigned, when asked)."""


@dataclass
class TrustedKeys:
    """Each trusted name's public keys (hex), as a writer and as a witness."""

    writers: dict[str, set[str]] = field(default_factory=dict)
    witnesses: dict[str, set[str]] = field(default_factory=dict)
    ledgers: set[str] = field(default_factory=set)  # empty: any ledger those keys sign

    def add(self, kind: str, name: str, key: str, where: str) -> None:
        if kind not in KINDS:
            raise InvalidCommand((), f"{where}: {kind!r} is not one of {', '.join(KINDS)}")
        if not name.strip():
            raise InvalidCommand((), f"{where}: no name before the key")
        try:
            normalized = parse_public_key(key)
        except InvalidCommand:
            raise InvalidCommand(
                (), f"{where}: {key[:70]!r} is not an Ed25519 public key (64 hex digits)"
            ) from None
        held = self.writers if kind == "writer" else self.witnesses
        held.setdefault(name, set()).add(normalized)

    def check_writer(self, checkpoint: Checkpoint) -> str:
        """The trusted writer whose signature the checkpoint carries; UntrustedCheckpoint if
        it carries none that checks against a writer key the verifier trusts."""
        if self.ledgers and checkpoint.ledger not in self.ledgers:
            raise UntrustedCheckpoint(
                f"the checkpoint is of ledger {checkpoint.ledger}, not of the ledger your "
                f"trusted keys are for ({', '.join(sorted(self.ledgers))})"
            )
        if not checkpoint.signatures:
            raise UntrustedCheckpoint(
                f"the checkpoint of size {checkpoint.size} is not signed (no signature lines)"
            )
        for name, signature in checkpoint.signatures:
            if any(checkpoint.signed_by(k, signature) for k in self.writers.get(name, ())):
                return name
        signed = [name for name, _ in checkpoint.signatures]
        trusted = [name for name in signed if name in self.writers]
        if trusted:
            raise UntrustedCheckpoint(
                f"{trusted[0]!r}'s signature on the checkpoint of size {checkpoint.size} does "
                "not check against the key you trust for them (forged or altered)"
            )
        raise UntrustedCheckpoint(
            f"the checkpoint of size {checkpoint.size} is signed by {', '.join(map(repr, signed))}"
            ", whose key you do not trust as a writer's"
        )

    def cosigners(self, checkpoint: Checkpoint) -> list[str]:
        """The trusted witnesses whose cosignatures on the checkpoint check."""
        return sorted(
            {
                name
                for name, signature in checkpoint.signatures
                if any(checkpoint.signed_by(k, signature) for k in self.witnesses.get(name, ()))
            }
        )

    def check(self, checkpoint: Checkpoint, cosigned_by: Iterable[str] = ()) -> str:
        """Its trusted writer's signature, then each witness of `cosigned_by`'s cosignature:
        a sentence naming who signed, or UntrustedCheckpoint."""
        writer = self.check_writer(checkpoint)
        found = self.cosigners(checkpoint)
        for name in cosigned_by:
            if name not in self.witnesses:
                raise InvalidCommand(
                    (), f"--cosigned-by {name!r}: you trust no witness key for them"
                )
            if name not in found:
                raise UntrustedCheckpoint(
                    f"the checkpoint of size {checkpoint.size} carries no cosignature of "
                    f"{name!r} that checks against the key you trust for them"
                )
        also = f", cosigned by {', '.join(map(repr, found))}" if found else ""
        return f"signed by {writer!r}{also}"


def _parse_line(trusted: TrustedKeys, line: str, where: str) -> None:
    """One line of a trust file: `ledger ID`, or a kind, a name and a key."""
    kind, _, rest = line.strip().partition(" ")
    if kind == "ledger":
        trusted.ledgers.add(rest.strip())
        return
    name, _, key = rest.rpartition(" ")
    trusted.add(kind, name.strip(), key, where)


def load(
    files: Iterable[tuple[str, str]],
    writers: Iterable[str] = (),
    witnesses: Iterable[str] = (),
) -> TrustedKeys:
    """The keys given: trust files' (name, text), `NAME=HEX` writers and witnesses. Refused
    (InvalidCommand) without a writer's key: an offline check needs a key it already trusts."""
    trusted = TrustedKeys()
    for path, text in files:
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip() and not line.lstrip().startswith("#"):
                _parse_line(trusted, line, f"{path} line {number}")
    for kind, given in (("writer", writers), ("witness", witnesses)):
        for value in given:
            name, _, key = value.rpartition("=")
            trusted.add(
                kind, name, key.strip(), f"--{'key' if kind == 'writer' else kind} {value!r}"
            )
    if not trusted.writers:
        raise InvalidCommand(
            (),
            "give the writer keys you trust: --trusted FILE (from `ratings-ledger trusted-keys` "
            "on a ledger you verified) or --key NAME=HEX; a checkpoint's own lines prove nothing",
        )
    return trusted


def render(ledger: str, head: str, keys: dict[str, str], roles: dict[str, set[str]]) -> str:
    """A trust file of the keys a verified ledger holds at `head` (DIGEST@POS): a holder of a
    role that writes as a writer, an auditor as a witness (an auditor-only key never signs as
    the writer)."""
    lines = [HEADER, f"# verified to {head}", f"ledger {ledger}"]
    for name in sorted(keys):
        held = roles.get(name, set())
        if held - {"auditor"}:
            lines.append(f"writer {name} {keys[name]}")
        if "auditor" in held:
            lines.append(f"witness {name} {keys[name]}")
    return "\n".join(lines) + "\n"
