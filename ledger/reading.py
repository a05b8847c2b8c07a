"""Opening a ledger to read it: never creating one, and naming it (the read model's binding)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from eventsourcing.persistence import PersistenceError

from ledger.application import RatingsLedger
from ledger.domain import StoreError
from ledger.store import redacted, store_url


def open_ledger(store: str | None = None) -> RatingsLedger:
    """The ledger at `store`, to read; StoreError (one line) if there is none there."""
    url = store_url(store)
    absent = StoreError(
        f"no ledger at {redacted(url)}: check --store, or set one up with "
        "`ratings-ledger init --actor NAME`"
    )
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///") :]).is_file():
        raise absent
    ledger = RatingsLedger(url, read_only=True)
    try:
        ledger.recorder.max_notification_id()
    except PersistenceError:
        ledger.close()
        raise absent from None
    return ledger


def ledger_id(ledger: RatingsLedger) -> str | None:
    """The ledger's identity: a digest of its first entry (None while it has none)."""
    try:
        first = ledger.recorder.select_notifications(1, 1)
    except PersistenceError as exc:
        raise StoreError(f"store {redacted(ledger.store)}: {exc}") from None
    if not first:
        return None
    found = first[0]
    h = hashlib.sha256(f"{found.id}\n{found.originator_id}\n{found.topic}\n".encode())
    h.update(found.state)
    return h.hexdigest()[:32]
