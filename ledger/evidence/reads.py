"""Reading the sealed, signed log: entries with signatures, the verifier at a position, links."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from eventsourcing.persistence import ApplicationRecorder, Notification

from ledger.evidence.asides import keys_at, profiles, set_asides
from ledger.evidence.chain import parsed
from ledger.evidence.signing import COMMITMENT, Signed, Verifier
from ledger.evidence.tables import BATCH, Glance, Links, as_signed, links_of, recorder_of
from ledger.evidence.tree import TreeRows
from ledger.log import HasRecorder


def signed_entries(
    app_or_recorder: HasRecorder | ApplicationRecorder,
    after: int = 0,
    batch: int = BATCH,
    last_link: Callable[[int, str | None], object] | None = None,
    ahead: Glance | None = None,
) -> Iterator[list[tuple[Notification, Signed]]]:
    """The entries after position `after` with their signatures, `batch` at a time, each batch
    read in a read-only transaction of its own; `last_link` is given the last entry's position
    and its sealed link, read in the last batch's transaction. `ahead`: the entries after
    `after` read already (`glance`), all of them in one batch if it holds them all."""
    if ahead is not None and ahead.after == after and ahead.whole:
        if ahead.rows:
            if last_link is not None:
                last_link(ahead.rows[-1][0].id, ahead.rows[-1][2])
            yield [(n, as_signed(n, s)) for n, s, _ in ahead.rows]
        return
    recorder = recorder_of(app_or_recorder)
    while True:
        with links_of(recorder) as links:
            rows = links.rows_after(after, batch)
            if last_link is not None and rows and len(rows) < batch:
                last_link(rows[-1][0].id, links.at(rows[-1][0].id))
        if rows:
            yield [(n, as_signed(n, s)) for n, s in rows]
        if len(rows) < batch:
            return
        after = rows[-1][0].id


def glance(app_or_recorder: HasRecorder | ApplicationRecorder, after: int, at: int) -> Glance:
    """In one statement: the ledger's head and first entry, the link at `at` and the first
    batch of signed entries after `after` (`tables.Links.glance`)."""
    with links_of(recorder_of(app_or_recorder), single=True) as links:
        return links.glance(after, at, BATCH)


def write_start(app_or_recorder: HasRecorder | ApplicationRecorder, after: int) -> int:
    """The position a checked read after `after` starts from: the end of the last write that
    ends at or before it (a write is checked whole)."""
    if after <= 0:
        return 0
    with links_of(recorder_of(app_or_recorder)) as links:
        return links.last_write_end(after)


def verifier_at(
    app_or_recorder: HasRecorder | ApplicationRecorder | Links,
    position: int,
    verifier: Verifier | None = None,
    after: int = 0,
) -> Verifier:
    """A Verifier knowing the keys and roles held after `position` (a write's end), the
    ledger's federation there (issue 30), its tree, the lists committed there and the
    positions a director set aside: the key events up to there checked, each write from the
    tree before it (the roles record's writes hold nothing else); a key-event write that does
    not verify is ignored (`asides.keys_at`). `verifier`: one that knows them up to `after` (a
    write's end), taught only the key events after it; `Links`: read in that transaction (a
    write's, `tables.links_in`)."""
    recorder = (
        app_or_recorder if isinstance(app_or_recorder, Links) else recorder_of(app_or_recorder)
    )
    in_write = isinstance(recorder, Links)
    with links_of(recorder) as links:
        tree = links.tree_rows()
        aside = set_asides(links, tree)
        verifier = keys_at(links, tree, position, aside, verifier, after)
        verifier.seek(tree.stored_before(position + 1))
        for n, _ in links.rows_after(after, None, (COMMITMENT,), position) if position > 0 else []:
            verifier.committed(n.id, parsed(n.state))
    verifier.set_aside = aside
    verifier.profile_before = profiles(recorder, links if in_write else None)
    return verifier


@contextmanager
def tree_reader(app_or_recorder: HasRecorder | ApplicationRecorder) -> Iterator[TreeRows]:
    """The ledger's stored Merkle tree, read in one read-only transaction."""
    with links_of(recorder_of(app_or_recorder)) as links:
        yield links.tree_rows()


def signature_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> bytes:
    """The stored write signature at `position` (empty inside a write)."""
    with links_of(recorder_of(app_or_recorder)) as links:
        return links.signature_at(position)


def link_at(app_or_recorder: HasRecorder | ApplicationRecorder, position: int) -> str | None:
    """The sealed link at `position`, if any."""
    with links_of(recorder_of(app_or_recorder)) as links:
        return links.at(position)
