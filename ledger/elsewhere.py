"""A large read's signatures checked in another process (issue 33: "work that does not depend
on earlier ratings … checking signatures … overlaps with rating").

`read_verified_entries` checks each write's signature before it yields the write's entries:
for a whole ledger that is about as much CPU again as reading it. A replay of a large ledger
from its start instead reads the entries here (`entries`: those up to the ledger's last
position when the check began, without the positions a director set aside) while a process of
its own checks every write up to there (`first_break`, the same code), on the machine's other
core, and settles with it (`settle`) before its read model keeps what it read: no break there,
or `UnverifiedRead`, and the caller reads again verified in its own process (which stops at the
break and reports it). This file runs as the other process's program too.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator

from ledger.evidence.reads import verifier_at
from ledger.evidence.verified import first_break
from ledger.log import LedgerEntry, read_entries
from ledger.reading import Readable, open_ledger

# Entries from which a read from the start is checked elsewhere (about 50,000 games, where a
# rebuild starts its writer process too): the other process costs 0.5-0.7 s of CPU to start on
# the shared machine (its imports), a checked read about 0.07 ms an entry more than a plain one
# there, and the rebuilding process waits for it only if it outlasts the whole rebuild
# (docs/benchmarks/replay.md, "Signatures checked elsewhere").
LARGE = 2_000


class UnverifiedRead(Exception):  # noqa: N818 - what the caller is told, not a failure of it
    """The other process found a write up to the read's end that does not check (or could
    not say): what was read must not be kept."""


class CheckedElsewhere:
    """The entries of `ledger` up to its last position now, checked by another process."""

    def __init__(self, ledger: Readable) -> None:
        self.ledger = ledger
        self.limit = ledger.recorder.max_notification_id() or 0
        self.aside = frozenset(verifier_at(ledger, 0).set_aside)
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # a failure there is no answer: the read is checked here
        )
        assert self.process.stdin is not None  # a pipe, asked for above
        # the store's URL on the pipe, not the command line: it may hold a password; a process
        # that has already ended closed the pipe, and `settle` then finds no answer
        with contextlib.suppress(BrokenPipeError), self.process.stdin as pipe:
            pipe.write(ledger.store.encode())

    def entries(self) -> Iterator[LedgerEntry]:
        """The entries up to the limit, without those set aside (as a checked read gives them
        when every write checks)."""
        limit, aside = self.limit, self.aside
        for entry in read_entries(self.ledger):
            if entry.position > limit:
                return
            if entry.position not in aside:
                yield entry

    def settle(self) -> None:
        """Wait for the other process: UnverifiedRead unless every write up to the limit
        checked against the same set-aside positions."""
        assert self.process.stdout is not None  # a pipe, asked for above
        answer = self.process.stdout.read()
        self.process.wait()
        try:
            found, aside = json.loads(answer)
        except ValueError:
            raise UnverifiedRead("the check ended without an answer") from None
        if found is not None and found <= self.limit:
            raise UnverifiedRead(f"entry {found} does not verify")
        if frozenset(aside) != self.aside:  # a set-aside recorded meanwhile
            raise UnverifiedRead("the set-aside positions changed")

    def close(self) -> None:
        """Stop the other process if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def checked_elsewhere(ledger: Readable, after: int) -> CheckedElsewhere | None:
    """A check elsewhere for a read of `ledger` after `after`: only from its start, of a
    ledger of at least LARGE entries in a SQLite file, on a machine with another core."""
    if after > 0 or (os.cpu_count() or 1) < 2 or not sys.executable:
        return None
    if not ledger.store.startswith("sqlite:///") or ":memory:" in ledger.store:
        return None
    if (ledger.recorder.max_notification_id() or 0) < LARGE:
        return None
    return CheckedElsewhere(ledger)


def _check(store: str) -> tuple[int | None, list[int]]:
    """The first position of a write that does not verify, to the ledger's end now (None:
    none), and the set-aside positions."""
    ledger = open_ledger(store)
    try:
        aside = sorted(verifier_at(ledger, 0).set_aside)
        found = first_break(ledger.recorder)
    finally:
        ledger.close()
    return (None if found is None else found.position), aside


if __name__ == "__main__":
    sys.stdout.write(json.dumps(_check(sys.stdin.buffer.read().decode().strip())))
