"""Every rule family on one site (issue 30): which family a path asks for, each family's
address, and the family switch every page carries.

The site's default family answers at `/` (every address the site had before); every family
it serves also answers under `/<family>/` (`/fide/players/123`), its JSON twins under
`/api/<family>/`. A page of one family links to the same page of another where that family
has it, else to the nearest index of that family (the family is asked, never named here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ledger.entrypoints.web.params import HttpError, When
from ledger.entrypoints.web.render import within
from ledger.rules.families import NAMES
from ledger.rules.families import family as rules_family

# The first segment of every page's path: a path starting with anything else names a family.
PAGES = ("players", "sections", "lists", "log", "problems")


@dataclass(frozen=True)
class Choice:
    """One link of the family switch: the federation's words, where, and whether it is the
    family the page shows."""

    federation: str
    href: str
    current: bool


@dataclass(frozen=True)
class Served:
    """The families a site serves, in `NAMES` order, and the one at `/`."""

    default: str
    families: tuple[str, ...]

    @classmethod
    def of(cls, default: str, families: Sequence[str] | None = None) -> Served:
        """`families` (every family when None), the default always among them (first when it
        is no family: its read model refuses to open, each page says so)."""
        asked = NAMES if families is None else families
        named = tuple(f for f in NAMES if f in asked or f == default)
        return cls(default, named if default in NAMES else (default, *named))

    def address(self, family: str) -> str:
        """Where `family`'s pages start: `` for the default (the site's root), else `/fide`."""
        return "" if family == self.default else "/" + family

    def split(self, route: str) -> tuple[str, str, str]:
        """(family, the prefix it came by, the rest of the path) of a path without `/api`;
        404 in one line for a first segment that is neither a page nor a family served."""
        head, _, rest = route.lstrip("/").partition("/")
        if head in self.families:
            return head, "/" + head, "/" + rest
        if head and head not in PAGES and head in NAMES:
            served = ", ".join(self.families)
            raise HttpError(
                "404 Not Found",
                f"no page at {route}: this site does not serve the {head} rules (it serves "
                f"{served}; serve --families)",
            )
        if head and head not in PAGES:
            raise HttpError(
                "404 Not Found",
                f"no page at {route}: {head!r} is no page and no rules family this site serves "
                f"({', '.join(self.families)})",
            )
        return self.default, "", route

    def homes(self, when: When) -> list[Choice]:
        """Each family's home: the switch of a page no family has (an error)."""
        return [self._choice(f, "/", when, {}, False) for f in self.families]

    def switch(
        self,
        family: str,
        route: str,
        query: dict[str, str],
        when: When,
        lists: Sequence[tuple[str, str]],
    ) -> list[Choice]:
        """The switch of the page at `route` of `family`: each family's same page where it has
        it (`lists`: every published list's (family, name)), else its nearest index."""
        out = []
        for f in self.families:
            path, params = _counterpart(f, route, query, lists)
            out.append(self._choice(f, path, when, params, f == family))
        return out

    def _choice(
        self, family: str, path: str, when: When, params: dict[str, str], current: bool
    ) -> Choice:
        link = within(self.address(family), path, when, **params)
        return Choice(rules_family(family).words.federation, link, current)


def _counterpart(
    family: str, route: str, query: dict[str, str], lists: Sequence[tuple[str, str]]
) -> tuple[str, dict[str, str]]:
    """`family`'s page matching `route` and its parameters: the same page where every family
    has it (a player, his history in a system it keeps, a section, the indexes, the log), a
    list only where `family` published one of that name, a rating's explanation or proof
    only in a system it keeps; else the index (or the player's page) nearest to it."""
    parts = [p for p in route.split("/") if p]
    systems = rules_family(family).systems
    kept = {k: v for k, v in query.items() if k != "system" or v in systems}
    if parts[:1] == ["lists"] and len(parts) == 2:
        return (route, kept) if (family, parts[1]) in lists else ("/lists", {})
    if parts[:1] == ["players"] and len(parts) >= 3:
        player = "/players/" + parts[1]
        if parts[2] == "history":
            return route, kept
        if parts[2] == "lists" and (len(parts) < 4 or (family, parts[3]) not in lists):
            return player, {}
        if parts[2] == "explain" or parts[4:]:  # a rating's explanation, a list row's proof
            return (route, kept) if "system" in kept else (player, {})
    return route, kept
