"""`estimate`: rate one section from given pre-event states (the command's contract): the
section in, the family's estimator (`Family.estimator`, its package's `estimator.py`), and the
output a family rating by its games' outcome (FIDE, the ICU) gives."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import asdict
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ledger.errors import InputError, describe
from ledger.results import white_score
from ledger.rules import families
from ledger.rules.time_controls import parse_time_control

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# What `rules` may name: a family (its version in force on the section's date) or one of its
# versions (uschess-2015 …, fide-2003 … fide-2024, icu-…).
RULES_NAMES = tuple(n for f in families.every() for n in (f.name, *f.versions))
# A player's `ratings` are in the default family's systems (US Chess §2: Step 1 reads them); a
# section's `format` is one a family's rules tell apart (FIDE 10.4).
SYSTEMS = families.family(families.DEFAULT).systems
FORMATS = tuple(dict.fromkeys(name for f in families.every() for name in f.formats))


def _known(what: str, names: tuple[str, ...]) -> AfterValidator:
    def check(value: str) -> str:
        if value not in names:
            raise ValueError(f"unknown {what}; known: {', '.join(names)}")
        return value

    return AfterValidator(check)


Lenient = ConfigDict(extra="allow", str_strip_whitespace=True)


class DatedRating(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rating: float = Field(ge=0)
    date: date


class SystemRating(DatedRating):
    games: int = Field(ge=0)


class EstimatePlayer(BaseModel):
    model_config = Lenient

    id: str = Field(min_length=1)
    rating: float | None = Field(default=None, ge=0)
    games: int | None = Field(default=None, ge=0)
    unrated: bool = False
    history: Literal["mixed", "all_wins", "all_losses"] = "mixed"
    floor: float | None = Field(default=None, ge=0)
    reached_2400: bool = False  # FIDE 10.64
    playing_since: date | None = None  # ICU: the date the player started playing
    # For an unrated player given without a rating, Step 1 (§2) initializes from these.
    birth_date: date | None = None
    adult: bool = False
    fide: DatedRating | None = None
    cfc: DatedRating | None = None
    ratings: dict[Annotated[str, _known("system", SYSTEMS)], SystemRating] = Field(
        default_factory=dict
    )

    @model_validator(mode="after")
    def _needs_a_state(self) -> EstimatePlayer:
        if not self.unrated and (self.rating is None or self.games is None):
            raise ValueError("a rated player needs both rating and games (N)")
        if self.unrated and self.games is None:
            self.games = 0
        return self


class EstimateGame(BaseModel):
    model_config = Lenient

    white: str = Field(min_length=1)
    black: str = Field(min_length=1)
    result: str
    round: int | None = Field(default=None, ge=1)

    @field_validator("result")
    @classmethod
    def _known_result(cls, value: str) -> str:
        white_score(value)
        return value


class EstimateSection(BaseModel):
    model_config = Lenient

    rules: str | None = None
    system: str | None = None
    format: Annotated[str, _known("format", FORMATS)] = "swiss"
    rounds: int | None = Field(default=None, ge=1)
    start_date: date
    end_date: date
    time_control: str | None = None
    online: bool | None = None
    players: list[EstimatePlayer] = Field(min_length=1)
    games: list[EstimateGame]

    @field_validator("rules")
    @classmethod
    def _known_rules(cls, value: str | None) -> str | None:
        if value is not None and value not in RULES_NAMES:
            raise ValueError(f"unknown rules version; known: {', '.join(RULES_NAMES)}")
        return value

    @field_validator("time_control")
    @classmethod
    def _readable_time_control(cls, value: str | None) -> str | None:
        if value is not None:
            parse_time_control(value)
        return value


def load_section(data: object) -> EstimateSection:
    """Validate fully; raise InputError naming the first bad field."""
    try:
        section = EstimateSection.model_validate(data)
    except ValidationError as exc:
        raise InputError("", describe(exc)) from None
    if section.end_date < section.start_date:
        raise InputError(
            "end_date", f"{section.end_date} is before start_date {section.start_date}"
        )
    seen: set[str] = set()
    for i, p in enumerate(section.players):
        if p.id in seen:
            raise InputError(f"players[{i}].id", f"{p.id!r} is listed twice")
        seen.add(p.id)
    for i, g in enumerate(section.games):
        for side in ("white", "black"):
            if getattr(g, side) not in seen:
                raise InputError(
                    f"games[{i}].{side}", f"{getattr(g, side)!r} is not a player of this section"
                )
        if g.white == g.black:
            raise InputError(f"games[{i}]", f"{g.white!r} is paired with themselves")
    return section


def unknown_fields(section: EstimateSection) -> list[str]:
    """Keys the contract does not know, reported as warnings (they are ignored)."""
    found = [f"{k}" for k in section.model_extra or {}]
    for kind, items in (("players", section.players), ("games", section.games)):
        for i, item in enumerate(items):
            found += [f"{kind}[{i}].{k}" for k in item.model_extra or {}]
    return found


def estimate(
    section: EstimateSection, rules_name: str | None = None, explain: bool = False
) -> dict[str, Any]:
    """Rate the section under the rules named (or in force) and return the contract's output."""
    name = rules_name or section.rules
    if name is not None and name not in RULES_NAMES:
        raise InputError("rules", f"unknown rules {name!r}; known: {', '.join(RULES_NAMES)}")
    owner = next((f for f in families.every() if name == f.name or name in f.versions), None)
    found = owner or families.family(families.DEFAULT)
    module, function = found.estimator.split(":")
    version = None if name == found.name else name  # a family's name: the version in force
    rate: Callable[[EstimateSection, str | None, bool], dict[str, Any]] = getattr(
        importlib.import_module(module), function
    )
    return rate(section, version, explain)


def scores(section: EstimateSection) -> tuple[tuple[str, str, float], ...]:
    """(white, black, white's score) of each game."""
    return tuple((g.white, g.black, white_score(g.result)) for g in section.games)


def output(
    section: EstimateSection, outcome: DataclassInstance, explain: bool, system: str
) -> dict[str, Any]:
    """A section outcome of a family rating by its games (FIDE's, the ICU's: its rules, its
    players' pre, post, official, rating_change, performance …) in the contract:
    rating_change, performance, published_rating; `system` is the family's own list."""
    found = asdict(outcome)
    players = []
    for p, o in zip(section.players, found["players"], strict=True):
        out: dict[str, Any] = {
            "id": p.id,
            "pre_rating": o["pre"],
            "post_rating": o["post"],
            "official_rating": o["official"],
            "games_before": p.games or 0,
            "games_after": (p.games or 0) + o["games"],
            "formula": "performance" if o["performance"] is not None else "continuous",
            "rating_change": o["rating_change"],
        }
        if o["performance"] is not None or o["reason"] is not None:
            out["performance"] = o["performance"]
            out["published_rating"] = o["published_rating"]
            if o["reason"] is not None:  # FIDE 7.1.4: why no initial rating yet
                out["reason"] = o["reason"]
        if explain:
            out["explain"] = {k: v for k, v in o.items() if k != "player"}
        players.append(out)
    result: dict[str, Any] = {
        "rules": found["rules"],
        "system": system,
        "rated": found["rated"],
        "players": players,
    }
    if found["reason"]:
        result["reason"] = found["reason"]
    if explain:
        result["tournament"] = {k: found[k] for k in ("rar", "dpa", "ra")}
    return result


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"warning: {line}: unknown field ignored", file=sys.stderr)
