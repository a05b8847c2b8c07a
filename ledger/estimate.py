"""`estimate`: rate one section from given pre-event states (the command's contract)."""

from __future__ import annotations

import sys
from dataclasses import asdict
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ledger.errors import InputError, describe
from ledger.results import white_score
from ledger.rules.fide import section as fide
from ledger.rules.fide import versions as fide_versions
from ledger.rules.fide.modern import rate as rate_fide
from ledger.rules.fide.section import Format as FideFormat
from ledger.rules.fide.section import SectionOutcome
from ledger.rules.icu import section as icu
from ledger.rules.icu import versions as icu_versions
from ledger.rules.rounding import round_half_up
from ledger.rules.time_controls import parse_time_control
from ledger.rules.uschess.initialization import (
    ForeignRating,
    Initialization,
    PlayerBackground,
    SourceRating,
)
from ledger.rules.uschess.section import (
    Game,
    Rated,
    Start,
    StepOneError,
    dual_rated_k,
    rate_event,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import rated_systems
from ledger.rules.uschess.versions import VERSIONS, resolve

FIDE_NAMES = fide_versions.NAMES  # fide-2003, fide-2009 … fide-2014, fide-2022, fide-2024
RULES_NAMES = (*VERSIONS, *FIDE_NAMES, *icu_versions.NAMES)

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
    ratings: dict[System, SystemRating] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _needs_a_state(self) -> EstimatePlayer:
        if not self.unrated and (self.rating is None or self.games is None):
            raise ValueError("a rated player needs both rating and games (N)")
        if self.unrated and self.games is None:
            self.games = 0
        return self

    def background(self) -> PlayerBackground:
        def foreign(r: DatedRating | None) -> ForeignRating | None:
            return None if r is None else ForeignRating(r.rating, r.date)

        return PlayerBackground(
            birth_date=self.birth_date,
            adult=self.adult,
            fide=foreign(self.fide),
            cfc=foreign(self.cfc),
            ratings={s: SourceRating(r.rating, r.games, r.date) for s, r in self.ratings.items()},
        )


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
    format: FideFormat = "swiss"
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


def load_section(data: Any) -> EstimateSection:
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
) -> dict:
    """Rate the section under the rules named (or in force) and return the contract's output."""
    name = rules_name or section.rules
    if name is not None and name not in RULES_NAMES:
        raise InputError("rules", f"unknown rules {name!r}; known: {', '.join(RULES_NAMES)}")
    if name in FIDE_NAMES or name in icu_versions.NAMES:
        return _estimate_foreign(section, name, explain)
    return _estimate_uschess(section, name, explain)


def _estimate_uschess(section: EstimateSection, name: str | None, explain: bool) -> dict:
    rules = resolve(section.start_date, name)
    version = rules.version
    if section.system is None:
        raise InputError("system", "required field is missing")
    try:
        system = System(section.system)
    except ValueError:
        known = ", ".join(System)
        raise InputError("system", f"{section.system!r} is not one of {known}") from None
    if system not in version.systems:
        raise InputError("system", f"{system} is not rated under {version.name}")
    online = system.online if section.online is None else section.online
    if online != system.online:
        raise InputError("online", f"{section.online} does not match system {system}")
    dual_k = False
    if section.time_control is not None:
        total = parse_time_control(section.time_control).total
        if system not in rated_systems(total, online, version):
            raise InputError(
                "time_control",
                f"{section.time_control!r} (mm+ss = {total}) is not rated in {system} "
                f"under {version.name}",
            )
        dual_k = dual_rated_k(system, version, total)

    index = {p.id: i for i, p in enumerate(section.players)}
    starts = []
    for i, p in enumerate(section.players):
        if p.rating is None and not p.unrated:
            raise InputError(f"players[{i}].rating", "required for a rated player")
        starts.append(
            Start(p.id, p.rating, p.games or 0, p.unrated, p.history, background=p.background)
        )
    games = [Game(index[g.white], index[g.black], white_score(g.result)) for g in section.games]
    try:
        rated, by_index = rate_event(
            starts, games, rules, system, section.end_date, dual_k, explain=explain
        )
    except StepOneError as exc:
        raise InputError(f"players[{exc.index}]", str(exc)) from None
    inits = {section.players[i].id: init for i, init in by_index.items()}
    players = []
    for p, r in zip(section.players, rated, strict=True):
        players.append(_player_output(p, r, inits.get(p.id), explain))
    out: dict[str, Any] = {"rules": version.name, "system": str(system), "players": players}
    if explain:
        out["parameters"] = {
            "bonus_multiplier": rules.bonus_multiplier,
            "dual_rated_k": dual_k,
            "start_date": section.start_date.isoformat(),
        }
    return out


def _player_output(p: EstimatePlayer, r: Rated, init: Initialization | None, explain: bool) -> dict:
    post = r.post_rating
    floor_applied = False
    if post is not None and p.floor is not None and post < p.floor:
        post, floor_applied = float(p.floor), True
    out: dict[str, Any] = {
        "id": p.id,
        "pre_rating": r.pre_rating,
        "post_rating": post,
        "official_rating": None if post is None else round_half_up(post),
        "games_before": int(r.games_before),
        "games_after": int(r.games_after),
        "formula": r.formula,
    }
    if explain:
        out["explain"] = {
            "unrated": r.unrated,
            "m": r.m,
            "score": r.score,
            "n_eff": r.n_eff,
            "k": r.k,
            "expected": r.expected,
            "bonus": r.bonus,
            "bonus_eligible": r.bonus_eligible,
            "step3": r.step3,
            "step4": r.step4,
            "step5": r.step5,
            "floor": p.floor,
            "floor_applied": floor_applied,
            "initialization": None if init is None else _initialization(init),
            "opponents_step4": r.opponents_step4,
            "opponents_step5": r.opponents_step5,
            "knots": {
                f"step{n}": [[label, value] for label, value in sp.path]
                for n, sp in (
                    (3, r.special_step3),
                    (4, r.special_step4),
                    (5, r.special_step5),
                )
                if sp is not None
            },
        }
    return out


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"warning: {line}: unknown field ignored", file=sys.stderr)


def _initialization(init: Initialization) -> dict:
    return {
        "rating": init.rating,
        "games": init.games,
        "method": init.method,
        "clause": init.clause,
        "sources": [
            {k: (v.isoformat() if isinstance(v, date) else v) for k, v in asdict(row).items()}
            for row in init.sources
        ],
    }


def _estimate_foreign(section: EstimateSection, name: str, explain: bool) -> dict:
    """FIDE 10.0 or ICU: the same contract, plus rating_change, performance, published_rating."""
    games = tuple((g.white, g.black, white_score(g.result)) for g in section.games)
    try:
        if name in FIDE_NAMES:
            outcome = rate_fide(
                fide.Section(
                    section.format,
                    section.start_date,
                    section.end_date,
                    tuple(
                        fide.Player(
                            p.id,
                            p.rating if name == fide.RULES or not p.unrated else None,
                            p.games or 0,
                            p.reached_2400,
                            birth=p.birth_date,
                        )
                        for p in section.players
                    ),
                    games,
                    rounds=section.rounds,
                    rapid_blitz=section.system in ("rapid", "blitz"),
                ),
                fide_versions.resolve(section.end_date, name),
            )
        else:
            outcome = icu_versions.resolve(section.start_date, name).rate(
                icu.Section(
                    section.start_date,
                    section.end_date,
                    tuple(
                        icu.Player(p.id, p.rating, p.games or 0, p.birth_date, p.playing_since)
                        for p in section.players
                    ),
                    games,
                )
            )
    except ValueError as exc:
        raise InputError("section", str(exc)) from None
    return _foreign_output(section, outcome, explain)


def _foreign_output(section: EstimateSection, outcome: SectionOutcome, explain: bool) -> dict:
    players = []
    for p, o in zip(section.players, outcome.players, strict=True):
        out: dict[str, Any] = {
            "id": p.id,
            "pre_rating": o.pre,
            "post_rating": o.post,
            "official_rating": o.official,
            "games_before": p.games or 0,
            "games_after": (p.games or 0) + o.games,
            "formula": "performance" if o.performance is not None else "continuous",
            "rating_change": o.rating_change,
        }
        if o.performance is not None or o.reason is not None:
            out["performance"] = o.performance
            out["published_rating"] = o.published_rating
            if o.reason is not None:  # FIDE 7.1.4: why no initial rating yet
                out["reason"] = o.reason
        if explain:
            out["explain"] = {k: v for k, v in asdict(o).items() if k != "player"}
        players.append(out)
    result: dict[str, Any] = {
        "rules": outcome.rules,
        "system": section.system or "standard",
        "rated": outcome.rated,
        "players": players,
    }
    if outcome.reason:
        result["reason"] = outcome.reason
    if explain:
        result["tournament"] = {"rar": outcome.rar, "dpa": outcome.dpa, "ra": outcome.ra}
    return result
