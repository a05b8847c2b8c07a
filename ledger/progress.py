"""A progress bar for long commands: drawn on a terminal, silent when stderr is not one."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")


def progress(
    items: Iterable[T], total: int | None, label: str, stream: TextIO | None = None
) -> Iterator[T]:
    """`items` unchanged, counted on a bar on `stream` (stderr) when it is a terminal."""
    out = sys.stderr if stream is None else stream
    if not out.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=out), transient=True) as bar:
        task = bar.add_task(label, total=total)
        for item in items:
            yield item
            bar.advance(task)
