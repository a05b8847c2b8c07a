"""The ledger's own pages: the log, newest first and filterable, and the entries the read
model could not use (problems)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, NamedTuple

import msgspec

from ledger.entrypoints.web.params import HttpError, When, whole
from ledger.entrypoints.web.render import Page, href, html, seg
from ledger.events import KINDS
from ledger.fields import Door
from ledger.log import LedgerEntry, read_entries, to_entry
from ledger.reading import Readable
from projections import queries
from projections.projector import View

LOG_PAGE = 100
LOG_WINDOW = 1000  # positions read at a time when paging the log backwards


def log(ledger: Readable, query: dict[str, str], when: When) -> tuple[object, Page]:
    """The log newest first, LOG_PAGE entries a page: `?before=N` pages back to older
    entries, `?after=N` forward to newer; `?type=` and `?section=` filter."""
    after = query.get("after")
    before = query.get("before")
    if after is not None and before is not None:
        raise HttpError("400 Bad Request", "give after or before, not both")
    kind = query.get("type") or None
    section = query.get("section") or None
    top = ledger.recorder.max_notification_id() or 0
    if when.position is not None:
        top = min(top, when.position)

    def keep(x: LedgerEntry) -> bool:
        return (kind is None or x.type == kind) and (
            section is None or x.payload.get("section_id") == section
        )

    if after is not None:
        found = _entries_after(ledger, whole(after, "after"), top, keep)
        newer, shown = len(found) > LOG_PAGE, found[:LOG_PAGE][::-1]
        older = bool(shown) and shown[-1].position > 1
    else:
        last = top if before is None else min(top, whole(before, "before", 1) - 1)
        found = _entries_before(ledger, last, keep)
        older, shown = len(found) > LOG_PAGE, found[:LOG_PAGE]
        newer = bool(shown) and shown[0].position < top
    entries = [asdict(x) for x in shown]
    filters = {"type": kind, "section": section}
    links = []
    if newer:
        links.append(
            (href("/log", when, **filters, after=entries[0]["position"]), "prev", "Newer entries")
        )
    if older:
        links.append(
            (href("/log", when, **filters, before=entries[-1]["position"]), "next", "Older entries")
        )
    data = {
        "entries": entries,
        "newer": newer,
        "older": older,
        "type": kind,
        "section": section,
        "position": when.position,
    }
    page = html(
        "log.html",
        title="Ledger log",
        when=when,
        keep=filters,
        rows=[(x, kind_words(x["type"]), subject(x["payload"], when)) for x in entries],
        fields={x["position"]: fields(x["type"], x["payload"], when) for x in entries},
        filters={k: v for k, v in filters.items() if v},
        links=links,
    )
    return data, page


def subject(payload: dict[str, Any], when: When) -> tuple[str | None, str]:
    """What an entry is about, as (link, text): its section, its player, else its holder and
    role in words, or its parameter (no link)."""
    if "section_id" in payload:
        sid = payload["section_id"]
        return href("/sections/" + seg(str(sid)), when), str(sid)
    for key in ("member_id", "player"):
        if isinstance(payload.get(key), str):
            return href("/players/" + seg(payload[key]), when), payload[key]
    if isinstance(payload.get("family"), str) and isinstance(payload.get("list_name"), str):
        return None, f"{payload['family']} list {payload['list_name']}"
    if isinstance(payload.get("role"), str):  # a role in words: "office: ratings admin"
        role, holder = payload["role"].replace("_", " "), payload.get("holder")
        return None, f"{holder}: {role}" if isinstance(holder, str) else role
    words = (payload[k] for k in ("holder", "parameter") if isinstance(payload.get(k), str))
    return None, " ".join(words)


class Field(NamedTuple):
    """One field of an entry as the log page shows it."""

    label: str
    text: str
    link: str | None = None


def kind_words(kind: str) -> str:
    """A fact kind in words: `SectionSubmitted` → "Section submitted"."""
    words = re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", kind) or [kind]
    spoken = [_ACRONYMS.get(w, w.lower()) for w in words]
    return " ".join([spoken[0][:1].upper() + spoken[0][1:], *spoken[1:]])


_ACRONYMS = {"Fide": "FIDE"}


def fields(kind: str, payload: dict[str, Any], when: When) -> list[Field]:
    """An entry's fields in the order its kind declares them (ledger/events.py), each labelled
    by its name in words, a member linked to his page, a section to its crosstable and an
    entry to its place in the log; a list of records as its count. Fields not given are left
    out; a kind the ledger does not declare shows its fields as stored."""
    declared = KINDS.get(kind)
    members: set[str] = set()
    if declared is None:
        names = list(payload)
    else:
        names = [f.name for f in msgspec.structs.fields(declared)]
        members = {f.name for f in msgspec.structs.fields(declared) if _door(f.type) == "member"}
    shown = []
    for name in names:
        value = payload.get(name)
        if value is None or value == []:
            continue
        link = None
        if name in members and isinstance(value, str):
            link = href("/players/" + seg(value), when)
        elif name == "section_id" and isinstance(value, str):
            link = href("/sections/" + seg(value), when)
        elif name == "position" and isinstance(value, int):
            link = href("/log", when, before=value + 1) + f"#p{value}"
        text = _text(value)
        if name in ("role", "action"):  # a role or an action in words, as `subject` writes one
            text = text.replace("_", " ")
        shown.append(Field(name.replace("_", " "), text, link))
    return shown


def _door(annotation: object) -> str | None:
    """The command type of a field's `Door`, if it has one."""
    doors = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Door)]
    return doors[0].type if doors else None


def _text(value: object) -> str:
    """A field's value in words: yes or no, a record's parts, a list of records as its count."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(
            f"{k.replace('_', ' ')} {_text(v)}" for k, v in value.items() if v is not None
        )
    if isinstance(value, list):
        if all(isinstance(v, (int, float, str)) for v in value):
            return ", ".join(map(str, value))
        return str(len(value))
    return str(value)


def _entries_after(
    ledger: Readable, after: int, top: int, keep: Callable[[LedgerEntry], bool]
) -> list[LedgerEntry]:
    """Up to LOG_PAGE + 1 kept entries after position `after` (up to `top`), oldest first."""
    found: list[LedgerEntry] = []
    for x in read_entries(ledger, after, batch=LOG_WINDOW):
        if x.position > top or len(found) > LOG_PAGE:
            break
        if keep(x):
            found.append(x)
    return found


def _entries_before(
    ledger: Readable, last: int, keep: Callable[[LedgerEntry], bool]
) -> list[LedgerEntry]:
    """Up to LOG_PAGE + 1 kept entries at or before position `last`, newest first."""
    found: list[LedgerEntry] = []
    while last > 0 and len(found) <= LOG_PAGE:
        first = max(last - LOG_WINDOW, 0)
        window = ledger.recorder.select_notifications(
            first, LOG_WINDOW, stop=last, inclusive_of_start=False
        )
        found += [x for x in map(to_entry, reversed(window)) if keep(x)]
        last = first
    return found[: LOG_PAGE + 1]


def problems(view: View, when: When) -> tuple[object, Page]:
    found = queries.problems(view)
    page = html("problems.html", title="Problems", when=when, keep=None, found=found)
    return {"problems": found, "position": when.position}, page
