"""One handler per entry type (`HANDLERS`): what each recorded fact changes in the read model.

A rebuild and a catch-up run the same handlers, over a `Batch` (projections/batch.py) that
knows the records before the entry: from memory on a rebuild, from the database on a catch-up.
`apply` decodes an entry into its typed fact (ledger/events.py) and calls its handler; an entry
that cannot be decoded becomes a "not rated" problem row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from ledger import bounds, events
from ledger.events import Fact, Undecodable
from ledger.log import LedgerEntry
from ledger.rules.families import parse_parameter
from ledger.submissions import out_of_order
from projections import uploads
from projections.batch import Batch, Revision
from projections.catchup import CatchUp
from projections.items import ITEM_FACTS, KIND_FACTS, WITHDRAWALS, fact_item, fact_key
from projections.merges import KEY as MERGE_KEY
from projections.periods import PublishedList

PROFILE_TYPES = ("PlayerRegistered", "PlayerProfileUpdated")
SECTION_TYPES = ("SectionSubmitted", "SectionCorrected", "SectionWithdrawn", "SectionReinstated")
SUBMISSIONS = tuple(KIND_FACTS.values())  # the kinds that submit an item (once per key)
# what decoding an entry that cannot be read raises (`read_fact`)
UNREADABLE = (Undecodable, ValueError, TypeError, RecursionError)


# A profile's stored text: `json.dumps(payload, sort_keys=True)`, its encoder made once.
_PROFILE_TEXT = json.JSONEncoder(sort_keys=True).encode


def on_profile(b: Batch, position: int, fact: events.PlayerRegistered) -> None:
    key = "player:" + fact.member_id
    b.put_entry_key(position, key)
    revisions = _revised(b, key, position, type(fact).__name__, fact)
    if revisions is None:
        _set_profile(b, fact.member_id, fact, position)
    else:
        _refold_profile(b, fact.member_id, revisions)


def _set_profile(b: Batch, member_id: str, fact: events.PlayerRegistered, position: int) -> None:
    payload = events.to_payload(fact)
    encoded = events.encode_value(payload)  # `events.encode(fact)`: its payload, re-encoded
    del payload["member_id"]
    if payload.get("club") is None:  # a profile without a club reads as before clubs were kept
        payload.pop("club", None)
    for name in events.LATER_PROFILE_FIELDS:
        if payload.get(name, 0) is None:
            del payload[name]
    text = _PROFILE_TEXT(payload)
    old = b.profile(member_id)
    if old is None or old[1] != text:  # (a first profile too: items may precede it)
        b.seeds.update({member_id, b.merges().resolve(member_id)})  # a merged record's survivor
    b.put_profile(member_id, (fact, text, position), encoded)


def _refold_profile(b: Batch, member_id: str, revisions: list[Revision]) -> None:
    if not revisions:
        if b.profile(member_id) is not None:
            b.seeds.add(member_id)
        b.put_profile(member_id, None)
        return
    position, type_, payload = revisions[-1]
    fact = events.decode(type_, payload=payload)
    assert isinstance(fact, events.PlayerRegistered)  # a profile's revisions are profiles
    _set_profile(b, member_id, fact, position)


def on_amendment(b: Batch, position: int, fact: events.RulesAmended) -> None:
    try:
        parse_parameter(fact.parameter, fact.value)
        if not bounds.plausible_parameter(fact.value, fact.parameter):
            raise ValueError(f"a value of {fact.value!r} is out of range")
    except ValueError as exc:
        b.add_problem(position, f"amendment:{position}", "amendment", f"not applied: {exc}")
        return
    b.put_entry_key(position, f"amendment:{position}")
    b.put_amendment(
        position,
        (
            fact.parameter,
            json.dumps(fact.value, sort_keys=True),
            fact.effective,
            fact.until,
            fact.reason,
        ),
    )
    b.amended.append((fact.effective, fact.until))


def on_item(b: Batch, position: int, fact: Fact) -> None:
    """A submission, correction or withdrawal of a rated item (section, match, balance…); a
    second submission of an item the ledger holds already becomes a problem row instead (the
    write side accepts each once; a change of it is a correction, by those who may correct)."""
    key = fact_key(fact, position)
    if type(fact) in SUBMISSIONS and submitted(b, key):
        kind = ITEM_FACTS[type(fact)][0]
        why = f"not applied: {key} was submitted before (a change of it is a correction)"
        b.add_problem(position, key, kind, why)
        return
    b.put_entry_key(position, key)
    revisions = (
        _revised(b, key, position, type(fact).__name__, fact)
        if type(fact).__name__ in SECTION_TYPES
        else None
    )
    if revisions is None:
        _step(b, key, position, fact)
    else:
        _refold_item(b, key, revisions)


def submitted(b: Batch, key: str) -> bool:
    """Whether the item `key` was submitted before (a withdrawn section still was)."""
    kind, _, rest = key.partition(":")
    if kind == "section":
        return b.section(rest) is not None
    return b.item(key) is not None or bool(b.revisions(key))


def _step(b: Batch, key: str, position: int, fact: Fact) -> None:
    """One more entry for an item: its new revision (or its withdrawal)."""
    old = b.item(key)
    if isinstance(fact, events.SectionSubmitted | events.SectionWithdrawn):
        row = b.section(fact.section_id) or {"section_id": fact.section_id}
        b.put_section(fact.section_id, _section_record(row, position, fact))
    if old is not None:
        b.touch(key, old.sort_key)
    b.drop_problems(None, key)  # a new revision: what could not be read or rated is past
    if isinstance(fact, WITHDRAWALS):
        b.put_item(key, None)
        return
    item = fact_item(fact, position, None if old is None else old.position)
    b.put_item(key, item)
    b.touch(key, item.sort_key)


def _refold_item(b: Batch, key: str, revisions: list[Revision]) -> None:
    """An item again from its remaining revisions (after a void)."""
    old = b.item(key)
    if old is not None:
        b.touch(key, old.sort_key)
        b.drop_problems(old.revision, key)
        b.put_item(key, None)
    section_id = key.partition(":")[2] if key.startswith("section:") else None
    if section_id is not None:
        b.put_section(section_id, None)
    for position, type_, payload in revisions:
        fact = events.decode(type_, payload=payload)
        assert fact is not None  # revisions are kept of the facts the read side reads
        _step(b, key, position, fact)


def _revised(b: Batch, key: str, position: int, type_: str, fact: Fact) -> list[Revision] | None:
    """The record's revisions with this one, once it has more than one (kept for voids);
    None while this is its first."""
    revisions = b.revisions(key)
    if not revisions:
        first = _current_revision(b, key)
        if first is None:
            return None
        revisions = [first]
    revisions.append([position, type_, events.to_payload(fact)])
    b.put_revisions(key, revisions)
    return revisions


def _current_revision(b: Batch, key: str) -> Revision | None:
    """The one entry a record with no revisions list holds, as a revision."""
    kind, _, rest = key.partition(":")
    if kind == "player":
        found = b.profile(rest)
        return (
            None if found is None else [found[2], "PlayerRegistered", events.to_payload(found[0])]
        )
    if kind == "section":
        row = b.section(rest)
        item = b.item(key)
        if row is None:
            return None
        if item is None:  # withdrawn right after its submission: nothing left to revise
            return None
        type_ = "SectionCorrected" if row["status"] == "corrected" else "SectionSubmitted"
        return [item.revision, type_, events.to_payload(item.event)]
    return None


def on_merge(b: Batch, position: int, fact: events.PlayersMerged) -> None:
    """`PlayersMerged`: the record merged away counts as the one it joined (projections/merges)."""
    key = MERGE_KEY + fact.member_id
    b.put_entry_key(position, key)
    entry = [position, type(fact).__name__, events.to_payload(fact)]
    _remerge(b, fact.member_id, [*b.revisions(key), entry])


def _remerge(b: Batch, member_id: str, revisions: list[Revision]) -> None:
    """A merge record with these revisions (the last in force; none: not merged): the items of
    every record whose survivor changes are named again and re-rated, with both survivors'."""
    before = b.merges()
    b.put_revisions(MERGE_KEY + member_id, revisions)
    b.merges_changed()
    after = b.merges()
    moved = {
        m for m in {member_id, *before.into, *after.into} if before.resolve(m) != after.resolve(m)
    }
    b.realias({before.resolve(m) for m in moved})
    b.seeds.update(moved, map(before.resolve, moved), map(after.resolve, moved))


def on_void(b: Batch, position: int, fact: events.EntryVoided) -> None:
    """`EntryVoided`: the entry at `fact.position` no longer counts."""
    target = fact.position
    b.drop_problems(target)
    key = b.entry_key(target)
    if key is None:
        return  # an entry the read model never used (roles, a poisoned entry, a void)
    kind, _, rest = key.partition(":")
    if kind == "merge":
        revisions = b.revisions(key)
        remaining = [r for r in revisions if r[0] != target]
        if len(remaining) < len(revisions):
            _remerge(b, rest, remaining)
        return
    if kind == "amendment":
        row = b.amendment(target)
        if row is not None:
            b.put_amendment(target, None)
            b.amended.append((row[2], row[3]))
        return
    revisions = b.revisions(key)
    if revisions:
        remaining = [r for r in revisions if r[0] != target]
        if len(remaining) == len(revisions):
            return  # voided already
        b.put_revisions(key, remaining if len(remaining) > 1 else [])
    else:
        remaining = []
    if kind == "player":
        _refold_profile(b, rest, remaining)
    else:
        _refold_item(b, key, remaining)


STATUS: dict[type[Fact], str] = {
    events.SectionCorrected: "corrected",
    events.SectionReinstated: "reinstated",
}


def _section_record(
    row: dict[str, Any], position: int, fact: events.SectionSubmitted | events.SectionWithdrawn
) -> dict[str, Any]:
    """The `sections` row after a SectionSubmitted, SectionCorrected, SectionWithdrawn or
    SectionReinstated."""
    row = dict(row)
    row["latest_position"] = position
    row["reason"] = getattr(fact, "reason", None)
    if isinstance(fact, events.SectionWithdrawn):
        row["status"] = "withdrawn"
        return row
    row["event_name"] = fact.event_name
    row["start_date"] = fact.start_date
    row["end_date"] = fact.end_date
    row["status"] = STATUS.get(type(fact), "submitted")
    if type(fact) is events.SectionSubmitted:
        row["submitted_position"] = position
    return row


def on_list(b: Batch, position: int, fact: events.ListPublished) -> None:
    """`ListPublished`: a federation's list, kept for what it said and for rating periods;
    one that is not its family's next (a number taken or skipped, a name taken: the write side
    publishes each once, in order) becomes a problem row instead."""
    known = b.family_lists(fact.family)
    why = out_of_order(fact.family, fact.number, fact.list_name, known)
    if why is not None:
        b.add_problem(position, f"list:{fact.family}:{fact.number}", "list", f"not applied: {why}")
        return
    b.add_list(
        PublishedList(
            fact.family, fact.number, fact.list_name, fact.as_of, fact.cutoff_position, position
        )
    )


# entry type → its handler (types not listed do not change the read model)
HANDLERS: dict[str, Callable[[Batch, int, Any], None]] = {
    "PlayerRegistered": on_profile,
    "PlayerProfileUpdated": on_profile,
    "RulesAmended": on_amendment,
    **{name.__name__: on_item for name in ITEM_FACTS},
    "EntryVoided": on_void,
    "ListPublished": on_list,
    "PlayersMerged": on_merge,
}
PROBLEM_KINDS = {
    "PlayerRegistered": "profile",
    "PlayerProfileUpdated": "profile",
    "RulesAmended": "amendment",
    "EntryVoided": "void",
    "ListPublished": "list",
    "PlayersMerged": "merge",
    **{cls.__name__: ITEM_FACTS[cls][0] for cls in ITEM_FACTS},
}


def apply(b: Batch, entry: LedgerEntry) -> None:
    """Decode one entry and hand its fact to its handler, and to the office's review queue
    (projections/uploads.py); a poisoned entry becomes a problem (one the queue alone follows,
    a role's, is passed over: the verified read already judged its authority)."""
    handler = HANDLERS.get(entry.type)
    queued = entry.type in uploads.FOLLOWED
    if handler is None and not queued:
        return
    try:
        fact = read_fact(entry)
    except UNREADABLE as exc:
        if handler is not None:
            b.add_problem(
                entry.position,
                _guess_key(entry),
                PROBLEM_KINDS[entry.type],
                f"not rated: the entry cannot be read ({short(exc)})",
            )
        return
    if handler is not None:
        handler(b, entry.position, fact)
    if queued:
        uploads.follow(b, entry, fact)


def read_fact(entry: LedgerEntry) -> Fact | None:
    """The entry's typed fact (None: a kind the read side does not read); one of `UNREADABLE`
    raised if it cannot be read."""
    state = getattr(entry, "state", None)
    return events.decode(entry.type, state, None if state is not None else entry.payload)


def apply_entries(batch: Batch, entries: Iterable[LedgerEntry], stats: CatchUp) -> int | None:
    """Every entry after `stats.last_position` through `apply` (a catch-up's or a rebuild's);
    the first one's position (None: there was none)."""
    start, first = stats.last_position, None
    for entry in entries:
        if entry.position <= start:
            continue
        if first is None:
            first = entry.position
        apply(batch, entry)
        stats.entries += 1
        stats.last_position = entry.position
    return first


def _guess_key(entry: LedgerEntry) -> str:
    """The key of the record a poisoned entry meant to change, if it can be told."""
    try:
        p = entry.payload
        for prefix, name in (("section", "section_id"), ("match", "match_id")):
            if isinstance(p.get(name), str):
                return f"{prefix}:{p[name]}"
        member_id = p.get("member_id")
        if entry.type in PROFILE_TYPES and isinstance(member_id, str):
            return "player:" + member_id
    except Exception:  # noqa: BLE001 - a payload that cannot even be read as JSON
        pass
    return f"entry:{entry.position}"


def short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"
