"""The rating lists a federation published: an index, and each list as a table a person can
filter by federation, sex, age group and club, every row linking the player."""

from __future__ import annotations

from datetime import date
from typing import Any

from ledger.entrypoints.web.params import HttpError, When
from ledger.entrypoints.web.render import Page, html
from ledger.reading import Readable
from ledger.rules.families import family as rules_family
from projections import queries
from projections.projector import View
from projections.timetravel import NoSuchList, list_view

# Age groups by the age a player reaches in the list's year (the list's year − birth year):
# "U20" holds those who reach at most 20 that year, "50+" those who reach at least 50.
# Decided in docs/decisions.md ("The web pages as federations publish them").
AGE_GROUPS = {
    "U8": (None, 8),
    "U10": (None, 10),
    "U12": (None, 12),
    "U14": (None, 14),
    "U16": (None, 16),
    "U18": (None, 18),
    "U20": (None, 20),
    "50+": (50, None),
    "65+": (65, None),
}
SEXES = {"m": "men", "w": "women"}
FILTERS = ("federation", "sex", "age", "club")


def index(view: View, when: When) -> tuple[Any, Page]:
    """Every list the site's family published, newest first, each linked to its table."""
    found = list(reversed(queries.published_lists(view, view.family)))
    data = {"family": view.family, "lists": [x.row() for x in found]}
    page = html(
        "lists.html",
        title=f"{rules_family(view.family).words.federation} rating lists",
        when=when,
        keep=None,
        lists=found,
    )
    return data, page


def in_age_group(birth_year: int | None, list_year: int, group: str) -> bool:
    """Whether a player born in `birth_year` is in `group` on a list of `list_year`; one
    with no birth year is in no age group."""
    if birth_year is None:
        return False
    least, most = AGE_GROUPS[group]
    age = list_year - birth_year
    return (least is None or age >= least) and (most is None or age <= most)


def one(
    view: View, ledger: Readable, name: str, query: dict[str, str], when: When
) -> tuple[Any, Page]:
    """The list `name` in one system (`?system=`, else its first), filtered."""
    published = queries.published_list(view, name)
    if published is None:
        raise HttpError("404 Not Found", f"no {view.family} list named {name!r}")
    asked = {k: query.get(k) or None for k in FILTERS}
    if asked["sex"] is not None and asked["sex"] not in SEXES:
        raise HttpError("400 Bad Request", f"sex: {asked['sex']!r} is not one of m, w")
    if asked["age"] is not None and asked["age"] not in AGE_GROUPS:
        raise HttpError(
            "400 Bad Request", f"age: {asked['age']!r} is not one of {', '.join(AGE_GROUPS)}"
        )
    try:
        with list_view(ledger, view, name) as past:
            systems = queries.list_systems(past, name)
            system = query.get("system") or (systems[0] if systems else None)
            if system is not None and system not in systems:
                raise HttpError("404 Not Found", f"the list {name!r} rates no one in {system}")
            rows = [] if system is None else queries.list_entries(past, system, name)
    except NoSuchList as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    year = date.fromisoformat(published.as_of).year
    shown = [r for r in rows if _kept(r, asked, year)]
    data = {
        "list": published.row(),
        "system": system,
        "systems": systems,
        "filters": {k: v for k, v in asked.items() if v},
        "total": len(rows),
        "rows": shown,
    }
    page = html(
        "list.html",
        title=f"{rules_family(view.family).words.federation} rating list {name}",
        when=when,
        keep={"system": system, **asked},
        published=published,
        system=system,
        systems=systems,
        asked=asked,
        rows=shown,
        total=len(rows),
        federations=sorted({r["federation"] for r in rows if r["federation"]}),
        clubs=sorted({r["club"] for r in rows if r["club"]}),
        age_groups=list(AGE_GROUPS),
        sexes=SEXES,
    )
    return data, page


def _kept(row: dict[str, Any], asked: dict[str, str | None], year: int) -> bool:
    return (
        (asked["federation"] is None or row["federation"] == asked["federation"])
        and (asked["sex"] is None or row["sex"] == asked["sex"])
        and (asked["age"] is None or in_age_group(row["birth_year"], year, asked["age"]))
        and (asked["club"] is None or row["club"] == asked["club"])
    )
