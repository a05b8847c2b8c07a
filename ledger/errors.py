"""What the ledger refuses, as exceptions, and one clear line for a bad input: the field's path
and the offending value. Light to import: the command line's start-up needs these."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class InputError(ValueError):
    """A submission that fails validation; the message names the field and value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


class LedgerError(Exception):
    """A command the ledger refused; nothing was appended."""


class InvalidCommand(InputError, LedgerError):
    """Bad input: the message names the field (`games[3].result`) and the offending value."""

    def __init__(self, path: tuple[int | str, ...], message: str, index: int | None = None):
        super().__init__(field_path(path), message)
        self.path = path
        self.message = message
        self.index = index

    def in_item(self, index: int) -> InvalidCommand:
        """The same error, located in item `index` of a list of commands."""
        return InvalidCommand(self.path, self.message, index)


class ConflictError(LedgerError):
    """Other writers kept changing the same records; retrying the command may succeed."""


class Contradiction(InvalidCommand):
    """A write the ledger's records contradict (two records of one person who played each
    other, or whose profiles cannot both be true); nothing was appended. Bad input for the
    ledger's state (exit 2, as the README's codes give it: 3 is for writers racing)."""

    def __init__(self, message: str) -> None:
        super().__init__((), message)


class UnknownRecord(LedgerError):
    """A write about a record the ledger does not hold (exit 1, as a read of it)."""


class StoreError(LedgerError):
    """The store cannot be opened, read or written."""


class AccessDenied(LedgerError):
    """A write the acting actor's roles do not allow; nothing was appended."""


def field_path(loc: tuple[int | str, ...]) -> str:
    """('players', 1, 'rating') → 'players[1].rating'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def describe(exc: ValidationError) -> str:
    """The first error of a pydantic ValidationError as `path: message (got value)`."""
    err = exc.errors(include_url=False)[0]
    loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
    where = field_path(loc) or "input"
    message = err["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if err["type"] == "missing":
        return f"{where}: required field is missing"
    return f"{where}: {message} (got {err.get('input')!r})"
