"""A ledger's federation (issue 30): the rules family every command, export and page rates
under unless told another, read from the verified log the way a write's authority is.

It is a fact of the roles record (`ledger.domain.Roles`): `LedgerInitialized`'s `family`
(`init --family`), then each `FederationChanged` (`set-family`, a director's). Those entries are
read with the key events, each write's signature and its signer's role checked
(`ledger.evidence.reads.verifier_at`): a forged or set-aside change changes nothing. One
indexed read of the roles record's few entries, never a derived table. A ledger set up before
issue 30 names none: it rates under US Chess, as every ledger did then.
"""

from __future__ import annotations

from contextlib import closing

from ledger.reading import Readable, open_ledger
from ledger.rules.families import DEFAULT


def recorded(family: str | None) -> str:
    """The family a recorded value names (None, in a ledger set up before issue 30: US Chess)."""
    return family or DEFAULT


def ledger_family(ledger: str | Readable | None, at: int | None = None) -> str:
    """The family the ledger at `ledger` (a store URL, None: the default store, or a ledger
    open to read) rates under by default, as its verified log says at its head (or after
    position `at`: what a read model built to there records, `projections.binding`);
    StoreError (one line) where there is no ledger."""
    if ledger is None or isinstance(ledger, str):
        with closing(open_ledger(ledger)) as opened:
            return ledger_family(opened, at)
    from ledger.evidence.reads import verifier_at

    position = (ledger.recorder.max_notification_id() or 0) if at is None else at
    return recorded(verifier_at(ledger, position).family)
