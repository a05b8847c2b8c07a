"""The ledger's aggregates: each `@event` method records one immutable fact, never a rating."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from uuid import UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.utils import register_topic

from ledger.errors import (  # noqa: F401 (re-exported: the ledger's refusals)
    ConflictError,
    InvalidCommand,
    LedgerError,
    StoreError,
)

NAMESPACE = UUID("5b0e4c1e-9f6a-5d38-8c2a-7f1e0b9d4a63")
TOPIC_PREFIX = "ratings-ledger:"

F = TypeVar("F", bound=Callable[..., Any])


def fact(name: str) -> Callable[[F], F]:
    """`@event` with a stable topic (`ratings-ledger:Name`), independent of module paths.

    Topics are registered by `_register_topics` below, so any process can read the events.
    """
    return event(name, topic=TOPIC_PREFIX + name)


def _given(**fields: Any) -> dict[str, Any]:
    """The profile fields added later (issue 20), only when given: older profiles compare equal."""
    return {k: v for k, v in fields.items() if v is not None}


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

    @fact("PlayerRegistered")
    def __init__(
        self,
        member_id: str,
        name: str | None,
        birth_date: str | None,
        adult: bool | None,
        fide: dict[str, Any] | None,
        cfc: dict[str, Any] | None,
        fide_adjustment_opt_in: bool | None,
        membership_expires: str | None,
        playing_since: str | None,
        actor: str,
        fide_id: str | None = None,
        title: str | None = None,
        sex: str | None = None,
        federation: str | None = None,
        birth_year: int | None = None,
        reported_rating: dict[str, Any] | None = None,
    ) -> None:
        self.member_id = member_id
        self.profile = {
            "name": name,
            "birth_date": birth_date,
            "adult": adult,
            "fide": fide,
            "cfc": cfc,
            "fide_adjustment_opt_in": fide_adjustment_opt_in,
            "membership_expires": membership_expires,
            "playing_since": playing_since,
            "fide_id": fide_id,
            "title": title,
            "sex": sex,
            **_given(federation=federation, birth_year=birth_year, reported_rating=reported_rating),
        }
        self.opening_balances: set[str] = set()

    @fact("PlayerProfileUpdated")
    def update_profile(
        self,
        member_id: str,
        name: str | None,
        birth_date: str | None,
        adult: bool | None,
        fide: dict[str, Any] | None,
        cfc: dict[str, Any] | None,
        fide_adjustment_opt_in: bool | None,
        membership_expires: str | None,
        playing_since: str | None,
        actor: str,
        fide_id: str | None = None,
        title: str | None = None,
        sex: str | None = None,
        federation: str | None = None,
        birth_year: int | None = None,
        reported_rating: dict[str, Any] | None = None,
    ) -> None:
        self.profile = {
            "name": name,
            "birth_date": birth_date,
            "adult": adult,
            "fide": fide,
            "cfc": cfc,
            "fide_adjustment_opt_in": fide_adjustment_opt_in,
            "membership_expires": membership_expires,
            "playing_since": playing_since,
            "fide_id": fide_id,
            "title": title,
            "sex": sex,
            **_given(federation=federation, birth_year=birth_year, reported_rating=reported_rating),
        }

    def check_no_opening_balance(self, system: str) -> None:
        if system in self.opening_balances:
            raise InvalidCommand(
                ("system",),
                f"player {self.member_id!r} already has an opening balance in {system}",
            )

    @fact("OpeningBalanceRecorded")
    def record_opening_balance(
        self,
        member_id: str,
        system: str,
        as_of: str,
        rating: float,
        games: int,
        wins: int | None,
        draws: int | None,
        losses: int | None,
        sections_of_three: int | None,
        history: str,
        peak: float | None,
        olm_games: int | None,
        money_floor: int | None,
        director_floor: int | None,
        ceiling: float | None,
        actor: str,
    ) -> None:
        self.opening_balances.add(system)


class Section(Aggregate):
    """A tournament section as reported: submitted once, then corrected or withdrawn."""

    @staticmethod
    def create_id(section_id: str) -> UUID:
        return section_key(section_id)

    @fact("SectionSubmitted")
    def __init__(
        self,
        section_id: str,
        tournament_id: str | None,
        event_name: str,
        online: bool,
        time_control: str,
        start_date: str,
        end_date: str,
        system: str | None,
        rules: str | None,
        players: list[dict[str, Any]],
        games: list[dict[str, Any]],
        byes: list[dict[str, Any]],
        actor: str,
    ) -> None:
        self.section_id = section_id
        self.withdrawn = False
        self.report = {k: v for k, v in locals().items() if k not in ("self", "actor")}

    def check_not_withdrawn(self) -> None:
        if self.withdrawn:
            raise InvalidCommand(
                ("section_id",), f"section {self.section_id!r} was withdrawn; it cannot change"
            )

    @fact("SectionCorrected")
    def correct(
        self,
        section_id: str,
        tournament_id: str | None,
        event_name: str,
        online: bool,
        time_control: str,
        start_date: str,
        end_date: str,
        system: str | None,
        rules: str | None,
        players: list[dict[str, Any]],
        games: list[dict[str, Any]],
        byes: list[dict[str, Any]],
        reason: str,
        actor: str,
    ) -> None:
        """A full replacement of the section's report; the latest revision is the one rated."""
        self.report = {k: v for k, v in locals().items() if k not in ("self", "reason", "actor")}

    @fact("SectionWithdrawn")
    def withdraw(self, section_id: str, reason: str, actor: str) -> None:
        self.withdrawn = True

    @fact("SectionReinstated")
    def reinstate(
        self,
        section_id: str,
        tournament_id: str | None,
        event_name: str,
        online: bool,
        time_control: str,
        start_date: str,
        end_date: str,
        system: str | None,
        rules: str | None,
        players: list[dict[str, Any]],
        games: list[dict[str, Any]],
        byes: list[dict[str, Any]],
        reason: str,
        actor: str,
    ) -> None:
        """A withdrawn section rated again with its last report (repeated here, as a fact)."""
        self.withdrawn = False


class Match(Aggregate):
    """A rated match between two players (§7 of the US Chess text)."""

    @staticmethod
    def create_id(match_id: str) -> UUID:
        return match_key(match_id)

    @fact("MatchResultSubmitted")
    def __init__(
        self,
        match_id: str,
        event_name: str | None,
        online: bool,
        time_control: str,
        start_date: str,
        end_date: str,
        system: str | None,
        players: list[dict[str, Any]],
        games: list[dict[str, Any]],
        actor: str,
    ) -> None:
        self.match_id = match_id


class FideAdjustment(Aggregate):
    """A player's games in foreign FIDE events for one FIDE rating list (§6)."""

    @staticmethod
    def create_id(member_id: str, rating_list: str) -> UUID:
        return fide_adjustment_key(member_id, rating_list)

    @fact("FideAdjustmentSubmitted")
    def __init__(
        self,
        member_id: str,
        rating_list: str,
        youth_event: bool,
        games: list[dict[str, Any]],
        actor: str,
    ) -> None:
        self.member_id = member_id


class FideUplift(Aggregate):
    """FIDE's one-time uplift of the ratings below `ceiling` on the list of `effective` (the
    FIDE Council's decision of 15 December 2023, applied to the 1 March 2024 list)."""

    @staticmethod
    def create_id(effective: str) -> UUID:
        return fide_uplift_key(effective)

    @fact("FideUpliftRecorded")
    def __init__(
        self, effective: str, ceiling: int, share: float, reason: str | None, actor: str
    ) -> None:
        self.effective = effective


class MoneyFloorAward(Aggregate):
    """A large cash prize won under a rating limit (§5)."""

    @fact("MoneyFloorAwarded")
    def __init__(
        self, member_id: str, amount: float, limit: int, date: str, system: str, actor: str
    ) -> None:
        self.member_id = member_id


class Override(Aggregate):
    """A decision of the Executive Director about one player's rating (§7)."""

    @fact("DirectorOverride")
    def __init__(
        self,
        member_id: str,
        action: str,
        system: str,
        value: float | None,
        effective: str,
        reason: str,
        actor: str,
    ) -> None:
        self.member_id = member_id
        self.revoked = False

    @fact("OverrideRevoked")
    def revoke(self, member_id: str, system: str, position: int, reason: str, actor: str) -> None:
        """The decision at ledger `position` no longer applies (undone as a new fact)."""
        self.revoked = True


class RulesAmendment(Aggregate):
    """A rules parameter taking a value from a date, recorded at any time after (§8)."""

    @fact("RulesAmended")
    def __init__(
        self,
        parameter: str,
        value: float | dict[str, Any],
        effective: str,
        until: str | None,
        reason: str,
        actor: str,
    ) -> None:
        self.parameter = parameter


class PublishedList(Aggregate):
    """A rating list a federation published: the `number`th of its family, in order."""

    @staticmethod
    def create_id(family: str, number: int) -> UUID:
        return published_list_key(family, number)

    @fact("ListPublished")
    def __init__(
        self,
        family: str,
        number: int,
        list_name: str,
        as_of: str,
        cutoff_position: int,
        actor: str,
    ) -> None:
        self.family = family
        self.list_name = list_name
        self.as_of = as_of
        self.cutoff_position = cutoff_position
        self.ratings_root: str | None = None

    @fact("ListRatingsCommitted")
    def commit_ratings(
        self, family: str, list_name: str, rows: int, ratings_root: str, actor: str
    ) -> None:
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

    @fact("EntryVoided")
    def __init__(self, position: int, reason: str, actor: str) -> None:
        self.position = position


class Roles(Aggregate):
    """Who holds which role, and each holder's public key (`ledger.signing`): created by `init`,
    which also makes its actor the first director. A grant with a new key rotates the holder's
    key; a holder who loses their last role loses their key too."""

    @staticmethod
    def create_id() -> UUID:
        return ROLES_KEY

    @fact("LedgerInitialized")
    def __init__(self, actor: str, public_key: str | None = None) -> None:
        self.held: dict[str, set[str]] = {}
        self.keys: dict[str, str] = {actor: public_key} if public_key else {}

    @fact("RoleGranted")
    def grant(self, holder: str, role: str, actor: str, public_key: str | None = None) -> None:
        self.held.setdefault(holder, set()).add(role)
        if public_key:
            self.keys[holder] = public_key

    @fact("RoleRevoked")
    def revoke(self, holder: str, role: str, actor: str) -> None:
        self.held[holder].discard(role)
        if not self.held[holder]:
            self.keys.pop(holder, None)

    def roles_of(self, holder: str) -> frozenset[str]:
        return frozenset(self.held.get(holder, ()))

    def holders_of(self, role: str) -> list[str]:
        return sorted(h for h, roles in self.held.items() if role in roles)

    def key_of(self, holder: str) -> str | None:
        """The public key the ledger holds for `holder` now, if any."""
        return self.keys.get(holder)


def _register_topics(*aggregates: type[Aggregate]) -> None:
    for aggregate in aggregates:
        for value in vars(aggregate).values():
            if isinstance(value, type) and "TOPIC" in vars(value):
                register_topic(value.TOPIC, value)


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
    Roles,
)
