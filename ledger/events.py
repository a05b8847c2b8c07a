"""Every kind of fact the ledger records, declared once.

A fact kind is one class below, named as its stored topic (`ratings-ledger:MoneyFloorAwarded`),
with its fields in stored order, typed and bounded as the read side accepts them (the read
bounds of ledger/bounds.py) and each with the `Door` a write gives it through (ledger/fields.py),
and as class attributes:

- `verb`: the write verb that records it (ledger/roles.py says which roles may use it);
- `item`: the item it submits, revises or withdraws on the rating timeline (`Makes`);
- `unvoidable`: why `void` refuses an entry of it (what to do instead);
- `later`: fields added after the first entries (stored after `actor`, None when absent);
- `read`: whether the read side decodes it.

From these follow the command models (ledger/door.py `door`), the domain's event methods
(their parameters and topic, ledger/domain.py `fact`), the role check (`roles.RECORDED_BY`),
the decoders (`decode`), the item tables of projections/items.py and the consequences report
(projections/consequences.py). `decode` turns a stored entry (its raw JSON or payload dict) into an
instance, refusing a value beyond its read bound (a NaN, 1e300, round 10^12) with its path.

The classes are msgspec Structs: frozen and typed like dataclasses, decoded from the stored
JSON in C without building a dict per game (docs/decisions.md, "typed events").
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Annotated, Any, ClassVar, NamedTuple, Protocol

import msgspec

from ledger import bounds
from ledger.fields import (
    Amount,
    Count,
    Date,
    Day,
    Door,
    Flag,
    Floor,
    Limit,
    MembershipDate,
    PastDate,
    Player,
    Positive,
    Rating,
    Reason,
    RecordId,
    Round,
    Score,
    Share,
    Start,
    System,
    Text,
)


class _OfAMember(Protocol):
    """A fact about one member."""

    @property
    def member_id(self) -> str: ...


def _member(fact: _OfAMember) -> tuple[str, ...]:
    return (fact.member_id,)


def _entrants(fact: SectionSubmitted | MatchResultSubmitted) -> tuple[str, ...]:
    return tuple(x.id for x in fact.players)


_dates: Callable[[Any], tuple[str, str]] = attrgetter("start_date", "end_date")


class Makes(NamedTuple):
    """The item a fact makes on the rating timeline (projections/items.py)."""

    kind: str  # the item's kind; the family's rater rates it (ledger/rules/<family>/rater.py)
    key: Callable[[Any, int], str]  # the item's key, from the fact and its ledger position
    dates: Callable[[Any], tuple[str, str]] | None  # (start, end); None: it withdraws the item
    revises: bool = False  # it replaces an item another kind submitted (rated as that kind)
    players: Callable[[Any], tuple[str, ...]] = _member  # whose ratings a submitted item changes
    why: bool = False  # its write reports why its item changed no rating (consequences)


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    """A recorded fact's own fields (the envelope — position, time, actor — is LedgerEntry's)."""

    verb: ClassVar[str | None] = None
    item: ClassVar[Makes | None] = None
    unvoidable: ClassVar[str | None] = None
    later: ClassVar[tuple[str, ...]] = ()
    read: ClassVar[bool] = True
    # later fields left out of the read model's payloads while None (issue 30: its bytes, and
    # so its digests, stay as they were for a ledger that records none)
    omitted: ClassVar[tuple[str, ...]] = ()


# Players


class ForeignRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A published FIDE or CFC rating in a profile."""

    rating: Rating
    date: Day | None = None
    games: Count | None = None
    federation: str | None = None


class ReportedRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A rating a tournament file reported, of the kind of its event (not a FIDE rating)."""

    rating: Rating
    date: Day | None = None
    kind: str | None = None


# Profile fields added in issue 20, left out when not given: older profiles keep their bytes.
LATER_PROFILE_FIELDS = (
    "federation",
    "birth_year",
    "reported_rating",
    *("fide_k", "fide_reached_2400", "fide_flags"),  # issue 30: FIDE's own inputs
)


class PlayerRegistered(Fact, frozen=True, kw_only=True):
    """A member registered, with their profile."""

    verb = "register"
    later = ("fide_id", "title", "sex", "club", *LATER_PROFILE_FIELDS)
    omitted = ("fide_k", "fide_reached_2400", "fide_flags")

    member_id: Annotated[str, Door("member", "id")]
    name: Text | None = None
    birth_date: PastDate | None = None
    adult: Flag | None = None
    fide: Annotated[ForeignRecord | None, Door("fide_rating")] = None
    cfc: Annotated[ForeignRecord | None, Door("cfc_rating")] = None
    fide_adjustment_opt_in: Flag | None = None
    membership_expires: MembershipDate | None = None
    playing_since: PastDate | None = None
    fide_id: Annotated[str | None, Door("fide_id")] = None
    title: Annotated[str | None, Door("title")] = None
    sex: Annotated[str | None, Door("sex")] = None
    club: Text | None = None  # issue 20: the player card's club
    federation: Annotated[str | None, Door("federation")] = None
    birth_year: Annotated[int | None, Door("birth_year")] = None
    reported_rating: Annotated[ReportedRecord | None, Door("reported_rating")] = None
    # issue 30: his K on FIDE's standard list (B.02 8.3.3), whether his published FIDE rating
    # has reached 2400, and his flags on FIDE's list (`i` inactive, `w` woman, `wi`)
    fide_k: Annotated[int | None, Door("fide_k")] = None
    fide_reached_2400: Flag | None = None
    fide_flags: Annotated[str | None, Door("fide_flags")] = None


class PlayerProfileUpdated(PlayerRegistered, frozen=True, kw_only=True):
    """A registered member's whole profile, as changed."""


class PlayersMerged(Fact, frozen=True, kw_only=True):
    """Two records of one person joined: from this entry on, every fact about `member_id` (the
    record merged away) counts as `into`'s, its history re-rated as if `into` had played its
    games from the start (issue 20; projections/merges.py)."""

    verb = "merge-players"

    member_id: Player
    into: Annotated[str, Door("member", "into")]
    reason: Reason
    force: Flag = False  # recorded over a profile conflict (`into`'s own fields stand)


class OpeningBalanceRecorded(Fact, frozen=True, kw_only=True):
    """A player's record in one system when the federation moved onto the ledger."""

    verb = "opening-balance"
    later = omitted = ("k",)
    item = Makes(
        "opening", lambda f, pos: f"opening:{f.member_id}:{f.system}", lambda f: (f.as_of, f.as_of)
    )

    member_id: Player
    system: Annotated[str, Door("rating_list")]
    as_of: Date
    rating: Rating
    games: Count
    wins: Count | None = None
    draws: Count | None = None
    losses: Count | None = None
    sections_of_three: Count | None = None
    history: Annotated[str, Door("history")] = "mixed"
    peak: Rating | None = None
    olm_games: Count | None = None
    money_floor: Floor | None = None
    director_floor: Floor | None = None
    ceiling: Rating | None = None
    k: Annotated[int | None, Door("fide_k")] = None  # issue 30: his K on FIDE's list, as listed


# Sections and matches


class Entrant(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    fixed_rating: Rating | None = None  # held fixed, never updated (ICU foreign players)
    # The pairing program's start number, where it is not the player's place in the list
    # (issue 31: a team file's reserve left out); None, and not stored: the place is.
    start: Start | None = None


class GameRecord(msgspec.Struct, frozen=True, kw_only=True):
    round: Round
    white: str
    black: str
    result: str


class ByeRecord(msgspec.Struct, frozen=True, kw_only=True):
    round: Round
    player: str
    bye: str


def _section(f: SectionSubmitted | SectionWithdrawn, pos: int) -> str:
    return "section:" + f.section_id


class SectionSubmitted(Fact, frozen=True, kw_only=True):
    """A section as its director reported it: players, games by round and byes."""

    verb = "submit"
    item = Makes("section", _section, _dates, players=_entrants)
    unvoidable: ClassVar[str | None] = "withdraw or correct the section instead"

    section_id: RecordId
    tournament_id: RecordId | None = None
    event_name: Annotated[str | None, Door("text", required=True)] = None
    online: Flag
    time_control: Text
    start_date: Date
    end_date: Date
    system: System | None = None
    rules: Annotated[str | None, Door("rules")] = None
    players: Annotated[tuple[Entrant, ...], Door("section_players")]
    games: Annotated[tuple[GameRecord, ...], Door("games")]
    byes: Annotated[tuple[ByeRecord, ...], Door("byes")] = ()


class SectionCorrected(SectionSubmitted, frozen=True, kw_only=True):
    """A full replacement of a section's report; the latest revision is the one rated."""

    verb = "correct"
    item = Makes("section", _section, _dates, revises=True)

    reason: str | None = None


class SectionWithdrawn(Fact, frozen=True, kw_only=True):
    """A section taken out of rating; final."""

    verb = "withdraw"
    item = Makes("section", _section, None)
    unvoidable = "a withdrawal is final"

    section_id: str
    reason: str | None = None


class SectionReinstated(SectionSubmitted, frozen=True, kw_only=True):
    """A withdrawn section rated again with its last report (repeated in the fact)."""

    verb = "reinstate"
    item = Makes("section", _section, _dates, revises=True)
    unvoidable = None

    reason: str | None = None


class SectionReviewed(Fact, frozen=True, kw_only=True):
    """The office's review of a section a tournament director uploaded (issue 32): it leaves
    the office's queue (`requests`, projections/uploads.py); nothing is rated differently."""

    verb = "review"
    unvoidable = "a review is the office's record; correct or withdraw the section instead"

    section_id: str
    note: str | None = None


class MatchResultSubmitted(Fact, frozen=True, kw_only=True):
    """A rated match between two players (§7 of the US Chess text)."""

    verb = "match"
    item = Makes("match", lambda f, pos: "match:" + f.match_id, _dates, players=_entrants, why=True)

    match_id: RecordId
    event_name: Text | None = None
    online: Flag
    time_control: Text
    start_date: Date
    end_date: Date
    system: System | None = None
    players: Annotated[tuple[Entrant, ...], Door("match_players")]
    games: Annotated[tuple[GameRecord, ...], Door("games")]


# The office's other records


class FideGameRecord(msgspec.Struct, frozen=True, kw_only=True):
    opponent_rating: Positive
    opponent_id: str | None = None
    score: Score


class FideAdjustmentSubmitted(Fact, frozen=True, kw_only=True):
    """A player's games in foreign FIDE events for one FIDE rating list (§6)."""

    verb = "fide-adjust"
    item = Makes(
        "fide",
        lambda f, pos: f"fide:{f.member_id}:{f.rating_list}",
        lambda f: (f.rating_list, f.rating_list),
        why=True,
    )

    member_id: Player
    rating_list: Date
    youth_event: Flag = False
    games: Annotated[tuple[FideGameRecord, ...], Door("fide_games")]


class FideUpliftRecorded(Fact, frozen=True, kw_only=True):
    """FIDE's one-time uplift of the ratings below `ceiling` on the list of `effective`."""

    verb = "fide-uplift"
    item = Makes(  # a whole FIDE list's ratings (projections/periods.py)
        "uplift",
        lambda f, pos: f"uplift:{f.effective}",
        lambda f: (f.effective, f.effective),
        players=lambda f: (),
        why=True,
    )

    effective: Date
    ceiling: Limit = 2000
    share: Share = 0.4
    reason: Annotated[str | None, Door("short_reason", required=True)] = None


class MoneyFloorAwarded(Fact, frozen=True, kw_only=True):
    """A large cash prize won under a rating limit (§5)."""

    verb = "award-money-floor"
    item = Makes("money", lambda f, pos: f"money:{pos}", lambda f: (f.date, f.date), why=True)

    member_id: Player
    amount: Amount
    limit: Limit
    date: Date
    system: System = "OTBR"


class DirectorOverride(Fact, frozen=True, kw_only=True):
    """A decision of the Executive Director about one player's rating (§7)."""

    verb = "override"
    item = Makes(
        "override", lambda f, pos: f"override:{pos}", lambda f: (f.effective, f.effective), why=True
    )

    member_id: Player
    action: Annotated[str, Door("action")]
    system: System = "OTBR"
    value: Rating | None = None
    effective: Date
    reason: Reason | None = None


class OverrideRevoked(Fact, frozen=True, kw_only=True):
    """The director's decision at ledger `position` no longer applies."""

    verb = "revoke-override"
    item = Makes("override", lambda f, pos: f"override:{f.position}", None)

    member_id: str
    system: str = "OTBR"
    position: Annotated[int, msgspec.Meta(ge=1)]
    reason: str | None = None


class RulesAmended(Fact, frozen=True, kw_only=True):
    """A rules parameter taking a value from a date, recorded at any time after (§8)."""

    verb = "amend-rules"

    parameter: Annotated[str, Door("parameter")]
    value: Annotated[Any, Door("any")]
    effective: Date
    until: Date | None = None
    reason: Reason | None = None


class ListPublished(Fact, frozen=True, kw_only=True):
    """A federation published a rating list: the `number`th of its family."""

    verb = "publish-list"
    unvoidable = "a published list stands as published; publish a corrected list instead"

    family: Annotated[str, Door("family")]
    number: Annotated[int, msgspec.Meta(ge=1)]  # the verb counts the family's lists
    list_name: Annotated[str, Door("text", "name")]
    as_of: Date
    cutoff_position: Annotated[int, msgspec.Meta(ge=0), Door("position", required=False)]


class ListRatingsCommitted(Fact, frozen=True, kw_only=True):
    """The ratings a published list said, committed: a Merkle root over its rows (issue 18)."""

    verb = "publish-list"
    unvoidable = "a list's ratings stand as committed; publish a corrected list instead"

    family: str
    list_name: str
    rows: Annotated[int, msgspec.Meta(ge=0)]
    ratings_root: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class EntryVoided(Fact, frozen=True, kw_only=True):
    """The entry at `position` no longer counts (written by the office; issue 10)."""

    verb = "void"
    unvoidable = "a void cannot be voided"

    position: Annotated[int, msgspec.Meta(ge=1), Door("entry")]
    reason: Reason | None = None


class EntrySetAside(Fact, frozen=True, kw_only=True):
    """Entries that fail verification, set aside by a director (issue 28;
    ledger/evidence/asides.py)."""

    verb = "set-aside"
    unvoidable = "a set-aside is final"
    read = False  # passed over by every check and read (ledger/evidence/asides.py), never decoded
    positions: Annotated[tuple[Annotated[int, msgspec.Meta(ge=1)], ...], Door("entries")]
    reason: Reason


# Roles: who may write (ledger/roles.py), and the ledger's federation; the read side uses the
# roles only for the office's review queue (projections/uploads.py)


class LedgerInitialized(Fact, frozen=True, kw_only=True):
    """The ledger set up, its actor its first director (needs no role: it is the first), and
    the rules family it rates under by default (issue 30; None in a ledger set up before:
    US Chess, `ledger/federation.py`)."""

    unvoidable = "the ledger's set-up cannot be voided"
    later = ("public_key", "family")

    public_key: str | None = None
    family: str | None = None


class RoleGranted(Fact, frozen=True, kw_only=True):
    """A role given to `holder`, with their public key (ledger/evidence/signing.py)."""

    verb = "grant-role"
    unvoidable = "revoke the role instead"
    later = ("public_key",)

    holder: str
    role: str
    public_key: str | None = None


class RoleRevoked(Fact, frozen=True, kw_only=True):
    """A role taken from `holder`."""

    verb = "revoke-role"
    unvoidable = "grant the role again instead"

    holder: str
    role: str


class FederationChanged(Fact, frozen=True, kw_only=True):
    """The rules family the ledger rates under by default, changed by a director (issue 30):
    every command, export and page uses it unless told another; nothing is re-rated (each
    family keeps its own read model)."""

    verb = "set-family"
    unvoidable = "set the family again instead"
    read = False

    family: Annotated[str, Door("family")]
    reason: Annotated[str | None, Door("reason", required=False)] = None


KINDS: dict[str, type[Fact]] = {
    name: value
    for name, value in list(globals().items())
    if isinstance(value, type) and issubclass(value, Fact) and value is not Fact
}
"""Every declared fact kind by name, in declaration order."""
DECODERS: dict[str, type[Fact]] = {name: kind for name, kind in KINDS.items() if kind.read}
"""The kinds the read side decodes (`decode` gives None for the others)."""
_JSON = {name: msgspec.json.Decoder(cls) for name, cls in DECODERS.items()}
_DAY = f"a date YYYY-MM-DD in {bounds.FIRST_YEAR}..{bounds.LAST_YEAR}"


class Undecodable(ValueError):
    """A stored entry whose fields are not what its type says (a poisoned entry)."""


def decode(type_: str, state: bytes | None = None, payload: object = None) -> Fact | None:
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
    payload: dict[str, Any] = msgspec.json.decode(_ENCODER.encode(fact))
    for name in type(fact).omitted:
        if payload[name] is None:
            del payload[name]
    return payload


_ENCODER = msgspec.json.Encoder(order="sorted")


def encode(fact: Fact) -> bytes:
    """The fact as compact JSON, keys sorted (the read model's `items.payload`)."""
    if type(fact).omitted:
        return _ENCODER.encode(to_payload(fact))
    return _ENCODER.encode(fact)


def encode_value(value: object) -> bytes:
    """A JSON value as compact JSON, keys sorted."""
    return _ENCODER.encode(value)
