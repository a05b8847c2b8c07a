"""The FIDE rater: sections and matches under the FIDE version in force (ledger/rules/fide)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, ClassVar, cast

from ledger.events import (
    MatchResultSubmitted,
    OpeningBalanceRecorded,
    PlayerRegistered,
    SectionSubmitted,
)
from ledger.rules.fide import section as fide
from ledger.rules.fide.games import (
    GAMES_STATE,
    Games,
    GamesRater,
    played,
    profile_field,
    rated_games,
    section_format,
    to_date,
)
from ledger.rules.fide.initial import PoolEvent
from ledger.rules.fide.modern import rate as rate_by_version
from ledger.rules.fide.rate_of_play import (
    STANDARD,
    below_minimum,
    fide_time_control,
    list_for_time,
    section_not_rated,
    standard_minimum,
)
from ledger.rules.fide.rated import reaches_k_10
from ledger.rules.fide.section import PlayerOutcome, SectionOutcome
from ledger.rules.fide.state import FideState
from ledger.rules.fide.unrated import Performance
from ledger.rules.fide.uplift import raised_profile_rating
from ledger.rules.fide.versions import NAMES, FideVersion
from ledger.rules.fide.versions import resolve as fide_version
from ledger.rules.time_controls import NOT_GIVEN
from projections.change import Change
from projections.items import Item
from projections.periods import ListLookup
from projections.rating import NotRated, Rater
from projections.standing import Standing

# a published FIDE rating without a game count: K counts him past 8.3.3's first 30 games
SEED_GAMES = 30
EARLIER_UNKNOWN = "not known"  # what a page says of his games before the ledger


class FideRater(GamesRater):
    """FIDE by date (`ledger.rules.fide.versions`): the standard list (`FIDE`) and, from 2022,
    the rapid and blitz lists; rated players' ΔR and unrated players' results. Its standings
    carry `FideState`, stored as the JSON of `s_extra`."""

    system = STANDARD
    versions = NAMES
    state_columns: ClassVar[Mapping[str, type]] = {**GAMES_STATE, "s_extra": str}
    # "not known" where his games before the ledger are (a rating published without a count):
    # N and Games count only the games rated (docs/decisions.md, "N without a count")
    rating_columns: ClassVar[Mapping[str, type]] = {"earlier_games": str}

    @classmethod
    def columns(cls, standing: Standing[object]) -> tuple[Any, ...]:
        state = _fide_state(standing)
        return (*super().columns(standing), None if state is None else state.to_json())

    @classmethod
    def standing_of(cls, values: Sequence[Any]) -> Standing[object]:
        *games, extra = values
        state = None if extra is None else FideState.from_json(extra)
        return super().standing_of(games)._replace(state=state)

    @classmethod
    def rating_fields(cls, system: str, standing: Standing[object]) -> dict[str, Any]:
        state = _fide_state(standing)
        unknown = state is not None and state.prior_unknown
        return {"earlier_games": EARLIER_UNKNOWN if unknown else None}

    def standing(self, player: str, system: str | None = None) -> Standing[object]:
        """The player's FIDE standing (by default, the standard list's); first seen, the
        profile's published FIDE rating (rapid and blitz: his standard rating, B.02 rapid and
        blitz 7.2.1)."""
        system = system or STANDARD
        found = self.lookup(player, system)
        if system != STANDARD:
            if found.rating is not None or found.state is not None:
                return found
            standard = self.standing(player)
            if standard.rating is None:
                return found
            state = FideState(reached_2400=reaches_k_10(standard.rating))
            return Standing(rating=standard.rating, rated_on=standard.rated_on, state=state)
        profile = self.profiles.get(player)
        profile_fide = None if profile is None else profile.fide
        if found.rating is not None or found.state is not None or profile_fide is None:
            return found
        in_force = getattr(self.lookup, "uplifts", ())  # periods.ListLookup: uplifts applied
        rating = float(raised_profile_rating(profile_fide.rating, profile_fide.date, in_force))
        games = profile_fide.games
        return Standing(
            rating=rating,
            games=0 if games is None else games,
            rated_on=profile_fide.date,
            state=FideState(reached_2400=reaches_k_10(rating), prior_unknown=games is None or None),
        )

    def opening_state(self, opening: OpeningBalanceRecorded) -> FideState:
        """10.641 / B.02 8.3.3: his rating, or the peak the balance records, reached 2400; the K
        FIDE's list gave him, as the balance records it (issue 30)."""
        best = max(opening.rating, opening.peak or opening.rating)
        return FideState(reached_2400=reaches_k_10(float(best)), k=opening.k)

    def rate(self, item: Item) -> list[Change]:
        fact = item.event
        if isinstance(fact, OpeningBalanceRecorded):
            return super().rate(item)
        if not isinstance(fact, SectionSubmitted | MatchResultSubmitted) or fact.online:
            return []
        version = fide_version(date.fromisoformat(item.end), self.version_named(item))
        known = fide_time_control(fact.time_control)
        games = rated_games(item)
        system = None if known is None else list_for_time(version, known.total)
        if known is None or system is None:  # issue 30: a section dropped is never silent
            why = section_not_rated(None if known is None else known.total, False, version)
            if known is None and fact.time_control != NOT_GIVEN:
                why = f"time control {fact.time_control!r} is not one FIDE's lists read"
            if games and why is not None:
                raise NotRated(why)
            return []
        ids = dict.fromkeys(x for g in games for x in g[:2])
        pre = {pid: self.standing(pid, system) for pid in ids}
        if version.per_game and system == STANDARD:  # 1.1: the minimum for the two players
            kept = tuple(
                g
                for g in games
                if known.total >= standard_minimum(pre[g[0]].rating, pre[g[1]].rating)
            )
            if games and not kept:
                raise NotRated(below_minimum(known.total, len(games)))
            games = kept
        return self.rate_games(item, games, pre, version, system)

    def rate_games(
        self,
        item: Item,
        games: Games,
        pre: dict[str, Standing[object]],
        version: FideVersion | None = None,
        system: str = STANDARD,
    ) -> list[Change]:
        version = version or fide_version(date.fromisoformat(item.end), self.version_named(item))
        playing = {x for g in games for x in g[:2]}  # a set: each player looked up once
        ids = [pid for pid in pre if pid in playing]
        profiles = {pid: self.profiles.get(pid) for pid in pre}
        ks = {pid: _listed_k(_fide_state(s), profiles[pid], system) for pid, s in pre.items()}
        states = {
            pid: _reached(_fide_state(s) or FideState(), profiles[pid], ks[pid], version)
            for pid, s in pre.items()
        }
        rounds = max((g.round or 0 for g in played(item).games), default=0) or None
        section = fide.Section(
            section_format(item, games),
            date.fromisoformat(item.start),
            date.fromisoformat(item.end),
            tuple(
                fide.Player(
                    pid,
                    pre[pid].rating,
                    pre[pid].games + (SEED_GAMES if states[pid].prior_unknown else 0),
                    states[pid].reached,
                    tuple(Performance(r, n) for r, n in states[pid].prior or ()),
                    birth=to_date(profile_field(self.profiles, pid, "birth_date")),
                    listed_k=ks[pid],
                    pool=tuple(
                        PoolEvent(date.fromisoformat(end), tuple(map(tuple, results)))
                        for end, results in states[pid].pool or ()
                    ),
                )
                for pid in ids
            ),
            games,
            rounds=rounds,
            rapid_blitz=system != STANDARD,
        )
        outcome = rate_by_version(section, version)
        if not outcome.rated:
            return []
        scored = _results(section)
        return [
            self._change(
                item, o, pre[o.player], states[o.player], (outcome, version), system, scored
            )
            for o in outcome.players
            if o.games
        ]

    def _change(
        self,
        item: Item,
        o: PlayerOutcome,
        before: Standing[object],
        state: FideState,
        rated: tuple[SectionOutcome, FideVersion],
        system: str,
        scored: dict[str, list[float]],
    ) -> Change:
        outcome, version = rated
        more: dict[str, int] = {}
        if before.rating is not None:
            rating, official = o.post, o.official
            # 10.641 / 8.3.3: K = 10 "once a player's published rating has reached 2400"
            assert official is not None  # a rated player's outcome has his official rating
            if self._delists(official, version):  # 7.2.1, as a list would (projections/periods)
                rating, more = None, {"below": version.delisted_below}
                state = state.listed(official, True)
            else:
                state = state._replace(reached_2400=state.reached or reaches_k_10(official))
        elif outcome.rules != fide.RULES:  # 8.2/7.1.4: his games join the pool
            results = [list(r) for r in o.results]
            state = state._replace(pool=(*(state.pool or ()), (item.end, results)))
            rating = None if o.published_rating is None else float(o.published_rating)
            official = o.published_rating
        else:
            assert o.performance is not None  # 10.3: an unrated player's result is his Ru
            prior = (*(state.prior or ()), (o.performance, o.games))
            state = state._replace(prior=prior)
            rating = None if o.published_rating is None else float(o.published_rating)
            official = o.published_rating
        scores = scored.get(o.player, [])
        wins, draws = scores.count(1.0), scores.count(0.5)
        after = Standing(
            rating=rating,
            games=before.games + o.games,
            wins=before.wins + wins,
            draws=before.draws + draws,
            losses=before.losses + len(scores) - wins - draws,
            rated_on=item.end,
            state=state,
        )
        formula = "continuous" if before.rating is not None else "performance"
        formula = "below_floor" if more else formula
        return self.played_change(
            item, o, outcome, system, before, after, formula, official, **more
        )

    def _delists(self, official: int, version: FideVersion) -> bool:
        """7.2.1 ("Players whose ratings drop below 1400 are shown as unrated on the next
        list"; earlier versions' floors the same way) on a ledger with no list published: its
        current standing is the list it would publish. Between published lists the list drops
        him (projections/periods.py: its lookup is the lists')."""
        return not isinstance(self.lookup, ListLookup) and official < version.delisted_below


def _fide_state(standing: Standing[object]) -> FideState | None:
    """A FIDE standing's own state (the read core keeps a family's state opaque)."""
    return cast(FideState | None, standing.state)


def _listed_k(state: FideState | None, profile: PlayerRegistered | None, system: str) -> int | None:
    """His K on FIDE's list of this system (issue 30; docs/decisions.md, "FIDE's K column"):
    his opening balance's, else (the standard list) his profile's."""
    if state is not None and state.k is not None:
        return state.k
    return profile.fide_k if profile is not None and system == STANDARD else None


def _reached(
    state: FideState, profile: PlayerRegistered | None, k: int | None, version: FideVersion
) -> FideState:
    """His state, reached 2400 when any source says so (8.3.3: K 10 "once a player's
    published rating has reached 2400", "even if the rating drops below 2400"): his profile's
    record of it, or a listed K that is the K of 2400 and over."""
    recorded = profile is not None and bool(profile.fide_reached_2400)
    if state.reached or not (recorded or k == version.k_top):
        return state
    return state._replace(reached_2400=True)


def _results(section: fide.Section) -> dict[str, list[float]]:
    """Each player's scores in the section's rated games: his results, whether or not the
    opponent's rating let the game count in his rating (issue 30: W/D/L are the results)."""
    out: dict[str, list[float]] = {}
    for white, black, score in section.games:
        out.setdefault(white, []).append(score)
        out.setdefault(black, []).append(1.0 - score)
    return out


# the family's reader as the read core's protocol types it (mypy checks the class against
# it): what `Family.rater` names
READER: type[Rater[object]] = FideRater
