"""Merged players (issue 20, `PlayersMerged`): a record merged away counts as the one it joined.

A merge is a record of the read model keyed `merge:FROM` in `revisions` (its merge entries in
ledger order, the last in force; a void takes one back). Items keep the facts as recorded;
`item_players` names the surviving records, and a rater sees each item with every merged-away
record renamed to the one it joined (`Renaming`) and the survivor's profile completed with
the fields it lacks from the records merged into it (`MergedProfiles`): the rows are those of
a ledger where the survivor had played those games from the start.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when used: a `player` query reads merges (queries.merges)
    from sqlite_utils import Database

    from ledger import events
    from projections.change import Change
    from projections.items import Item
    from projections.rating import ItemRater, Profiles
    from projections.schema import Executes
    from projections.standing import Standing

KEY = "merge:"  # a merge record's key: KEY + the record merged away
_RANGE = "select key, revisions from revisions where key >= 'merge:' and key < 'merge;'"


class Merges:
    """The merges in force: each record merged away → the record it joined, and at which
    ledger position."""

    def __init__(self, into: Mapping[str, tuple[str, int, str | None]] | None = None) -> None:
        self.into = dict(into or {})
        self._absorbed: dict[str, list[str]] | None = None

    @classmethod
    def fold(cls, records: Iterable[tuple[str, Any]]) -> Merges:
        """From merge records: (key, revisions as a list or its JSON)."""
        into = {}
        for key, revisions in records:
            found = json.loads(revisions) if isinstance(revisions, str) else revisions
            if found:
                position, _, payload = found[-1]
                into[key[len(KEY) :]] = (payload["into"], position, payload.get("reason"))
        return cls(into)

    @classmethod
    def stored(cls, conn: sqlite3.Connection | Database) -> Merges:
        """The merges a read model holds."""
        return cls.fold(records(conn))

    def __bool__(self) -> bool:
        return bool(self.into)

    def resolve(self, member_id: str) -> str:
        """The record `member_id` counts as: itself unless merged away (following merges)."""
        seen = {member_id}
        while member_id in self.into:
            nxt = self.into[member_id][0]
            if nxt in seen:  # a cycle only a forged ledger holds: left where it stands
                return member_id
            member_id = nxt
            seen.add(member_id)
        return member_id

    def absorbed(self, member_id: str) -> list[str]:
        """The records merged into `member_id` (directly or not), in the order merged."""
        if self._absorbed is None:
            self._absorbed = {}
            for m in sorted(self.into, key=lambda m: self.into[m][1]):
                if (survivor := self.resolve(m)) != m:
                    self._absorbed.setdefault(survivor, []).append(m)
        return self._absorbed.get(member_id, [])

    def merged_into(self, member_id: str) -> dict[str, Any] | None:
        """Where a record merged away went: the surviving record (`id`), and the merge's
        ledger position and reason; None for a record not merged away."""
        if member_id not in self.into:
            return None
        _, position, reason = self.into[member_id]
        return {"id": self.resolve(member_id), "position": position, "reason": reason}


def records(conn: Executes) -> list[tuple[str, str]]:
    """The merge records a read model (its connection) holds: (key, revisions JSON)."""
    rows: list[tuple[str, str]] = conn.execute(_RANGE).fetchall()
    return rows


def renamed(item: Item, merges: Merges) -> Item:
    """The item as its rater sees it: each merged-away record named as the one it joined; a
    section naming two records of one person cannot be rated (ValueError: a problem row)."""
    if not merges or all(p not in merges.into for p in item.players):
        return item
    import msgspec

    from ledger import events

    to = merges.resolve
    fact, changes = item.event, dict[str, object]()
    if hasattr(fact, "member_id"):
        changes["member_id"] = to(fact.member_id)
    if isinstance(fact, events.SectionSubmitted | events.MatchResultSubmitted):
        players = tuple(msgspec.structs.replace(p, id=to(p.id)) for p in fact.players)
        ids = [p.id for p in players]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(
                f"{', '.join(twice)} plays twice here (records merged into one): a person "
                "cannot play himself"
            )
        changes["players"] = players
        changes["games"] = tuple(
            msgspec.structs.replace(g, white=to(g.white), black=to(g.black)) for g in fact.games
        )
    if hasattr(fact, "byes"):
        changes["byes"] = tuple(msgspec.structs.replace(b, player=to(b.player)) for b in fact.byes)
    event = msgspec.structs.replace(fact, **changes)
    from projections.items import Item

    return Item(item.key, item.kind, item.start, item.end, item.position, item.revision, event)


def renamed_report(report: dict[str, Any], merges: Merges) -> dict[str, Any]:
    """A section's or match's report (plain JSON) with each merged-away record named as the one
    it joined, as its rows were rated (its exports, its crosstable)."""
    to = merges.resolve
    out = dict(report)
    out["players"] = [{**p, "id": to(p["id"])} for p in report.get("players", ())]
    out["games"] = [
        {**g, "white": to(g["white"]), "black": to(g["black"])} for g in report.get("games", ())
    ]
    if "byes" in report:
        out["byes"] = [{**b, "player": to(b["player"])} for b in report["byes"]]
    return out


class Renaming:
    """A family's rater that rates each item `renamed` (a standing is the rater's)."""

    def __init__(self, rater: ItemRater, merges: Merges) -> None:
        self.rater, self.merges = rater, merges

    def rate(self, item: Item) -> list[Change]:
        return self.rater.rate(renamed(item, self.merges))

    def standing(self, player: str, system: str) -> Standing[object]:
        return self.rater.standing(player, system)


class MergedProfiles:
    """The raters' profiles: a surviving record's own, with each field it lacks taken from the
    records merged into it (in the order merged)."""

    def __init__(self, profiles: Profiles, merges: Merges) -> None:
        self.profiles, self.merges = profiles, merges

    def get(
        self, member_id: str, default: events.PlayerRegistered | None = None
    ) -> events.PlayerRegistered | None:
        own = self.profiles.get(member_id)
        others = [p for m in self.merges.absorbed(member_id) if (p := self.profiles.get(m))]
        if not others:
            return default if own is None else own
        return combined(member_id, [own, *others] if own is not None else others)

    def __getitem__(self, member_id: str) -> events.PlayerRegistered:
        found = self.get(member_id)
        if found is None:
            raise KeyError(member_id)
        return found

    def __contains__(self, member_id: object) -> bool:
        return isinstance(member_id, str) and self.get(member_id) is not None


def combined(member_id: str, profiles: list[events.PlayerRegistered]) -> events.PlayerRegistered:
    """The first profile, each field it lacks (None) taken from the next that gives it."""
    import msgspec

    changes: dict[str, Any] = {"member_id": member_id}
    for name in profiles[0].__struct_fields__:
        if name != "member_id" and getattr(profiles[0], name) is None:
            given = next((v for p in profiles[1:] if (v := getattr(p, name)) is not None), None)
            if given is not None:
                changes[name] = given
    return msgspec.structs.replace(profiles[0], **changes)


def profiles(found: Profiles, merges: Merges) -> Profiles:
    """The raters' profiles `found`, merged when any record was merged away."""
    return MergedProfiles(found, merges) if merges else found
