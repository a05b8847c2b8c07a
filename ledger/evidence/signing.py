"""Signed writes: every actor's Ed25519 key pair in a keyring; every write signed by its actor.

An entry's encoding is `message(...)`: the compact JSON array [aggregate id, version, topic],
a line feed, then the stored state bytes exactly as stored (the same on SQLite and PostgreSQL).
A write's signature covers `write_message(...)` of its entries in order; it is stored with its
last entry (the others of the write carry an empty signature). The ledger records each actor's
public key with the role grants (`Roles`), and `Verifier` checks writes in ledger order against
the key held for their actor at that position. See docs/decisions.md ("Signed writes").
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote
from uuid import UUID

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ledger.domain import player_key
from ledger.errors import AccessDenied, InvalidCommand, LedgerError
from ledger.evidence.checkpoints import V2, V3, Checkpoint, identity
from ledger.evidence.merkle import Frontier, leaf_hash
from ledger.inputs import TooLarge, read_bytes
from ledger.roles import (
    PROFILE_KINDS,
    lacks_authority,
    may_change_rating_fields,
    rating_fields_changed,
)

KEYRING_VARIABLE = "RATINGS_LEDGER_KEYRING"
DEFAULT_KEYRING = Path("~/.config/ratings-ledger/keys")
KEY_EVENTS = ("LedgerInitialized", "RoleGranted", "RoleRevoked", "FederationChanged")
"""The roles record's kinds (`ledger.domain.Roles`): the keys and roles a write is checked
against, and the ledger's federation (issue 30), learnt from the log as they are."""
COMMITMENT = "ListRatingsCommitted"
READ_EVENTS = (*KEY_EVENTS, COMMITMENT)  # the kinds whose payload the Verifier reads
WRITE_PREFIX = b"ratings-ledger write 1\n"


class KeyRefused(AccessDenied):
    """A write whose actor has no usable key, or not the key the ledger holds for them."""


class SignatureError(LedgerError):
    """An entry whose signature does not check against the key its actor held then."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"entry {position}: {reason}")
        self.position = position
        self.reason = reason


def keyring_path(path: Path | str | None = None) -> Path:
    """The keyring folder: `path`, else $RATINGS_LEDGER_KEYRING, else ~/.config/…/keys."""
    return Path(path or os.environ.get(KEYRING_VARIABLE) or DEFAULT_KEYRING).expanduser()


def public_text(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """A public key as the ledger records it: 64 hex digits of the raw key."""
    if isinstance(key, Ed25519PrivateKey):
        key = key.public_key()
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def parse_public_key(text: str) -> str:
    """A public key given on the command line (64 hex digits), normalized; a longer text is
    refused by its length, unshown."""
    value = text.strip().lower()
    if len(value) > 64:
        raise InvalidCommand(
            ("public_key",),
            f"{len(value):,} characters; an Ed25519 public key is 64 hex digits",
        )
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(value))
    except ValueError:
        raise InvalidCommand(
            ("public_key",), f"{text!r} is not an Ed25519 public key (64 hex digits)"
        ) from None
    return value


class Keyring:
    """A folder of private keys, one PEM file per actor (`NAME.key`, mode 0600)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = keyring_path(path)

    def file(self, actor: str) -> Path:
        return self.path / f"{quote(actor, safe='')}.key"

    def private_key(self, actor: str) -> Ed25519PrivateKey | None:
        """`actor`'s private key, or None if this keyring has none (or an unusable one)."""
        try:
            pem = read_bytes(self.file(actor), "key")
            key = serialization.load_pem_private_key(pem, None)
        except TooLarge:
            raise
        except (ValueError, TypeError):  # an InvalidCommand too: missing or unreadable
            return None
        return key if isinstance(key, Ed25519PrivateKey) else None

    def public_key(self, actor: str) -> str | None:
        key = self.private_key(actor)
        return public_text(key) if key else None

    def create(self, actor: str) -> Ed25519PrivateKey:
        """A new key for `actor`; refused if the keyring has one (keys are never overwritten)."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        target = self.file(actor)
        if target.exists() and target.stat().st_size == 0:
            target.unlink()  # an empty file is no key: what an interrupted older write left
        temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}")
        try:
            with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
                out.write(pem)
                out.flush()
                os.fsync(out.fileno())
            os.link(temporary, target)  # atomic, and never over an existing key
        except FileExistsError:
            raise InvalidCommand(
                ("actor",), f"the keyring {self.path} already has a key for {actor!r}"
            ) from None
        except OSError as exc:
            raise KeyRefused(f"cannot write a key in {self.path}: {exc.strerror}") from None
        finally:
            temporary.unlink(missing_ok=True)
        return key

    def ensure(self, actor: str) -> Ed25519PrivateKey:
        """`actor`'s key, made if the keyring has none."""
        return self.private_key(actor) or self.create(actor)


def message(aggregate_id: UUID | str, version: int, topic: str, state: bytes) -> bytes:
    """The bytes an entry's signature covers (see the module docstring)."""
    head = json.dumps([str(aggregate_id), version, topic], separators=(",", ":"))
    return head.encode() + b"\n" + bytes(state)


def write_message(messages: Iterable[bytes]) -> bytes:
    """The bytes a write's signature covers: a prefix, then the SHA-256 of each entry's
    `message`, in ledger order."""
    return WRITE_PREFIX + b"".join(hashlib.sha256(m).digest() for m in messages)


@dataclass(frozen=True, slots=True)
class Signed:
    """One stored entry as read for checking: position, message fields and its signature."""

    position: int
    aggregate_id: UUID | str
    version: int
    topic: str
    state: bytes
    signature: bytes | None


class Verifier:
    """Checks writes in ledger order: each against the public key its actor held at that
    position, each entry against the roles its signer held then (`ledger.roles.RECORDED_BY`).

    Entries come one at a time (`check_one`); a write's entries are held until its signed last
    entry, then checked together with one signature verification (public key objects cached).
    A write signs the checkpoint it makes (checkpoints.py): the ledger's identity, its
    size and the Merkle root over every entry up to the write's last, which the verifier keeps
    (`frontier`); once a ledger has such a write, a write signed the older way (over its own
    entries only) is refused. The keys and roles are learnt from the entries themselves
    (`LedgerInitialized`, `RoleGranted` with a key, `RoleRevoked` of a holder's last role; the
    ledger's federation from `LedgerInitialized` and `FederationChanged`), so a
    check starting after position 0 first checks the key events before it
    (`ledger.evidence.reads.verifier_at`).
    """

    def __init__(self, frontier: Frontier | None = None, ledger: str | None = None) -> None:
        self.keys: dict[str, str] = {}
        self.roles: dict[str, set[str]] = {}
        self.family: str | None = None  # the ledger's federation as recorded (None: not named)
        self.frontier: Frontier | None = Frontier() if frontier is None else frontier
        self.ledger = ledger
        self.checkpoint: Checkpoint | None = None  # the last write's, as signed
        self.signs_checkpoints = False
        self.signs_positions = False
        self._loaded: dict[str, Ed25519PublicKey] = {}
        self._committed: dict[
            tuple[object, object], int
        ] = {}  # each list's commitment: its position
        self._pending: list[tuple[Signed, dict[str, Any] | None]] = []  # None: set aside
        self.set_aside: Collection[int] = frozenset()  # positions a director set aside
        self.skipped: list[int] = []  # the set-aside positions passed so far
        self.ignored: list[SignatureError] = []  # writes gone past unlearnt (`abandon`)
        self.profile_before: Callable[[Signed], dict[str, Any] | None] = lambda _: None
        """The profile a `PlayerProfileUpdated` entry changes (the player's stored profile
        before it), for judging whether it changes rating fields (`roles.lacks_authority`)."""

    def seek(self, frontier: Frontier | None) -> None:
        """Go on from another place in the ledger (None: its tree is not known there)."""
        self.frontier = frontier

    def check(self, entries: Iterable[Signed]) -> None:
        """Check every write of `entries` (which end at a write's end)."""
        for e in entries:
            try:
                payload = json.loads(e.state)
            except ValueError:
                raise SignatureError(e.position, "the entry is not JSON (altered)") from None
            self.check_one(e, payload)
        self.finish()

    def check_one(self, e: Signed, payload: object) -> bool:
        """Take one entry, its stored state parsed already (`payload`); True when it ends a
        write whose signature checks (every entry taken so far is checked). SignatureError
        at the first position of a write that does not check."""
        if e.position in self.set_aside:
            return self._pass(e)
        if not isinstance(payload, dict):
            raise SignatureError(e.position, "the entry is not a JSON object (altered)")
        if e.signature is None:
            raise SignatureError(e.position, "the entry is not signed")
        self._pending.append((e, payload))
        if not e.signature:
            return False
        whole, self._pending = self._pending, []
        write = [(s, data) for s, data in whole if data is not None]
        first = write[0][0].position
        actor = write[0][1].get("actor")
        for other, data in write:
            if data.get("actor") != actor:
                raise SignatureError(
                    other.position, f"one write names two actors ({actor!r}, {data.get('actor')!r})"
                )
        founding = not self.keys and _kind(write[0][0].topic) == "LedgerInitialized"
        held = self.keys.get(actor) if isinstance(actor, str) else None
        if held is None and founding:
            held = write[0][1].get("public_key")
        if not isinstance(held, str):
            raise SignatureError(first, f"the ledger held no key for {actor!r} there")
        self._verify(whole, e.signature, held)
        for s, _ in write:  # every entry's authority before any key change is learnt
            self._authorize(s, actor, founding and s is not write[0][0])
        for s, data in write:
            self._commit_once(s, data)
            self.learn(s.topic, data)
        return True

    def _pass(self, e: Signed) -> bool:
        """Pass over a set-aside entry: still a leaf of the tree (later writes sign roots over
        it), but neither its signature nor its authority is asked for, nor is it learnt from."""
        self.skipped.append(e.position)
        if self._pending:  # inside a write: its leaf stays in its place among the write's
            self._pending.append((e, None))
            return False
        if self.frontier is not None:
            self.frontier.append(leaf_hash(message(e.aggregate_id, e.version, e.topic, e.state)))
        return True

    def committed(self, position: int, data: dict[str, Any]) -> int:
        """Note a list's commitment at `position` (a read starting later learns the earlier
        ones this way); the position of that list's first commitment."""
        return self._committed.setdefault((data.get("family"), data.get("list_name")), position)

    def _commit_once(self, s: Signed, data: dict[str, Any]) -> None:
        """Refuse a second commitment of a list's ratings (the write path commits each once; a
        later one, even signed by someone who may publish lists, would replace what anyone
        proves a rating against)."""
        if _kind(s.topic) != COMMITMENT:
            return
        key = (data.get("family"), data.get("list_name"))
        first = self.committed(s.position, data)
        if first != s.position:
            raise SignatureError(
                s.position,
                f"a second commitment of the {key[0]} list {key[1]!r} (the first is at "
                f"position {first})",
            )

    def _verify(
        self, write: list[tuple[Signed, dict[str, Any] | None]], signature: bytes, held: str
    ) -> None:
        """The write's signature: over its checkpoint with the position of its last entry (V3),
        or, in an older ledger, without it (V2) or over its entries; once a ledger signs the
        newer way, the older ones are refused (they would leave its positions unsigned). A
        set-aside entry among its entries (data None) is a leaf in its place, and no more."""
        messages = [message(s.aggregate_id, s.version, s.topic, s.state) for s, _ in write]
        first, named = next((s, data) for s, data in write if data is not None)
        last = write[-1][0]
        if self.ledger is None and self.frontier is not None and self.frontier.size == 0:
            self.ledger = identity(first.position, first.aggregate_id, first.topic, first.state)
        leaves = [leaf_hash(m) for m in messages]
        after = self.frontier.copy() if self.frontier is not None else None
        if after is not None:
            for leaf in leaves:
                after.append(leaf)
        tag = signature[:1] if len(signature) == 65 else b""
        if tag in (V2, V3):
            if after is None:
                raise SignatureError(
                    first.position,
                    "the ledger's tree does not cover the entries before this write "
                    "(changed outside the ledger)",
                )
            if tag == V2 and self.signs_positions:
                raise SignatureError(
                    first.position,
                    "the write is signed without its position in a ledger that signs them",
                )
            position = last.position if tag == V3 else None
            checkpoint = Checkpoint(self.ledger or "", after.size, after.root().hex(), (), position)
            body, raw = checkpoint.body(), signature[1:]
            self.signs_checkpoints = True
            self.signs_positions = self.signs_positions or tag == V3
        elif self.signs_checkpoints:
            raise SignatureError(
                first.position,
                "the write is signed without its checkpoint in a ledger that signs them",
            )
        else:
            checkpoint = None
            body = write_message(
                m for m, (_, data) in zip(messages, write, strict=True) if data is not None
            )
            raw = signature
        try:
            self._key(held).verify(raw, body)
        except (InvalidSignature, ValueError):
            whose = (
                f"the write at positions {first.position}–{last.position}: its"
                if first.position != last.position
                else "the"
            )
            raise SignatureError(
                first.position,
                f"{whose} signature is not {named.get('actor')!r}'s (forged or altered)",
            ) from None
        self.frontier = after
        if checkpoint is not None:
            self.checkpoint = checkpoint.with_signature(str(named.get("actor")), raw)

    def _authorize(self, s: Signed, actor: object, founding_grant: bool) -> None:
        """Refuse an entry its signer had no role to record there (the ledger's founding write
        alone may set the ledger up and make its signer the first director)."""
        kind = _kind(s.topic)
        if kind == "LedgerInitialized":
            if self.keys or self.roles:
                raise SignatureError(
                    s.position, "a second LedgerInitialized (the ledger is set up)"
                )
            return
        if founding_grant and kind == "RoleGranted":
            return
        held = self.roles.get(actor, set()) if isinstance(actor, str) else set()
        changed = self.rating_changes(s, kind) if not may_change_rating_fields(held) else []
        why = lacks_authority(kind, held, changed)
        if why is not None:
            raise SignatureError(s.position, f"{actor!r} had no authority to record it: {why}")

    def abandon(self, failed: SignatureError) -> None:
        """Go on past a write that failed (`failed`): nothing of it is learnt, and it is
        noted in `ignored` (`ledger.evidence.asides.keys_at`: a forged key event grants nothing)."""
        self._pending = []
        self.ignored.append(failed)

    def rating_changes(self, s: Signed, kind: str) -> list[str]:
        """The rating fields a profile entry changes (`roles.RATING_FIELDS`), judged against
        the player's profile before it: a registration that is its record's first entry
        changes none (a new player); one on another record than its member's is refused."""
        if kind not in PROFILE_KINDS:
            return []
        try:  # the member id alone, decoded in C (every TD's registration comes here)
            member = _MEMBER.decode(s.state).member_id
        except (msgspec.ValidationError, msgspec.DecodeError):
            member = None
        if member is None or as_uuid(s.aggregate_id) != player_key(member):
            raise SignatureError(s.position, "the profile is not on its player's record (forged)")
        if kind == "PlayerRegistered" and s.version == 1:
            return []
        return rating_fields_changed(self.profile_before(s), json_object(s.state))

    def finish(self) -> None:
        """The entries read end here: a write left without its signed last entry fails."""
        if self._pending:
            position = self._pending[0][0].position
            self._pending = []
            raise SignatureError(position, "the entry is not signed (its write has no signature)")

    def learn(self, topic: str, payload: dict[str, Any]) -> None:
        """Follow one key event, or the ledger's federation (others are ignored)."""
        kind = _kind(topic)
        if kind in ("LedgerInitialized", "FederationChanged") and payload.get("family"):
            self.family = str(payload["family"])
        if kind == "LedgerInitialized" and isinstance(payload.get("public_key"), str):
            self.keys[payload["actor"]] = payload["public_key"]
        elif kind == "RoleGranted":
            holder = payload["holder"]
            self.roles.setdefault(holder, set()).add(payload["role"])
            if isinstance(payload.get("public_key"), str):
                self.keys[holder] = payload["public_key"]
        elif kind == "RoleRevoked":
            holder = payload["holder"]
            held = self.roles.setdefault(holder, set())
            held.discard(payload["role"])
            if not held:
                self.keys.pop(holder, None)

    def _key(self, text: str) -> Ed25519PublicKey:
        key = self._loaded.get(text)
        if key is None:
            key = self._loaded[text] = Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
        return key


class _Member(msgspec.Struct):
    member_id: str


_MEMBER = msgspec.json.Decoder(_Member)


def as_uuid(value: UUID | str) -> UUID:
    """An originator id as given or stored (hex text on SQLite, uuid on PostgreSQL)."""
    return value if isinstance(value, UUID) else UUID(str(value))


def json_object(state: bytes) -> dict[str, Any]:
    """An entry's stored JSON object ({} when it is not one: its fields are then not given)."""
    try:
        value = json.loads(state)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _kind(topic: str) -> str:
    return topic.rpartition(":")[2].rpartition(".")[2]
