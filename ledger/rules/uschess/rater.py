"""Rating one timeline item under the US Chess rules: new standings and a history row each."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import date
from typing import Any, ClassVar, cast

from ledger import compiled
from ledger.events import (
    ForeignRecord,
    MatchResultSubmitted,
    SectionSubmitted,
    encode_value,
)
from ledger.results import RATED_RESULTS
from ledger.rules.rounding import round_half_up
from ledger.rules.time_controls import known_time_control, parse_time_control
from ledger.rules.timeline import Timeline
from ledger.rules.uschess import decisions, explain, floors
from ledger.rules.uschess import state as us_state
from ledger.rules.uschess.columns import Columns
from ledger.rules.uschess.floors import FloorState
from ledger.rules.uschess.history import history_after as rules_history_after
from ledger.rules.uschess.initialization import (
    SYSTEMS,
    ForeignRating,
    Initialization,
    PlayerBackground,
    SourceRating,
    initialization_detail,
)
from ledger.rules.uschess.kernel import HISTORIES, HISTORY_CODES, use_compiled
from ledger.rules.uschess.matches import MatchPlayer, MatchPlayerResult, NotRateable, rate_match
from ledger.rules.uschess.section import (
    SPECIAL,
    STANDARD,
    Entrant,
    Game,
    dual_rated_k,
    rate_event_columns,
    rate_section,
)
from ledger.rules.uschess.state import (
    UsChessState,
    change_row,
    history_after,
    updated,
    us,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import rated_systems
from ledger.rules.uschess.versions import Amendment, Rules, RuleVersion, resolve_in, timelines
from projections import rating
from projections.change import Change
from projections.items import Item
from projections.rating import AmendmentRow, Profiles
from projections.standing import Standing
from projections.what_if import WhatIf

Lookup = Callable[[str, System], Standing[UsChessState]]


def parse_amendments(entries: Sequence[Mapping[str, Any]]) -> tuple[Amendment, ...]:
    return tuple(
        Amendment(
            e["parameter"],
            e["value"],
            date.fromisoformat(e["effective"]),
            date.fromisoformat(e["until"]) if e.get("until") else None,
        )
        for e in entries
    )


# "compiled" or "pure": Steps 2–5 by that kernel (the compiled one: the `fast` extra, numba);
# unset, by the pure one (itself compiled) while the mypyc-compiled modules run
# (ledger/compiled.py), else by numba's if installed from a replay's first item when it is
# known to rate kernel.COMPILED_FROM_ITEMS items or more (a rebuild), else by the pure one
# until the replay has rated kernel.COMPILED_AFTER_GAMES games. The same floats bit for bit;
# numba's kernel costs over 100 MiB more memory (docs/decisions.md, "the columnar rating kernel").
KERNEL_VARIABLE = "RATINGS_LEDGER_KERNEL"


class Rater:
    """Rates items given each player's standing before it (`lookup`), profiles and amendments.

    `rate` dispatches on the item's kind through `KINDS` (below the class): one method each.
    Its standings carry `UsChessState` (ledger/rules/uschess/state.py).
    """

    figure_columns: ClassVar[Mapping[str, type]] = us_state.FIGURE_COLUMNS
    state_columns: ClassVar[Mapping[str, type]] = us_state.STATE_COLUMNS
    history_order: ClassVar[tuple[str, ...] | None] = us_state.HISTORY_ORDER
    rating_columns: ClassVar[Mapping[str, type]] = us_state.RATING_COLUMNS

    @classmethod
    def columns(cls, standing: Standing[UsChessState]) -> tuple[Any, ...]:
        return us_state.columns(standing)

    @classmethod
    def standing_of(cls, values: Sequence[Any]) -> Standing[UsChessState]:
        return us_state.standing_of(values)

    @classmethod
    def rating_fields(cls, system: str, standing: Standing[UsChessState]) -> dict[str, Any]:
        return us_state.rating_fields(system, standing)

    @classmethod
    def explain_rules(cls, row: dict[str, Any], start: str) -> dict[str, Any]:
        return explain.explain_rules(row, start)

    @classmethod
    def explain_steps(
        cls, kind: str, row: dict[str, Any], detail: dict[str, Any]
    ) -> dict[str, Any] | None:
        return explain.explain_steps(kind, row, detail)

    def __init__(
        self,
        lookup: Lookup,
        profiles: Profiles,
        amendments: tuple[Amendment, ...] = (),
        explain: bool = False,
        version: str | None = None,
        items: int | None = None,
    ) -> None:
        self.lookup = lookup
        self.profiles = profiles
        self.amendments = amendments
        # the amendments' timelines, made at the first `rules` (then one resolve a start date)
        self._lines: dict[str, Timeline[object]] | None = None
        self.explain = explain
        self.version = version  # a what-if replay's rules version for every section
        # the kernel asked for; unasked, the pure one while the modules run compiled by mypyc
        # (its Steps 2–5 within 1.3× numba's, without numba's load and 110+ MiB), else either
        self.kernel = os.environ.get(KERNEL_VARIABLE) or ("pure" if compiled.running() else None)
        self.games_rated = 0  # by this rater: the compiled kernel loads past a threshold
        self.items = items  # the items it will rate, when known: the kernel chosen by them
        self._rules: dict[tuple[str, str | None], Rules] = {}

    @classmethod
    def open(
        cls,
        lookup: Lookup,
        profiles: Profiles,
        amendments: Sequence[AmendmentRow],
        explain: bool,
        what_if: WhatIf | None,
        items: int | None = None,
    ) -> Rater:
        """The rater of a read model: under a what-if, its amendments after the recorded ones
        and its rules version for every section; `items`, the replay's size when known,
        chooses the kernel from its first section (kernel.use_compiled)."""
        recorded = parse_amendments(amendments)
        if what_if is None:
            return cls(lookup, profiles, recorded, explain, items=items)
        extra = parse_amendments(list(what_if.amendments))
        return cls(lookup, profiles, recorded + extra, explain, what_if.rules, items)

    def standing(self, player: str, system: str) -> Standing[UsChessState]:
        return self.lookup(player, System(system))

    def rules(self, start: str, version: str | None = None) -> Rules:
        key = (start, version)
        found = self._rules.get(key)
        if found is None:
            chosen = self.version or version
            lines = self._lines
            if lines is None:
                lines = self._lines = timelines(self.amendments)
            on = date.fromisoformat(start)
            found = self._rules[key] = resolve_in(on, chosen, self.amendments, lines)
        return found

    def rate(self, item: Item) -> list[Change]:
        return KINDS[item.kind](self, item)

    def _background(self, player: str, system: System, on: str) -> PlayerBackground:
        profile = self.profiles.get(player)
        ratings = {}
        lookup = self.lookup
        for other in SYSTEMS:
            if other is system:
                continue
            s = lookup(player, other)
            if s.rating is not None and s.games > 0 and s.rated_on is not None:
                ratings[other] = SourceRating(s.rating, s.games, date.fromisoformat(s.rated_on))
        if profile is None:
            return PlayerBackground(ratings=ratings)

        def foreign(data: ForeignRecord | None) -> ForeignRating | None:
            if data is None:
                return None
            return ForeignRating(data.rating, date.fromisoformat(data.date or on))

        born = profile.birth_date
        return PlayerBackground(
            birth_date=date.fromisoformat(born) if born else None,
            adult=bool(profile.adult),
            fide=foreign(profile.fide),
            cfc=foreign(profile.cfc),
            ratings=ratings,
        )

    def _section(self, item: Item) -> list[Change]:
        p = item.fact_as(SectionSubmitted)
        rules = self.rules(p.start_date, p.rules if _uschess(p.rules) else None)
        version = rules.version
        known = known_time_control(p.time_control)
        if known is None:
            return []
        total = known.total
        if p.system:
            systems = [System(p.system)]
        else:
            systems = sorted(rated_systems(total, p.online, version) & version.systems)
        index = {x.id: i for i, x in enumerate(p.players)}
        ids = list(index)
        # the rated games as index columns (white, black, white's score), in one pass
        white: list[int] = []
        black: list[int] = []
        score: list[float] = []
        results = RATED_RESULTS
        for g in p.games:
            s = results.get(g.result)
            if s is not None:
                white.append(index[g.white])
                black.append(index[g.black])
                score.append(s)
        # the players of rated games, numbered in entry order (the games index this): the
        # entry numbers themselves when every player has a rated game
        playing = sorted({*white, *black})
        players = ids
        if playing != list(range(len(ids))):
            local = {i: n for n, i in enumerate(playing)}
            white = [local[i] for i in white]
            black = [local[i] for i in black]
            players = [ids[i] for i in playing]
        changes: list[Change] = []
        for system in systems:
            dual = dual_rated_k(system, version, total)
            changes += self._rate_games(item, rules, system, players, white, black, score, dual)
        return changes

    def _match(self, item: Item) -> list[Change]:
        p = item.fact_as(MatchResultSubmitted)
        rules = self.rules(p.start_date)
        version = rules.version
        total = parse_time_control(p.time_control).total
        system = System(p.system) if p.system else _match_system(total, p.online, version)
        first, second = (x.id for x in p.players)
        score, m = 0.0, 0
        for g in p.games:
            if g.result not in RATED_RESULTS:
                continue
            white_score = RATED_RESULTS[g.result]
            score += white_score if g.white == first else 1.0 - white_score
            m += 1
        if m == 0:
            return []
        pre = {pid: self.lookup(pid, system) for pid in (first, second)}
        if pre[first].rating is None or pre[second].rating is None:
            return []
        dual = dual_rated_k(system, version, total)
        on = date.fromisoformat(p.end_date)
        players = {
            pid: MatchPlayer(
                cast(float, s.rating),  # both rated: checked above
                s.games,
                floors.effective_floor(us(s).floors, system, version)[0],
                tuple((date.fromisoformat(d), c) for d, c in us(s).match_changes),
            )
            for pid, s in pre.items()
        }
        result = rate_match(
            players[first],
            players[second],
            first_score=score,
            games=m,
            on=on,
            system=system,
            version=version,
            dual_rated=dual,
        )
        if isinstance(result, NotRateable):
            return [
                change_row(item, pid, system, rules, s, s, "match_not_rated", reason=result.reason)
                for pid, s in pre.items()
            ]
        changes = []
        for pid, r, s in ((first, result.first, score), (second, result.second, m - score)):
            before = pre[pid]
            wins = sum(
                1
                for g in p.games
                if g.result in ("1-0", "0-1")
                and (g.white == pid) == (RATED_RESULTS[g.result] == 1.0)
            )
            draws = sum(1 for g in p.games if RATED_RESULTS.get(g.result) == 0.5)
            request = r.floor_request
            after = _after_match(before, r, m, wins, draws, p.end_date)
            changes.append(
                change_row(
                    item,
                    pid,
                    system,
                    rules,
                    before,
                    after,
                    "match",
                    m=m,
                    score=s,
                    n_eff=r.n_eff,
                    k=r.k,
                    expected=r.expected,
                    raw_change=r.raw_change,
                    limits_applied=list(r.limits_applied),
                    floor_request=None if request is None else asdict(request),
                )
            )
        return changes

    def _compiled(self, games: int) -> bool:
        """Whether the compiled kernel rates a section of `games` games (kernel.use_compiled,
        given the items this rater will rate and the games it has rated before it)."""
        compiled = use_compiled(self.kernel, self.games_rated, self.items)
        self.games_rated += games
        return compiled

    def _rate_games(
        self,
        item: Item,
        rules: Rules,
        system: System,
        players: list[str],
        white: list[int],
        black: list[int],
        score: list[float],
        dual: bool,
    ) -> list[Change]:
        """Every player of rated games (`players`, indexed by `white` and `black`) in `system`:
        the kernel's Steps 1–5 (and, to explain, the section rated again with every value)."""
        pre = [self.lookup(player, system) for player in players]
        states = us_state.states(pre)
        end = item.end
        codes = HISTORY_CODES
        history = [codes[s.history] for s in states]

        def background(n: int) -> PlayerBackground:
            return self._background(players[n], system, end)

        prior, c, inits = rate_event_columns(
            [s.rating for s in pre],
            [s.games for s in pre],
            history,
            background,
            white,
            black,
            score,
            rules,
            system,
            date.fromisoformat(end),
            dual,
            self._compiled(len(white)),
        )
        explained: Callable[[int, FloorState], dict[str, Any]] | None = None
        if self.explain:
            entrants = [
                Entrant(player, r, g, u, HISTORIES[0 if s.rating is None else h])
                for player, s, r, g, u, h in zip(
                    players, pre, prior.rating, prior.games, prior.unrated, history, strict=True
                )
            ]
            games = [Game(*g) for g in zip(white, black, score, strict=True)]
            version = rules.version
            rated = rate_section(
                entrants,
                games,
                rules.bonus_multiplier,
                version.bonus_needs_distinct_opponents_at_three,
                dual,
                explain=True,
            )

            def detail_of(n: int, fl: FloorState) -> dict[str, Any]:
                ex = explain.section_detail
                return ex(entrants[n], rated[n], fl, system, version, dual, games, n, players)

            explained = detail_of

        return self._section_rows(item, rules, system, players, pre, states, c, inits, explained)

    def _section_rows(
        self,
        item: Item,
        rules: Rules,
        system: System,
        players: list[str],
        pre: list[Standing[UsChessState]],
        states: list[UsChessState],
        c: Columns,
        inits: dict[int, Initialization],
        explained: Callable[[int, FloorState], dict[str, Any]] | None,
    ) -> list[Change]:
        """Each player's standing (`pre`, its state in `states`) and history row from the
        kernel's columns (`c`), with the initializations of the unrated (`inits`) and, to
        explain, every value (`explained`)."""
        changes = []
        name = str(system)
        end = item.end
        # The history row's columns that are the same for every player of the item
        key, sort_key, kind, position = item.key, item.sort_key, item.kind, item.position
        revision, rules_name, multiplier = item.revision, rules.name, rules.bonus_multiplier
        personal, olm = floors.floor_systems(system, rules.version)
        # the kernel's columns as locals, each read by the player's index (typed, not zipped:
        # compiled, each value is read directly)
        special, played, won, drawn = c.special, c.m, c.wins, c.draws
        score, k, expected = c.score, c.k, c.expected
        n_eff, bonus, step3, step4, step5 = c.n_eff, c.bonus, c.step3, c.step4, c.step5
        if not len(players) == len(pre) == len(states) == len(played) == len(step5):
            raise ValueError("a section's players and the kernel's columns differ in length")
        for n in range(len(players)):
            player, before, was = players[n], pre[n], states[n]
            m, wins, draws, post = played[n], won[n], drawn[n], step5[n]
            if post is None:
                raise ValueError(f"player {player} has no Step 5 rating")  # all have played
            rating, bound = floors.bound_rating(post, was.floors, personal, olm)
            after = _after_games(before, was, rating, m, wins, draws, end)
            detail = "{}"
            init = inits.get(n) if inits else None
            if init is not None or explained is not None:
                extra: dict[str, Any] = {}
                if init is not None:
                    extra["initialization"] = initialization_detail(init)
                if explained is not None:
                    extra |= explained(n, was.floors)
                detail = encode_value(extra).decode()
            row = (
                key,
                player,
                name,
                sort_key,
                kind,
                end,
                position,
                revision,
                rules_name,
                SPECIAL if special[n] else STANDARD,
                before.rating,
                rating,
                round_half_up(rating),
                before.games,
                after.games,
                m,
                score[n],
                k[n],
                expected[n],
                detail,
                multiplier,
                n_eff[n],
                bonus[n],
                step3[n],
                step4[n],
                post,
                None if bound is None else bound.value,
            ) + us_state.columns(after)  # two tuples joined: compiled, no list in between
            changes.append(tuple.__new__(Change, (player, system, after, row)))  # as _after_games
        return changes


# item kind → the method that rates it (projections/items.py KIND_FACTS lists the kinds)
KINDS: dict[str, Callable[[Rater, Item], list[Change]]] = {
    "section": Rater._section,
    "match": Rater._match,
    "opening": decisions.opening,
    "money": decisions.money,
    "override": decisions.override,
    "fide": decisions.fide,
    "uplift": lambda rater, item: [],  # FIDE's uplift of a FIDE list: no US Chess rating
}
# the family's reader as the read core's protocol types it (mypy checks the class against
# it): what `Family.rater` names
READER: type[rating.Rater[UsChessState]] = Rater


def _after_games(
    before: Standing[UsChessState],
    was: UsChessState,
    rating: float,
    m: int,
    wins: int,
    draws: int,
    end: str,
) -> Standing[UsChessState]:
    """A player's standing (`before`, its state `was`) after m rated games of a section ending
    on `end`, rated `rating`: N, results, §4.1 history, §5 floor state and OLM title date."""
    pre_rating, pre_games = before.rating, before.games
    losses = m - wins - draws
    fl = floors.after_section(was.floors, pre_rating, pre_games, rating, m, wins, draws)
    rated = pre_rating is not None and pre_games > 0
    history = rules_history_after(rated, was.history, m, wins, losses)
    # tuple.__new__: a NamedTuple's own __new__ costs a Python call, here once per player and item
    state = tuple.__new__(
        UsChessState,
        (
            history,
            floors.olm_title_date(was.olm_title_date, fl, end),
            fl,
            was.match_changes,
            was.pending_request,
        ),
    )
    values = (rating, pre_games + m, fl.wins, fl.draws, before.losses + losses, end, state)
    return tuple.__new__(Standing, values)


def _after_match(
    before: Standing[UsChessState], r: MatchPlayerResult, m: int, wins: int, draws: int, end: str
) -> Standing[UsChessState]:
    """A player's standing after a rated match of m games ending on `end` (`r`: his side of
    `rate_match`'s result): its change joins his §7 match changes, a floor request waits."""
    request = r.floor_request
    fl = floors.after_section(
        us(before).floors,
        pre_rating=before.rating,
        pre_games=before.games,
        post_rating=r.rating,
        games=m,
        wins=wins,
        draws=draws,
    )
    return updated(
        before,
        rating=r.rating,
        games=r.games_after,
        losses=before.losses + (m - wins - draws),
        history=history_after(before, m, wins, m - wins - draws),
        rated_on=end,
        floors=fl,
        match_changes=(*us(before).match_changes, (end, r.change)),
        pending_request=None if request is None else (request.new_floor, request.rating_if_granted),
    )


def _uschess(rules: str | None) -> bool:
    return rules is not None and rules.startswith("uschess-")


def _match_system(total: int, online: bool, version: RuleVersion) -> System:
    systems = rated_systems(total, online, version)
    regular = System.OLR if online else System.OTBR
    return regular if regular in systems else sorted(systems)[0]
