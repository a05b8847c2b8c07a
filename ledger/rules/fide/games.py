"""What the FIDE and ICU raters share: which items they rate, the rated games of a section,
its format, opening balances in the family's own list, and the detail of an outcome."""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any, ClassVar, Self

from ledger.events import (
    MatchResultSubmitted,
    OpeningBalanceRecorded,
    SectionSubmitted,
)
from ledger.results import RATED_RESULTS
from ledger.rules.fide.section import Format, PlayerOutcome, SectionOutcome
from ledger.rules.time_controls import known_time_control
from projections.change import Change, change
from projections.items import Item
from projections.rating import AmendmentRow, Profiles
from projections.standing import Standing
from projections.what_if import WhatIf

REGULAR_FROM = 30  # mm + ss: the slowest range of the US Chess footnote 1, "Regular"

Lookup = Callable[[str, str], Standing[object]]
# The state columns of every family rating games in its own list: results and the day rated.
GAMES_STATE: dict[str, type] = {"s_wins": int, "s_draws": int, "s_losses": int, "s_rated_on": str}


def rateable(item: Item) -> bool:
    """Over-the-board sections and matches at a regular time control (docs/decisions.md)."""
    fact = item.event
    if not isinstance(fact, SectionSubmitted | MatchResultSubmitted) or fact.online:
        return False
    known = known_time_control(fact.time_control)
    return known is not None and known.total >= REGULAR_FROM


Games = tuple[tuple[str, str, float], ...]


def played(item: Item) -> SectionSubmitted | MatchResultSubmitted:
    """The fact of a section or match (a TypeError for another item)."""
    fact = item.event
    if not isinstance(fact, SectionSubmitted | MatchResultSubmitted):
        raise TypeError(f"a {item.kind} item has no games")
    return fact


def rated_games(item: Item) -> Games:
    return tuple(
        (g.white, g.black, RATED_RESULTS[g.result])
        for g in played(item).games
        if g.result in RATED_RESULTS
    )


def section_format(item: Item, games: Games) -> Format:
    """A match, a round robin (every pair met exactly once, three or more players), or Swiss."""
    if item.kind == "match":
        return "match"
    players = sorted({w for w, _, _ in games} | {b for _, b, _ in games})
    pairs = sorted(tuple(sorted((w, b))) for w, b, _ in games)
    if len(players) >= 3 and pairs == sorted(itertools.combinations(players, 2)):
        return "round_robin"
    return "swiss"


class GamesRater(ABC):
    """A family rating the games of sections and matches in its own list (`system`), with
    opening balances recorded for it; its standings keep results and the day rated (a family
    with a state of its own adds it: `FideRater`)."""

    system = ""
    rules = ""
    figure_columns: ClassVar[Mapping[str, type]] = {}
    state_columns: ClassVar[Mapping[str, type]] = GAMES_STATE
    history_order: ClassVar[tuple[str, ...] | None] = None
    rating_columns: ClassVar[Mapping[str, type]] = {}
    versions: ClassVar[tuple[str, ...]] = ()  # its family's versions a section's hint may name

    @classmethod
    def columns(cls, standing: Standing[object]) -> tuple[Any, ...]:
        return (standing.wins, standing.draws, standing.losses, standing.rated_on)

    @classmethod
    def standing_of(cls, values: Sequence[Any]) -> Standing[object]:
        rating, games, wins, draws, losses, rated_on = values
        return Standing(rating, games, wins, draws, losses, rated_on)

    @classmethod
    def rating_fields(cls, system: str, standing: Standing[object]) -> dict[str, Any]:
        return {}

    @classmethod
    def explain_rules(cls, row: dict[str, Any], start: str) -> dict[str, Any]:
        return {}

    @classmethod
    def explain_steps(
        cls, kind: str, row: dict[str, Any], detail: dict[str, Any]
    ) -> dict[str, Any] | None:
        return None

    def __init__(self, lookup: Lookup, profiles: Profiles, named: str | None = None) -> None:
        self.lookup = lookup
        self.profiles = profiles
        self.named = named  # a what-if's version, rating every section (None: by date)

    @classmethod
    def open(
        cls,
        lookup: Lookup,
        profiles: Profiles,
        amendments: Sequence[AmendmentRow],
        explain: bool,
        what_if: WhatIf | None,
        items: int | None = None,
    ) -> Self:
        """The rater of a read model, under a what-if's rules version if it names one (rules
        amendments are US Chess's parameters: the replay command refuses them here). The
        replay's size (`items`) changes nothing: its arithmetic has nothing to load first."""
        return cls(lookup, profiles, None if what_if is None else what_if.rules)

    def standing(self, player: str, system: str | None = None) -> Standing[object]:
        return self.lookup(player, system or self.system)

    def version_named(self, item: Item) -> str | None:
        """The version rating `item`: a what-if's, else its section's `rules` hint naming one
        of this family's versions; None: the one in force on its dates."""
        fact = item.event
        hint = fact.rules if isinstance(fact, SectionSubmitted) else None
        return self.named or (hint if hint in self.versions else None)

    def rate(self, item: Item) -> list[Change]:
        p = item.event
        if isinstance(p, OpeningBalanceRecorded) and p.system == self.system:
            before = self.standing(p.member_id)
            after: Standing[object] = Standing(
                rating=float(p.rating),
                games=p.games,
                rated_on=item.end,
                state=self.opening_state(p),
            )
            state = self.columns(after)
            system, rules = self.system, self.rules
            return [change(item, p.member_id, system, rules, before, after, (), state, "opening")]
        if not rateable(item):
            return []
        games = rated_games(item)
        ids = dict.fromkeys(x for g in games for x in g[:2])
        return self.rate_games(item, games, {pid: self.standing(pid) for pid in ids})

    def opening_state(self, opening: OpeningBalanceRecorded) -> object:
        """The family's own state after an opening balance (None: it keeps none)."""
        return None

    def played_change(
        self,
        item: Item,
        o: PlayerOutcome,
        outcome: SectionOutcome,
        system: str,
        before: Standing[object],
        after: Standing[object],
        formula: str,
        official: int | None,
        **more: Any,
    ) -> Change:
        """Player `o`'s change after a rated section: his outcome's figures and detail (and
        `more` of it)."""
        return change(
            item,
            o.player,
            system,
            outcome.rules,
            before,
            after,
            (),
            self.columns(after),
            formula,
            m=o.games,
            score=o.score,
            k=o.k,
            expected=o.expected,
            official=official,
            **detail(o, outcome),
            **more,
        )

    @abstractmethod
    def rate_games(
        self, item: Item, games: Games, pre: dict[str, Standing[object]]
    ) -> list[Change]:
        """Rate a section's or match's rated games, given each player's standing before."""


def detail(o: PlayerOutcome, outcome: SectionOutcome) -> dict[str, Any]:
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
        "k_base",
        "sum_delta",
        "reason",
    )
    detail = {k: v for k in keys if (v := getattr(o, k)) not in (None, False)}
    if o.deltas:  # 8.3.2: each game's opponent, D, PD, score and ΔR
        detail["games"] = [
            [who, g.opponent, g.d, g.pd, g.score, g.delta]
            for who, g in zip(o.opponents, o.deltas, strict=True)
        ]
        detail["hundredths"] = sum(g.hundredths for g in o.deltas)
    elif o.opponents:  # 8.2: an unrated player's games against rated opponents
        detail["games"] = [[who, r, s] for who, (r, s) in zip(o.opponents, o.results, strict=True)]
    if outcome.ra is not None:
        detail |= {"rar": outcome.rar, "dpa": outcome.dpa, "ra": outcome.ra}
    return detail


def profile_field(profiles: Profiles, player: str, name: str) -> str | None:
    """A date of the player's profile (`birth_date`, `playing_since`); None without one."""
    profile = profiles.get(player)
    found: str | None = None if profile is None else getattr(profile, name)
    return found


def to_date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None
