"""The office's review queue (issue 32): sections tournament directors upload wait in
`requests` until the office reviews, corrects or withdraws them.

Who uploaded is the entry's actor; whether they are the office (`roles.OFFICE`) is read from
the role entries before it, as the log's authority is. The notes are kept in the read model's
`reviews` table, outside its content (`schema.OUTSIDE_CONTENT`): the queue is the office's
work list, not a rating, so every digest stays what it was.
"""

from __future__ import annotations

import json

from ledger import events
from ledger.events import Fact
from ledger.log import LedgerEntry
from ledger.roles import OFFICE, Role
from projections.batch import Batch

CLEARED_BY = (events.SectionCorrected, events.SectionWithdrawn, events.SectionReviewed)
"""The office's entries that take a section out of the queue (only the office may make them)."""
FOLLOWED = frozenset(
    kind.__name__
    for kind in (
        events.LedgerInitialized,
        events.RoleGranted,
        events.RoleRevoked,
        events.SectionSubmitted,
        *CLEARED_BY,
    )
)
"""The entry types `follow` reads."""


def follow(b: Batch, entry: LedgerEntry, fact: Fact | None) -> None:
    """What `entry` changes in the queue: an actor's roles, an upload, its review."""
    if isinstance(fact, events.LedgerInitialized):
        _put_roles(b, entry.actor, {Role.DIRECTOR})
    elif isinstance(fact, events.RoleGranted | events.RoleRevoked):
        held = roles_of(b, fact.holder)
        changed = held | {fact.role} if isinstance(fact, events.RoleGranted) else held - {fact.role}
        _put_roles(b, fact.holder, changed)
    elif type(fact) is events.SectionSubmitted:
        if not roles_of(b, entry.actor) & set(OFFICE):
            upload = {"actor": entry.actor, "position": entry.position}
            b.put_note("upload:" + fact.section_id, json.dumps(upload, sort_keys=True))
    elif isinstance(fact, CLEARED_BY):
        b.put_note("upload:" + fact.section_id, None)


def roles_of(b: Batch, actor: str) -> set[str]:
    """The roles `actor` holds as of the entries the batch has followed."""
    found = b.note("roles:" + actor)
    return set() if found is None else set(json.loads(found))


def _put_roles(b: Batch, actor: str, held: set[str]) -> None:
    b.put_note("roles:" + actor, json.dumps(sorted(held)) if held else None)
