"""The validated input of every ledger command, and its one-line error messages.

Each command model is its fact kind's door (ledger/door.py `door`: the fields, types, bounds
and defaults its declaration gives) with the checks across fields a write must pass.
`event_fields()` gives the JSON-compatible payload of the event.
"""

import json
from datetime import date
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError, model_validator
from pydantic_core import ErrorDetails

from ledger import bounds, events
from ledger import plausibility as plausible
from ledger.door import (
    OVERRIDE_NEEDS_VALUE,
    Bye,
    Command,
    FieldError,
    Game,
    Reason,
    RecordId,
    SectionPlayer,
    door,
    online_system,
)
from ledger.errors import InvalidCommand, field_path
from ledger.inputs import read_text
from ledger.rules import families
from ledger.rules.conversion import Conversion
from ledger.rules.families import reads_time_control
from ledger.rules.time_controls import NOT_GIVEN, parse_time_control

MAX_MESSAGE = 300  # characters of an error message; a huge offending value is cut short
MAX_PROBLEMS = 10  # problems listed in one error line; more are only counted

M = TypeVar("M", bound=BaseModel)

# Each command's base is made at import from its fact kind's declaration (`door`), which mypy
# cannot follow: each class says `type: ignore[misc]`, and mypy reads its fields as Any.


class RegisterPlayer(door(events.PlayerRegistered)):  # type: ignore[misc]
    """A player file item; fields left out keep their registered value on re-registration."""

    def profile(self, base: dict[str, Any] | None = None) -> dict[str, Any]:
        """The full profile: `base` with the fields this item gives replaced (the fields added
        in issue 20 only when given, so that profiles without them keep their bytes)."""
        fields: dict[str, Any] = self.event_fields()
        del fields["member_id"]
        for name in events.LATER_PROFILE_FIELDS:
            if fields.get(name) is None:
                fields.pop(name, None)
        if base is None:
            return fields
        given = {name: fields.get(name) for name in self.model_fields_set if name != "id"}
        return {**base, **given}


class RecordOpeningBalance(door(events.OpeningBalanceRecorded)):  # type: ignore[misc]
    """A player's record in one system when the federation moves onto the ledger."""

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


def _check_dates(start: date, end: date) -> None:
    if end < start:
        raise FieldError(("end_date",), f"{end.isoformat()} is before start_date {start}")
    try:
        plausible.check_span(start, end)
    except ValueError as exc:
        raise FieldError(("end_date",), str(exc)) from None


def _check_system(system: str | None, online: bool) -> None:
    if system is None:
        return
    system_online = online_system(system)
    if system_online != online:
        kind = "an online" if system_online else "an over-the-board"
        raise FieldError(
            ("system",), f"{system!r} is {kind} system but online is {str(online).lower()}"
        )


def _check_players(players: list[SectionPlayer]) -> set[str]:
    """Each player listed once; start numbers given for all or none, each once."""
    seen: set[str] = set()
    starts: set[int] = set()
    numbered = players[0].start is not None if players else False
    for i, p in enumerate(players):
        if p.id in seen:
            raise FieldError(("players", i, "id"), f"{p.id!r} is listed twice")
        if (p.start is not None) != numbered:
            given = "has no start" if numbered else "has a start"
            raise FieldError(("players", i, "start"), f"{p.id!r} {given}; give all or none")
        if p.start is not None and p.start in starts:
            raise FieldError(("players", i, "start"), f"start {p.start} is listed twice")
        seen.add(p.id)
        starts |= {p.start} if p.start is not None else set()
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


class SubmitSection(door(events.SectionSubmitted)):  # type: ignore[misc]
    """A section file: one section's players, games by round and byes."""

    @model_validator(mode="after")
    def _consistent(self) -> "SubmitSection":
        _check_dates(self.start_date, self.end_date)
        _check_system(self.system, self.online)
        reads = self.rules is None or reads_time_control(self.rules)
        if reads and self.time_control != NOT_GIVEN:  # not given: recorded, never rated
            _check_time_control(self.time_control)
        listed = _check_players(self.players)
        _check_games(self.games, listed)
        _check_rounds(self.games, self.byes, listed)
        return self


class SubmitMatch(door(events.MatchResultSubmitted)):  # type: ignore[misc]
    """A match file: two players and the games between them (`round` numbers the games)."""

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


class SubmitFideAdjustment(door(events.FideAdjustmentSubmitted)):  # type: ignore[misc]
    """A player's games against FIDE-rated opponents counted in one FIDE rating list (§6)."""


class RecordFideUplift(door(events.FideUpliftRecorded)):  # type: ignore[misc]
    """FIDE's one-time uplift: every rating below `ceiling` on the list of `effective` raised by
    `share` × (ceiling − R) (FIDE, 1 March 2024: 0.4 × (2000 − R))."""


class AwardMoneyFloor(door(events.MoneyFloorAwarded)):  # type: ignore[misc]
    """A prize of `amount` won in a section or prize for players rated under `limit` (§5)."""


class DirectorOverride(door(events.DirectorOverride)):  # type: ignore[misc]
    """An Executive Director decision about one player's rating in one system (§7)."""

    @model_validator(mode="after")
    def _value_matches_action(self) -> "DirectorOverride":
        if OVERRIDE_NEEDS_VALUE[self.action] and self.value is None:
            raise FieldError(("value",), f"is required to {self.action.replace('_', ' ')}")
        if not OVERRIDE_NEEDS_VALUE[self.action] and self.value is not None:
            raise FieldError(("value",), f"{self.value!r} is not used by {self.action}")
        return self


class AmendRules(door(events.RulesAmended)):  # type: ignore[misc]
    """A rules parameter's value from `effective` (until `until`, exclusive)."""

    @model_validator(mode="after")
    def _valid_amendment(self) -> "AmendRules":
        known = families.parameters()
        if self.parameter not in known:
            raise FieldError(("parameter",), f"{self.parameter!r} is not one of {', '.join(known)}")
        try:
            plausible.check_parameter(
                self.parameter, families.parse_parameter(self.parameter, self.value)
            )
        except ValueError as exc:
            raise FieldError(("value",), str(exc)) from None
        if self.until is not None and self.until <= self.effective:
            raise FieldError(("until",), f"{self.until} is not after effective {self.effective}")
        return self

    def event_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().event_fields()
        parsed = families.parse_parameter(self.parameter, self.value)
        if isinstance(parsed, Conversion):
            fields["value"] = {
                "split": parsed.split,
                "low": list(parsed.low),
                "high": list(parsed.high),
            }
        else:
            fields["value"] = parsed
        return fields


class PublishList(door(events.ListPublished)):  # type: ignore[misc]
    """A federation published a rating list: its family, name, as-of date and the ledger
    position up to which it takes items (None: the ledger's last position when recorded)."""


class MergePlayers(door(events.PlayersMerged)):  # type: ignore[misc]
    """Two records of one person joined: `player` merged away into `into`, with the reason;
    `force` records it over a profile conflict (`into`'s own fields stand)."""

    @model_validator(mode="after")
    def _two_records(self) -> "MergePlayers":
        if self.player == self.into:
            raise FieldError(("into",), f"{self.into!r} cannot be merged into itself")
        return self


class VoidEntry(door(events.EntryVoided)):  # type: ignore[misc]
    """Take back one entry's effect on ratings (not a section's: withdraw or correct it)."""


class SetAside(door(events.EntrySetAside)):  # type: ignore[misc]
    """Set aside entries that fail verification (directors only; issue 28)."""


class SetFamily(door(events.FederationChanged)):  # type: ignore[misc]
    """The rules family the ledger rates under by default (`init --family`, `set-family`;
    issue 30): one of the known families."""


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
    text = read_text(path, "json")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidCommand(
            (), f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except (ValueError, RecursionError) as exc:
        # a number of more than 4,300 digits, or nesting deeper than the parser's stack
        raise InvalidCommand((), f"{path}: not valid JSON ({str(exc)[:100]})") from None
    if not isinstance(data, list):
        return [parse(model, data)], False
    if not data:
        raise InvalidCommand((), f"{path}: the list is empty")
    return [parse(model, item, (i,)) for i, item in enumerate(data)], True
