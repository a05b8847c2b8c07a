"""An item's record in a rebuild's spool (projections/batch.py `Fresh`), and the read model's
rows of the items made from their records by the writer's process, which reads them from the
spool file itself (issue 33).

A record is three lines: its head (kind, start, end, position, revision), its fact as the read
model stores it and its players' array, each compact JSON (which holds no line break). Where a
record lies in the spool is one int: its offset times `RECORD`, plus its length. The rating
process hands the writer only each item's key, sort key and where its record lies; reading the
records back, making their rows and encoding the facts through the pipe had been a tenth of
its CPU early in a 10M rebuild's rating (docs/decisions.md, "The items' rows made by the writer
from the spool").
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

# A record's head: its kind, start, end, position and revision.
Head = tuple[str, str, str, int, int]
_ENCODE = msgspec.json.Encoder().encode  # a head, a players' array: compact JSON
_HEAD_DECODE = msgspec.json.Decoder(Head).decode
_PLAYERS_DECODE = msgspec.json.Decoder(list[str]).decode
# Where a record lies in a rebuild's spool, in one int: its offset times RECORD, plus its length.
RECORD = 1 << 32
# An item as the writer is handed it: its key, its sort key and where its record lies.
Spooled = tuple[str, str, int]
WRITE_ROWS = "projections.spooled_items:write_rows"  # `write_rows`, as `Writer.call` names it


def record(head: Head, fact: bytes, players: Sequence[str]) -> bytes:
    """An item's record: its head, its fact (compact JSON) and its players, one line each."""
    return b"\n".join((_ENCODE(head), fact, _ENCODE(list(dict.fromkeys(players)))))


def parts(data: bytes) -> tuple[Head, bytes, bytes]:
    """A record's head, its fact and its players' JSON array (the two line breaks found by
    memchr, not split's byte-by-byte scan of the fact)."""
    first, last = data.index(b"\n"), data.rindex(b"\n")
    return _HEAD_DECODE(data[:first]), data[first + 1 : last], data[last + 1 :]


def write_rows(
    conn: Any, fd: int, spooled: Sequence[Sequence[Any]], survivors: Mapping[str, str]
) -> None:
    """The `items` and `item_players` rows of `spooled` (`Spooled`, in their order; through
    the pipe, lists), each record read from the spool file open as `fd` (in the writer's
    process, where it is open under the same number); `survivors`: each player merged away →
    the record he counts as. The facts are bound as text (`items.payload`)."""
    items, players = [], []
    for key, sort_key, at in spooled:
        offset, length = divmod(int(at), RECORD)
        (kind, start, end, position, revision), fact, named = parts(os.pread(fd, length, offset))
        items.append((key, kind, sort_key, start, end, position, revision, fact.decode()))
        found = [survivors.get(p, p) for p in _PLAYERS_DECODE(named)]
        players += [(key, p) for p in sorted(dict.fromkeys(found))]
    conn.executemany("insert into items values (?, ?, ?, ?, ?, ?, ?, ?)", items)
    conn.executemany("insert into item_players values (?, ?)", players)
