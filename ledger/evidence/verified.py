"""Reading the ledger verified (issue 28): each entry only once the signature of its write
checks, read through the sealed log (`reads`) and a `Verifier` (`signing`); a `Trail` lets the
next read of the same ledger go on from where the last one ended (issue 33)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass

from eventsourcing.persistence import ApplicationRecorder

from ledger.evidence.asides import SET_ASIDE, profiles
from ledger.evidence.reads import glance, signed_entries, verifier_at, write_start
from ledger.evidence.signing import READ_EVENTS, SignatureError, Verifier
from ledger.evidence.tables import Glance, recorder_of
from ledger.log import HasRecorder, LedgerEntry, ReadBreak, report_break, to_entry


@dataclass
class Trail:
    """Where the verified reads of one ledger got to (a server's follower keeps one per read
    model, issue 33; the reads may be through any reader of its store, one at a time): the
    Verifier as it stood after the last write they verified, which ends at `position`.
    A read after that position goes on from it, checking each new write's signature against the
    root its entries make on the frontier verified so far, instead of learning the keys, the
    lists and the tree from the log again (`reads.verifier_at`, a few dozen queries). Nothing is
    taken on trust: the kept state is what earlier checks proved, and a new write that does not
    check, or a new `EntrySetAside` (which changes what a check passes over), sends the read
    back to a check from the log, whose answer is the read's."""

    verifier: Verifier | None = None
    position: int = 0
    # the last entry read and its sealed link, read with it (what a read model built to there
    # records, `projections.binding`)
    sealed: tuple[int, str | None] = (0, None)

    def start(self, after: int) -> tuple[int, Verifier] | None:
        """Where a read after `after` goes on from (None: a check from the log): the kept
        write's end and Verifier, if it ends at or before `after`."""
        if self.verifier is None or self.position > after:
            return None
        return self.position, self.verifier

    def keep(self, verifier: Verifier, position: int) -> None:
        self.verifier, self.position = verifier, position

    def drop(self) -> None:
        self.verifier, self.position, self.sealed = None, 0, (0, None)

    def seal(self, position: int, link: str | None) -> None:
        self.sealed = position, link

    def link_at(self, position: int) -> str | None:
        """The sealed link at `position` as the read that ended there saw it (None: unknown)."""
        found, link = self.sealed
        return link if found == position == self.position else None

    def at(self, position: int) -> Verifier | None:
        """The kept Verifier if the trail ends at `position` (what `reads.verifier_at` would
        learn there: the keys, roles and federation), else None."""
        return self.verifier if self.position == position else None


class _NotKept(Exception):
    """A read going on from a `Trail` met an entry it must not go past (a new set-aside)."""


def read_verified_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder,
    after_position: int = 0,
    batch: int = 500,
    trail: Trail | None = None,
    ahead: Glance | None = None,
) -> Iterator[LedgerEntry]:
    """Like `ledger.log.read_entries`, but no entry is yielded before the signature of its
    write checks against the key its actor held at that position (`signing.Verifier`, in bulk,
    keys cached), and none that a director set aside (`asides`). The read model's catch-up and
    rebuild read the ledger through this. At a write that does not check, the entries end: the
    read answers from the ledger as verified up to the write before it, and the break is
    reported (`ledger.log.breaks_reported`), never raised (issue 28: one bad entry never takes
    the ledger down). Only key events' and list commitments' payloads are parsed here; every
    other entry is checked from its envelope (its actor) and its stored bytes. `trail`: goes on
    from it when it can (`Trail`), reading the entries after it in one statement unless
    `ahead` read them already (`reads.glance`), and is left where this read got to."""
    kept = trail.start(after_position) if trail is not None else None
    if kept is None:
        start = write_start(app_or_recorder, after_position)
        verifier = verifier_at(app_or_recorder, start)
        if trail is not None:  # where it stands even if no write follows
            trail.keep(verifier, start)
    else:
        start, verifier = kept
        verifier.profile_before = profiles(recorder_of(app_or_recorder))  # this read's ledger
        if ahead is None or ahead.after != start:  # the new writes, in one statement
            ahead = glance(app_or_recorder, start, 0)
    verified = start
    try:
        writes = _writes(app_or_recorder, start, verifier, batch, trail, kept is not None, ahead)
        for end, write in writes:
            if trail is not None:
                trail.keep(verifier, end)
            yield from (e for e in write if e.position > after_position)
            verified = write[-1].position if write else verified
    except (SignatureError, _NotKept) as exc:
        if trail is not None:
            trail.drop()
        if kept is not None:  # what a check from the log finds from here is the answer
            yield from read_verified_entries(
                app_or_recorder, max(verified, after_position), batch, trail
            )
        elif isinstance(exc, SignatureError):
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
    app_or_recorder: HasRecorder | ApplicationRecorder,
    start: int,
    verifier: Verifier,
    batch: int,
    trail: Trail | None = None,
    kept: bool = False,
    ahead: Glance | None = None,
) -> Iterator[tuple[int, list[LedgerEntry]]]:
    """The entries after `start`, a verified write at a time with the position it ends at
    (set-aside entries left out; a set-aside entry alone is an empty write); SignatureError at
    the first that does not check; `_NotKept` at a set-aside write if the verifier is `kept`
    (a `Trail`'s: the positions it passes over were found before that write). `trail` is told
    the last entry's sealed link; `ahead`: the entries after `start`, if read already."""
    held: list[LedgerEntry] = []
    sealed = trail.seal if trail is not None else None
    for rows in signed_entries(app_or_recorder, start, batch, sealed, ahead):
        for notification, signed in rows:
            entry = to_entry(notification)
            if kept and entry.type == SET_ASIDE:
                raise _NotKept(entry.position)
            data = entry.payload | {"actor": entry.actor} if entry.type in READ_EVENTS else None
            ends_write = verifier.check_one(signed, data or {"actor": entry.actor})
            if entry.position not in verifier.set_aside:
                held.append(entry)
            if ends_write:
                yield entry.position, held
                held = []
    verifier.finish()
