"""When the entries a read model holds were recorded (issue 33: "no log scan from position 0
for a date").

An as-known-at date names the ledger's prefix before the first entry recorded after it
(`timetravel.position_at`). Recorded times may go backwards (writers decide concurrently, on
clocks a little apart: docs/decisions.md, "Times going backwards"), so the times are not
sorted and a plain binary search could stop at a later crossing. A catch-up or rebuild notes,
of the entries 1..`upto` it read with no gap, the latest time and the most seconds any entry
was recorded before an earlier one (`back`). Then an entry up to `upto` recorded at least
`back` seconds before the date has no earlier entry recorded after it: the search halves the
positions by single-entry reads to the last such entry, and reads on from there as the scan
did. Not content: a meta row the digest leaves out (`KEY`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from ledger.log import LedgerEntry

KEY = "recorded_times"  # the meta row that holds them (outside the content)


def moment_of(recorded_at: str) -> datetime:
    """An entry's recorded time (UTC if naive); ValueError if it has none."""
    at = datetime.fromisoformat(recorded_at)
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass
class Times:
    """Of the entries 1..`upto`: the latest time recorded, and the most seconds an entry was
    recorded before an earlier one."""

    upto: int = 0
    latest: datetime | None = None
    back: float = 0.0

    def watch(self, entries: Iterable[LedgerEntry], after: int) -> Iterator[LedgerEntry]:
        """`entries`, each noted as it passes (those after `after`): from a gap in the
        positions (an entry set aside, a store's skipped number) or a time that cannot be
        read, nothing more is noted."""
        for entry in entries:
            if entry.position > after and entry.position == self.upto + 1:
                self._note(entry)
            yield entry

    def _note(self, entry: LedgerEntry) -> None:
        try:
            at = moment_of(entry.recorded_at)
        except ValueError:
            return
        if self.latest is None or at > self.latest:
            self.latest = at
        else:
            self.back = max(self.back, (self.latest - at).total_seconds())
        self.upto = entry.position


def read(conn: sqlite3.Connection) -> Times:
    """The model's times (none noted: an empty `Times`)."""
    row = conn.execute("select value from meta where key = ?", [KEY]).fetchone()
    if row is None:
        return Times()
    upto, latest, back = json.loads(row[0])
    return Times(upto, None if latest is None else moment_of(latest), back)


def write(conn: sqlite3.Connection, times: Times) -> None:
    """The model's times, in the caller's transaction."""
    latest = None if times.latest is None else times.latest.isoformat()
    conn.execute(
        "insert or replace into meta (key, value) values (?, ?)",
        [KEY, json.dumps([times.upto, latest, times.back])],
    )
