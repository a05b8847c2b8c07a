"""The validated input of every ledger command (pydantic v2), and its one-line error messages.

Models are strict: no type coercion ("1850" is not a number), unknown fields are errors, dates
are ISO `YYYY-MM-DD` strings. `event_fields()` gives the JSON-compatible payload of the event.
"""

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import ErrorDetails

from ledger import bounds
from ledger import plausibility as plausible
from ledger.bounds import MAX_FILE_BYTES, MAX_SECTION_GAMES, MAX_SECTION_PLAYERS
from ledger.domain import InvalidCommand
from ledger.errors import field_path
from ledger.results import RATED_RESULTS
from ledger.rules import FAMILIES
from ledger.rules.time_controls import parse_time_control
from ledger.rules.uschess.parameters import BASE_TIMELINES, parse_parameter_value
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import VERSIONS

NORMALIZED_RESULTS = {"½-½": "1/2-1/2"}
FORFEITS = ("1F-0F", "0F-1F")
RESULTS = {r: NORMALIZED_RESULTS.get(r, r) for r in (*RATED_RESULTS, *FORFEITS)}
RESULT_CHOICES = ", ".join(dict.fromkeys(RESULTS.values()))
RULES_FAMILIES = FAMILIES
RULES_HINTS = (*RULES_FAMILIES, *VERSIONS)

MAX_MESSAGE = 300  # characters of an error message; a huge offending value is cut short
MAX_PROBLEMS = 10  # problems listed in one error line; more are only counted

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MEMBER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_RECORD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+-]{0,99}")

M = TypeVar("M", bound=BaseModel)


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


def _system(value: object) -> object:
    if isinstance(value, System):
        return value
    if isinstance(value, str) and value in System.__members__:
        return System(value)
    raise ValueError(f"{value!r} is not one of {', '.join(System)}")


FOREIGN_LISTS = ("FIDE", "ICU")  # the rating lists of the fide and icu rules families


def _opening_list(value: object) -> object:
    if isinstance(value, str) and value in FOREIGN_LISTS:
        return value
    try:
        return _system(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not one of {', '.join([*System, *FOREIGN_LISTS])}"
        ) from None


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
SystemName = Annotated[System, BeforeValidator(_system)]
ListName = Annotated[System | str, BeforeValidator(_opening_list)]
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

    def event_fields(self) -> dict[str, Any]:
        """The JSON-compatible values stored in the event (dates as ISO strings)."""
        return self.model_dump(mode="json")


class FideRating(Command):
    rating: Rating
    date: IsoDate | None = None
    games: Count | None = None
    federation: Federation | None = None


class CfcRating(Command):
    rating: Rating
    date: IsoDate | None = None


class RegisterPlayer(Command):
    """A player file item; fields left out keep their registered value on re-registration."""

    id: MemberId
    name: Text | None = None
    birth_date: PastDate | None = None
    adult: bool | None = None
    fide: FideRating | None = None
    cfc: CfcRating | None = None
    fide_adjustment_opt_in: bool | None = None
    membership_expires: MembershipDate | None = None
    playing_since: PastDate | None = None
    fide_id: FideId | None = None
    title: Literal["GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"] | None = None
    sex: Literal["m", "w"] | None = None

    def profile(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """The full profile: `base` with the fields this item gives replaced."""
        fields = self.event_fields()
        del fields["id"]
        if base is None:
            return fields
        given = {name: fields[name] for name in self.model_fields_set if name != "id"}
        return {**base, **given}


class RecordOpeningBalance(Command):
    """A player's record in one system when the federation moves onto the ledger."""

    player: MemberId
    system: ListName
    as_of: IsoDate
    rating: Rating
    games: Count
    wins: Count | None = None
    draws: Count | None = None
    losses: Count | None = None
    sections_of_three: Count | None = None
    history: Literal["mixed", "all_wins", "all_losses"] = "mixed"
    peak: Rating | None = None
    olm_games: Count | None = None
    money_floor: Floor | None = None
    director_floor: Floor | None = None
    ceiling: Rating | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "RecordOpeningBalance":
        counted = [n for n in (self.wins, self.draws, self.losses) if n is not None]
        if sum(counted) > self.games:
            raise FieldError(
                ("games",), f"{self.games} is fewer than wins + draws + losses ({sum(counted)})"
            )
        spoilers = {"all_wins": ("draws", "losses"), "all_losses": ("wins", "draws")}
        for name in spoilers.get(self.history, ()):
            if getattr(self, name):
                raise FieldError(
                    (name,), f"{getattr(self, name)} contradicts history {self.history!r}"
                )
        return self

    def event_fields(self) -> dict[str, Any]:
        fields = super().event_fields()
        return {"member_id": fields.pop("player"), **fields}


class SectionPlayer(Command):
    """An entrant; `fixed_rating`: a rating held fixed in this section and never updated (the
    ICU's foreign players at their FIDE rating), stored only when given so that entries
    without it keep their bytes."""

    id: MemberId
    fixed_rating: Rating | None = None

    @model_serializer(mode="wrap")
    def _given_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        fields = handler(self)
        if fields.get("fixed_rating") is None:
            fields.pop("fixed_rating", None)
        return fields


class Game(Command):
    round: Round
    white: MemberId
    black: MemberId
    result: Result


class Bye(Command):
    round: Round
    player: MemberId
    bye: Literal["full", "half", "zero"]


SectionGames = Annotated[list[Game], _at_most(MAX_SECTION_GAMES, "games", "MAX_SECTION_GAMES")]
SectionPlayers = Annotated[
    list[SectionPlayer], _at_most(MAX_SECTION_PLAYERS, "players", "MAX_SECTION_PLAYERS")
]


def _check_dates(start: date, end: date) -> None:
    if end < start:
        raise FieldError(("end_date",), f"{end.isoformat()} is before start_date {start}")
    try:
        plausible.check_span(start, end)
    except ValueError as exc:
        raise FieldError(("end_date",), str(exc)) from None


def _check_system(system: System | None, online: bool) -> None:
    if system is not None and system.online != online:
        kind = "an online" if system.online else "an over-the-board"
        raise FieldError(
            ("system",), f"{system.value!r} is {kind} system but online is {str(online).lower()}"
        )


def _check_players(players: list[SectionPlayer]) -> set[str]:
    seen: set[str] = set()
    for i, p in enumerate(players):
        if p.id in seen:
            raise FieldError(("players", i, "id"), f"{p.id!r} is listed twice")
        seen.add(p.id)
    return seen


def _check_games(games: list[Game], listed: set[str]) -> None:
    for i, g in enumerate(games):
        for colour in ("white", "black"):
            if getattr(g, colour) not in listed:
                raise FieldError(("games", i, colour), f"{getattr(g, colour)!r} is not in players")
        if g.white == g.black:
            raise FieldError(("games", i, "black"), f"{g.black!r} is paired with themselves")


def _check_rounds(games: list[Game], byes: list[Bye], listed: set[str]) -> None:
    """A player has at most one game or bye in each round."""
    slots = [
        (("games", i, colour), g.round, getattr(g, colour))
        for i, g in enumerate(games)
        for colour in ("white", "black")
    ]
    slots += [(("byes", i, "player"), b.round, b.player) for i, b in enumerate(byes)]
    busy: set[tuple[int, str]] = set()
    for path, number, member in slots:
        if member not in listed:
            raise FieldError(path, f"{member!r} is not in players")
        if (number, member) in busy:
            raise FieldError(path, f"{member!r} already has a game or bye in round {number}")
        busy.add((number, member))


def _check_time_control(text: str) -> None:
    try:
        parse_time_control(text)
    except ValueError as exc:
        raise FieldError(("time_control",), str(exc)) from None


class SubmitSection(Command):
    """A section file: one section's players, games by round and byes."""

    section_id: RecordId
    tournament_id: RecordId | None = None
    event_name: Text
    online: bool
    time_control: Text
    start_date: IsoDate
    end_date: IsoDate
    system: SystemName | None = None
    rules: RulesHint | None = None
    players: SectionPlayers = Field(min_length=2)
    games: SectionGames = Field(min_length=1)
    byes: list[Bye] = []

    @model_validator(mode="after")
    def _consistent(self) -> "SubmitSection":
        _check_dates(self.start_date, self.end_date)
        _check_system(self.system, self.online)
        if self.rules is None or self.rules.startswith("uschess"):
            _check_time_control(self.time_control)
        listed = _check_players(self.players)
        _check_games(self.games, listed)
        _check_rounds(self.games, self.byes, listed)
        return self


class SubmitMatch(Command):
    """A match file: two players and the games between them (`round` numbers the games)."""

    match_id: RecordId
    event_name: Text | None = None
    online: bool
    time_control: Text
    start_date: IsoDate
    end_date: IsoDate
    system: SystemName | None = None
    players: list[SectionPlayer] = Field(min_length=2, max_length=2)
    games: SectionGames = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> "SubmitMatch":
        _check_dates(self.start_date, self.end_date)
        _check_system(self.system, self.online)
        _check_time_control(self.time_control)
        _check_games(self.games, _check_players(self.players))
        numbers: set[int] = set()
        for i, g in enumerate(self.games):
            if g.round in numbers:
                raise FieldError(("games", i, "round"), f"game {g.round} is listed twice")
            numbers.add(g.round)
        return self


class FideGame(Command):
    opponent_rating: Annotated[float, Field(gt=0, le=bounds.RATING.door)]
    opponent_id: Text | None = None
    score: Score


class SubmitFideAdjustment(Command):
    """A player's games against FIDE-rated opponents counted in one FIDE rating list (§6)."""

    player: MemberId
    rating_list: IsoDate
    youth_event: bool = False
    games: list[FideGame] = Field(min_length=1)

    def event_fields(self) -> dict[str, Any]:
        fields = super().event_fields()
        return {"member_id": fields.pop("player"), **fields}


class RecordFideUplift(Command):
    """FIDE's one-time uplift: every rating below `ceiling` on the list of `effective` raised by
    `share` × (ceiling − R) (FIDE, 1 March 2024: 0.4 × (2000 − R))."""

    effective: IsoDate
    ceiling: Annotated[int, Field(gt=0, le=bounds.RATING.door)] = 2000
    share: Annotated[float, Field(gt=0, le=1)] = 0.4
    reason: Annotated[str, Field(min_length=1, max_length=500)]


class AwardMoneyFloor(Command):
    """A prize of `amount` won in a section or prize for players rated under `limit` (§5)."""

    player: MemberId
    amount: Annotated[float, Field(gt=0, le=bounds.PRIZE.door)]
    limit: Annotated[int, Field(gt=0, le=bounds.RATING.door)]
    date: IsoDate
    system: SystemName = System.OTBR

    def event_fields(self) -> dict[str, Any]:
        fields = super().event_fields()
        return {"member_id": fields.pop("player"), **fields}


OVERRIDE_NEEDS_VALUE = {
    "impose_ceiling": True,
    "lift_ceiling": False,
    "set_floor": True,
    "grant_floor_lowering": False,
    "adjust_rating": True,
}


class DirectorOverride(Command):
    """An Executive Director decision about one player's rating in one system (§7)."""

    player: MemberId
    action: Literal[
        "impose_ceiling", "lift_ceiling", "set_floor", "grant_floor_lowering", "adjust_rating"
    ]
    system: SystemName = System.OTBR
    value: Rating | None = None
    effective: IsoDate
    reason: Reason

    @model_validator(mode="after")
    def _value_matches_action(self) -> "DirectorOverride":
        if OVERRIDE_NEEDS_VALUE[self.action] and self.value is None:
            raise FieldError(("value",), f"is required to {self.action.replace('_', ' ')}")
        if not OVERRIDE_NEEDS_VALUE[self.action] and self.value is not None:
            raise FieldError(("value",), f"{self.value!r} is not used by {self.action}")
        return self

    def event_fields(self) -> dict[str, Any]:
        fields = super().event_fields()
        return {"member_id": fields.pop("player"), **fields}


class AmendRules(Command):
    """A rules parameter's value from `effective` (until `until`, exclusive)."""

    parameter: str
    value: Any
    effective: IsoDate
    until: IsoDate | None = None
    reason: Reason

    @model_validator(mode="after")
    def _valid_amendment(self) -> "AmendRules":
        if self.parameter not in BASE_TIMELINES:
            raise FieldError(
                ("parameter",),
                f"{self.parameter!r} is not one of {', '.join(BASE_TIMELINES)}",
            )
        try:
            plausible.check_parameter(
                self.parameter, parse_parameter_value(self.parameter, self.value)
            )
        except ValueError as exc:
            raise FieldError(("value",), str(exc)) from None
        if self.until is not None and self.until <= self.effective:
            raise FieldError(("until",), f"{self.until} is not after effective {self.effective}")
        return self

    def event_fields(self) -> dict[str, Any]:
        fields = super().event_fields()
        parsed = parse_parameter_value(self.parameter, self.value)
        if isinstance(parsed, float):
            fields["value"] = parsed
        else:
            fields["value"] = {
                "split": parsed.split,
                "low": list(parsed.low),
                "high": list(parsed.high),
            }
        return fields


class PublishList(Command):
    """A federation published a rating list: its family, name, as-of date and the ledger
    position up to which it takes items (None: the ledger's last position when recorded)."""

    family: Family
    name: Text
    as_of: IsoDate
    cutoff_position: LedgerPosition | None = None


class VoidEntry(Command):
    """Take back one entry's effect on ratings (not a section's: withdraw or correct it)."""

    position: Annotated[int, Field(ge=1, le=bounds.MAX_INTEGER)]
    reason: Reason


_ACTOR = TypeAdapter(Annotated[str, plausible.text(bounds.MAX_ACTOR)], config=Command.model_config)
_REASON = TypeAdapter(Reason, config=Command.model_config)
_RECORD_ID_ADAPTER = TypeAdapter(RecordId, config=Command.model_config)


Loc = tuple[int | str, ...]  # a field's path: ('games', 3, 'round')


def _problem(problem: ErrorDetails, at: Loc) -> tuple[Loc, str]:
    """One problem of a ValidationError: the field's path (below `at`) and what is wrong."""
    path: Loc = (*at, *problem["loc"])
    cause = problem.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):
        path, message = path + cause.path, cause.message
    elif problem["type"] == "value_error":
        message = str(cause)
    elif problem["type"] == "missing":
        message = "is required"
    elif problem["type"] == "extra_forbidden":
        message = f"is not a known field (value {problem['input']!r})"
        name = path[-1] if path else ""
        if isinstance(name, str) and not name.isidentifier():
            path = (*path[:-1], repr(name[:50]))  # a name with spaces or control characters
    else:
        message = f"{problem['input']!r}: {problem['msg'][0].lower()}{problem['msg'][1:]}"
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    return path, message


def invalid(error: ValidationError, at: Loc = ()) -> InvalidCommand:
    """Every problem of a ValidationError (up to MAX_PROBLEMS) in one line, each naming its
    field and value: the first problem's field is the error's path, the others follow it."""
    problems = error.errors(include_url=False)
    (path, message), *others = (_problem(p, at) for p in problems[:MAX_PROBLEMS])
    for other_path, other in others:
        message += f"; {field_path(other_path)}: {other}"
    if len(problems) > MAX_PROBLEMS:
        message += f" (and {len(problems) - MAX_PROBLEMS:,} more problems)"
    return InvalidCommand(path, message)


def parse(model: type[M], data: object, at: Loc = ()) -> M:
    """`data` (JSON-compatible values) as a `model`, or InvalidCommand (its fields below `at`)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, at) from None


def _checked(adapter: TypeAdapter[str], name: str, value: object) -> str:
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise invalid(exc, (name,)) from None


def actor(value: object) -> str:
    """Who makes the change: a non-empty name of at most 100 characters."""
    return _checked(_ACTOR, "actor", value)


def reason(value: object) -> str:
    """Why a correction, withdrawal, override or amendment is made: non-empty."""
    return _checked(_REASON, "reason", value)


def record_id(name: str, value: object) -> str:
    """A section or match id given outside a file."""
    return _checked(_RECORD_ID_ADAPTER, name, value)


def load_file(path: Path, model: type[M]) -> tuple[list[M], bool]:
    """Every command in a JSON file holding one object or a list; True when it held a list.

    The whole file is validated before anything is returned: one bad item rejects the file.
    """
    try:
        size = path.stat().st_size
        data = None if size > MAX_FILE_BYTES else json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidCommand((), f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidCommand((), f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise InvalidCommand(
            (), f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except (ValueError, RecursionError) as exc:
        # a number of more than 4,300 digits, or nesting deeper than the parser's stack
        raise InvalidCommand((), f"{path}: not valid JSON ({str(exc)[:100]})") from None
    if size > MAX_FILE_BYTES:
        raise InvalidCommand(
            (),
            f"{path}: {size:,} bytes; the limit is {MAX_FILE_BYTES:,} (MAX_FILE_BYTES) — "
            "split it into several files",
        )
    if not isinstance(data, list):
        return [parse(model, data)], False
    if not data:
        raise InvalidCommand((), f"{path}: the list is empty")
    return [parse(model, item, (i,)) for i, item in enumerate(data)], True
