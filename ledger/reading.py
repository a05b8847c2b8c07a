"""Opening a ledger to read it: the store's recorder only (no application, no aggregates),
never creating one; and naming it (the read model's binding)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactory, PersistenceError
from eventsourcing.utils import Environment

from ledger.errors import StoreError
from ledger.evidence.checkpoints import identity
from ledger.store import APP_NAME, open_failure, reach, redacted, store_env, store_url


class Readable(Protocol):
    """A ledger to read: its store's URL and its recorder (a `LedgerReader`, or the write
    side's application while it writes)."""

    store: str
    recorder: ApplicationRecorder

    def close(self) -> None: ...


class LedgerReader:
    """A ledger opened read-only: its `store` URL and its `recorder`, read with
    `ledger.log.read_entries`/`read_verified_entries` and `ledger.evidence.chain`; it creates no
    table and, on SQLite, opens the file read-only."""

    def __init__(self, store: str | None = None) -> None:
        self.store = store_url(store)
        reach(self.store)
        env = Environment(APP_NAME, store_env(self.store, APP_NAME, read_only=True))
        factory = None
        try:
            factory = InfrastructureFactory.construct(env)
            self.recorder = factory.application_recorder()
        except (PersistenceError, OSError) as exc:
            if factory is not None:
                factory.close()
            raise open_failure(self.store, exc) from None
        self.factory = factory

    def close(self) -> None:
        self.factory.close()


def open_ledger(store: str | None = None) -> LedgerReader:
    """The ledger at `store`, to read; StoreError (one line) if there is none there."""
    url = store_url(store)
    absent = StoreError(
        f"no ledger at {redacted(url)}: check --store, or set one up with "
        "`ratings-ledger init --actor NAME`"
    )
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).is_file():
        raise absent
    ledger = LedgerReader(url)
    try:
        ledger.recorder.max_notification_id()
    except PersistenceError:
        ledger.close()
        raise absent from None
    return ledger


def ledger_id(ledger: Readable) -> str | None:
    """The ledger's identity: a digest of its first entry (None while it has none)."""
    try:
        first = ledger.recorder.select_notifications(1, 1)
    except PersistenceError as exc:
        raise StoreError(f"store {redacted(ledger.store)}: {exc}") from None
    if not first:
        return None
    found = first[0]
    return identity(found.id, found.originator_id, found.topic, found.state)
