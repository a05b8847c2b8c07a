"""Reading an input the ledger is given (a JSON, TRF, DBF, map or key file): refused by its size
first, in one line naming the limit (`ledger/bounds.py`, `INPUT_LIMITS`), and never read past
it, so memory stays bounded whatever the file holds."""

from __future__ import annotations

from pathlib import Path

from ledger.bounds import INPUT_LIMITS, size_text
from ledger.errors import InvalidCommand


class TooLarge(InvalidCommand):
    """An input over its size limit, refused unread (bad input: exit 2)."""

    def __init__(self, source: str, kind: str, size: int | None = None) -> None:
        limit = INPUT_LIMITS[kind]
        held = f"{size:,} bytes" if size is not None else f"over {limit.size:,} bytes"
        super().__init__(
            (),
            f"{source}: {held}; {limit.what} may hold at most {size_text(limit.size)} "
            f"({limit.size:,} bytes; INPUT_LIMITS[{kind!r}])",
        )


def check_size(path: Path, kind: str) -> None:
    """Refuse `path` if it is larger than an input of `kind` may be (a missing file: no such
    file); what reads it (a library) reads no more than that."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc.strerror})") from None
    if size > INPUT_LIMITS[kind].size:
        raise TooLarge(str(path), kind, size)


def read_bytes(path: Path, kind: str) -> bytes:
    """The bytes of `path`, an input of `kind`, refused unread past its limit (and when it grows
    past it while read, or is a pipe or device that never ends)."""
    check_size(path, kind)
    limit = INPUT_LIMITS[kind].size
    try:
        with path.open("rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc.strerror})") from None
    if len(data) > limit:
        raise TooLarge(str(path), kind)
    return data


def read_text(path: Path, kind: str, encoding: str = "utf-8") -> str:
    """The text of `path` (read as `read_bytes`), or one line naming why it is not text."""
    data = read_bytes(path, kind)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
