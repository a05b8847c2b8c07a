"""Reading the ledger verified (issue 28): each entry only once the signature of its write
checks, read through the sealed log (`reads`) and a `Verifier` (`signing`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from eventsourcing.persistence import ApplicationRecorder

from ledger.evidence.reads import signed_entries, verifier_at, write_start
from ledger.evidence.signing import READ_EVENTS, SignatureError, Verifier
from ledger.log import HasRecorder, LedgerEntry, ReadBreak, report_break, to_entry


def read_verified_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder, after_position: int = 0, batch: int = 500
) -> Iterator[LedgerEntry]:
    """Like `ledger.log.read_entries`, but no entry is yielded before the signature of its
    write checks against the key its actor held at that position (`signing.Verifier`, in bulk,
    keys cached), and none that a director set aside (`asides`). The read model's catch-up and
    rebuild read the ledger through this. At a write that does not check, the entries end: the
    read answers from the ledger as verified up to the write before it, and the break is
    reported (`ledger.log.breaks_reported`), never raised (issue 28: one bad entry never takes
    the ledger down). Only key events' and list commitments' payloads are parsed here; every
    other entry is checked from its envelope (its actor) and its stored bytes."""
    start = write_start(app_or_recorder, after_position)
    verified = start
    try:
        for write in _writes(app_or_recorder, start, verifier_at(app_or_recorder, start), batch):
            yield from (e for e in write if e.position > after_position)
            verified = write[-1].position if write else verified
    except SignatureError as exc:
        report_break(ReadBreak(exc.position, exc.reason, max(verified, after_position)))


def first_break(
    app_or_recorder: HasRecorder | ApplicationRecorder, aside: Collection[int] = ()
) -> SignatureError | None:
    """The first write that does not verify (`SignatureError`; None: every one does), with
    the positions `aside` set aside beside those a director set aside already."""
    verifier = verifier_at(app_or_recorder, 0)
    verifier.set_aside = {*verifier.set_aside, *aside}
    try:
        for _ in _writes(app_or_recorder, 0, verifier, 5000):
            pass
    except SignatureError as exc:
        return exc
    return None


def _writes(
    app_or_recorder: HasRecorder | ApplicationRecorder, start: int, verifier: Verifier, batch: int
) -> Iterator[list[LedgerEntry]]:
    """The entries after `start`, a verified write at a time (set-aside entries left out; a
    set-aside entry alone is an empty write); SignatureError at the first that does not check."""
    held: list[LedgerEntry] = []
    for rows in signed_entries(app_or_recorder, start, batch):
        for notification, signed in rows:
            entry = to_entry(notification)
            data = entry.payload | {"actor": entry.actor} if entry.type in READ_EVENTS else None
            ends_write = verifier.check_one(signed, data or {"actor": entry.actor})
            if entry.position not in verifier.set_aside:
                held.append(entry)
            if ends_write:
                yield held
                held = []
    verifier.finish()
