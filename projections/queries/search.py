"""Finding players by id or name as people type them (issues 11, 20, 31 and 33): case,
accents, transliteration (both ways, Cyrillic too), word order and a one-letter slip ignored,
ranked by how closely the name matched, then by rating and name (docs/decisions.md, "Search as
people type names"). The names are read from the read model's name tables
(projections/names.py), each lookup a range scan of an index."""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from projections.names import ACCENTS, DROPPED, SUFFIX, TRANSLITERATED, forms, keys, one_slip
from projections.queries.common import system_order
from projections.queries.players import current_ratings, merges

if TYPE_CHECKING:
    from projections.schema import ReadModel

# How a name matched, best first: the start of its words as written (case aside), with accents
# dropped, transliterated; inside its words (accents dropped); one letter off. A search's
# players come in this order, then by rating, then by name.
MATCHES = ("exact", "accents", "transliterated", "inside a word", "one slip")
INSIDE, SLIP = 3, 4  # after the forms' ranks (projections/names.py)
SLIP_SHORTEST = 4  # a word typed shorter than this is never read as a slip ("Li" ≠ "Lu")
_LAST = "\U0010ffff"  # after every character: a prefix's range ends before it plus this


def search_players(view: ReadModel, text: str, limit: int, offset: int = 0) -> dict[str, Any]:
    """Players whose id starts with `text` or whose name holds every word of it, each word the
    start of one of the name's words (in any order), as written, with accents dropped or
    transliterated (`forms`), else inside one, else one letter off a whole word (`one_slip`):
    `total` and one page of `players`, each with how it matched (`MATCHES`) and its current
    ratings. Id matches first (the exact id, then by id), then by match, rating (highest
    first) and name."""
    found = _by_name(view, text) | _by_id(view, text.strip())
    merged = merges(view)
    if merged is not None:  # a record merged away is found as the one it joined
        into = {pid: merged.resolve(pid) for pid in found}
        known = _players(view, set(into.values()) - found.keys()) | found.keys()
        kept: dict[str, int] = {}
        for pid, match in found.items():
            to = into[pid] if into[pid] in known else pid
            kept[to] = min(match, kept.get(to, match))
        found = kept
    named = [pid for pid, match in found.items() if match >= 0]
    rated, sort_names = _first_ratings(view, named), _sort_names(view, named)
    ranked = [(m, 0.0, "", pid) for pid, m in found.items() if m < 0]  # an id match by id
    ranked += [(found[p], -rated.get(p, -1.0), sort_names.get(p, ""), p) for p in named]
    page = [r[3] for r in heapq.nsmallest(offset + max(limit, 0), ranked)[offset:]]
    ratings = current_ratings(view, page)
    shown = dict(
        view.db.execute(
            "select id, json_extract(profile, '$.name') from players "
            "where id in (select value from json_each(?))",
            [json.dumps(page)],
        ).fetchall()
    )
    return {
        "total": len(found),
        "players": [
            {
                "id": pid,
                "name": shown.get(pid),
                "match": "id" if found[pid] < 0 else MATCHES[found[pid]],
                "ratings": ratings.get(pid, {}),
            }
            for pid in page
        ],
    }


def matches(text: str, name: str) -> bool:
    """Whether every word of `text` is in `name`, both in one of their `forms` (the sections'
    search)."""
    return any(
        all(t in n for t in q.split()) for q, n in zip(forms(text), forms(name), strict=True) if q
    )


def _by_id(view: ReadModel, text: str) -> dict[str, int]:
    """The players whose id starts with `text` (-1), the id itself first (-2)."""
    if not text:
        return {}
    rows = view.db.execute(
        "select id from players where id >= ? and id < ?", [text, text + _LAST]
    ).fetchall()
    return {pid: -2 if pid == text else -1 for (pid,) in rows}


def _by_name(view: ReadModel, text: str) -> dict[str, int]:
    """The players whose name matches `text`, each with how (`MATCHES`)."""
    typed = forms(text)
    best: dict[str, int] = {}

    def add(match: int, query: str, words: Callable[[str], set[str]]) -> None:
        for pid in _all(query.split(), words) - best.keys():
            best[pid] = match

    for form, query in enumerate(typed):
        add(form, query, partial(_starting, view, form))
    add(INSIDE, typed[ACCENTS], partial(_inside, view))
    add(SLIP, typed[TRANSLITERATED], partial(_near, view))
    return best


def _all(query: Sequence[str], words: Callable[[str], set[str]]) -> set[str]:
    """The players with a word matching each word of `query` (`words`: the players a word of
    the query matches)."""
    found: set[str] | None = None
    for typed in query:
        found = words(typed) if found is None else found & words(typed)
        if not found:
            return set()
    return found or set()


def _starting(view: ReadModel, form: int, typed: str) -> set[str]:
    """The players with a word starting with `typed` in `form`."""
    rows = view.db.execute(
        "select player from name_words where form = ? and word >= ? and word < ?",
        [form, typed, typed + _LAST],
    )
    return {pid for (pid,) in rows}


def _inside(view: ReadModel, typed: str) -> set[str]:
    """The players with a word holding `typed` without accents: a suffix of the word starts
    with it."""
    rows = view.db.execute(
        "select player from name_words where form = ? and word in "
        "(select word from name_keys where kind = ? and key >= ? and key < ?)",
        [ACCENTS, SUFFIX, typed, typed + _LAST],
    )
    return {pid for (pid,) in rows}


def _near(view: ReadModel, typed: str) -> set[str]:
    """The players with a transliterated word starting with `typed` or one slip off it: the
    words sharing a key with it (itself, or with a letter dropped) checked (`one_slip`)."""
    found = _starting(view, TRANSLITERATED, typed)
    if len(typed) < SLIP_SHORTEST:
        return found
    near = view.db.execute(
        "select distinct word from name_keys where kind = ? "
        "and key in (select value from json_each(?))",
        [DROPPED, json.dumps(sorted(keys(DROPPED, typed)))],
    )
    slips = [w for (w,) in near if one_slip(typed, w)]
    rows = view.db.execute(
        "select player from name_words where form = ? and word in (select value from json_each(?))",
        [TRANSLITERATED, json.dumps(slips)],
    )
    return found | {pid for (pid,) in rows}


def _players(view: ReadModel, ids: set[str]) -> set[str]:
    """Those of `ids` that are players."""
    rows = view.db.execute(
        "select id from players where id in (select value from json_each(?))",
        [json.dumps(sorted(ids))],
    )
    return {pid for (pid,) in rows}


def _sort_names(view: ReadModel, ids: Sequence[str]) -> dict[str, str]:
    """Each of `ids`' name without accents (`names`): the order among players matched alike
    and rated alike."""
    if len(ids) > _MANY:  # most of the players: the whole table, read once
        return dict(view.db.execute("select player, sort_name from names").fetchall())
    rows = view.db.execute(
        "select player, sort_name from names where player in (select value from json_each(?))",
        [json.dumps(list(ids))],
    )
    return dict(rows.fetchall())


def _first_ratings(view: ReadModel, ids: Sequence[str]) -> dict[str, float]:
    """Each of `ids`' rating in the first of the family's systems he is rated in."""
    order = system_order(view)
    first: dict[str, tuple[tuple[int, str], float]] = {}
    if len(ids) > _MANY:  # most of the players: one pass over the table
        wanted = set(ids)
        rows = view.db.execute(
            "select player, system, rating from ratings where rating is not null"
        )
        for pid, system, rating in rows:
            if pid in wanted and (pid not in first or order(system) < first[pid][0]):
                first[pid] = (order(system), rating)
        return {pid: rating for pid, (_, rating) in first.items()}
    for at in range(0, len(ids), _CHUNK):
        chunk = ids[at : at + _CHUNK]
        rows = view.db.execute(
            f"select player, system, rating from ratings where rating is not null "
            f"and player in ({', '.join('?' for _ in chunk)})",
            chunk,
        )
        for pid, system, rating in rows:
            key = order(system)
            if pid not in first or key < first[pid][0]:
                first[pid] = (key, rating)
    return {pid: rating for pid, (_, rating) in first.items()}


_CHUNK = 500  # ids a query asks for at a time (SQLite's limit on parameters is 999 at worst)
_MANY = 20 * _CHUNK  # more ids than this: the whole table read once
