"""`estimate` under US Chess: the contract's section rated by `rate_event` (Step 1, §1–§5)."""

from __future__ import annotations

from functools import partial
from typing import Any

from ledger.errors import InputError
from ledger.estimate import DatedRating, EstimatePlayer, EstimateSection
from ledger.results import white_score
from ledger.rules.rounding import round_half_up
from ledger.rules.time_controls import parse_time_control
from ledger.rules.uschess.initialization import (
    ForeignRating,
    Initialization,
    PlayerBackground,
    SourceRating,
    initialization_detail,
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
from ledger.rules.uschess.versions import resolve


def estimate(section: EstimateSection, name: str | None, explain: bool) -> dict[str, Any]:
    """US Chess (§1–§5): Step 1 for the unrated, then the five steps, under the version named
    or in force on the start date."""
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
        background = partial(_background, p)  # called only if Step 1 initializes him
        starts.append(Start(p.id, p.rating, p.games or 0, p.unrated, p.history, background))
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


def _player_output(
    p: EstimatePlayer, r: Rated, init: Initialization | None, explain: bool
) -> dict[str, Any]:
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
            "initialization": None if init is None else initialization_detail(init),
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


def _background(p: EstimatePlayer) -> PlayerBackground:
    """What Step 1 (§2) initializes an unrated player from."""

    def foreign(r: DatedRating | None) -> ForeignRating | None:
        return None if r is None else ForeignRating(r.rating, r.date)

    return PlayerBackground(
        birth_date=p.birth_date,
        adult=p.adult,
        fide=foreign(p.fide),
        cfc=foreign(p.cfc),
        ratings={System(s): SourceRating(r.rating, r.games, r.date) for s, r in p.ratings.items()},
    )
