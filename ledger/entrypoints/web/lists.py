"""The rating lists a federation published: an index, and each list as a table a person can
filter by federation, sex, age group and club, every row linking the player."""

from __future__ import annotations

from datetime import date

from ledger.entrypoints.web.families import Served
from ledger.entrypoints.web.params import HttpError, When
from ledger.entrypoints.web.render import Page, html
from ledger.reading import Readable
from ledger.rules.families import NAMES
from ledger.rules.families import family as rules_family
from projections import queries
from projections.list_filters import AGE_GROUPS, FILTERS, SEXES, kept, refused
from projections.projector import View
from projections.timetravel import NoSuchList, list_view


def index(view: View, when: When, served: Served) -> tuple[object, Page]:
    """Every list each family published, newest first, each linked to its table on its
    family's pages (a family the site does not serve: named, not linked); the site's family
    first."""
    published = queries.published_lists(view)
    order = sorted(NAMES, key=lambda f: f != view.family)
    families = [
        {
            "family": f,
            "federation": rules_family(f).words.federation,
            "address": served.address(f) if f in served.families else None,
            "lists": [x.row() for x in reversed(published) if x.family == f],
        }
        for f in order
        if f == view.family or any(x.family == f for x in published)
    ]
    data = {"family": view.family, "lists": families[0]["lists"], "families": families}
    page = html("lists.html", title="Rating lists", when=when, keep=None, families=families)
    return data, page


def one(
    view: View, ledger: Readable, name: str, query: dict[str, str], when: When
) -> tuple[object, Page]:
    """The list `name` in one system (`?system=`, else its first), filtered."""
    published = queries.published_list(view, name)
    if published is None:
        raise HttpError("404 Not Found", f"no {view.family} list named {name!r}")
    asked = {k: query.get(k) or None for k in FILTERS}
    why = refused(asked)
    if why is not None:
        raise HttpError("400 Bad Request", why)
    try:
        with list_view(ledger, view, name) as past:
            systems = queries.list_systems(past, name)
            system = query.get("system") or (systems[0] if systems else None)
            if system is not None and system not in systems:
                raise HttpError("404 Not Found", f"the list {name!r} rates no one in {system}")
            rows = [] if system is None else queries.list_entries(past, system, name)
            dropped = [] if system is None else queries.list_unrated(past, system, name)
    except NoSuchList as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    year = date.fromisoformat(published.as_of).year
    shown = [r for r in rows if kept(r, asked, year)]
    data = {
        "list": published.row(),
        "system": system,
        "systems": systems,
        "filters": {k: v for k, v in asked.items() if v},
        "total": len(rows),
        "rows": shown,
        "unrated": dropped,
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
        unrated=dropped,
        federations=sorted({r["federation"] for r in rows if r["federation"]}),
        clubs=sorted({r["club"] for r in rows if r["club"]}),
        age_groups=list(AGE_GROUPS),
        sexes=SEXES,
    )
    return data, page
