"""Published lists in the read model: rating in periods (FIDE 10.65, 10.3) and in publication
order (late items, `ledger.rules.rating_lists`) once a family with late items (`Family.late_items`)
has a list.

Each item goes to the period of the list that rates it (`list_for`); an item that would sort
before the list closing the previous period (a late item, or one ending on that list's as-of
date) is placed just after that list, so the history's sort keys are the order items are rated
in. Under FIDE every section of a period is rated from the standings on the previous list, K
fixed for the period, and the list's own history row sums the changes (10.65) or publishes a
first rating (10.3). A section that started before its period's opening list was published
takes each player's Ro from the list in force on its start date (FIDE 2002 9.11; Title
Regulations 1.4.6a; docs/decisions.md), its ΔR still summed on its own period's list. The ICU
rates in the same order, one item after another.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from ledger.events import FideUpliftRecorded
from ledger.rules.families import family as rules_family
from ledger.rules.families import known
from ledger.rules.family import PeriodRules, PeriodVersion
from ledger.rules.rating_lists import RatingList, list_for
from ledger.rules.rounding import round_half_up
from projections.change import Change
from projections.items import Item, sort_key
from projections.rating import ItemRater, Profiles, rater_class, rater_for
from projections.schema import LIST_COLUMNS, ROW_COLUMNS
from projections.standing import UNRATED, Standing

if TYPE_CHECKING:
    from projections.merges import Merges

Key = tuple[str, str]  # (player, system)
Lookup = Callable[[str, str], Standing[object]]


class EarlierList(Exception):  # noqa: N818 (a reason a proof is not recomputed, not a fault)
    """An item started under a list older than the standings given to rate it from."""


@dataclass(frozen=True)
class PublishedList:
    """A `ListPublished` entry as the read model keeps it (the `lists` table)."""

    family: str
    number: int
    name: str
    as_of: str
    cutoff_position: int
    position: int

    @property
    def sort_key(self) -> str:
        """The list's place in rating order: after every item it rates, before the next."""
        return sort_key(self.as_of, self.as_of, self.position)

    @property
    def rating_list(self) -> RatingList:
        return RatingList(self.name, date.fromisoformat(self.as_of), self.cutoff_position)

    def row(self) -> dict[str, Any]:
        return {c: getattr(self, c) for c in LIST_COLUMNS}


def in_periods(family: str, lists: Sequence[PublishedList]) -> bool:
    """Whether `family` rates by published lists: it has a late-items practice and a list."""
    found = known(family)
    return (
        found is not None
        and found.late_items is not None
        and any(x.family == family for x in lists)
    )


def rates_from_previous_list(family: str) -> bool:
    """Whether `family` rates each period from the standings on the previous list (FIDE 10.65)
    rather than item after item."""
    found = known(family)
    return found is not None and found.periods is not None


def recompute(
    family: str,
    listed: PublishedList,
    items: Sequence[Item],
    on_list: dict[Key, Standing[object]],
    profiles: Profiles,
    uplifts: tuple[PublishedList, Sequence[Item], Sequence[Item]] | None = None,
    merged: Merges | None = None,
    older: Sequence[tuple[PublishedList, dict[Key, Standing[object]]]] = (),
) -> dict[Key, tuple[int | None, Standing[object]]]:
    """The rows list `listed` publishes for the players of `items` (its period's), rated from
    `on_list` (the previous list's standings) as the read model does: (official, standing)
    after the last history row of each (an unrated player's may be a section's). `uplifts`:
    the previous list, FIDE's uplifts in force before it and those applied at it (raising
    `on_list`, as `_Periods.publish` does after its rows); `merged`: the merges in force
    (projections.merges.Merges), each record merged away named as its survivor; `older`: the
    lists before the previous one, oldest first, consecutive, with their standings (an item
    that started under one is rated from it, as `_Periods` does). Raises `EarlierList` for an
    item that started under a list older than those (its Ro is a list's `on_list` and `older`
    do not hold)."""
    from projections import merges

    if merged:
        profiles = merges.profiles(profiles, merged)
        items = [merges.renamed(i, merged) for i in items]
    run = _Periods([listed], lambda lookup: rater_for(family, lookup, profiles))
    run.lookup.on_list, run.live = dict(on_list), dict(on_list)
    if uplifts is not None:
        previous, earlier, raised = uplifts
        # `on_list` is the previous list's, `older` those before it back to the one the
        # earliest section started under; before the family's first list: none (`_started_under`)
        first = older[0][0].number if older else previous.number
        run.in_force = [("", None, {})] if first == 1 else []
        run.in_force += [(x.as_of, x.name, standings) for x, standings in older]
        run.in_force.append((previous.as_of, previous.name, run.lookup.on_list))
        facts = [i.fact_as(FideUpliftRecorded) for i in earlier]
        run.lookup.uplifts = [(f.effective, f.ceiling, f.share) for f in facts]
        for item in raised:
            run.uplift(previous, item)
    rows, live = run.run(sorted(((i.sort_key, 0, i) for i in items), key=lambda x: x[0]))
    player, system = ROW_COLUMNS.index("player"), ROW_COLUMNS.index("system")
    official = ROW_COLUMNS.index("official_rating")
    last = {(r[player], r[system]): r[official] for r in rows}  # rows are in rating order
    return {k: (said, live[k]) for k, said in last.items()}


def placed(items: Sequence[Item], lists: Sequence[PublishedList]) -> list[tuple[str, int, Item]]:
    """(history sort key, period, item) in the order the family rates them; period i is the
    i-th list's, len(lists) the items no list has yet (pending)."""
    late = rules_family(lists[0].family).late_items
    assert late is not None  # a family with lists places their late items (in_periods)
    ratings = [x.rating_list for x in lists]
    out = []
    for item in items:
        found = list_for(date.fromisoformat(item.end), item.position, ratings, late)
        period = len(lists) if found is None else found
        key = item.sort_key
        if period and key <= lists[period - 1].sort_key:
            key = f"{lists[period - 1].sort_key}|{key}"
        out.append((key, period, item))
    return sorted(out, key=lambda x: x[0])


def rate(
    items: Sequence[Item],
    lists: Sequence[PublishedList],
    rater_for: Callable[[Lookup], ItemRater],
    uplift: bool = True,
    named: str | None = None,
) -> tuple[list[tuple[Any, ...]], dict[Key, Standing[object]]]:
    """Every item (in rating order) rated by the lists of one family: history rows and each
    player's standing after them (`uplift` False: a what-if without FIDE's uplifts; `named`:
    a what-if's version, closing every list)."""
    if rates_from_previous_list(lists[0].family):
        uplifts = [i for i in items if i.kind == "uplift"] if uplift else []
        others = [i for i in items if i.kind != "uplift"]
        return _Periods(lists, rater_for, uplifts, named).run(placed(others, lists))
    live: dict[Key, Standing[object]] = {}
    rater = rater_for(lambda p, s: live.get((p, s), UNRATED))
    rows = []
    for key, _, item in placed(items, lists):
        for c in rater.rate(item):
            live[(c.player, c.system)] = c.standing
            rows.append(_with(c.row, sort_key=key))
    return rows, live


@dataclass
class _Period:
    """A player's period so far: his standing on the list, and each section's ΔR and K."""

    on_list: Standing[object]
    changes: list[float] = field(default_factory=list)
    k: float | None = None
    per_game: list[tuple[int, int, int]] = field(default_factory=list)  # (ΣΔR×100, K, n)


class ListLookup:
    """The rater's lookup: each player's standing on the last list, and the FIDE uplifts
    applied so far (a player the model does not hold yet enters at his profile's rating,
    raised by those: the family's rater reads them, FIDE's `raised_profile_rating`).

    `earlier`, while a section that started under an older list is rated: that list's
    standings, which a player rated on both lists is rated from (Ro, and K as of it)."""

    def __init__(self) -> None:
        self.on_list: dict[Key, Standing[object]] = {}
        self.uplifts: list[tuple[str, int, float]] = []
        self.earlier: dict[Key, Standing[object]] | None = None

    def __call__(self, player: str, system: str) -> Standing[object]:
        now = self.on_list.get((player, system), UNRATED)
        if self.earlier is None:
            return now
        return in_force(now, self.earlier.get((player, system), UNRATED))


def in_force(now: Standing[object], then: Standing[object]) -> Standing[object]:
    """A player's standing for a section that started under an older list: that list's
    (`then`) if he is rated on it and on the period's opening list (`now`); else `now` (newly
    rated, or shown unrated since: docs/decisions.md)."""
    return now if now.rating is None or then.rating is None else then


class _Periods:
    """FIDE 10.65: sections rated from the list standings; each list sums the period."""

    def __init__(
        self,
        lists: Sequence[PublishedList],
        rater_for: Callable[[Lookup], ItemRater],
        uplifts: Sequence[Item] = (),
        named: str | None = None,
    ):
        self.lists = lists
        self.named = named  # a what-if's version (None: the one in force on a list's date)
        rules = rules_family(lists[0].family).periods
        assert rules is not None  # a family rating from the previous list (FIDE 10.65)
        self.rules: PeriodRules[PeriodVersion, object] = rules
        reader = rater_class(lists[0].family)
        self.columns = reader.columns
        # a row's columns but its state's: a list's row has no figures of the family's own
        self.row_columns = (*ROW_COLUMNS, *reader.figure_columns)
        self.uplifts = sorted(uplifts, key=lambda i: i.sort_key)
        self.live: dict[Key, Standing[object]] = {}
        self.lookup = ListLookup()
        self.period: dict[Key, _Period] = {}
        self.rows: list[tuple[Any, ...]] = []
        self.rater = rater_for(self.lookup)
        # (as-of, name, standings) of each list published so far, oldest first: the
        # standings before the first are the ledger's opening ones ("" : before any list)
        self.in_force: list[tuple[str, str | None, dict[Key, Standing[object]]]] = [
            ("", None, self.lookup.on_list)
        ]

    def _version(self, as_of: str) -> PeriodVersion:
        """The version closing a list: a what-if's, else the one in force on its date."""
        return self.rules.by_name[self.named] if self.named else self.rules.version(as_of)

    def run(
        self, items: Sequence[tuple[str, int, Item]]
    ) -> tuple[list[tuple[Any, ...]], dict[Key, Standing[object]]]:
        published = 0
        for key, period, item in items:
            for number in range(published, period):
                self.publish(self.lists[number])
            published = max(published, period)
            name = self.lists[period].name if period < len(self.lists) else None
            earlier = self._started_under(item)
            self.lookup.earlier = None if earlier is None else earlier[1]
            try:
                changes = self.rater.rate(item)
                used = {
                    (c.player, c.system): self.rater.standing(c.player, c.system) for c in changes
                }
            finally:
                self.lookup.earlier = None
            ro_list = None if earlier is None else earlier[0]
            for c in changes:
                self.rated(key, item, c, name, used[(c.player, c.system)], ro_list)
        for number in range(published, len(self.lists)):
            self.publish(self.lists[number])
        return self.rows, self.live

    def _started_under(self, item: Item) -> tuple[str, dict[Key, Standing[object]]] | None:
        """The list in force when a section started before the list its period is rated from
        was published (the last published on or before its start): (name, standings); None
        for one that started under that list, before the ledger's first list, or an item that
        is not a section or match."""
        opened = self.in_force[-1][0]
        if item.kind not in ("section", "match") or item.start >= opened:
            return None
        for as_of, name, standings in reversed(self.in_force):
            if as_of <= item.start:
                return None if name is None else (name, standings)
        raise EarlierList(
            f"{item.key} started on {item.start}, under a list before the one of {opened}"
        )

    def rated(
        self,
        key: str,
        item: Item,
        c: Change,
        list_name: str | None,
        used: Standing[object],
        ro_list: str | None,
    ) -> None:
        """One player's row of a section in the period: his rating moves only on the list.
        `used`: his standing the section was rated from (`ro_list`'s, where it started under
        an older list)."""
        k = (c.player, c.system)
        if item.kind not in ("section", "match"):  # an opening balance: in force at once
            self.live[k] = self.lookup.on_list[k] = c.standing
            self.period.pop(k, None)
            self.rows.append(_with(c.row, sort_key=key))
            return
        pre = self.rater.standing(c.player, c.system)
        now = self.live.get(k, pre)
        games = now.games + c.row[ROW_COLUMNS.index("m")]
        detail = json.loads(c.row[ROW_COLUMNS.index("detail")])
        results = {  # this section's W/D/L, added to what the period has so far
            "wins": now.wins + c.standing.wins - used.wins,
            "draws": now.draws + c.standing.draws - used.draws,
            "losses": now.losses + c.standing.losses - used.losses,
        }
        if pre.rating is not None:
            after = now._replace(games=games, rated_on=item.end, **results)
            period = self.period.setdefault(k, _Period(pre))
            period.k = c.row[ROW_COLUMNS.index("k")]
            if "hundredths" in detail:  # 8.3: ΣΔR and n, for K × n over the period
                n = len(detail["games"])
                period.per_game.append((detail["hundredths"], detail["k_base"], n))
            else:
                period.changes.append(detail.get("rating_change", 0.0))  # 0.0 is left out
        else:  # 10.3 / 8.2: his results join those of earlier periods
            state = self.rules.joined(now.state, c.standing.state)
            after = now._replace(games=games, rated_on=item.end, state=state, **results)
            self.period.setdefault(k, _Period(pre))
        self.live[k] = after
        self.rows.append(
            _with(
                c.row,
                sort_key=key,
                post_rating=after.rating,
                official_rating=None if after.rating is None else round_half_up(after.rating),
                games_before=now.games,
                games_after=after.games,
                detail=json.dumps(_listed(detail, list_name, used, ro_list), sort_keys=True),
                state=self.columns(after),
            )
        )

    def publish(self, rating_list: PublishedList) -> None:
        """The list: Rn = Ro + ΣΔR (10.65, 10.66; 8.3.2–8.3.4) or a first rating (10.3; 8.2 and
        7.1.4), in force from it, under the version in force on the period's last day."""
        version = self._version(rating_list.as_of)
        for k, period in self.period.items():
            now, ro = self.live[k], period.on_list
            detail: dict[str, Any] = {"list": rating_list.name}
            rating: float | None
            if ro.rating is not None:
                value = self.rules.result(version, ro.rating, period.changes, period.per_game)
                rating, official, formula, k_used = value.rating, value.official, "period", value.k
                detail |= value.detail
            else:
                first = self.rules.first_rating(version, now.state, rating_list.as_of)
                if first is None:
                    continue
                rating, official, formula, k_used = float(first[0]), first[0], "first_rating", None
                detail |= first[1]
            # 7.2.1: "Players whose ratings drop below 1400 are shown as unrated on the next
            # list. Thereafter they are treated in the same manner as any other unrated player."
            # Every version has its floor (9.21: 1801; 1200, 1000, 1400): every list drops.
            dropped = ro.rating is not None and official < version.delisted_below
            if dropped:  # the page says "unrated (below 1400)": the floor of this list
                rating, formula = None, "below_floor"
                detail["below"] = version.delisted_below
            state = self.rules.listed(now.state, official, dropped)
            after = now._replace(rating=rating, rated_on=rating_list.as_of, state=state)
            self.live[k] = after
            values = {
                "item_key": f"list:{rating_list.family}:{rating_list.number}",
                "player": k[0],
                "system": k[1],
                "sort_key": rating_list.sort_key,
                "kind": "list",
                "end_date": rating_list.as_of,
                "position": rating_list.position,
                "revision": rating_list.position,
                "rules": version.name,
                "formula": formula,
                "pre_rating": ro.rating,
                "post_rating": rating,
                "official_rating": official,
                "games_before": ro.games,
                "games_after": after.games,
                "m": after.games - ro.games,
                "k": period.k if k_used is None else k_used,
                "detail": json.dumps(detail, sort_keys=True),
            }
            self.rows.append(tuple(values.get(c) for c in self.row_columns) + self.columns(after))
        self.period.clear()
        self.lookup.on_list = dict(self.live)
        self.in_force.append((rating_list.as_of, rating_list.name, self.lookup.on_list))
        while self.uplifts and self.uplifts[0].end <= rating_list.as_of:
            self.uplift(rating_list, self.uplifts.pop(0))

    def uplift(self, rating_list: PublishedList, item: Item) -> None:
        """FIDE's one-time uplift of this list (the first on or after its date): every standard
        rating below the ceiling raised by share × (ceiling − R), in force from the list."""
        fact = item.fact_as(FideUpliftRecorded)
        version = self._version(rating_list.as_of)
        self.lookup.uplifts.append((fact.effective, fact.ceiling, fact.share))
        for k, now in sorted(self.live.items()):
            if k[1] != self.rules.uplift_system or now.rating is None or now.rating >= fact.ceiling:
                continue
            official = self.rules.uplifted(round_half_up(now.rating), fact.ceiling, fact.share)
            after = now._replace(rating=float(official), rated_on=rating_list.as_of)
            self.live[k] = self.lookup.on_list[k] = after
            detail = {"list": rating_list.name, "ceiling": fact.ceiling, "share": fact.share}
            values = {
                "item_key": item.key,
                "player": k[0],
                "system": k[1],
                "sort_key": f"{rating_list.sort_key}|0000|{item.key}",
                "kind": "uplift",
                "end_date": rating_list.as_of,
                "position": item.position,
                "revision": item.revision,
                "rules": version.name,
                "formula": "uplift",
                "pre_rating": now.rating,
                "post_rating": after.rating,
                "official_rating": official,
                "games_before": now.games,
                "games_after": now.games,
                "m": 0,
                "detail": json.dumps(detail, sort_keys=True),
            }
            self.rows.append(tuple(values.get(c) for c in self.row_columns) + self.columns(after))


def _listed(
    detail: dict[str, Any], list_name: str | None, used: Standing[object], ro_list: str | None
) -> dict[str, Any]:
    """A section row's detail: the list rating it; for one that started under an older list,
    that list's name and the Ro taken from it (the explanation shows both)."""
    out = {**detail, "list": list_name}
    if ro_list is not None:
        out |= {"ro_list": ro_list, "ro": used.rating}
    return out


def _with(
    row: tuple[Any, ...], state: tuple[Any, ...] | None = None, **values: object
) -> tuple[Any, ...]:
    """A history row with some columns replaced (`state`: its state columns)."""
    out = list(row)
    for name, value in values.items():
        out[ROW_COLUMNS.index(name)] = value
    if state is not None:
        out[len(out) - len(state) :] = state
    return tuple(out)
