"""Recorded times in ledger order: an entry is recorded at most `MAX_CLOCK_SKEW_SECONDS` before
an earlier entry and after the checking clock (ledger/bounds.py). `--as-known-at` reads the
ledger as a prefix (projections/timetravel.py), so a back-dated entry is never known early, but
one dated in the future hides every entry after it from the moments before that date; `verify`
names either (docs/decisions.md, "Times going backwards")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ledger.bounds import MAX_CLOCK_SKEW_SECONDS

SKEW = timedelta(seconds=MAX_CLOCK_SKEW_SECONDS)


class Times:
    """The latest time recorded so far (and where), checked against each next entry."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime.now(UTC)
        self.latest: tuple[datetime, int] | None = None

    def misdated(self, position: int, payload: object) -> str | None:
        """Why the entry at `position` (its JSON) is misdated (None: it is not, or it has no
        time)."""
        if not isinstance(payload, dict):
            return None  # no time to check: the read side reports what it cannot read
        try:
            at = datetime.fromisoformat(payload["timestamp"]["_data_"])
        except (TypeError, KeyError, ValueError):
            return None  # no time to check: the read side reports what it cannot read
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        if at > self.now + SKEW:
            return f"recorded at {at.isoformat()}, in the future (misdated)"
        if self.latest is not None and at < self.latest[0] - SKEW:
            before, where = self.latest
            return (
                f"recorded at {at.isoformat()}, before the entry at position {where} "
                f"({before.isoformat()}) by more than {MAX_CLOCK_SKEW_SECONDS} s (misdated)"
            )
        if self.latest is None or at > self.latest[0]:
            self.latest = (at, position)
        return None
