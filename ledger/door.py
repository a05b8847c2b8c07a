"""The door: the types a write's fields are given in, checked strictly (pydantic v2) against
their door bounds (ledger/bounds.py), and `door(kind)`, the command model of a fact kind made
from its declaration (ledger/events.py: each field's `Door`, ledger/fields.py).

Models are strict: no type coercion ("1850" is not a number), unknown fields are errors, dates
are ISO `YYYY-MM-DD` strings.
"""

import re
from datetime import date, datetime
from types import UnionType
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

import msgspec
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    create_model,
    model_serializer,
)

from ledger import bounds, events
from ledger import plausibility as plausible
from ledger.bounds import MAX_SECTION_GAMES, MAX_SECTION_PLAYERS
from ledger.fields import Door
from ledger.results import RATED_RESULTS
from ledger.rules import families
from ledger.rules.families import NAMES as RULES_FAMILIES

NORMALIZED_RESULTS = {"½-½": "1/2-1/2"}
FORFEITS = ("1F-0F", "0F-1F")
RESULTS = {r: NORMALIZED_RESULTS.get(r, r) for r in (*RATED_RESULTS, *FORFEITS)}
RESULT_CHOICES = ", ".join(dict.fromkeys(RESULTS.values()))
# A write's `system` names any family's system; a section's `rules` hint names a family or one
# of any family's versions (each family's reader honours its own).
RULES_HINTS = (*RULES_FAMILIES, *(v for f in families.every() for v in f.versions))


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MEMBER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_RECORD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+-]{0,99}")


class FieldError(ValueError):
    """A failure found by a model validator, at `path` below the model."""

    def __init__(self, path: tuple[int | str, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _iso_date(value: object) -> date:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)")


def _matching(pattern: re.Pattern[str], what: str) -> AfterValidator:
    def check(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(f"{value!r} is not {what}")
        return value

    return AfterValidator(check)


def _result(value: object) -> object:
    if isinstance(value, str) and value in RESULTS:
        return RESULTS[value]
    raise ValueError(f"{value!r} is not one of {RESULT_CHOICES}")


def _score(value: object) -> object:
    if isinstance(value, bool) or value not in (1, 0.5, 0):
        raise ValueError(f"{value!r} is not one of 1, 0.5, 0")
    return value


def _systems() -> tuple[str, ...]:
    """Every family's rating systems (`Family.systems`), families in order: a section's or a
    record's `system` names one of them (issue 30: not only US Chess's)."""
    return tuple(dict.fromkeys(s for f in families.every() for s in f.systems))


def _system(value: object) -> object:
    systems = _systems()
    if isinstance(value, str) and value in systems:
        return str(value)
    raise ValueError(f"{value!r} is not one of {', '.join(systems)}")


def online_system(system: str) -> bool:
    """Whether `system` is a system of online play in its family (`Family.online_systems`)."""
    return any(system in f.online_systems for f in families.every())


def _opening_lists() -> tuple[str, ...]:
    """The systems an opening balance may be recorded in: every system of every family (issue
    30: FIDE's list file gives the rapid and blitz lists beside the standard one)."""
    return tuple(dict.fromkeys(s for f in families.every() for s in f.systems))


def _opening_list(value: object) -> object:
    lists = _opening_lists()
    if isinstance(value, str) and value in lists:
        return value
    raise ValueError(f"{value!r} is not one of {', '.join(lists)}")


def _at_most(limit: int, what: str, name: str) -> BeforeValidator:
    """Refuse a list longer than `limit` before validating its items (bounded work)."""

    def check(value: object) -> object:
        if isinstance(value, list) and len(value) > limit:
            raise ValueError(f"{len(value)} {what}; the limit is {limit:,} ({name})")
        return value

    return BeforeValidator(check)


def _family(value: str) -> str:
    if value not in RULES_FAMILIES:
        raise ValueError(f"{value!r} is not one of {', '.join(RULES_FAMILIES)}")
    return value


def _rules_hint(value: str) -> str:
    if value not in RULES_HINTS:
        raise ValueError(f"{value!r} is not one of {', '.join(RULES_HINTS)}")
    return value


IsoDate = Annotated[date, BeforeValidator(_iso_date), plausible.IN_WINDOW]
PastDate = Annotated[date, BeforeValidator(_iso_date), plausible.NOT_FUTURE]
MembershipDate = Annotated[date, BeforeValidator(_iso_date), plausible.MEMBERSHIP]
Text = Annotated[str, plausible.text(bounds.MAX_NAME)]
Reason = Annotated[str, plausible.text(bounds.MAX_REASON)]
MemberId = Annotated[str, _matching(_MEMBER_ID, "a member id (letters, digits, . _ -; ≤ 32)")]
Federation = Annotated[str, _matching(re.compile(r"[A-Z]{3}"), "a FIDE federation code")]
FideId = Annotated[str, _matching(re.compile(r"[1-9][0-9]{0,10}"), "a FIDE id (1-11 digits)")]
RecordId = Annotated[str, _matching(_RECORD_ID, "an id (letters, digits, . _ : / + -; ≤ 100)")]
Result = Annotated[str, BeforeValidator(_result)]
Score = Annotated[float, BeforeValidator(_score)]
SystemName = Annotated[str, BeforeValidator(_system)]
ListName = Annotated[str, BeforeValidator(_opening_list)]
RulesHint = Annotated[str, AfterValidator(_rules_hint)]
Family = Annotated[str, AfterValidator(_family)]
Rating = Annotated[float, Field(ge=0, le=bounds.RATING.door)]
Count = Annotated[int, Field(ge=0, le=bounds.GAMES.door)]
Floor = Annotated[int, Field(ge=0, le=bounds.RATING.door)]
Round = Annotated[int, Field(ge=1, le=bounds.ROUND.door)]
LedgerPosition = Annotated[int, Field(ge=0, le=bounds.MAX_INTEGER)]


class Command(BaseModel):
    """Strict: no coercion, no unknown fields, no NaN or infinity; immutable once valid."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, allow_inf_nan=False)
    fact_fields: ClassVar[dict[str, str] | None] = None  # a fact's field → its name here

    def event_fields(self) -> dict[str, Any]:
        """The JSON-compatible values stored in the event (dates as ISO strings), named as the
        fact's fields."""
        fields = self.model_dump(mode="json")
        if self.fact_fields is None:
            return fields
        return {name: fields[given] for name, given in self.fact_fields.items()}


class FideRating(Command):
    rating: Rating
    date: IsoDate | None = None
    games: Count | None = None
    federation: Federation | None = None


class ReportedRating(Command):
    """A rating a tournament file reported, with the kind of its event (`online`, a FIDE list
    name, `unknown`): kept as what it is, never read as a FIDE rating."""

    rating: Rating
    date: IsoDate | None = None
    kind: Text | None = None


class CfcRating(Command):
    rating: Rating
    date: IsoDate | None = None


class SectionPlayer(Command):
    """An entrant; `fixed_rating`: a rating held fixed in this section and never updated (the
    ICU's foreign players at their FIDE rating); `start`: the pairing program's start number
    (events.Entrant). Each stored only when given so that entries without it keep their
    bytes."""

    id: MemberId
    fixed_rating: Rating | None = None
    start: Annotated[int, Field(ge=1, le=bounds.START.door)] | None = None

    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        fields: dict[str, Any] = handler(self)
        return {k: v for k, v in fields.items() if v is not None}


class Game(Command):
    round: Round
    white: MemberId
    black: MemberId
    result: Result


class Bye(Command):
    round: Round
    player: MemberId
    bye: Literal["full", "half", "zero"]


class FideGame(Command):
    opponent_rating: Annotated[float, Field(gt=0, le=bounds.RATING.door)]
    opponent_id: Text | None = None
    score: Score


_GAMES = _at_most(MAX_SECTION_GAMES, "games", "MAX_SECTION_GAMES")
_PLAYERS = _at_most(MAX_SECTION_PLAYERS, "players", "MAX_SECTION_PLAYERS")
OVERRIDE_NEEDS_VALUE = {
    "impose_ceiling": True,
    "lift_ceiling": False,
    "set_floor": True,
    "grant_floor_lowering": False,
    "adjust_rating": True,
}

DOOR_TYPES: dict[str, Any] = {
    "member": MemberId,
    "record_id": RecordId,
    "text": Text,
    "reason": Reason,
    "short_reason": Annotated[str, Field(min_length=1, max_length=500)],
    "bool": bool,
    "rating": Rating,
    "count": Count,
    "floor": Floor,
    "limit": Annotated[int, Field(gt=0, le=bounds.RATING.door)],
    "prize": Annotated[float, Field(gt=0, le=bounds.PRIZE.door)],
    "share": Annotated[float, Field(gt=0, le=1)],
    "date": IsoDate,
    "past_date": PastDate,
    "membership_date": MembershipDate,
    "system": SystemName,
    "rating_list": ListName,
    "rules": RulesHint,
    "family": Family,
    "position": LedgerPosition,
    "entry": Annotated[int, Field(ge=1, le=bounds.MAX_INTEGER)],
    "entries": Annotated[
        list[Annotated[int, Field(ge=1, le=bounds.MAX_INTEGER)]],
        Field(min_length=1, max_length=100),
    ],
    "fide_id": FideId,
    "title": Literal["GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"],
    "sex": Literal["m", "w"],
    "history": Literal["mixed", "all_wins", "all_losses"],
    "action": Literal[tuple(OVERRIDE_NEEDS_VALUE)],
    "parameter": str,
    "any": Any,
    "fide_rating": FideRating,
    "federation": Federation,
    "birth_year": Annotated[int, Field(ge=1850, le=2100)],
    "fide_k": Literal[10, 15, 20, 25, 30, 40],  # every K of B.02 8.3.3 and 8.56 since 2009
    "fide_flags": Literal["i", "w", "wi"],  # FIDE's list: inactive, woman, both
    "reported_rating": ReportedRating,
    "cfc_rating": CfcRating,
    "section_players": Annotated[list[SectionPlayer], Field(min_length=2), _PLAYERS],
    "match_players": Annotated[list[SectionPlayer], Field(min_length=2, max_length=2)],
    "games": Annotated[list[Game], Field(min_length=1), _GAMES],
    "byes": list[Bye],
    "fide_games": Annotated[list[FideGame], Field(min_length=1)],
}
"""Each door type a fact's field names (ledger/fields.py `Door`): its type at the door, with
the door bound (ledger/bounds.py) and the checks a write meets."""


def door(kind: type[events.Fact]) -> type[Command]:
    """The command model of a fact kind: each field it declares a door for, in its order, named
    and typed as at the door, required or defaulted as there (ledger/fields.py)."""
    hints = get_type_hints(kind, include_extras=True)
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}
    for field in msgspec.structs.fields(kind):
        found, nullable = _door(hints[field.name])
        if found is None:
            continue  # the verb computes it
        given, typed = found.name or field.name, DOOR_TYPES[found.type]
        stored_default = field.default is not msgspec.NODEFAULT
        required = not stored_default if found.required is None else found.required
        if required:
            fields[given] = (typed, ...)
        elif field.default is None or not stored_default:
            fields[given] = (typed | None, None)
        else:
            default = list(field.default) if isinstance(field.default, tuple) else field.default
            fields[given] = (typed, Field(default=default, validate_default=True))
        names[field.name] = given
    model = create_model(kind.__name__, __base__=Command, **fields)
    model.fact_fields = names
    return model


def _door(hint: object) -> tuple[Door | None, bool]:
    """The door in a field's type, and whether the stored type allows null."""
    if get_origin(hint) is Annotated:
        inner, *metadata = get_args(hint)
        found, nullable = _door(inner)
        return next((m for m in metadata if isinstance(m, Door)), found), nullable
    if get_origin(hint) in (Union, UnionType):
        doors = [d for arg in get_args(hint) if (d := _door(arg)[0]) is not None]
        return (doors[0] if doors else None), type(None) in get_args(hint)
    return None, False
