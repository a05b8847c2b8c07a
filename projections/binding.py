"""Each read model is bound to its ledger: `meta` names the ledger (a digest of its first
entry, and its store with the password redacted), the chain link it was built to and the
ledger's federation there (`ledger.federation`, read verified: what the fast read path
trusts, issue 30); a read model of another ledger, or one ahead of its ledger, is refused with
one line. None of these is in the read model's digest (its content)."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

from ledger.errors import LedgerError
from ledger.evidence import read_verified_entries
from ledger.evidence.reads import link_at
from ledger.evidence.tables import Glance
from ledger.evidence.verified import Trail
from ledger.federation import ledger_family, recorded
from ledger.log import LedgerEntry
from ledger.reading import Readable, ledger_id
from ledger.store import redacted
from projections.catchup import CatchUp
from projections.lock import exclusive
from projections.projector import Settle, View

BINDING = ("ledger_id", "ledger_store", "built_to", "ledger_family")


class ViewMismatch(LedgerError):
    """The read model is not (or no longer) a model of this ledger."""


def binding(view: View) -> dict[str, str]:
    """The binding rows of `view`'s meta table (none for a new read model)."""
    rows = view.db.execute(
        f"select key, value from meta where key in ({', '.join('?' for _ in BINDING)})",
        BINDING,
    ).fetchall()
    return dict(rows)


def built_to(view: View) -> int:
    """The position whose chain link `view` records it was built to (0: none)."""
    return int(binding(view).get("built_to", "").partition("@")[2] or 0)


def check(view: View, ledger: Readable, seen: Glance | None = None) -> None:
    """Refuse a read model of another ledger or ahead of it; bind an unbound one. `seen`:
    the ledger's identity, head and link at `built_to` as one statement saw them just now
    (`reads.glance`); what it did not see (a head or link the model moved past since) is read
    here."""
    found = binding(view)
    identity = ledger_id(ledger) if seen is None else seen.identity()
    store = redacted(ledger.store)
    where = f"the read model {view.path}"
    if "ledger_id" in found and found["ledger_id"] != identity:
        raise ViewMismatch(
            f"{where} was built from another ledger ({found.get('ledger_store')}), not "
            f"{store}: give this ledger's --view, or rebuild it"
        )
    head = seen.head if seen is not None else 0
    if view.last_position > head:  # `seen` may be older than a catch-up by another thread
        head = ledger.recorder.max_notification_id() or 0
    if view.last_position > head:
        raise ViewMismatch(
            f"{where} says it holds the ledger up to position {view.last_position}, but "
            f"{store} ends at {head}: it was edited or is another ledger's; rebuild it"
        )
    digest, _, position = found.get("built_to", "").partition("@")
    if position and (link := _link(ledger, int(position), seen)) is not None and link != digest:
        raise ViewMismatch(
            f"{where} was built from entries up to position {position} that {store} no "
            "longer holds (the chain differs there): rebuild it"
        )
    if "ledger_id" not in found and identity is not None:
        _write(view, {"ledger_id": identity, "ledger_store": store})


def catch_up(
    view: View,
    ledger: Readable,
    entries: Iterable[LedgerEntry],
    settle: Settle = None,
    trail: Trail | None = None,
) -> CatchUp:
    """`view.catch_up(entries, settle=settle)`, then the chain link it was built to recorded
    in meta (`trail`: the entries' read's, which may know the federation there), holding the
    model's lock throughout (a trail is read and moved under it alone)."""
    with exclusive(view.path):
        stats = view.catch_up(entries, settle=settle)
        record(view, ledger, trail)
    return stats


def record(view: View, ledger: Readable, trail: Trail | None = None) -> None:
    """Bind `view` to `ledger` as built now (after a catch-up or a rebuild), with the
    ledger's federation at the position it is built to (read again only when that moved,
    and from the log only when `trail` does not end there)."""
    position = view.last_position
    kept = trail.at(position) if trail is not None and position else None
    link = trail.link_at(position) if kept is not None and trail is not None else None
    if link is None and position:
        link = link_at(ledger, position)
    rows = {"built_to": f"{link}@{position}"} if link is not None else {}
    identity = kept.ledger if kept is not None and kept.ledger else ledger_id(ledger)
    if identity is not None:
        rows |= {"ledger_id": identity, "ledger_store": redacted(ledger.store)}
    found = binding(view)
    if rows.get("built_to") != found.get("built_to") or "ledger_family" not in found:
        rows["ledger_family"] = (
            recorded(kept.family) if kept is not None else ledger_family(ledger, position)
        )
    if any(found.get(k) != v for k, v in rows.items()):
        _write(view, rows)


def copy(source: View, target: View) -> None:
    """Give `target` the binding of `source` (a rebuilt copy, to compare digests)."""
    _write(target, binding(source))


def recomputed(view: View, ledger: Readable) -> str:
    """The digest of `view` rebuilt from `ledger` up to its position, in a temporary file."""
    last = view.last_position
    with tempfile.TemporaryDirectory() as tmp:
        fresh = View(Path(tmp) / "view.db", view.family, view.what_if, checkpoint_every=0)
        with closing(fresh):
            fresh.catch_up(
                itertools.takewhile(lambda e: e.position <= last, read_verified_entries(ledger))
            )
            copy(view, fresh)
            return fresh.digest()


def _link(ledger: Readable, position: int, seen: Glance | None) -> str | None:
    """The chain link at `position`: as `seen` saw it, if it looked there."""
    return seen.link if seen is not None and seen.at == position else link_at(ledger, position)


def _write(view: View, rows: dict[str, str]) -> None:
    """Upsert `rows` into meta, in plain SQL (no table introspection: a follower records its
    binding after every catch-up)."""
    with exclusive(view.path), view.db.conn as conn:
        conn.executemany(
            "insert into meta (key, value) values (?, ?) "
            "on conflict (key) do update set value = excluded.value",
            list(rows.items()),
        )
