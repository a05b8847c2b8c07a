"""Rating the same sections under FIDE 10.0 (`fide-2003`) or the ICU rules (by section date)."""

from __future__ import annotations

import itertools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from ledger.events import OpeningBalanceRecorded, PlayerRegistered
from ledger.results import RATED_RESULTS
from ledger.rules.fide import section as fide
from ledger.rules.fide.rated import reaches_k_10
from ledger.rules.fide.section import PlayerOutcome, SectionOutcome
from ledger.rules.fide.unrated import Performance
from ledger.rules.icu import section as icu
from ledger.rules.icu.versions import resolve as icu_version
from ledger.rules.time_controls import parse_time_control
from projections.items import Item
from projections.rating import Change, change
from projections.standing import Standing

REGULAR_FROM = 30  # mm + ss: the slowest range of the US Chess footnote 1, "Regular"
SEED_GAMES = 30  # a published FIDE rating without a game count: past 10.64's first 30 games

Lookup = Callable[[str, str], Standing]


def rateable(item: Item) -> bool:
    """Over-the-board sections and matches at a regular time control (docs/decisions.md)."""
    if item.kind not in ("section", "match") or item.event.online:
        return False
    return parse_time_control(item.event.time_control).total >= REGULAR_FROM


Games = tuple[tuple[str, str, float], ...]


def rated_games(item: Item) -> Games:
    return tuple(
        (g.white, g.black, RATED_RESULTS[g.result])
        for g in item.event.games
        if g.result in RATED_RESULTS
    )


def section_format(item: Item, games: Games) -> str:
    """A match, a round robin (every pair met exactly once, three or more players), or Swiss."""
    if item.kind == "match":
        return "match"
    players = sorted({w for w, _, _ in games} | {b for _, b, _ in games})
    pairs = sorted(tuple(sorted((w, b))) for w, b, _ in games)
    if len(players) >= 3 and pairs == sorted(itertools.combinations(players, 2)):
        return "round_robin"
    return "swiss"


class ForeignRater(ABC):
    """Common ground: the family's one rating list, opening balances recorded for it."""

    system = ""
    rules = ""

    def __init__(self, lookup: Lookup, profiles: Mapping[str, PlayerRegistered]) -> None:
        self.lookup = lookup
        self.profiles = profiles

    def standing(self, player: str) -> Standing:
        return self.lookup(player, self.system)

    def rate(self, item: Item) -> list[Change]:
        if item.kind == "opening" and item.event.system == self.system:
            p = item.event
            before = self.standing(p.member_id)
            after = Standing(
                rating=float(p.rating),
                games=p.games,
                rated_on=item.end,
                extra=self.opening_extra(p),
            )
            return [
                change(item, p.member_id, self.system, self.rules, None, before, after, "opening")
            ]
        if not rateable(item):
            return []
        games = rated_games(item)
        ids = dict.fromkeys(x for g in games for x in g[:2])
        return self.rate_games(item, games, {pid: self.standing(pid) for pid in ids})

    def opening_extra(self, opening: OpeningBalanceRecorded) -> str | None:
        return None

    @abstractmethod
    def rate_games(self, item: Item, games: Games, pre: dict[str, Standing]) -> list[Change]:
        """Rate a section's or match's rated games, given each player's standing before."""


class FideRater(ForeignRater):
    """FIDE 10.0 on the ledger's sections; one list (`FIDE`), rated players and Ru results."""

    system = "FIDE"
    rules = fide.RULES

    def standing(self, player: str) -> Standing:
        """The player's FIDE standing; first seen, the profile's published FIDE rating."""
        found = self.lookup(player, self.system)
        profile = self.profiles.get(player)
        profile_fide = None if profile is None else profile.fide
        if found.rating is not None or found.extra is not None or profile_fide is None:
            return found
        rating = float(profile_fide.rating)
        games = profile_fide.games
        return Standing(
            rating=rating,
            games=SEED_GAMES if games is None else games,
            rated_on=profile_fide.date,
            extra=json.dumps({"reached_2400": reaches_k_10(rating)}),
        )

    def opening_extra(self, opening: OpeningBalanceRecorded) -> str | None:
        return json.dumps({"reached_2400": reaches_k_10(float(opening.rating))})

    def rate_games(self, item: Item, games: Games, pre: dict[str, Standing]) -> list[Change]:
        ids = list(pre)
        extra = {pid: json.loads(s.extra or "{}") for pid, s in pre.items()}
        rounds = max((g.round or 0 for g in item.event.games), default=0) or None
        outcome = fide.rate_section(
            fide.Section(
                section_format(item, games),
                date.fromisoformat(item.start),
                date.fromisoformat(item.end),
                tuple(
                    fide.Player(
                        pid,
                        pre[pid].rating,
                        pre[pid].games,
                        extra[pid].get("reached_2400", False),
                        tuple(Performance(r, n) for r, n in extra[pid].get("prior", ())),
                    )
                    for pid in ids
                ),
                games,
                rounds=rounds,
            )
        )
        if not outcome.rated:
            return []
        return [
            self._change(item, o, pre[o.player], extra[o.player], outcome)
            for o in outcome.players
            if o.games
        ]

    def _change(
        self,
        item: Item,
        o: PlayerOutcome,
        before: Standing,
        extra: dict[str, Any],
        outcome: SectionOutcome,
    ) -> Change:
        if before.rating is not None:
            rating, official = o.post, o.official
            # FIDE 10.64: K = 10 "once a player's published rating has reached 2400"
            reached = extra.get("reached_2400", False) or reaches_k_10(official)
            extra = {**extra, "reached_2400": reached}
        else:
            prior = [*extra.get("prior", ()), [o.performance, o.games]]
            extra = {**extra, "prior": prior}
            rating = None if o.published_rating is None else float(o.published_rating)
            official = o.published_rating
        after = Standing(
            rating=rating,
            games=before.games + o.games,
            rated_on=item.end,
            extra=json.dumps(extra, sort_keys=True),
        )
        return change(
            item,
            o.player,
            self.system,
            outcome.rules,
            None,
            before,
            after,
            "continuous" if before.rating is not None else "performance",
            m=o.games,
            score=o.score,
            k=o.k,
            expected=o.expected,
            official=official,
            **_detail(o, outcome),
        )


class IcuRater(ForeignRater):
    """The ICU rules on the ledger's sections: continuous formula, or performance while new."""

    system = "ICU"
    rules = icu.RULES

    def rate_games(self, item: Item, games: Games, pre: dict[str, Standing]) -> list[Change]:
        ids = list(pre)
        version = icu_version(date.fromisoformat(item.start))
        outcome = version.rate(
            icu.Section(
                date.fromisoformat(item.start),
                date.fromisoformat(item.end),
                tuple(
                    icu.Player(
                        pid,
                        pre[pid].rating,
                        pre[pid].games,
                        _date(_profile_field(self.profiles, pid, "birth_date")),
                        _date(_profile_field(self.profiles, pid, "playing_since")),
                    )
                    for pid in ids
                ),
                games,
            )
        )
        changes = []
        for o in outcome.players:
            if not o.games:
                continue
            before = pre[o.player]
            rating = float(o.official) if version.carries_published else o.post
            after = Standing(rating=rating, games=before.games + o.games, rated_on=item.end)
            changes.append(
                change(
                    item,
                    o.player,
                    self.system,
                    outcome.rules,
                    None,
                    before,
                    after,
                    "performance" if o.performance is not None else "continuous",
                    m=o.games,
                    score=o.score,
                    k=o.k,
                    expected=o.expected,
                    official=o.official,
                    **_detail(o, outcome),
                )
            )
        return changes


def _detail(o: PlayerOutcome, outcome: SectionOutcome) -> dict[str, Any]:
    keys = (
        "rc",
        "rc_before_cap",
        "performance",
        "performance_before_cap",
        "published_rating",
        "d",
        "pd",
        "p",
        "dp",
        "rating_change",
        "provisional",
    )
    detail = {k: getattr(o, k) for k in keys if getattr(o, k) not in (None, False)}
    if outcome.ra is not None:
        detail |= {"rar": outcome.rar, "dpa": outcome.dpa, "ra": outcome.ra}
    return detail


def _profile_field(profiles: Mapping[str, PlayerRegistered], player: str, name: str) -> Any:
    profile = profiles.get(player)
    return None if profile is None else getattr(profile, name)


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


RATERS = {"fide": FideRater, "icu": IcuRater}
