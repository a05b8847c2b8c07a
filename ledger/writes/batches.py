"""A batch of records in one write: each given once, an error located at its item."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from ledger.errors import InvalidCommand

T = TypeVar("T")


def unique(items: Sequence[T], key: Callable[[T], str], path: tuple[str, ...]) -> None:
    """Reject a batch that gives the same record twice."""
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            raise InvalidCommand(path, f"{k} is given twice (also in item {seen[k]})", i)
        seen[k] = i


@contextmanager
def at_item(index: int) -> Iterator[None]:
    """Locate an InvalidCommand raised while deciding item `index` of a batch."""
    try:
        yield
    except InvalidCommand as exc:
        raise exc.in_item(index) from None
