"""The players' names in the forms a search reads them (issues 31 and 33): as written, accents
dropped, transliterated, word by word, stored in the read model's name tables
(`schema.NAME_TABLES`) as the batches write the profiles, so a search is a few index range
scans however many players there are (docs/decisions.md, "Search as people type names").

The tables are made from the `players` rows alone and are not content (`schema.content`): the
digest stays that of the profiles they are made from."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from anyascii import anyascii

if TYPE_CHECKING:
    from projections.schema import Executes

ACCENTS, TRANSLITERATED = 1, 2  # `forms` after the name as written (0)
# `name_keys`' kinds: a folded word's suffixes (a word holding a query word starts one of
# them), a transliterated word with a letter dropped or none (a slip's candidates share one).
SUFFIX, DROPPED = range(2)
KEYED = {ACCENTS: SUFFIX, TRANSLITERATED: DROPPED}  # the form each kind of key is made from


# A run of letters and digits: exactly the characters of `str.isalnum` (\w less "_"; every
# code point checked, issue 33), found by the regex engine rather than a character at a time.
_ALNUM = re.compile(r"[^\W_]+")


def words(text: str) -> str:
    """`text`'s words, case folded, punctuation as spaces."""
    return " ".join(_ALNUM.findall(unicodedata.normalize("NFC", text).casefold()))


# Letters that do not decompose, written as people write them without accents.
_BARE = str.maketrans({"æ": "ae", "œ": "oe", "ß": "ss", "þ": "th", "ð": "d", "đ": "d", "ł": "l"})
_BARE.update(str.maketrans({"ı": "i", "ø": "o", "ħ": "h", "ŀ": "l"}))


def folded(text: str) -> str:
    """`text` for matching: accents dropped (Müller → muller, Łukasz → lukasz, Ødegaard →
    odegaard), case folded, punctuation as spaces."""
    low = unicodedata.normalize("NFKD", text.casefold().translate(_BARE))
    if low.isascii():  # no combining mark to drop
        return words(low)
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


def keys(kind: int, word: str) -> set[str]:
    """`word`'s keys of `kind`: its suffixes (`SUFFIX`: "lovelace" → "lace"), or itself and
    itself without each one letter (`DROPPED`: two words one slip apart share one of them)."""
    if kind == SUFFIX:
        return {word[i:] for i in range(len(word))}
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


def name_of(profile: str | None) -> str | None:
    """The name in a `players` row's stored profile (None: no row, or no name)."""
    return None if profile is None else usable(json.loads(profile).get("name"))


def usable(name: object) -> str | None:
    """A profile's name as the name tables take it (None: none, or not a name)."""
    return name if isinstance(name, str) and name else None


def word_rows(player: str, name: str | None) -> set[tuple[int, str, str]]:
    """`name_words` rows of `player` named `name`: (form, word, player) for each word of each
    of its `forms`."""
    return _word_rows(player, forms(name)) if name else set()


def _word_rows(player: str, texts: Sequence[str]) -> set[tuple[int, str, str]]:
    """`name_words` rows of `player` from his name's `forms`."""
    return {(form, w, player) for form, text in enumerate(texts) for w in text.split()}


def named(profiles: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(player, name) of each of `profiles` ((player, stored profile)) that has a name."""
    return [(p, name) for p, profile in profiles if (name := name_of(profile))]


def write_all(conn: Any, named: Sequence[Sequence[str]], chunk: int) -> None:
    """The name tables of a rebuild (`conn.executemany`) for `named` ((player, name);
    `named`): `start`, `add` and `finish`, `chunk` players at a time."""
    start(conn)
    add(conn, named, chunk)
    finish(conn, chunk)


def start(conn: Any) -> None:
    """The temporary tables a rebuild's name rows are made in (`add`), put in order by
    SQLite at the end (`finish`, through temporary files: the words of 200,000 players
    sorted here were 1.2M tuples, most of a writer's 227 MiB). A rebuild's writer process
    runs these (projections/writer.py `call`), the players handed over a chunk at a time
    as the log is read (200,000 players' names at once were 40 MiB of its 80, issue 33)."""
    conn.execute("create temp table made_names (player TEXT, sort_name TEXT)")
    conn.execute("create temp table made_words (form INTEGER, word TEXT, player TEXT)")
    conn.execute("create temp table made_keys (kind INTEGER, key TEXT, word TEXT)")


def add(conn: Any, named: Sequence[Sequence[str]], chunk: int) -> None:
    """The `names` rows and the words of `named` ((player, name), in any order, each player
    once unless `forget` was told of him since), made `chunk` players at a time."""
    for at in range(0, len(named), chunk):
        some = [(p, forms(n)) for p, n in named[at : at + chunk]]
        conn.executemany(
            "insert into temp.made_names values (?, ?)", [(p, f[ACCENTS]) for p, f in some]
        )
        made = [r for p, f in some for r in _word_rows(p, f)]
        conn.executemany("insert into temp.made_words values (?, ?, ?)", made)


def forget(conn: Any, players: Sequence[str]) -> None:
    """The rows `add` made of `players` dropped (their profiles changed since: a rebuild
    adds them again as they end)."""
    listed = [json.dumps(list(players))]
    for table in ("made_names", "made_words"):
        conn.execute(
            f"delete from temp.{table} where player in (select value from json_each(?))", listed
        )


def finish(conn: Any, chunk: int) -> None:
    """The `names`, `name_words` and `name_keys` tables from the rows `add` made, in their
    keys' order (the keys made `chunk` words at a time)."""
    conn.execute("insert into names select * from temp.made_names order by 1")
    conn.execute("insert into name_words select * from temp.made_words order by 1, 2, 3")
    vocabulary = conn.execute(
        "select distinct form, word from temp.made_words where form in (?, ?)", list(KEYED)
    )
    while found := vocabulary.fetchmany(chunk):
        made = [(KEYED[f], k, w) for f, w in found for k in keys(KEYED[f], w)]
        conn.executemany("insert into temp.made_keys values (?, ?, ?)", made)
    conn.execute("insert into name_keys select distinct * from temp.made_keys order by 1, 2, 3")
    for table in ("made_names", "made_words", "made_keys"):
        conn.execute(f"drop table temp.{table}")


def rename(conn: Executes, player: str, before: str | None, after: str | None) -> None:
    """The name tables after `player`'s name changed from `before` to `after` (None: none):
    his words' rows, and the keys of a word now in no name dropped, of a new word added."""
    old, new = word_rows(player, before), word_rows(player, after)
    conn.execute("delete from names where player = ?", [player])
    if after:
        conn.execute("insert into names values (?, ?)", [player, folded(after)])
    for form, word, _ in sorted(old - new):
        conn.execute(
            "delete from name_words where form = ? and word = ? and player = ?",
            [form, word, player],
        )
        if form in KEYED and conn.execute(_USED, [form, word]).fetchone() is None:
            for key in keys(KEYED[form], word):
                conn.execute(_DROP_KEY, [KEYED[form], key, word])
    for form, word, _ in sorted(new - old):
        conn.execute("insert into name_words values (?, ?, ?)", [form, word, player])
        for key in keys(KEYED[form], word) if form in KEYED else ():
            conn.execute(
                "insert or ignore into name_keys values (?, ?, ?)", [KEYED[form], key, word]
            )


_USED = "select 1 from name_words where form = ? and word = ? limit 1"  # a word still in a name
_DROP_KEY = "delete from name_keys where kind = ? and key = ? and word = ?"
