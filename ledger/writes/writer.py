"""What a write verb is given of the application (`RatingsLedger`, ledger/application.py): the
records it decides from, the roles check, and the one append that checks, signs and saves
what it decides."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from eventsourcing.domain import Aggregate
from eventsourcing.persistence import ApplicationRecorder

from ledger.domain import Roles
from ledger.evidence import Keyring
from ledger.evidence.appending import Held
from ledger.log import LedgerEntry
from ledger.roles import Verb
from ledger.writes.records import Records


class Writer(Protocol):
    """The application as a write verb uses it."""

    records: Records
    recorder: ApplicationRecorder  # the ledger's entries in order (a merge, a list's cutoff)
    keyring: Keyring
    preview: bool  # decide and return the entries, append nothing (--dry-run)

    def append(
        self, verb: Verb | None, actor: str, decide: Callable[[], list[Aggregate]]
    ) -> list[LedgerEntry]:
        """Check that `actor` may use `verb`, decide, sign and save at once (or preview)."""
        ...

    def authorized(self, verb: Verb, actor: str) -> Roles:
        """The roles record, if `actor` holds a role that may use `verb`."""
        ...

    def verified(self) -> Held:
        """The keys and roles the ledger's signed log gives at its head."""
        ...
