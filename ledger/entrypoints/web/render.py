"""The pages' one Jinja2 environment: templates beside the routes (`templates/`), every value
escaped (autoescape), one base layout (`base.html`), and the small formatting filters the
templates share."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from datetime import date, datetime
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from ledger.entrypoints.web.params import When
from ledger.log import ReadBreak
from ledger.rules.families import DEFAULT
from ledger.rules.families import family as rules_family
from ledger.rules.rounding import round_half_up

TEMPLATES = Path(__file__).with_name("templates")
# Where the versioned JSON API answers (issue 32): a page's twin is `API` + its path.
API = "/api/v1"
# The JSON twin of the page being answered (`API` + its path and query), set by the site.
TWIN: ContextVar[str | None] = ContextVar("twin", default=None)
# The federation whose rules the site shows, set by the site.
FEDERATION: ContextVar[str] = ContextVar("federation", default="")
# The page's family's names of its systems (`Words.systems`: "FIDE rapid"), set by the site.
SYSTEM_WORDS: ContextVar[Mapping[str, str]] = ContextVar(
    "system_words", default=MappingProxyType({})
)
# The address the page's family answers at (`` for the site's default family, else `/fide`…):
# every link `href` makes stays within it.
BASE: ContextVar[str] = ContextVar("base", default="")
# The family switch of the page being answered (ledger/entrypoints/web/families.py `Choice`s).
SWITCH: ContextVar[list[Any]] = ContextVar("switch")
BROKEN: ContextVar[Sequence[ReadBreak]] = ContextVar("broken", default=())
"""The breaks the request's reads stopped at (ledger.log.ReadBreak): a banner on every page."""


def href(path: str, when: When, **params: object) -> str:
    """A link within the page's family (`BASE`) that keeps the page's times; path segments
    are quoted by the caller (`seg`). Returned plain: the template escapes it."""
    return within(BASE.get(), path, when, **params)


def at(path: str) -> str:
    """A path within the page's family, without the page's times (a form's action)."""
    return BASE.get() + path


def within(base: str, path: str, when: When, **params: object) -> str:
    """`href` within the family whose pages start at `base` (a JSON twin's `/api/...` at
    `API` + `base` + ...)."""
    api = path == "/api" or path.startswith("/api/")
    path = API + base + path[len("/api") :] if api else (base + path if path != "/" else base)
    query = {**{k: v for k, v in params.items() if v is not None}, **when.params()}
    return (path or "/") + ("?" + urlencode(query) if query else "")


def system(code: str) -> str:
    """A system as the page's family calls it (`FIDE_RAPID` → "FIDE rapid"); the code itself
    stays in links, forms and JSON."""
    return SYSTEM_WORDS.get().get(code, code)


def seg(text: str) -> str:
    """One URL path segment."""
    return quote(text, safe="")


def score(points: float) -> str:
    """Points as a person writes them: 3, 2.5."""
    return f"{points:g}" if points != int(points) else str(int(points))


def official(rating: float | None) -> str:
    """A rating as published: rounded half up (never Python's round())."""
    return "unrated" if rating is None else str(round_half_up(rating))


def exact(rating: float | None) -> str:
    return "unrated" if rating is None else f"{rating:.4f}"


def cell(value: object, decimals: int = 2) -> object:
    """A value for a table cell: floats to `decimals` places, booleans as yes/no, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    if isinstance(value, dict):
        return json.dumps(value)
    return value


_PERIOD_WORDS = re.compile(r"(?:(?P<moves>\d+)|game|g|sd)\s*/\s*(?P<minutes>\d+)", re.I)
_BONUS_WORDS = re.compile(r"(?P<kind>delay|inc|d|\+)\s*/?\s*(?P<seconds>\d+)", re.I)


def rate(text: str, family: str = DEFAULT, start: str | None = None) -> str:
    """A time control in words any federation's reader follows, as written after it, read
    as `family` reads it (FIDE: `90/40+30` is 90 minutes for 40 moves), and the list a
    section started on `start` at that rate is rated on, in the family's words: `40/90,
    SD/30;+30` → `40 moves in 90 min, then 30 min; 30 s added a move (40/90, SD/30;+30)`,
    under FIDE `…; FIDE standard`. Text the family cannot read (or `not given`) is shown as
    written."""
    rules = rules_family(family)
    known = rules.time_control(text)
    if known is None:
        return text
    said = _in_words(rules.notation(text))
    listed = None if start is None else rules.list_for(known.total, date.fromisoformat(start))
    return f"{said} ({text})" + ("" if listed is None else f"; {rules.words.system(listed)}")


def _in_words(text: str) -> str:
    """A time control in the ledger's notation in words: `40 moves in 90 min, then 30 min;
    30 s added a move`."""
    periods = list(_PERIOD_WORDS.finditer(text))
    words = [
        f"{m['moves']} moves in {m['minutes']} min"
        if m["moves"]
        else f"{m['minutes']} min" + ("" if i else " for the game")
        for i, m in enumerate(periods)
    ]
    said = words[0] + "".join(f", then {w}" for w in words[1:])
    bonus = _BONUS_WORDS.search(_PERIOD_WORDS.sub(" ", text))
    if bonus is not None:
        delay = bonus["kind"].lower() in ("d", "delay")
        said += f"; {bonus['seconds']} s " + ("delay a move" if delay else "added a move")
    return said


def dates(start: str | None, end: str | None) -> str:
    """`2024-01-06` for a one-day event, else `2024-01-06 – 2024-01-07`."""
    return start or "" if start == end or not end else f"{start} – {end}"


def pager(
    path: str, when: When, offset: int, shown: int, total: int, size: int, **params: object
) -> list[tuple[str, str, str]]:
    """(link, rel, text) to the previous page and to the next, saying how many more there
    are."""
    links = []
    if offset > 0:
        back = href(path, when, **params, offset=max(offset - size, 0) or None)
        links.append((back, "prev", f"Previous {min(size, offset)}"))
    more = total - offset - shown
    if more > 0:
        links.append((href(path, when, **params, offset=offset + shown), "next", f"{more} more"))
    return links


def moment(stamp: str | None) -> str:
    """A recorded time as a person reads it: `2025-03-01 14:05:09 UTC` (to the second; the
    JSON twin keeps the stored ISO time with its microseconds)."""
    if not stamp:
        return ""
    at = datetime.fromisoformat(stamp)
    zone = " UTC" if at.utcoffset() is not None and not at.utcoffset() else at.strftime(" %z")
    return at.strftime("%Y-%m-%d %H:%M:%S") + zone.rstrip()


def pretty_json(value: object, indent: int = 1, sort_keys: bool = False) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=sort_keys)


ENV = Environment(
    loader=FileSystemLoader(TEMPLATES),
    auto_reload=False,  # each template compiled once per process, never looked at again
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    extensions=["jinja2.ext.do"],
    finalize=lambda value: "" if value is None else value,  # None is an empty cell
)
ENV.globals.update(href=href, at=at, within=within, seg=seg, pager_links=pager)
ENV.filters.update(
    score=score,
    moment=moment,
    official=official,
    exact=exact,
    cell=cell,
    dates=dates,
    rate=rate,
    pretty_json=pretty_json,
    system=system,
)


def render(template: str, **context: Any) -> str:
    """A page from its template; the layout takes `title`, `when` and `keep` from `context`."""
    context.setdefault("twin", TWIN.get())
    context.setdefault("federation", FEDERATION.get())
    context.setdefault("broken", list(BROKEN.get()))
    context.setdefault("base", BASE.get())
    context.setdefault("switch", SWITCH.get([]))
    return ENV.get_template(template).render(**context)


Page = Callable[[], str]
"""A page's HTML, rendered only when it is asked for (never for its JSON twin)."""


def html(template: str, **context: Any) -> Page:
    """The page `render(template, **context)` would give, rendered when called."""
    return partial(render, template, **context)
