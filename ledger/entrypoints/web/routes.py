"""The site's pages, one table (issue 32): each page's path, the query parameters it reads, the
model of its JSON twin (`answers.py`) and the page function that answers it. The router
(`app.py`) matches a path against it and the API document (`openapi.py`) is written from it,
so the two cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter

from ledger.entrypoints.web import answers, ledgerlog, lists, players, sections
from ledger.entrypoints.web.families import Served
from ledger.entrypoints.web.params import HttpError, When
from ledger.entrypoints.web.render import Page
from ledger.reading import Readable
from projections.list_filters import FILTERS
from projections.projector import View


@dataclass(frozen=True)
class Asked:
    """What a page is given: the read model, the ledger, the path's values, the query, the
    times, the families the site serves and what pages worked out from the model's state
    (`sessions.Memos`: a page may keep there what another would work out again)."""

    view: View
    ledger: Readable
    path: dict[str, str]
    query: dict[str, str]
    when: When
    served: Served
    memo: dict[Any, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Param:
    """A query parameter a page reads (every page also reads `When`'s)."""

    name: str
    description: str
    integer: bool = False


@dataclass(frozen=True)
class Route:
    """A page: its path (`{name}` a segment's value; `rest`: the last one takes the rest of
    the path, a section id may hold `/`), its twin's model and the function answering it;
    `typed`: its data is the twin as its model writes it (the fields set, in the model's
    order, of its types), written as it stands, never validated into the model first (issue
    33: a page asked most; tests/test_typed_twins.py holds it to the model's bytes)."""

    name: str
    path: str
    answer: Any  # a model of answers.py, or a union of them
    summary: str
    page: Callable[[Asked], tuple[object, Page]]
    params: tuple[Param, ...] = ()
    rest: bool = False
    typed: bool = False
    # the page as known at a position, read from the model's record (projections/knowledge.py)
    # where it answers the path's player (issue 33); None: a past model is read
    known: Callable[[Asked, int], tuple[object, Page]] | None = None
    adapter: TypeAdapter[Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "adapter", TypeAdapter(self.answer))

    def match(self, parts: list[str]) -> dict[str, str] | None:
        """The path's values if `parts` (the path's segments) is this page, else None."""
        template = [p for p in self.path.split("/") if p]
        if len(parts) != len(template) and not (self.rest and len(parts) > len(template)):
            return None
        found = {}
        for i, part in enumerate(template):
            if part.startswith("{"):
                last = self.rest and i == len(template) - 1
                found[part[1:-1]] = "/".join(parts[i:]) if last else parts[i]
            elif part != parts[i]:
                return None
        return found


WHEN = (
    Param("as_of", "ratings after every item that ended on or before this day (YYYY-MM-DD)"),
    Param("as_known_at", "the ledger as it was known at this moment (ISO date or date-time)"),
    Param("position", "the ledger as it stood at this position", integer=True),
)
OFFSET = Param("offset", "the first row shown (0 the first)", integer=True)
SYSTEM = Param("system", "the rating system (its family's: OTBR, FIDE, ICU, ...)")
SEARCH = Param("q", "words of a member id or name (accents and spellings ignored)")

ROUTES = (
    Route(
        "home", "/", answers.Home, "The latest sections", lambda a: sections.home(a.view, a.when)
    ),
    Route(
        "search_players",
        "/players",
        answers.Search,
        "Players by member id or name",
        lambda a: players.search(a.view, a.query, a.when),
        (SEARCH, OFFSET),
    ),
    Route(
        "player",
        "/players/{player}",
        answers.Player,
        "A player's card, ratings and sections",
        lambda a: players.player(a.view, a.path["player"], a.when, a.memo),
        typed=True,
    ),
    Route(
        "player_history",
        "/players/{player}/history",
        answers.History,
        "A player's rating history in one system",
        lambda a: players.history(a.view, a.path["player"], a.query.get("system"), a.when),
        (SYSTEM,),
        known=lambda a, at: players.history_known(
            a.view, a.path["player"], a.query.get("system"), a.when, at
        ),
    ),
    Route(
        "explain",
        "/players/{player}/explain",
        answers.Explanation,
        "One change of a player's rating recomputed from the rules",
        lambda a: players.explain(a.view, a.path["player"], a.query, a.when),
        (
            SYSTEM,
            Param("section", "the section whose change is explained"),
            Param("item", "the item whose change is explained (kind:key)"),
        ),
    ),
    Route(
        "player_on_list",
        "/players/{player}/lists/{list}",
        answers.OnList,
        "What a published list said of a player",
        lambda a: players.on_list(a.view, a.ledger, a.path["player"], a.path["list"], a.when),
    ),
    Route(
        "list_proof",
        "/players/{player}/lists/{list}/proof",
        answers.Proof,
        "The proof bundle of a player's row on a list",
        lambda a: players.proof(
            a.view, a.ledger, a.path["player"], a.path["list"], a.query.get("system"), a.when
        ),
        (SYSTEM,),
    ),
    Route(
        "sections",
        "/sections",
        answers.Sections,
        "Sections, newest first",
        lambda a: sections.index(a.view, a.query, a.when),
        (
            SEARCH,
            OFFSET,
            Param("from", "sections ending on or after this day (YYYY-MM-DD)"),
            Param("to", "sections starting on or before this day (YYYY-MM-DD)"),
            Param("player", "sections this member played"),
        ),
    ),
    Route(
        "section",
        "/sections/{section}",
        answers.Section | answers.Withdrawn,
        "A section's crosstable, or the notice of its withdrawal",
        lambda a: sections.section(a.view, a.ledger, a.path["section"], a.when),
        rest=True,
    ),
    Route(
        "lists",
        "/lists",
        answers.Lists,
        "Every published rating list",
        lambda a: lists.index(a.view, a.when, a.served),
    ),
    Route(
        "list",
        "/lists/{list}",
        answers.OneList,
        "A published rating list in one system",
        lambda a: lists.one(a.view, a.ledger, a.path["list"], a.query, a.when),
        (SYSTEM, *(Param(f, f"only the rows of this {f}") for f in FILTERS)),
    ),
    Route(
        "log",
        "/log",
        answers.Log,
        "The ledger's entries, newest first",
        lambda a: ledgerlog.log(a.ledger, a.query, a.when),
        (
            Param("before", "entries before this position", integer=True),
            Param("after", "entries after this position", integer=True),
            Param("type", "entries of this type"),
            Param("section", "entries of this section"),
        ),
    ),
    Route(
        "problems",
        "/problems",
        answers.Problems,
        "The entries the read model could not use",
        lambda a: ledgerlog.problems(a.view, a.when),
    ),
)


def route(path: str) -> tuple[Route, dict[str, str]]:
    """The page at `path` (a family's path, without `/api` or its family) and its values."""
    parts = [p for p in path.split("/") if p]
    for page in ROUTES:
        found = page.match(parts)
        if found is not None:
            return page, found
    raise HttpError("404 Not Found", f"no page at {path}")
