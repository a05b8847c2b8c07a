"""`RatingsLedger`: roles, keys checked, then a verb's facts appended at once (verbs: writes/)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    Notification,
    PersistenceError,
)
from eventsourcing.utils import Environment, EnvType

from ledger.domain import Roles, player_key
from ledger.errors import ConflictError, StoreError
from ledger.evidence import Head, Keyring
from ledger.evidence.appending import Held, may_append
from ledger.evidence.signing import KeyRefused, public_text
from ledger.log import LedgerEntry, to_entry
from ledger.roles import NotInitialized, Verb, authorize
from ledger.store import APP_NAME, open_failure, reach, redacted, store_env, store_url
from ledger.writes.asides import AsideWrites
from ledger.writes.decisions import DecisionWrites
from ledger.writes.lists import ListWrites
from ledger.writes.players import PlayerWrites
from ledger.writes.records import Records
from ledger.writes.roles import RoleWrites
from ledger.writes.sections import SectionWrites

ATTEMPTS = 6
BACKOFF_SECONDS = 0.005  # up to 5, 10, 20, … ms (random) before deciding again
CREATE_TABLES_LOCK = 0x7261_7469_6E67_73  # a PostgreSQL advisory lock key ("ratings")


class RatingsLedger(Application[UUID]):
    """The write side of the ledger; read it in order with `ledger.log.read_entries`.

    Its write verbs are its collaborators, one a concern (ledger/writes/), each given this
    application as its `Writer`: `players`, `sections` (and matches), `decisions`, `lists`,
    `roles` and `asides` (`app.players.register(...)`). Every verb first checks the actor's
    roles as recorded in the ledger (`ledger.roles`), then signs its entries with the actor's
    key from `keyring` (`ledger.evidence.signing`); the store's recorder seals them into the
    hash chain in the same transaction (`ledger.evidence.chain`). `read_only` opens an existing
    store for reading only: no table is created, no file made.
    """

    name = APP_NAME
    log_section_size = 5000

    def __init__(
        self,
        store: str | None = None,
        preview: bool = False,
        keyring: Keyring | None = None,
        read_only: bool = False,
    ) -> None:
        self.store = store_url(store)
        self.preview = preview  # decide and return the entries, append nothing (--dry-run)
        self.keyring = keyring or Keyring()
        self.read_only = read_only
        self.receipt: Head | None = None  # the chain's link after the last write, DIGEST@POS
        self._checked: tuple[int, Held] | None = None  # the keys and roles read at a head
        self._made = _new_sqlite_file(self.store)  # removed on close if nothing was written
        reach(self.store)
        try:
            super().__init__(env=store_env(self.store, self.name, read_only))
        except (PersistenceError, OSError) as exc:
            raise open_failure(self.store, exc) from None
        self.records = Records(self.repository, self.recorder, self.store)
        self.players = PlayerWrites(self)
        self.sections = SectionWrites(self)
        self.decisions = DecisionWrites(self)
        self.lists = ListWrites(self)
        self.roles = RoleWrites(self)
        self.asides = AsideWrites(self)

    def close(self) -> None:
        """Close the store. A SQLite file this ledger made and that holds no entry as it
        closes (a write refused before `init`, or a dry run) is removed with its journal: a
        refused write creates nothing."""
        made, self._made = self._made, None  # closed again (`__del__`): nothing to look at
        empty = made is not None and not self.recorder.max_notification_id()
        super().close()
        if empty and made is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                made.with_name(made.name + suffix).unlink(missing_ok=True)

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        """Only the store's settings: ambient variables never redirect the ledger."""
        return Environment(name, dict(env or {}))

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, its tables created; on PostgreSQL one process at a time, because
        concurrent `CREATE ... IF NOT EXISTS` of the same objects fails there."""
        if self.read_only or self.env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
            return super().construct_recorder()
        # the library types its factory without `datastore`, which its PostgreSQL one has
        datastore = self.factory.datastore  # type: ignore[attr-defined]
        with datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (CREATE_TABLES_LOCK,))
            try:
                return super().construct_recorder()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (CREATE_TABLES_LOCK,))

    def append(
        self, verb: Verb | None, actor: str, decide: Callable[[], list[Aggregate]]
    ) -> list[LedgerEntry]:
        """Check that `actor` may use `verb` (None: `decide` checks, if anything), decide against
        the current state and save atomically; re-check and re-decide if another writer got
        there first (the checks then run against the new state). The recorder checks the
        actor's roles and key again at the head the write is appended to, in its transaction
        (`ledger.evidence.appending`): a write that lost a race with a revocation or a key
        rotation is refused (LostRace), nothing appended."""
        for attempt in range(ATTEMPTS):
            held = self.verified()  # what this attempt decides against (a later change: LostRace)
            if verb is not None:
                self.authorized(verb, actor)
            aggregates = decide()
            if not aggregates:
                return []
            if self.preview:
                return self._previewed(aggregates)
            key, sealed = self._signing_key(actor, held), list[Head]()
            authority = may_append(actor, public_text(key))
            try:
                recordings = self.save(
                    *aggregates, signer=key.sign, authority=authority, sealed=sealed
                )
            except IntegrityError:
                time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
                continue
            except PersistenceError as exc:
                raise StoreError(f"store {redacted(self.store)}: {exc}") from None
            self.receipt = sealed[-1]
            return [to_entry(r.notification) for r in recordings]
        raise ConflictError(
            f"other writers kept changing the same records ({ATTEMPTS} attempts); "
            "nothing was appended — try again"
        )

    def _signing_key(self, actor: str, held: Held) -> Ed25519PrivateKey:
        """`actor`'s key in the keyring, if it is the key the ledger holds for them in its
        verified log as the write was decided (`held`; before `init`: the key `init` records)."""
        key = self.keyring.private_key(actor)
        if key is None:
            raise KeyRefused(
                f"{actor!r} has no key in the keyring {self.keyring.path} "
                f"(make one with `ratings-ledger keys new {actor}`); nothing was appended"
            )
        if held.end and held.keys.get(actor) != public_text(key):
            raise KeyRefused(
                f"the key for {actor!r} in {self.keyring.path} is not the one the ledger holds "
                f"for {actor!r}; nothing was appended"
            )
        return key

    def verified(self) -> Held:
        """The keys and roles the ledger's signed log gives at its head, its key events checked
        write by write (never the roles record: a row inserted behind the ledger's back is not
        trusted), read in one read transaction; the recorder's cache is taught only what is new."""
        head = self.recorder.max_notification_id() or 0
        checked = self._checked
        if checked is not None and checked[0] == head:
            return checked[1]  # the same attempt asks twice (its role, then its key)
        # the recorder is a sealing one (ledger/evidence: `held_at`, read in one read
        # transaction; a remote store's, the server's), which the library's type does not declare
        held: Held = self.recorder.held_at(head)  # type: ignore[attr-defined]
        self._checked = (head, held)
        return held

    def _previewed(self, aggregates: list[Aggregate]) -> list[LedgerEntry]:
        """The entries `aggregates` would append, at the positions they would take; none is."""
        start = self.recorder.max_notification_id() or 0
        entries = []
        for position, event in enumerate(
            (e for a in aggregates for e in a.collect_events()), start=start + 1
        ):
            stored = self.mapper.to_stored_event(event)
            entries.append(
                to_entry(
                    Notification(
                        originator_id=stored.originator_id,
                        originator_version=stored.originator_version,
                        topic=stored.topic,
                        state=stored.state,
                        id=position,
                    )
                )
            )
        return entries

    def authorized(self, verb: Verb, actor: str) -> Roles:
        """The ledger's roles record (what a grant or revocation decides from), if `actor`
        holds a role that may use `verb` in the verified log (checked again in the append's
        transaction, `ledger.evidence.appending`)."""
        record = self.records.roles()
        if record is None:
            raise NotInitialized()
        authorize(self.verified().roles.get(actor, set()), actor, verb)
        return record

    def is_registered(self, member_id: str) -> bool:
        """Whether a player with this member id is registered."""
        return self.records.exists(player_key(member_id))


def _new_sqlite_file(store: str) -> Path | None:
    """The file of a SQLite store that does not exist yet (opening it will make it)."""
    prefix = "sqlite:///"
    if not store.startswith(prefix):
        return None
    path = Path(store[len(prefix) :])
    return None if path.exists() else path
