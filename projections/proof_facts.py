"""The facts a list's rating depends on besides its period's items (issue 18, with FIDE's 2024
uplift and issue 20): the uplift applied at the previous list (whose committed rows are those
before it: `periods._Periods.publish` raises them after), and the merges that make an item's
records its survivors' (projections/merges.py), with any void of them.

`gather` picks them for a bundle from the read model as known at the list and the ledger;
`Context.read` takes them back from a bundle's proved entries, checked, for `verify_bundle`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ledger import events
from ledger.domain import TOPIC_PREFIX
from ledger.errors import LedgerError
from ledger.log import entry_type
from ledger.reading import Readable
from projections import queries
from projections.items import Item, fact_item
from projections.merges import Merges, renamed
from projections.periods import PublishedList
from projections.schema import ReadModel

MERGE_TOPICS = (TOPIC_PREFIX + "PlayersMerged", TOPIC_PREFIX + "EntryVoided")
PAGE = 5000  # notifications read at a time


class ContextError(LedgerError):
    """A bundle's uplift, merge or void entries that do not say what the bundle needs."""


# Making a bundle


Known = dict[str, list[tuple[int, str]]]  # each record merged away → (position, into) in order
# a bundle's proved entries, by position: each one's fact (None: a kind the read side ignores)
Facts = dict[int, events.Fact | None]


def fold(merged: Known, voided: Iterable[int]) -> Merges:
    """The merges in force, as the read model folds them (projections.handlers.on_merge and
    on_void): each record's merges not voided, the last in force."""
    gone = set(voided)
    into = {}
    for member_id, entries in merged.items():
        standing = sorted(e for e in entries if e[0] not in gone)
        if standing:
            into[member_id] = (standing[-1][1], standing[-1][0], None)
    return Merges(into)


@dataclass
class Gathered:
    """The entries a bundle carries beside its items (their positions), from the merges
    (`known`) and voids of merges (`voided`: the entry voided → the void) known at the list."""

    known: Known
    voided: dict[int, int]
    uplifts: list[int] = field(default_factory=list)
    earlier: int | None = None  # the list before the previous one: where each uplift applies
    merges: list[int] = field(default_factory=list)
    voids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.in_force = fold(self.known, self.voided)

    def positions(self) -> set[int]:
        earlier = set() if self.earlier is None else {self.earlier}
        return {*self.uplifts, *self.merges, *self.voids} | earlier

    def carry(self, records: Iterable[str]) -> None:
        """Carry every merge of each record on the way from `records` to their survivors, and
        each void of those merges."""
        for record in records:
            seen = {record}
            while record in self.in_force.into:
                for position, _ in self.known.get(record, ()):
                    if position not in self.merges:
                        self.merges.append(position)
                        if position in self.voided:
                            self.voids.append(self.voided[position])
                record = self.in_force.into[record][0]
                if record in seen:
                    break
                seen.add(record)
        self.merges.sort()
        self.voids.sort()


def gather(
    ledger: Readable, at_list: ReadModel, listed: PublishedList, previous: PublishedList
) -> Gathered:
    """What a bundle for `listed` (`at_list`: the read model as known at it), rated from
    `previous`, carries besides items: the uplifts in force on `previous` that the list knows,
    and the merges known at its cutoff (`Gathered.carry` picks those the items need)."""
    found = Gathered(*_merge_entries(ledger, listed.cutoff_position))
    rows = at_list.db.execute(
        "select revision, end from items where kind = 'uplift' order by end, revision"
    ).fetchall()
    found.uplifts = [position for position, end in rows if end <= previous.as_of]
    if found.uplifts and previous.number > 1:
        lists = queries.published_lists(at_list, previous.family)
        found.earlier = next(x.position for x in lists if x.number == previous.number - 1)
    return found


def _merge_entries(ledger: Readable, cutoff: int) -> tuple[Known, dict[int, int]]:
    """The merges up to `cutoff` (each record merged away → its (position, into) in ledger
    order) and the voids up to it (the entry voided → the void's position)."""
    recorder = ledger.recorder
    merged: Known = {}
    voided: dict[int, int] = {}
    start = 0
    while True:
        found = recorder.select_notifications(
            start, PAGE, stop=cutoff, topics=MERGE_TOPICS, inclusive_of_start=False
        )
        for n in found:
            try:
                fact = events.decode(entry_type(n.topic), n.state)
            except (events.Undecodable, ValueError, TypeError):
                continue  # the read model applies no entry it cannot read (a problem row)
            if isinstance(fact, events.PlayersMerged):
                merged.setdefault(fact.member_id, []).append((n.id, fact.into))
            elif isinstance(fact, events.EntryVoided):
                voided[fact.position] = n.id
        if len(found) < PAGE:
            return merged, voided
        start = found[-1].id


# Checking a bundle


@dataclass
class Context:
    """A bundle's uplifts and merges, as the recomputation takes them: the uplifts applied at
    the previous list (`raised`), those in force before it (`before`), the merges in force."""

    raised: list[Item]
    before: list[Item]
    merges: Merges

    @classmethod
    def read(
        cls,
        bundle: dict[str, Any],
        facts: Facts,
        listed: PublishedList,
        previous: PublishedList,
    ) -> Context:
        """From the bundle's proved entries (`facts`, by position); ContextError at the first
        entry that is not what the bundle files it as."""
        earlier = _earlier(bundle, facts, listed, previous)
        raised: list[Item] = []
        before: list[Item] = []
        for position in bundle.get("uplifts", ()):
            fact = _proved(facts, position, "an uplift")
            if not isinstance(fact, events.FideUpliftRecorded):
                raise ContextError(f"the entry at {position} is not a FIDE uplift")
            if int(position) > listed.cutoff_position or fact.effective > previous.as_of:
                raise ContextError(
                    f"the uplift at {position} is not in force on {previous.name!r} as "
                    f"{listed.name!r} knew it"
                )
            item = fact_item(fact, int(position), int(position))
            applied = earlier is None or fact.effective > earlier.as_of
            (raised if applied else before).append(item)
        merges: Known = {}
        for position in bundle.get("merges", ()):
            fact = _proved(facts, position, "a merge")
            if not isinstance(fact, events.PlayersMerged):
                raise ContextError(f"the entry at {position} is not a merge")
            if int(position) > listed.cutoff_position:
                raise ContextError(f"the merge at {position} is after the list's cutoff")
            merges.setdefault(fact.member_id, []).append((int(position), fact.into))
        voided = set()
        for position in bundle.get("voids", ()):
            fact = _proved(facts, position, "a void")
            if not isinstance(fact, events.EntryVoided) or int(position) > listed.cutoff_position:
                raise ContextError(f"the entry at {position} is not a void known at the list")
            voided.add(fact.position)
        return cls(
            sorted(raised, key=lambda i: i.sort_key),
            sorted(before, key=lambda i: i.sort_key),
            fold(merges, voided),
        )

    def late(self, previous: PublishedList) -> str:
        """Why a recomputation may differ: merges recorded after the previous list's cutoff
        re-rate the history its committed rows show."""
        late = sorted(p for _, p, _ in self.merges.into.values() if p > previous.cutoff_position)
        if not late:
            return ""
        return (
            f" (the merge at {', '.join(map(str, late))} was recorded after {previous.name!r}, "
            "re-rating history that list's committed rows do not show)"
        )

    def names_its_players(self, item: Item, player: str, rows: dict[str, Any]) -> None:
        """The item, its records named as their survivors, names `player`, and each of his
        opponents has a row (or its absence) on the previous list: else a merge is missing."""
        try:
            seen = renamed(item, self.merges)
        except ValueError as exc:
            raise ContextError(f"the item at {item.revision}: {exc}") from None
        if player not in seen.players:
            others = ", ".join(p for p in seen.players if p not in rows) or "none"
            raise ContextError(
                f"the item at {item.revision} does not name {player}: the bundle lacks the "
                f"merge that joins one of its records ({others}) to him"
            )
        for opponent in sorted(opponents(seen, player)):
            if opponent not in rows:
                raise ContextError(
                    f"the bundle holds no previous-list row for {opponent}, {player}'s opponent "
                    f"in the item at {item.revision}, nor the merge that joins that record to "
                    "another"
                )


def opponents(item: Item, player: str) -> set[str]:
    """Those `player` met in the item's games."""
    games = getattr(item.event, "games", ())
    return {g.black for g in games if g.white == player} | {
        g.white for g in games if g.black == player
    }


def _earlier(
    bundle: dict[str, Any], facts: Facts, listed: PublishedList, previous: PublishedList
) -> PublishedList | None:
    """The list before the previous one, which a bundle carrying an uplift holds to tell
    whether the uplift applies at the previous list (checked: the lists are consecutive)."""
    if previous.number != listed.number - 1:
        raise ContextError(f"{previous.name!r} is not the list before {listed.name!r}")
    where = bundle["previous"].get("earlier")
    if where is None:
        if bundle.get("uplifts") and previous.number > 1:
            raise ContextError(
                f"the bundle carries an uplift but not the list before {previous.name!r}, "
                "which tells whether it applies at the previous list"
            )
        return None
    found = _proved(facts, where, "the list before the previous")
    if not isinstance(found, events.ListPublished) or (found.family, found.number) != (
        listed.family,
        previous.number - 1,
    ):
        raise ContextError(f"the entry at {where} is not the list before {previous.name!r}")
    return PublishedList(
        found.family, found.number, found.list_name, found.as_of, found.cutoff_position, int(where)
    )


def _proved(facts: Facts, position: int | str, what: str) -> events.Fact | None:
    """The proved entry at `position`, which the bundle lists as `what`."""
    if int(position) not in facts:
        raise ContextError(f"the bundle lists {what} at {position} without its entry's proof")
    return facts[int(position)]
