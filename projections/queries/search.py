"""Finding players by id or name, accents, transliteration, case and word order ignored."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from projections.queries.players import _name_of, current_ratings, merges

if TYPE_CHECKING:
    from projections.schema import ReadModel


def search_players(view: ReadModel, text: str, limit: int, offset: int = 0) -> dict[str, Any]:
    """Players whose id starts with `text` or whose name holds every word of it, ignoring
    accents, transliteration, case and word order ("muller, hans" and "Mueller" find
    "Hans Müller"; `spellings`): `total` and one page of `players`, each with its current
    ratings; id matches first, then by name."""
    words = query_words(text)
    wanted = text.strip()
    if not words and not wanted:
        return {"total": 0, "players": []}
    found = []
    for pid, keys, name in _name_index(view):
        if wanted and pid.startswith(wanted):
            found.append((0 if pid == wanted else 1, "", pid, name))
        elif words and matches(words, keys):
            starts = all(
                any(t.startswith(f) for key in keys for t in key.split() for f in forms)
                for forms in words
            )
            found.append((2 if starts else 3, keys[0], pid, name))
    merged = merges(view)
    if merged is not None:  # a record merged away is found as the one it joined
        kept: dict[str, tuple[Any, ...]] = {}
        for rank, sort, pid, name in found:
            into = merged.resolve(pid)
            if into != pid:
                rank, sort, pid, name = rank, sort, into, _name_of(view, into)
            if pid not in kept or (rank, sort) < kept[pid][:2]:
                kept[pid] = (rank, sort, pid, name)
        found = list(kept.values())
    found.sort()
    page = found[offset : offset + limit] if limit >= 0 else []
    ratings = current_ratings(view, [pid for _, _, pid, _ in page])
    return {
        "total": len(found),
        "players": [
            {"id": pid, "name": name, "ratings": ratings.get(pid, {})} for _, _, pid, name in page
        ],
    }


def folded(text: str) -> str:
    """`text` for matching: accents dropped, case folded, punctuation as spaces."""
    plain = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in plain).split())


# A name's letters written two ways (docs/decisions.md, issue 20): transliterated as German
# and Nordic names are in Latin letters (Müller → Mueller, Ødegaard → Oedegaard, Åberg →
# Aaberg) and bare (Muller, Odegaard, Aberg); letters with no decomposition mapped in both.
_BOTH = {"æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ð": "d", "đ": "d", "ł": "l", "ı": "i"}
TRANSLITERATED = str.maketrans(_BOTH | {"ä": "ae", "ö": "oe", "ü": "ue", "ø": "oe", "å": "aa"})
BARE = str.maketrans(_BOTH | {"ø": "o"})


def spellings(text: str) -> tuple[str, ...]:
    """`text` folded (`folded`) in each of its spellings, transliterated and bare (one when
    they are the same)."""
    low = unicodedata.normalize("NFC", text).casefold()
    return tuple(dict.fromkeys(folded(low.translate(table)) for table in (TRANSLITERATED, BARE)))


def query_words(text: str) -> list[tuple[str, ...]]:
    """Each word of a search in each of its spellings."""
    return list(zip(*(s.split() for s in spellings(text)), strict=True))


def matches(words: Sequence[tuple[str, ...]], keys: Sequence[str]) -> bool:
    """Every word (in one of its spellings) is in one of a name's spellings `keys`."""
    return all(any(f in key for f in forms for key in keys) for forms in words)


_INDEXES: dict[tuple[str, str], list[tuple[str, tuple[str, ...], str | None]]] = {}


def _name_index(view: ReadModel) -> list[tuple[str, tuple[str, ...], str | None]]:
    """(id, the name's spellings, name) of every player, cached per read model file and
    position."""
    path = view.db.execute("pragma database_list").fetchone()[2]
    position = view.db.execute("select value from meta where key = 'last_position'").fetchone()
    key = (path, position[0] if position else "")
    index = _INDEXES.get(key) if path else None
    if index is None:
        rows = view.db.execute(
            "select id, json_extract(profile, '$.name') from players order by id"
        ).fetchall()
        index = [(pid, spellings(name or ""), name) for pid, name in rows]
        _INDEXES.clear()
        _INDEXES[key] = index
    return index
