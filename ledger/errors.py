"""One clear line for a bad input: the field's path and the offending value."""

from __future__ import annotations

from pydantic import ValidationError


class InputError(ValueError):
    """A submission that fails validation; the message names the field and value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


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
