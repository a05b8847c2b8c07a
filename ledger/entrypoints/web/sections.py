"""The section pages: home (the latest sections), the sections index, a section's crosstable,
and a withdrawn section's notice."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import msgspec

from ledger.entrypoints.interchange.exports import crosstable
from ledger.entrypoints.web.params import HttpError, When, day, whole
from ledger.entrypoints.web.render import Page, html
from ledger.entrypoints.web.standings import standings, standings_data
from ledger.log import read_entries
from ledger.reading import Readable
from ledger.rules.families import family as rules_family
from projections import queries
from projections.projector import View

SECTIONS_PAGE = 50
LATEST_SECTIONS = 10


def home(view: View, when: When) -> tuple[object, Page]:
    latest = queries.sections(view, limit=LATEST_SECTIONS)
    page = html(
        "home.html",
        title="Ratings",
        when=when,
        keep=None,
        sections=latest["sections"],
        total=latest["total"],
    )
    return {"latest_sections": latest["sections"]}, page


def index(view: View, query: dict[str, str], when: When) -> tuple[object, Page]:
    text = query.get("q", "").strip()
    offset = whole(query.get("offset", "0"), "offset")
    first, last = (day(query.get(k), k) for k in ("from", "to"))
    player = query.get("player") or None
    found = queries.sections(
        view, player=player, start=first, end=last, text=text, limit=SECTIONS_PAGE, offset=offset
    )
    if when.as_of is not None:
        found["sections"] = [r for r in found["sections"] if r["end_date"] <= when.as_of]
    keep = {"q": text or None, "from": first, "to": last, "player": player}
    page = html(
        "sections.html",
        title="Sections",
        when=when,
        keep=keep,
        text=text,
        hidden={k: v for k, v in {**when.params(), **keep}.items() if v and k != "q"},
        offset=offset,
        limit=SECTIONS_PAGE,
        **found,
    )
    return {"offset": offset, **found}, page


def section(view: View, ledger: Readable, section_id: str, when: When) -> tuple[object, Page]:
    table = crosstable(view, section_id)
    if table is None:
        return withdrawn(view, ledger, section_id, when)
    words = rules_family(view.family).words
    ranked = standings(table, queries.cards(view, [r.player for r in table.rows]), words)
    page = html(
        "section.html",
        title=table.event_name or f"Section {section_id}",
        when=when,
        keep=None,
        table=table,
        rounds=len(table.rows[0].cells) if table.rows else 0,
        standings=ranked,
        words=words,
        performance=any(s.performance for s in ranked),
    )

    def data() -> dict[str, Any]:  # only for the JSON twin
        return {**plain(table), "standings": standings_data(ranked)}

    return data, page


def plain(value: object) -> Any:  # JSON values
    """`dataclasses.asdict` for the crosstable's values (dataclasses, tuples, dicts and
    scalars), without its deep copy of every scalar (msgspec: issue 33, half a section's JSON
    page was this walk in Python)."""
    return msgspec.to_builtins(value, builtin_types=(datetime, date))


def withdrawn(view: View, ledger: Readable, section_id: str, when: When) -> tuple[object, Page]:
    """A section withdrawn from rating: when, by whom and why, from its ledger entry."""
    record = queries.section_record(view, section_id)
    if record is None or record["status"] != "withdrawn":
        raise HttpError("404 Not Found", f"section {section_id!r} is not in the ledger")
    position = record["latest_position"]
    entry = next(read_entries(ledger, position - 1, batch=1), None)
    actor = entry.actor if entry is not None else None
    at = entry.recorded_at if entry is not None else None
    shown_at = None if at is None else datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M UTC")
    data = {**record, "withdrawn_by": actor, "withdrawn_at": at}
    page = html(
        "withdrawn.html",
        title=f"Section {section_id} (withdrawn)",
        when=when,
        keep=None,
        record=record,
        actor=actor,
        shown_at=shown_at,
        position=position,
    )
    return data, page
