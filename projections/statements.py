"""A statement run for many rows with their NULLs written into it, not bound; a list bound
as the JSON text a statement reads with `json_each`.

Python 3.11's sqlite3 binds a None through its adapter lookup, which raises and clears an
AttributeError for each one: about 0.4 µs a value, against 0.05 for a number, and a catch-up's
rows hold tens of thousands (docs/decisions.md, "A catch-up's writes without bound NULLs").
So the rows are grouped by where their Nones are, and each group runs its own statement with
`NULL` in those places (the same rows stored: a bound None is NULL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, Final

import msgspec

_JSON: Final = msgspec.json.Encoder().encode
# A statement's text split at its placeholders (`?`, none of them in a literal), by its text.
_SPLIT: dict[str, list[str]] = {}


def executemany(conn: sqlite3.Connection, statement: str, rows: Iterable[Sequence[Any]]) -> None:
    """`conn.executemany(statement, rows)`, each row's Nones written as NULL: the rows of one
    pattern of Nones in one call, the patterns in the order first met."""
    groups: dict[tuple[int, ...], list[tuple[Any, ...]]] = {}
    for row in rows:
        values = tuple(row)  # a tuple (the row itself if it is one): read by index, compiled
        nulls = tuple([i for i in range(len(values)) if values[i] is None])
        if nulls:
            values = tuple([v for v in values if v is not None])
        found = groups.get(nulls)
        if found is None:
            groups[nulls] = [values]
        else:
            found.append(values)
    for nulls, group in groups.items():
        conn.executemany(with_nulls(statement, nulls), group)


def with_nulls(statement: str, nulls: tuple[int, ...]) -> str:
    """`statement` with `NULL` for its placeholders at `nulls` (0 the first)."""
    if not nulls:
        return statement
    parts = _SPLIT.get(statement)
    if parts is None:
        parts = _SPLIT[statement] = statement.split("?")
    out = [parts[0]]
    for i in range(1, len(parts)):
        out.append("NULL" if i - 1 in nulls else "?")
        out.append(parts[i])
    return "".join(out)


def json_list(values: Sequence[Any]) -> str:
    """`values` as JSON text, bound for a statement's `json_each`: msgspec's, a few times
    cheaper than `json.dumps`'s (its text is UTF-8 where json.dumps escapes; SQLite reads the
    same values from both)."""
    return _JSON(values).decode()
