"""Characters no text may hold, and text made safe to print (stdlib only: the fast read path
prints through it, ledger/entrypoints/quick.py)."""

from __future__ import annotations

import unicodedata

FORBIDDEN = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
JOINERS = {"\u200c", "\u200d"}  # ZWNJ and ZWJ (format characters) spell Persian, Indic names


def forbidden(char: str) -> str | None:
    """What `char` is, if no text may hold it (it could forge lines or reorder output)."""
    if char in JOINERS:
        return None
    return FORBIDDEN.get(unicodedata.category(char))


def shown(text: str) -> str:
    """`text` safe to print: each character no text may hold escaped (\\n, \\x1b, \\u202e)."""
    if not any(forbidden(c) for c in text):
        return text
    return "".join(c.encode("unicode_escape").decode() if forbidden(c) else c for c in text)


def digits(text: str, most: int = 18) -> bool:
    """Whether `text` is a whole number in ASCII digits, at most `most` of them: `str.isdigit`
    also says yes to `²` (which `int` refuses) and to 5,000 digits (`int` refuses past 4,300)."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def counted(n: int, noun: str) -> str:
    """`1 item`, `283 items`: a count and its noun, singular for one."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
