"""The ledger's aggregates: each `@fact` method records one immutable fact, never a rating.

A method's parameters are not written here: they are its fact kind's fields, declared once in
ledger/events.py (with `actor`), so the body takes what it uses and `**_` for the rest.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import register_topic

from ledger import events
from ledger.errors import InvalidCommand

NAMESPACE = UUID("5b0e4c1e-9f6a-5d38-8c2a-7f1e0b9d4a63")
TOPIC_PREFIX = "ratings-ledger:"

F = TypeVar("F", bound=Callable[..., Any])


def fact(kind: type[events.Fact]) -> Callable[[F], F]:
    """`@event` recording a fact of `kind`: a stable topic (`ratings-ledger:Name`), independent
    of module paths, and as parameters the kind's fields in stored order (`signature`).

    Topics are registered by `_register_topics` below, so any process can read the events.
    """

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def recorded(self: Aggregate, **fields: Any) -> None:
            absent = {name: None for name in kind.later if name not in fields}  # older entries
            method(self, **fields, **absent)

        # what `inspect.signature` (and eventsourcing) read; a function's type does not declare it
        recorded.__signature__ = signature(kind)  # type: ignore[attr-defined]
        name = kind.__name__
        # eventsourcing's `event` types its result loosely; it is the method, recording a fact
        return cast(F, event(name, topic=TOPIC_PREFIX + name)(recorded))

    return decorate


def signature(kind: type[events.Fact]) -> inspect.Signature:
    """The parameters of the method recording `kind`, which are its stored fields in order:
    the kind's fields, `actor`, then the fields added later (None in older entries)."""
    p = inspect.Parameter
    first = [name for name in kind.__struct_fields__ if name not in kind.later]
    return inspect.Signature(
        [
            p("self", p.POSITIONAL_OR_KEYWORD),
            *(p(name, p.POSITIONAL_OR_KEYWORD, annotation="Any") for name in (*first, "actor")),
            *(
                p(name, p.POSITIONAL_OR_KEYWORD, annotation="Any", default=None)
                for name in kind.later
            ),
        ]
    )


def player_key(member_id: str) -> UUID:
    return uuid5(NAMESPACE, "player:" + member_id)


def section_key(section_id: str) -> UUID:
    return uuid5(NAMESPACE, "section:" + section_id)


def match_key(match_id: str) -> UUID:
    return uuid5(NAMESPACE, "match:" + match_id)


def fide_adjustment_key(member_id: str, rating_list: str) -> UUID:
    return uuid5(NAMESPACE, f"fide-adjustment:{member_id}:{rating_list}")


def fide_uplift_key(effective: str) -> UUID:
    return uuid5(NAMESPACE, f"fide-uplift:{effective}")


def published_list_key(family: str, number: int) -> UUID:
    return uuid5(NAMESPACE, f"rating-list:{family}:{number}")


ROLES_KEY = uuid5(NAMESPACE, "roles")


class Player(Aggregate):
    """A registered member: profile facts and the opening balances moved onto the ledger."""

    @staticmethod
    def create_id(member_id: str) -> UUID:
        return player_key(member_id)

    @fact(events.PlayerRegistered)
    def __init__(self, member_id: str, **profile: Any) -> None:
        self.member_id = member_id
        self.profile = _without(profile, "actor")
        self.opening_balances: set[str] = set()

    @fact(events.PlayerProfileUpdated)
    def update_profile(self, member_id: str, **profile: Any) -> None:
        self.profile = _without(profile, "actor")

    def check_no_opening_balance(self, system: str) -> None:
        if system in self.opening_balances:
            raise InvalidCommand(
                ("system",),
                f"player {self.member_id!r} already has an opening balance in {system}",
            )

    @fact(events.PlayersMerged)
    def merge_into(self, into: str, **_: object) -> None:
        """This record merged away into `into` (a void of the entry takes it back)."""
        self.merged_into = into

    @fact(events.OpeningBalanceRecorded)
    def record_opening_balance(self, system: str, **_: object) -> None:
        self.opening_balances.add(system)


class Section(Aggregate):
    """A tournament section as reported: submitted once, then corrected or withdrawn."""

    @staticmethod
    def create_id(section_id: str) -> UUID:
        return section_key(section_id)

    @fact(events.SectionSubmitted)
    def __init__(self, **report: Any) -> None:
        self.section_id = report["section_id"]
        self.withdrawn = False
        self.report = _without(report, "actor")

    def check_not_withdrawn(self) -> None:
        if self.withdrawn:
            raise InvalidCommand(
                ("section_id",), f"section {self.section_id!r} was withdrawn; it cannot change"
            )

    @fact(events.SectionCorrected)
    def correct(self, **report: Any) -> None:
        """A full replacement of the section's report; the latest revision is the one rated."""
        self.report = _without(report, "reason", "actor")

    @fact(events.SectionWithdrawn)
    def withdraw(self, **_: object) -> None:
        self.withdrawn = True

    @fact(events.SectionReinstated)
    def reinstate(self, **_: object) -> None:
        """A withdrawn section rated again with its last report (repeated here, as a fact)."""
        self.withdrawn = False

    @fact(events.SectionReviewed)
    def review(self, **_: object) -> None:
        """The office reviewed the section (issue 32): the aggregate's state is unchanged."""


class Match(Aggregate):
    """A rated match between two players (§7 of the US Chess text)."""

    @staticmethod
    def create_id(match_id: str) -> UUID:
        return match_key(match_id)

    @fact(events.MatchResultSubmitted)
    def __init__(self, match_id: str, **_: object) -> None:
        self.match_id = match_id


class FideAdjustment(Aggregate):
    """A player's games in foreign FIDE events for one FIDE rating list (§6)."""

    @staticmethod
    def create_id(member_id: str, rating_list: str) -> UUID:
        return fide_adjustment_key(member_id, rating_list)

    @fact(events.FideAdjustmentSubmitted)
    def __init__(self, member_id: str, **_: object) -> None:
        self.member_id = member_id


class FideUplift(Aggregate):
    """FIDE's one-time uplift of the ratings below `ceiling` on the list of `effective` (the
    FIDE Council's decision of 15 December 2023, applied to the 1 March 2024 list)."""

    @staticmethod
    def create_id(effective: str) -> UUID:
        return fide_uplift_key(effective)

    @fact(events.FideUpliftRecorded)
    def __init__(self, effective: str, **_: object) -> None:
        self.effective = effective


class MoneyFloorAward(Aggregate):
    """A large cash prize won under a rating limit (§5)."""

    @fact(events.MoneyFloorAwarded)
    def __init__(self, member_id: str, **_: object) -> None:
        self.member_id = member_id


class Override(Aggregate):
    """A decision of the Executive Director about one player's rating (§7)."""

    @fact(events.DirectorOverride)
    def __init__(self, member_id: str, **_: object) -> None:
        self.member_id = member_id
        self.revoked = False

    @fact(events.OverrideRevoked)
    def revoke(self, **_: object) -> None:
        """The decision at ledger `position` no longer applies (undone as a new fact)."""
        self.revoked = True


class RulesAmendment(Aggregate):
    """A rules parameter taking a value from a date, recorded at any time after (§8)."""

    @fact(events.RulesAmended)
    def __init__(self, parameter: str, **_: object) -> None:
        self.parameter = parameter


class PublishedList(Aggregate):
    """A rating list a federation published: the `number`th of its family, in order."""

    @staticmethod
    def create_id(family: str, number: int) -> UUID:
        return published_list_key(family, number)

    @fact(events.ListPublished)
    def __init__(
        self, family: str, list_name: str, as_of: str, cutoff_position: int, **_: object
    ) -> None:
        self.family = family
        self.list_name = list_name
        self.as_of = as_of
        self.cutoff_position = cutoff_position
        self.ratings_root: str | None = None

    @fact(events.ListRatingsCommitted)
    def commit_ratings(self, ratings_root: str, **_: object) -> None:
        """The list's ratings, committed: the Merkle root over its `rows` rows
        (projections/proofs.py), so anyone can check one player's row against it."""
        self.ratings_root = ratings_root


def void_key(position: int) -> UUID:
    return uuid5(NAMESPACE, f"void:{position}")


class Void(Aggregate):
    """A director's decision that the entry at `position` has no effect (one void each)."""

    @staticmethod
    def create_id(position: int) -> UUID:
        return void_key(position)

    @fact(events.EntryVoided)
    def __init__(self, position: int, **_: object) -> None:
        self.position = position


class SetAside(Aggregate):
    """A director's decision that the entries at `positions` (which fail verification) are
    set aside: on a record of its own (a fresh id, so no row an insider planted on a
    predictable one can block it; two racing directors may both record one, to one effect)."""

    @fact(events.EntrySetAside)
    def __init__(self, positions: tuple[int, ...] | list[int], **_: object) -> None:
        self.positions = tuple(positions)


class Roles(Aggregate):
    """Who holds which role, and each holder's public key (`ledger.evidence.signing`): created
    by `init`, which also makes its actor the first director. A grant with a new key rotates the
    holder's key; a holder who loses their last role loses their key too. It holds the ledger's
    federation too (`family`, None: set up before issue 30), which a director changes."""

    @staticmethod
    def create_id() -> UUID:
        return ROLES_KEY

    @fact(events.LedgerInitialized)
    def __init__(self, actor: str, public_key: str | None, family: str | None) -> None:
        self.held: dict[str, set[str]] = {}
        self.keys: dict[str, str] = {actor: public_key} if public_key else {}
        self.family = family

    @fact(events.RoleGranted)
    def grant(self, holder: str, role: str, public_key: str | None, **_: object) -> None:
        self.held.setdefault(holder, set()).add(role)
        if public_key:
            self.keys[holder] = public_key

    @fact(events.RoleRevoked)
    def revoke(self, holder: str, role: str, **_: object) -> None:
        self.held.setdefault(holder, set()).discard(role)  # a forged revocation never crashes
        if not self.held[holder]:
            self.keys.pop(holder, None)

    @fact(events.FederationChanged)
    def change_family(self, family: str, **_: object) -> None:
        self.family = family

    def roles_of(self, holder: str) -> frozenset[str]:
        return frozenset(self.held.get(holder, ()))

    def holders_of(self, role: str) -> list[str]:
        return sorted(h for h, roles in self.held.items() if role in roles)

    def key_of(self, holder: str) -> str | None:
        """The public key the ledger holds for `holder` now, if any."""
        return self.keys.get(holder)


def _without(fields: dict[str, Any], *names: str) -> dict[str, Any]:
    """A fact's fields but `names` (the envelope's actor, a correction's reason)."""
    return {k: v for k, v in fields.items() if k not in names}


def _register_topics(*aggregates: type[Aggregate]) -> None:
    for aggregate in aggregates:
        for value in vars(aggregate).values():
            if isinstance(value, type) and "TOPIC" in vars(value):
                register_topic(vars(value)["TOPIC"], value)


_register_topics(
    Player,
    Section,
    Match,
    FideAdjustment,
    FideUplift,
    MoneyFloorAward,
    Override,
    RulesAmendment,
    PublishedList,
    Void,
    SetAside,
    Roles,
)
