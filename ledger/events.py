"""Every recorded fact's fields, typed and frozen, as the read side decodes them.

One class per event type the projections use, named as the stored topic
(`ratings-ledger:SectionSubmitted`), with the keyword arguments of its `@event` method in
ledger/domain.py as fields (tests/test_events.py checks that they line up). `DECODERS` is the
one table from an entry's type to its class; `decode` turns a stored entry (its raw JSON, or
its payload dict) into an instance, checking every value against its read bound
(ledger/bounds.py) on the way (a NaN, 1e300 or round 10^12 is refused here with the field's path).

The classes are msgspec Structs: frozen and typed like dataclasses, decoded from the stored
JSON in C without building a dict per game (docs/decisions.md, "typed events").
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from ledger import bounds

Rating = Annotated[float, msgspec.Meta(ge=0, le=bounds.RATING.read)]
Positive = Annotated[float, msgspec.Meta(gt=0, le=bounds.RATING.read)]
Count = Annotated[int, msgspec.Meta(ge=0, le=bounds.GAMES.read)]
Round = Annotated[int, msgspec.Meta(ge=1, le=bounds.ROUND.read)]
Day = Annotated[str, msgspec.Meta(pattern=bounds.DATE_PATTERN)]
Amount = Annotated[float, msgspec.Meta(gt=0, le=bounds.PRIZE.read)]
Limit = Annotated[int, msgspec.Meta(gt=0, le=int(bounds.RATING.read))]
Score = Annotated[float, msgspec.Meta(ge=0, le=1)]


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    """A recorded fact's own fields (the envelope — position, time, actor — is LedgerEntry's)."""


# Players


class ForeignRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A published FIDE or CFC rating in a profile."""

    rating: Rating
    date: Day | None = None
    games: Count | None = None
    federation: str | None = None


class PlayerRegistered(Fact, frozen=True, kw_only=True):
    member_id: str
    name: str | None = None
    birth_date: Day | None = None
    adult: bool | None = None
    fide: ForeignRecord | None = None
    cfc: ForeignRecord | None = None
    fide_adjustment_opt_in: bool | None = None
    membership_expires: Day | None = None
    playing_since: Day | None = None
    fide_id: str | None = None
    title: str | None = None
    sex: str | None = None


class PlayerProfileUpdated(PlayerRegistered, frozen=True, kw_only=True):
    pass


class OpeningBalanceRecorded(Fact, frozen=True, kw_only=True):
    member_id: str
    system: str
    as_of: Day
    rating: Rating
    games: Count
    wins: Count | None = None
    draws: Count | None = None
    losses: Count | None = None
    sections_of_three: Count | None = None
    history: str = "mixed"
    peak: Rating | None = None
    olm_games: Count | None = None
    money_floor: Annotated[int, msgspec.Meta(ge=0, le=int(bounds.RATING.read))] | None = None
    director_floor: Annotated[int, msgspec.Meta(ge=0, le=int(bounds.RATING.read))] | None = None
    ceiling: Rating | None = None


# Sections and matches


class Entrant(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    fixed_rating: Rating | None = None  # held fixed, never updated (ICU foreign players)


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    round: Round
    white: str
    black: str
    result: str


class ByeRecord(msgspec.Struct, frozen=True, kw_only=True):
    round: Round
    player: str
    bye: str


class SectionSubmitted(Fact, frozen=True, kw_only=True):
    section_id: str
    tournament_id: str | None = None
    event_name: str | None = None
    online: bool
    time_control: str
    start_date: Day
    end_date: Day
    system: str | None = None
    rules: str | None = None
    players: tuple[Entrant, ...]
    games: tuple[GameRecord, ...]
    byes: tuple[ByeRecord, ...] = ()


class SectionCorrected(SectionSubmitted, frozen=True, kw_only=True):
    reason: str | None = None


class SectionWithdrawn(Fact, frozen=True, kw_only=True):
    section_id: str
    reason: str | None = None


class SectionReinstated(SectionSubmitted, frozen=True, kw_only=True):
    """A withdrawn section rated again with its last report (repeated in the fact)."""

    reason: str | None = None


class MatchResultSubmitted(Fact, frozen=True, kw_only=True):
    match_id: str
    event_name: str | None = None
    online: bool
    time_control: str
    start_date: Day
    end_date: Day
    system: str | None = None
    players: tuple[Entrant, ...]
    games: tuple[GameRecord, ...]


# The office's other records


class FideGameRecord(msgspec.Struct, frozen=True, kw_only=True):
    opponent_rating: Positive
    opponent_id: str | None = None
    score: Score


class FideAdjustmentSubmitted(Fact, frozen=True, kw_only=True):
    member_id: str
    rating_list: Day
    youth_event: bool = False
    games: tuple[FideGameRecord, ...]


class FideUpliftRecorded(Fact, frozen=True, kw_only=True):
    effective: Day
    ceiling: Limit = 2000
    share: Annotated[float, msgspec.Meta(gt=0, le=1)] = 0.4
    reason: str | None = None


class MoneyFloorAwarded(Fact, frozen=True, kw_only=True):
    member_id: str
    amount: Amount
    limit: Limit
    date: Day
    system: str = "OTBR"


class DirectorOverride(Fact, frozen=True, kw_only=True):
    member_id: str
    action: str
    system: str = "OTBR"
    value: Rating | None = None
    effective: Day
    reason: str | None = None


class OverrideRevoked(Fact, frozen=True, kw_only=True):
    """The director's decision at ledger `position` no longer applies."""

    member_id: str
    system: str = "OTBR"
    position: Annotated[int, msgspec.Meta(ge=1)]
    reason: str | None = None


class RulesAmended(Fact, frozen=True, kw_only=True):
    parameter: str
    value: Any
    effective: Day
    until: Day | None = None
    reason: str | None = None


class ListPublished(Fact, frozen=True, kw_only=True):
    """A federation published a rating list: the `number`th of its family."""

    family: str
    number: Annotated[int, msgspec.Meta(ge=1)]
    list_name: str
    as_of: Day
    cutoff_position: Annotated[int, msgspec.Meta(ge=0)]


class ListRatingsCommitted(Fact, frozen=True, kw_only=True):
    """The ratings a published list said, committed: a Merkle root over its rows (issue 18)."""

    family: str
    list_name: str
    rows: Annotated[int, msgspec.Meta(ge=0)]
    ratings_root: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class EntryVoided(Fact, frozen=True, kw_only=True):
    """The entry at `position` no longer counts (written by the office; issue 10)."""

    position: Annotated[int, msgspec.Meta(ge=1)]
    reason: str | None = None


DECODERS: dict[str, type[Fact]] = {
    cls.__name__: cls
    for cls in (
        PlayerRegistered,
        PlayerProfileUpdated,
        OpeningBalanceRecorded,
        SectionSubmitted,
        SectionCorrected,
        SectionWithdrawn,
        SectionReinstated,
        MatchResultSubmitted,
        FideAdjustmentSubmitted,
        FideUpliftRecorded,
        MoneyFloorAwarded,
        DirectorOverride,
        OverrideRevoked,
        RulesAmended,
        ListPublished,
        ListRatingsCommitted,
        EntryVoided,
    )
}
_JSON = {name: msgspec.json.Decoder(cls) for name, cls in DECODERS.items()}


_DAY = f"a date YYYY-MM-DD in {bounds.FIRST_YEAR}..{bounds.LAST_YEAR}"


class Undecodable(ValueError):
    """A stored entry whose fields are not what its type says (a poisoned entry)."""


def decode(type_: str, state: bytes | None = None, payload: Any = None) -> Fact | None:
    """The typed fact of an entry of type `type_` (None for types the read side ignores),
    from its stored JSON `state` when given, else from its decoded `payload`."""
    cls = DECODERS.get(type_)
    if cls is None:
        return None
    try:
        fact = _JSON[type_].decode(state) if state is not None else msgspec.convert(payload, cls)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        message = str(exc).replace(f"`str` matching regex {bounds.DATE_PATTERN!r}", _DAY)
        raise Undecodable(message) from None
    if type(fact) is RulesAmended and not bounds.finite_numbers(fact.value):
        raise Undecodable("a number in `$.value` is not finite")
    return fact


def to_payload(fact: Fact) -> dict[str, Any]:
    """The fact as plain JSON values, lists for arrays (the shape of the stored payload)."""
    return msgspec.json.decode(_ENCODER.encode(fact))


_ENCODER = msgspec.json.Encoder(order="sorted")


def encode(fact: Fact) -> bytes:
    """The fact as compact JSON, keys sorted (the read model's `items.payload`)."""
    return _ENCODER.encode(fact)


def encode_value(value: Any) -> bytes:
    """Any JSON value as compact JSON, keys sorted."""
    return _ENCODER.encode(value)
