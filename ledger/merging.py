"""What a `merge-players` write checks against the ledger before it joins two records (issue 20).

Read from the log itself (the recorder's notifications of a few kinds), never from a read model:
the merges in force (not voided), the sections and matches whose latest report names both
people, and the profile fields that cannot both be true (docs/decisions.md, "Merging players").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, Notification

from ledger.domain import TOPIC_PREFIX
from ledger.log import LedgerEntry, to_entry

PAGE = 5000  # notifications read at a time
REPORTS = ("SectionSubmitted", "SectionCorrected", "SectionReinstated", "MatchResultSubmitted")
# profile fields of which a person has one value: two records giving two are two people
ONE_VALUE = ("fide_id", "birth_date", "birth_year", "sex")


def _of(recorder: ApplicationRecorder, kinds: tuple[str, ...]) -> Iterator[Notification]:
    """The notifications of `kinds`, in ledger order."""
    topics = [TOPIC_PREFIX + k for k in kinds]
    start = 1
    while True:
        page = recorder.select_notifications(start, PAGE, topics=topics)
        yield from page
        if len(page) < PAGE:
            return
        start = page[-1].id + 1


def merges_in_force(recorder: ApplicationRecorder, voided: Callable[[int], bool]) -> dict[str, str]:
    """Each record merged away (and not voided) → the record it joined."""
    found: dict[str, str] = {}
    for n in _of(recorder, ("PlayersMerged",)):
        if not voided(n.id):
            payload = to_entry(n).payload
            found[payload["member_id"]] = payload["into"]
    return found


def surviving(merges: Mapping[str, str], member_id: str) -> str:
    """The record `member_id` counts as (itself unless merged away), following merges."""
    seen = {member_id}
    while member_id in merges and merges[member_id] not in seen:
        member_id = merges[member_id]
        seen.add(member_id)
    return member_id


def played_together(
    recorder: ApplicationRecorder, one: set[str], other: set[str]
) -> tuple[str, str] | None:
    """A section or match (its kind and id) whose latest report names someone of `one` and
    someone of `other` (each a person's records), if any."""
    quoted = [[f'"{m}"'.encode() for m in ids] for ids in (one, other)]
    latest: dict[UUID | str, tuple[str, str] | None] = {}
    for n in _of(recorder, REPORTS):
        state = bytes(n.state)
        both = all(any(q in state for q in ids) for ids in quoted)  # a quick test, then exactly
        latest[n.originator_id] = _both(to_entry(n), one, other) if both else None
    return next((x for x in latest.values() if x is not None), None)


def _both(entry: LedgerEntry, one: set[str], other: set[str]) -> tuple[str, str] | None:
    ids = {p["id"] for p in entry.payload.get("players", ())}
    if ids & one and ids & other:
        kind = "match" if entry.type == "MatchResultSubmitted" else "section"
        return kind, entry.payload.get("match_id") or entry.payload["section_id"]
    return None


def person(profiles: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One person's profile from their records' (the surviving record's first, then those
    merged into it in order): each field the first that gives it (as the read side rates)."""
    found: dict[str, Any] = {}
    for profile in profiles:
        for name, value in profile.items():
            if found.get(name) is None:
                found[name] = value
    return found


def conflicts(source: Mapping[str, Any], target: Mapping[str, Any]) -> list[str]:
    """The profile fields two people's profiles give different values of, as `field A ≠ B`."""
    return [
        f"{name} {source[name]} ≠ {target[name]}"
        for name in ONE_VALUE
        if source.get(name) is not None
        and target.get(name) is not None
        and source[name] != target[name]
    ]
