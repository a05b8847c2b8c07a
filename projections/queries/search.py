"""Finding players by id or name as people type them (issues 11, 20 and 31): case, accents,
transliteration (both ways, Cyrillic too), word order and a one-letter slip ignored, ranked by
how closely the name matched, then by rating and name (docs/decisions.md, "Search as people
type names")."""

from __future__ import annotations

import heapq
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from anyascii import anyascii

from projections.queries.common import system_order
from projections.queries.players import current_ratings, merges

if TYPE_CHECKING:
    from projections.schema import ReadModel

# How a name matched, best first: the start of its words as written (case aside), with accents
# dropped, transliterated; inside its words (accents dropped); one letter off. A search's
# players come in this order, then by rating, then by name.
MATCHES = ("exact", "accents", "transliterated", "inside a word", "one slip")
ACCENTS, TRANSLITERATED, INSIDE, SLIP = range(1, 5)  # after 0, as written
SLIP_SHORTEST = 4  # a word typed shorter than this is never read as a slip ("Li" ≠ "Lu")


def search_players(view: ReadModel, text: str, limit: int, offset: int = 0) -> dict[str, Any]:
    """Players whose id starts with `text` or whose name holds every word of it, each word the
    start of one of the name's words (in any order), as written, with accents dropped or
    transliterated (`forms`), else inside one, else one letter off a whole word (`one_slip`):
    `total` and one page of `players`, each with how it matched (`MATCHES`) and its current
    ratings. Id matches first (the exact id, then by id), then by match, rating (highest
    first) and name."""
    index = _name_index(view)
    found = index.by_name(text) | index.by_id(text.strip())
    merged = merges(view)
    if merged is not None:  # a record merged away is found as the one it joined
        kept: dict[int, int] = {}
        for n, match in found.items():
            into = index.position.get(merged.resolve(index.ids[n]), n)
            kept[into] = min(match, kept.get(into, match))
        found = kept
    rated = _first_ratings(view, [index.ids[n] for n, match in found.items() if match >= 0])
    first = heapq.nsmallest(offset + max(limit, 0), found, lambda n: index.rank(found[n], n, rated))
    page = first[offset:]
    ratings = current_ratings(view, [index.ids[n] for n in page])
    return {
        "total": len(found),
        "players": [
            {
                "id": index.ids[n],
                "name": index.names[n],
                "match": "id" if found[n] < 0 else MATCHES[found[n]],
                "ratings": ratings.get(index.ids[n], {}),
            }
            for n in page
        ],
    }


def words(text: str) -> str:
    """`text`'s words, case folded, punctuation as spaces."""
    low = unicodedata.normalize("NFC", text).casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in low).split())


# Letters that do not decompose, written as people write them without accents.
_BARE = str.maketrans({"æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ð": "d", "đ": "d", "ł": "l"})
_BARE.update(str.maketrans({"ı": "i", "ø": "o", "ħ": "h", "ŀ": "l"}))


def folded(text: str) -> str:
    """`text` for matching: accents dropped (Müller → muller, Łukasz → lukasz, Ødegaard →
    odegaard), case folded, punctuation as spaces."""
    low = unicodedata.normalize("NFKD", text.casefold().translate(_BARE))
    return words("".join(c for c in low if not unicodedata.combining(c)))


# One spelling for the ways people write a sound in Latin letters (docs/decisions.md, "Search
# as people type names"): German and Nordic letters transliterated or bare (ü → ue or u, ö →
# oe, å → aa, ß → ss), and the usual schemes for Cyrillic (anyascii's, and the German, French,
# Polish and English ones: Щ shch/sch/szcz, Ч ch/tsch/cz, Ж zh/z, Х kh/h, Ц ts/tz/c, В v/w,
# Й y/j/i), each side of a search alike.
_DIGRAPHS = {"shch": "sh", "szcz": "sh", "tsch": "ch", "tch": "ch", "sch": "sh", "sz": "sh"}
_DIGRAPHS |= {"cz": "ch", "zh": "z", "kh": "h", "ts": "c", "tz": "c", "ph": "f", "x": "ks"}
_DIGRAPHS |= {"w": "v", "ae": "a", "oe": "o", "ue": "u"}
_DIGRAPH = re.compile("|".join(sorted(_DIGRAPHS, key=len, reverse=True)))
_SOUNDS = (
    (re.compile(r"(?<=[aeiou])[jy]\b"), "i"),  # Sergey, Sergej → sergei; Nikolaj → nikolai
    (re.compile(r"(?:ij|iy|yy|ii|y)\b"), "i"),  # Yuriy, Jurij, Yurii, Yury → yuri
    (re.compile(r"i[jy](?=[aeiou])"), "i"),  # Mariya, Marija → maria
    (re.compile(r"\bj(?=[aeiou])"), "y"),  # Juri → yuri
    (re.compile(r"off\b"), "ov"),  # Smirnoff → smirnov
    (re.compile(r"(.)\1+"), r"\1"),  # Mueller, Muller → muler; Aaberg → aberg
)
_SIGNS = str.maketrans("", "", "'`\"")  # soft and hard signs (anyascii's ' and "), O'Brien


def transliterated(text: str) -> str:
    """`text` in Latin letters (anyascii: Иванов → ivanov), its apostrophes dropped and each
    sound in one spelling (Mueller, Müller, Muller → muler; Iwanow → ivanov)."""
    latin = words(anyascii(unicodedata.normalize("NFC", text)).translate(_SIGNS).casefold())
    latin = _DIGRAPH.sub(lambda m: _DIGRAPHS[m.group()], latin)
    for pattern, sound in _SOUNDS:
        latin = pattern.sub(sound, latin)
    return latin


def forms(text: str) -> tuple[str, str, str]:
    """`text` as each match reads it: as written (`words`), accents dropped (`folded`) and
    transliterated (`transliterated`)."""
    return words(text), folded(text), transliterated(text)


def one_slip(typed: str, word: str) -> bool:
    """Whether `typed` is `word` with one letter wrong, missing, extra or two neighbours
    swapped (Vasques → vasquez, Carlsne → carlsen)."""
    if abs(len(typed) - len(word)) > 1 or typed == word:
        return False
    first = next((i for i, (a, b) in enumerate(zip(typed, word, strict=False)) if a != b), None)
    if first is None:  # one is the other and a letter more
        return True
    rest, other = typed[first:], word[first:]
    return (
        rest[1:] == other[1:]
        or rest[1:] == other
        or rest == other[1:]
        or (rest[:2] == other[1::-1] and rest[2:] == other[2:])
    )


def matches(text: str, name: str) -> bool:
    """Whether every word of `text` is in `name`, both in one of their `forms` (the sections'
    search)."""
    return any(
        all(t in n for t in q.split()) for q, n in zip(forms(text), forms(name), strict=True) if q
    )


@dataclass
class _Index:
    """Every player's name in each of its `forms`, by word, for a search in time proportional
    to the words matched, not to the players."""

    ids: list[str]  # sorted
    names: list[str | None]
    sort_names: list[str]  # folded: the order among players matched alike and rated alike
    vocabulary: list[list[str]]  # each form's words, sorted
    postings: list[dict[str, list[int]]]  # each form's word → the players whose name has it
    lengths: dict[int, list[str]]  # the transliterated words by length, for the slips
    position: dict[str, int]

    def rank(self, match: int, n: int, rated: dict[str, float]) -> tuple[int, float, str, str]:
        """A found player's place: an id match by id, a name by match, rating and name."""
        pid = self.ids[n]
        if match < 0:
            return (match, 0.0, "", pid)
        return (match, -rated.get(pid, -1.0), self.sort_names[n], pid)

    def by_id(self, text: str) -> dict[int, int]:
        """The players whose id starts with `text` (-1), the id itself first (-2)."""
        found: dict[int, int] = {}
        for n in range(bisect_left(self.ids, text), len(self.ids) if text else 0):
            if not self.ids[n].startswith(text):
                break
            found[n] = -2 if self.ids[n] == text else -1
        return found

    def by_name(self, text: str) -> dict[int, int]:
        """The players whose name matches `text`, each with how (`MATCHES`)."""
        typed = forms(text)
        best: dict[int, int] = {}

        def add(match: int, query: str, words: Callable[[str], set[int]]) -> None:
            for n in self._all(query.split(), words) - best.keys():
                best[n] = match

        for form, query in enumerate(typed):
            add(form, query, partial(self._starting, form))
        add(INSIDE, typed[ACCENTS], partial(self._inside, ACCENTS))
        add(SLIP, typed[TRANSLITERATED], self._near)
        return best

    def _all(self, query: Sequence[str], words: Callable[[str], set[int]]) -> set[int]:
        """The players with a word matching each word of `query` (`words`: the players a
        word of the query matches)."""
        found: set[int] | None = None
        for typed in query:
            found = words(typed) if found is None else found & words(typed)
            if not found:
                return set()
        return found or set()

    def _starting(self, form: int, typed: str) -> set[int]:
        """The players with a word starting with `typed` in `form`."""
        words, postings = self.vocabulary[form], self.postings[form]
        start = bisect_left(words, typed)
        end = bisect_left(words, typed + "\U0010ffff", start)
        return _union(postings[w] for w in words[start:end])

    def _inside(self, form: int, typed: str) -> set[int]:
        """The players with a word holding `typed` in `form`."""
        postings = self.postings[form]
        return _union(postings[w] for w in self.vocabulary[form] if typed in w)

    def _near(self, typed: str) -> set[int]:
        """The players with a transliterated word starting with `typed` or one slip off it."""
        found = self._starting(TRANSLITERATED, typed)
        if len(typed) < SLIP_SHORTEST:
            return found
        size, postings = len(typed), self.postings[TRANSLITERATED]
        near = (w for n in (size - 1, size, size + 1) for w in self.lengths.get(n, ()))
        return found | _union(postings[w] for w in near if one_slip(typed, w))


def _union(groups: Iterable[list[int]]) -> set[int]:
    found: set[int] = set()
    for group in groups:
        found.update(group)
    return found


_INDEXES: dict[tuple[object, ...], _Index] = {}
_FORMS: dict[str, tuple[str, str, str]] = {}  # a name's forms, kept across profile changes
_SEEN: dict[tuple[str, object], tuple[object, ...]] = {}  # (file, position) → its profiles' key


def _name_index(view: ReadModel) -> _Index:
    """The players' names indexed (`_Index`), built again only when a profile changed: each
    profile row holds the position of the entry that wrote it, so any change, a void's too,
    changes the count or the sums of those positions (read once per ledger position)."""
    path = view.db.execute("pragma database_list").fetchone()[2]
    last = view.db.execute("select value from meta where key = 'last_position'").fetchone()
    seen = (path, last[0] if last else None)
    key = _SEEN.get(seen) or (path, *view.db.execute(_PROFILES).fetchone())
    _SEEN.clear()
    _SEEN[seen] = key
    index = _INDEXES.get(key) if path else None
    if index is None:
        index = _build(view)
        _INDEXES.clear()
        _INDEXES[key] = index
    return index


_PROFILES = "select count(*), total(position), total(position * position) from players"


def _build(view: ReadModel) -> _Index:
    rows = view.db.execute(
        "select id, json_extract(profile, '$.name') from players order by id"
    ).fetchall()
    named = {name: _FORMS.get(name) or forms(name) for _, name in rows if name}
    _FORMS.clear()
    _FORMS.update(named)
    postings: list[dict[str, list[int]]] = [{}, {}, {}]
    for n, (_, name) in enumerate(rows):
        for match, form in enumerate(named.get(name, ())):
            for word in set(form.split()):
                postings[match].setdefault(word, []).append(n)
    lengths: dict[int, list[str]] = {}
    for word in postings[TRANSLITERATED]:
        lengths.setdefault(len(word), []).append(word)
    ids = [pid for pid, _ in rows]
    return _Index(
        ids=ids,
        names=[name for _, name in rows],
        sort_names=[named[name][ACCENTS] if name else "" for _, name in rows],
        vocabulary=[sorted(p) for p in postings],
        postings=postings,
        lengths=lengths,
        position={pid: n for n, pid in enumerate(ids)},
    )


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
