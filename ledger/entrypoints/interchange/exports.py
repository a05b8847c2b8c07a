"""What a federation publishes from the read model: the rating supplement (every player's rating
on a date), a player's history as a table, and a section's crosstable."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ledger.entrypoints.interchange import start_numbers
from ledger.rules.families import DEFAULT
from ledger.rules.families import family as rules_family
from ledger.rules.rounding import round_half_up
from projections import list_filters, queries, unrated
from projections.periods import rates_from_previous_list
from projections.projector import View
from projections.queries.common import system_order
from projections.queries.players import unrated_below

SUPPLEMENT_COLUMNS = (
    "id",
    "name",
    "system",
    "rating",
    "official_rating",
    "games",
    "established",
    "floor",
    "rated_on",
)
HISTORY_EXPORT_COLUMNS = (
    "end_date",
    "item_key",
    "kind",
    "formula",
    "rules",
    "pre_rating",
    "post_rating",
    "official_rating",
    "games_before",
    "games_after",
    "m",
    "score",
    "expected",
    "k",
    "bonus",
    "floor_bound",
)
# A game's cell for white and for black, and their scores.
GAME_CELLS = {
    "1-0": (("W", 1.0), ("L", 0.0)),
    "0-1": (("L", 0.0), ("W", 1.0)),
    "1/2-1/2": (("D", 0.5), ("D", 0.5)),
    "1F-0F": (("X", 1.0), ("F", 0.0)),
    "0F-1F": (("F", 0.0), ("X", 1.0)),
}
BYE_CELLS = {"full": ("B--", 1.0), "half": ("H--", 0.5), "zero": ("U--", 0.0)}
UNPLAYED = ("U--", 0.0)


def rating_supplement(
    view: View, system: str, day: str | None, list_name: str | None = None
) -> list[dict[str, Any]]:
    """Every player rated in `system` on `day` (after every item that ended on or before it),
    or on the published list `list_name` (`view` as known at the list:
    projections.timetravel.list_view): rating, N, and under the US Chess rules established
    (§1: N > 25) and the floor then; in member-id order."""
    out = []
    if list_name is None:
        assert day is not None  # its callers give a day or a list
        found = queries.supplement(view, system, day)
    else:
        found = queries.list_supplement(view, system, list_name)
    for player, r, profile in found:
        out.append(
            {
                "id": player,
                "name": _name(profile),
                "system": system,
                "rating": r["rating"],
                "official_rating": r["official_rating"],
                "games": r["games"],
                # US Chess's columns (`Rater.rating_columns`); None where the family has none
                "established": None if r.get("established") is None else bool(r["established"]),
                "floor": r.get("floor"),
                "rated_on": r["rated_on"],
                # FIDE: "not known" for a rating published without a count (its column)
                **({"earlier_games": r["earlier_games"]} if r.get("earlier_games") else {}),
            }
        )
    return out


# The FIDE rating-list TXT layout: (heading, width) of each fixed-width column.
FIDE_TXT_COLUMNS = (
    ("ID Number", 15),
    ("Name", 61),
    ("Fed", 4),
    ("Sex", 4),
    ("Tit", 5),
    ("WTit", 5),
    ("OTit", 15),
    ("FOA", 4),
    ("{month}", 6),
    ("Gms", 4),
    ("K", 3),
    ("B-day", 6),
    ("Flag", 4),
)


def supplement(
    view: View,
    day: str | None,
    systems: Sequence[str],
    min_games: int = 0,
    sort: str = "id",
    list_name: str | None = None,
    filters: Mapping[str, str | None] | None = None,
) -> list[dict[str, Any]]:
    """The published list on `day` (or the recorded list `list_name`, `view` as known at it):
    one row per member with their rating in each of `systems` (those with at least `min_games`
    games), only the members the `filters` keep (federation, sex, age group by the list's
    year, club: `projections.list_filters`, as the list pages), sorted by `id`, `name` or
    `rating` (the first system's, highest first)."""
    members: dict[str, dict[str, Any]] = {}
    for system in systems:
        for row in rating_supplement(view, system, day, list_name):
            if row["games"] < min_games:
                continue
            member = members.setdefault(
                row["id"], {"id": row["id"], "name": row["name"], "ratings": {}}
            )
            member["ratings"][system] = {
                k: row[k] for k in ("official_rating", "games", "established", "floor")
            }
    profiles = queries.profiles(view)
    for member in members.values():
        card = queries.card(profiles.get(member["id"], {}))
        member |= {k: card[k] for k in ("federation", "birth_year", "sex", "title", "club")}
    rows = list(members.values())
    if filters and any(filters.values()):
        listed = queries.published_list(view, list_name) if day is None and list_name else None
        year = date.fromisoformat(day or (listed.as_of if listed else "")).year
        rows = [m for m in rows if list_filters.kept(m, filters, year)]
    if sort == "name":
        rows.sort(key=lambda m: (m["name"] is None, (m["name"] or "").casefold(), m["id"]))
    elif sort == "rating":
        first = systems[0]
        rows.sort(key=lambda m: (-m["ratings"].get(first, {}).get("official_rating", -1), m["id"]))
    return rows


def supplement_mark(rating: Mapping[str, Any] | None) -> str:
    """`1523`, or `1234P12` for a provisional US Chess rating (§1: established after 25 games)."""
    if rating is None:
        return ""
    provisional = rating.get("established") is False
    return f"{rating['official_rating']}" + (f"P{rating['games']}" if provisional else "")


def supplement_lines(rows: Sequence[Mapping[str, Any]], systems: Sequence[str]) -> list[str]:
    """The US Chess layout: id, name, then each system's rating (P and N when provisional) and
    N, columns aligned however long the names."""
    width = max([len("Name"), *(len(r["name"] or "") for r in rows)])
    head = f"{'ID':<10} {'Name':<{width}}" + "".join(f" {s:>8} {'N':>4}" for s in systems)
    lines = [head]
    for r in rows:
        cells = "".join(
            f" {supplement_mark(r['ratings'].get(s)):>8} "
            f"{r['ratings'][s]['games'] if s in r['ratings'] else '':>4}"
            for s in systems
        )
        lines.append((f"{r['id']:<10} {r['name'] or '':<{width}}" + cells).rstrip())
    return lines


def supplement_records(
    rows: Sequence[Mapping[str, Any]], systems: Sequence[str]
) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and one flat record per member (CSV, TSV, NL): id, name, federation, birth
    year, then rating, N and established for each system."""
    columns = ["id", "name", "federation", "birth_year"]
    for s in systems:
        columns += [f"{s}_rating", f"{s}_games", f"{s}_established"]
    flat = []
    for r in rows:
        row = {c: r.get(c) for c in columns[:4]}
        for s in systems:
            got = r["ratings"].get(s) or {}
            row[f"{s}_rating"] = got.get("official_rating")
            row[f"{s}_games"] = got.get("games")
            row[f"{s}_established"] = got.get("established")
        flat.append(row)
    return columns, flat


def fide_txt(rows: Sequence[Mapping[str, Any]], system: str, day: str) -> list[str]:
    """The FIDE rating-list TXT layout, one line per player: ID Number, Name, Fed, Sex, Tit,
    WTit, OTit, FOA, the rating under the list's month (`NOV25`), Gms, K, B-day, Flag. Sex is
    `M`/`F`, Tit the title, WTit a woman's title, Flag `w` for a woman (FIDE's list); OTit, FOA
    and K are not in the ledger's profiles and stay blank."""
    month = date.fromisoformat(day).strftime("%b%y").upper()
    head = "".join(f"{h.format(month=month):<{w}}" for h, w in FIDE_TXT_COLUMNS).rstrip()
    lines = [head]
    for r in rows:
        rating = r["ratings"].get(system)
        if rating is None:
            continue
        values = (
            r["id"],
            r["name"] or "",
            r["federation"] or "",
            {"m": "M", "w": "F"}.get(r.get("sex") or "", ""),
            r.get("title") or "",
            r["title"] if (r.get("title") or "").startswith("W") else "",
            "",
            "",
            rating["official_rating"],
            rating["games"],
            "",
            r["birth_year"] or "",
            "w" if r.get("sex") == "w" else "",
        )
        lines.append(
            "".join(
                f"{str(v)[: w - 1]:<{w}}"
                for v, (_, w) in zip(values, FIDE_TXT_COLUMNS, strict=True)
            ).rstrip()
        )
    return lines


def history_export(view: View, player: str, system: str) -> list[dict[str, Any]]:
    """A player's history rows in one system, in rating order, as flat export rows."""
    return [
        {c: r.get(c) for c in HISTORY_EXPORT_COLUMNS} for r in queries.history(view, player, system)
    ]


@dataclass(frozen=True)
class RatingChange:
    """One player's rating in one system before and after a section."""

    pre: float | None
    games_before: int
    post: float | None
    official: int | None
    games_after: int
    change: float | None = None  # FIDE: this section's ΔR (10.64; 8.3.2 d)
    k: float | None = None  # FIDE: K
    performance: float | None = None  # FIDE: an unrated player's Ru
    below: int | None = None  # FIDE 7.2.1: the floor that shows him unrated after it

    def text(self, family: str = DEFAULT) -> str:
        """`1500P10 → 1520P13`: P and N while `family` does not hold a rating established
        (`Family.established`; US Chess §1: "established if it is based upon more than 25
        games"; FIDE and the ICU never write P). FIDE: `Ro 2615
        ΔR -2.80 K 10` (its list sums the period's ΔR), or an unrated player's Ru."""
        dropped = "" if self.below is None else f", {unrated_below(self.below)}"
        if self.change is not None and self.pre is not None:
            return f"Ro {_number(self.pre)} ΔR {self.change:+.2f} K {_number(self.k)}{dropped}"
        if self.performance is not None and self.pre is None:
            return f"unrated, Ru {_number(self.performance)}" + (
                "" if self.official is None else f" → {self.official}"
            )
        if self.official is None:
            return "unrated"
        pre = "unrated"
        if self.pre is not None:
            pre = _rating(round_half_up(self.pre), self.games_before, family)
        return f"{pre} → {_rating(self.official, self.games_after, family)}"


@dataclass(frozen=True)
class CrosstableRow:
    pair: int
    player: str
    name: str | None
    cells: tuple[str, ...]
    total: float
    ratings: Mapping[str, RatingChange]


@dataclass(frozen=True)
class Crosstable:
    section_id: str
    event_name: str
    start_date: str
    end_date: str
    time_control: str
    status: str
    family: str  # the family it is rated under: how its ratings are written
    systems: tuple[str, ...]
    rows: tuple[CrosstableRow, ...]
    not_rated: str | None = None  # why the section has no rating under the view's family
    unrated: Mapping[str, str] = field(default_factory=dict)  # each unrated player's reason


def crosstable(
    view: View, section_id: str, systems: Sequence[str] | None = None
) -> Crosstable | None:
    """A rated section's crosstable: the players in the report's order by their pair numbers
    (the pairing program's start numbers where the report keeps them), each round's
    result against a pair number, the total, and pre → post ratings in each system (those
    given, else every system the section was rated in). None if the section is not rated."""
    payload = queries.section_report(view, section_id)
    if payload is None:
        return None
    changes: dict[str, dict[str, RatingChange]] = {}
    periods = rates_from_previous_list(view.family)  # ΔR waits for the list (FIDE 10.65)
    for player, system, pre, post, official, before, after, k, detail in queries.section_changes(
        view, section_id
    ):
        found = json.loads(detail or "{}") if periods else {}
        if post is not None or found.keys() & {"performance", "below"}:
            changes.setdefault(system, {})[player] = RatingChange(
                pre,
                before,
                post,
                official,
                after,
                None if pre is None or not periods else found.get("rating_change", 0.0),
                k,
                found.get("performance"),
                found.get("below"),
            )
    shown = tuple(systems or sorted(changes, key=system_order(view)))
    ids = [p["id"] for p in payload["players"]]
    pair = start_numbers(payload)
    rounds = max(x["round"] for x in (*payload["games"], *payload.get("byes", [])))
    cells = _cells(payload, pair)
    names = queries.names(view, ids)
    rows = []
    for pid in ids:
        played = [cells.get((pid, r), UNPLAYED) for r in range(1, rounds + 1)]
        rows.append(
            CrosstableRow(
                pair[pid],
                pid,
                names.get(pid),
                tuple(text for text, _ in played),
                sum(score for _, score in played),
                {s: changes[s][pid] for s in shown if pid in changes.get(s, {})},
            )
        )
    status = queries.section_status(view, section_id) or "submitted"
    why = unrated.reasons(view, section_id)
    return Crosstable(
        section_id,
        payload["event_name"],
        payload["start_date"],
        payload["end_date"],
        payload["time_control"],
        status,
        view.family,
        shown,
        tuple(rows),
        why.section if why else None,
        why.players if why else {},
    )


def crosstable_lines(table: Crosstable) -> list[str]:
    """The crosstable in the familiar US Chess text form, one line per player."""
    players = [f"{r.name} {r.player}" if r.name else r.player for r in table.rows]
    width = max(len("Player"), *(len(p) for p in players))
    cell = max(4, *(len(c) for r in table.rows for c in r.cells))
    rounds = len(table.rows[0].cells)
    texts = {
        s: [r.ratings[s].text(table.family) if s in r.ratings else "-" for r in table.rows]
        for s in table.systems
    }
    named = {s: rules_family(table.family).words.system(s) for s in table.systems}
    system_width = {s: max(len(named[s]), *(len(t) for t in texts[s])) for s in table.systems}
    head = [f"{'Pair':>4}  {'Player':<{width}}"]
    head += [f"{'Rd ' + str(n):<{cell}}" for n in range(1, rounds + 1)]
    head += [f"{'Total':>5}", *(f"{named[s]:<{system_width[s]}}" for s in table.systems)]
    lines = [
        f"{table.event_name} ({table.section_id})",
        f"{table.start_date} to {table.end_date}  {table.time_control}  {table.status}",
        *([f"not rated: {table.not_rated}"] if table.not_rated else []),
        "  ".join(head).rstrip(),
    ]
    for i, (row, player) in enumerate(zip(table.rows, players, strict=True)):
        parts = [f"{row.pair:>4}  {player:<{width}}"]
        parts += [f"{c:<{cell}}" for c in row.cells]
        parts += [f"{row.total:>5.1f}", *(f"{texts[s][i]:<{system_width[s]}}" for s in texts)]
        if row.player in table.unrated and not table.not_rated:
            parts.append(f"not rated: {table.unrated[row.player]}")
        lines.append("  ".join(parts).rstrip())
    return lines


def _number(value: float | None) -> str:
    """A FIDE value as printed: whole numbers without decimals."""
    if value is None:
        return "-"
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _cells(
    payload: Mapping[str, Any], pair: Mapping[str, int]
) -> dict[tuple[str, int], tuple[str, float]]:
    cells: dict[tuple[str, int], tuple[str, float]] = {}
    for g in payload["games"]:
        (white, ws), (black, bs) = GAME_CELLS[g["result"]]
        cells[(g["white"], g["round"])] = (f"{white}{pair[g['black']]}", ws)
        cells[(g["black"], g["round"])] = (f"{black}{pair[g['white']]}", bs)
    for b in payload.get("byes", []):
        cells[(b["player"], b["round"])] = BYE_CELLS[b["bye"]]
    return cells


def _name(profile: str | None) -> str | None:
    return None if profile is None else json.loads(profile).get("name")


def _rating(rating: int, games: int, family: str) -> str:
    return f"{rating}" if rules_family(family).established(games) else f"{rating}P{games}"
