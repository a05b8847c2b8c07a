"""The US Chess rater's items that are decisions rather than games: opening balances, money
floors (§5), director overrides (§7) and FIDE adjustments (§6); `Rater` rates each kind
through these (its `KINDS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ledger.events import (
    DirectorOverride,
    FideAdjustmentSubmitted,
    MoneyFloorAwarded,
    OpeningBalanceRecorded,
)
from ledger.rules.uschess import floors
from ledger.rules.uschess.fide_adjustment import (
    FideGame,
    FidePlayer,
    NotEligible,
    adjust_for_fide_event,
)
from ledger.rules.uschess.overrides import apply_override
from ledger.rules.uschess.state import (
    UsChessState,
    change_row,
    history_after,
    standing,
    updated,
    us,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import Rules
from projections.change import Change
from projections.items import Item
from projections.rating import Profiles
from projections.standing import Standing

Lookup = Callable[[str, System], Standing[UsChessState]]


class Decider(Protocol):
    """What a decision needs of the US Chess rater: each player's standing before the item,
    the profiles and the rules in force on a day."""

    lookup: Lookup
    profiles: Profiles

    def rules(self, start: str, version: str | None = None) -> Rules: ...


def opening(rater: Decider, item: Item) -> list[Change]:
    p = item.fact_as(OpeningBalanceRecorded)
    if p.system not in System.__members__:
        return []  # a FIDE or ICU list's opening balance, for those families' read models
    system = System(p.system)
    rules = rater.rules(item.start)
    before = rater.lookup(p.member_id, system)
    fl = floors.FloorState(
        wins=p.wins or 0,
        draws=p.draws or 0,
        sections_of_three=p.sections_of_three or 0,
        peak=p.peak,
        olm_games=p.olm_games or 0,
        money_floor=p.money_floor,
        director_floor=p.director_floor,
        ceiling=p.ceiling,
    )
    state = UsChessState(history=p.history or "mixed", floors=fl)
    after = standing(float(p.rating), p.games, p.losses or 0, item.end, state)
    return [change_row(item, p.member_id, system, rules, before, after, "opening")]


def money(rater: Decider, item: Item) -> list[Change]:
    p = item.fact_as(MoneyFloorAwarded)
    system = System(p.system)
    rules = rater.rules(item.start)
    before = rater.lookup(p.member_id, system)
    fl = floors.with_prize(us(before).floors, p.amount, p.limit, rules.version)
    after = updated(before, floors=fl)
    bound = None
    if after.rating is not None:
        rating, bound = floors.apply_floor_and_ceiling(after.rating, fl, system, rules.version)
        after = after._replace(rating=rating)
    return [
        change_row(
            item,
            p.member_id,
            system,
            rules,
            before,
            after,
            "money_floor",
            floor_bound=None if bound is None else str(bound),
            amount=p.amount,
            limit=p.limit,
            money_floor=fl.money_floor,
            reason=floors.no_money_floor(p.amount, p.limit, rules.version),
        )
    ]


def override(rater: Decider, item: Item) -> list[Change]:
    p = item.fact_as(DirectorOverride)
    system = System(p.system)
    rules = rater.rules(item.start)
    before = rater.lookup(p.member_id, system)
    rating, fl, pending, rated_now = apply_override(
        p.action, p.value, before.rating, us(before).floors, us(before).pending_request
    )
    after = updated(
        before,
        rating=rating,
        floors=fl,
        pending_request=pending,
        rated_on=item.end if rated_now else before.rated_on,
    )
    return [
        change_row(
            item,
            p.member_id,
            system,
            rules,
            before,
            after,
            p.action,
            value=p.value,
            reason=p.reason,
            warning=_ceiling_below_floor(p.action, p.value, before, system, rules),
        )
    ]


def fide(rater: Decider, item: Item) -> list[Change]:
    p = item.fact_as(FideAdjustmentSubmitted)
    system = System.OTBR
    rules = rater.rules(item.start)
    member = p.member_id
    before = rater.lookup(member, system)
    profile = rater.profiles.get(member)
    fide = None if profile is None else profile.fide
    expires = None if profile is None else profile.membership_expires
    player = FidePlayer(
        otbr_rating=before.rating,
        otbr_games=before.games,
        member=expires is None or expires >= item.start,
        usa_flag=fide is not None and fide.federation == "USA",
        fide_rating=None if fide is None else fide.rating,
        opted_in=bool(profile is not None and profile.fide_adjustment_opt_in),
    )
    games = [FideGame(g.opponent_rating, g.score, g.opponent_id) for g in p.games]
    result = adjust_for_fide_event(player, games, rules, youth=p.youth_event)
    if isinstance(result, NotEligible):
        return [
            change_row(
                item,
                member,
                system,
                rules,
                before,
                before,
                "fide_not_eligible",
                reason=result.reason,
            )
        ]
    rating, bound = floors.apply_floor_and_ceiling(
        result.rating, us(before).floors, system, rules.version
    )
    wins = sum(1 for g in games if g.opponent_fide is not None and g.score == 1.0)
    draws = sum(1 for g in games if g.opponent_fide is not None and g.score == 0.5)
    losses = result.m - wins - draws
    after = updated(
        before,
        rating=rating,
        games=result.games_after,
        losses=before.losses + losses,
        history=history_after(before, result.m, wins, losses),
        rated_on=item.end,
        floors=floors.after_section(
            us(before).floors,
            pre_rating=before.rating,
            pre_games=before.games,
            post_rating=rating,
            games=result.m,
            wins=wins,
            draws=draws,
        ),
    )
    return [
        change_row(
            item,
            member,
            system,
            rules,
            before,
            after,
            "fide_adjustment",
            m=result.m,
            score=result.score,
            n_eff=result.n_eff,
            k=result.k,
            expected=result.expected,
            bonus=result.bonus,
            floor_bound=None if bound is None else str(bound),
            opponents_converted=list(result.opponents_converted),
            youth=result.youth,
        )
    ]


def _ceiling_below_floor(
    action: str, value: float | None, before: Standing[UsChessState], system: System, rules: Rules
) -> str | None:
    """A ceiling imposed below the player's floor: both are kept and the ceiling binds (§7)."""
    if action != "impose_ceiling" or value is None:
        return None
    floor = floors.effective_floor(us(before).floors, system, rules.version)[0]
    if value >= floor:
        return None
    return f"the ceiling {value:g} is below the floor {floor}: both are recorded, the ceiling binds"
