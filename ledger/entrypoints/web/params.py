"""What a request asks: the page's times (`When`), whole-number and date parameters, and the
answer other than 200 (`HttpError`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from urllib.parse import parse_qs

from ledger.bounds import INPUT_LIMITS, size_text
from projections.session import known_moment

LARGEST = 2**63 - 1  # SQLite's largest integer: a larger number is a bad parameter


class HttpError(Exception):
    """An answer other than 200: the status line and a message for the page."""

    def __init__(
        self, status: str, message: str, headers: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []


@dataclass(frozen=True)
class When:
    """The two times a page can be asked about: ratings `as_of` a day, and the ledger as it
    was known at a moment (`as_known_at`, resolved to `position`)."""

    as_of: str | None = None
    as_known_at: str | None = None
    position: int | None = None
    by_position: bool = False  # asked as `?position=N` rather than `?as_known_at=`

    def params(self) -> dict[str, str]:
        asked = str(self.position) if self.by_position else None
        pairs = (("as_of", self.as_of), ("as_known_at", self.as_known_at), ("position", asked))
        return {k: v for k, v in pairs if v}


def parameters(text: str) -> dict[str, str]:
    """A request's parameters (the last of each name), its query string refused by its size
    first (414, naming the limit)."""
    limit = INPUT_LIMITS["query"]
    if len(text) > limit.size:
        raise HttpError(
            "414 URI Too Long",
            f"the query string is {len(text):,} bytes; {limit.what} may hold at most "
            f"{size_text(limit.size)} ({limit.size:,} bytes; INPUT_LIMITS['query'])",
        )
    return {k: v[-1] for k, v in parse_qs(text).items()}


def when(query: dict[str, str]) -> When:
    """The page's times from its query: `as_of`, and `as_known_at` or `position`."""
    as_of = query.get("as_of") or None
    known = query.get("as_known_at") or None
    if as_of is not None:
        try:
            as_of = date.fromisoformat(as_of).isoformat()
        except ValueError:
            raise HttpError("400 Bad Request", f"as_of: {as_of!r} is not YYYY-MM-DD") from None
    if known is not None:
        try:
            known_moment(known)
        except ValueError:
            raise HttpError(
                "400 Bad Request", f"as_known_at: {known!r} is not an ISO date or date-time"
            ) from None
    position = query.get("position") or None
    if position is not None:
        if known is not None:
            raise HttpError("400 Bad Request", "give as_known_at or position, not both")
        return When(as_of, None, whole(position, "position", 1), by_position=True)
    return When(as_of, known)


def whole(text: str, name: str, least: int = 0) -> int:
    """A whole-number parameter from `least` up to SQLite's largest integer, else 400."""
    try:
        value = int(text)
    except ValueError:
        raise HttpError("400 Bad Request", f"{name}: {text!r} is not a number") from None
    if not least <= value <= LARGEST:
        raise HttpError("400 Bad Request", f"{name}: {text} is not between {least} and {LARGEST}")
    return value


def day(text: str | None, name: str) -> str | None:
    """An optional YYYY-MM-DD parameter, else 400."""
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise HttpError("400 Bad Request", f"{name}: {text!r} is not YYYY-MM-DD") from None
