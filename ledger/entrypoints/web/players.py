"""The player pages: search, a player's card and ratings, his history in one system, explain of
one change, and what a published list said of him (with its proof bundle)."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from ledger.entrypoints.web.chart import charts
from ledger.entrypoints.web.params import HttpError, When, whole
from ledger.entrypoints.web.render import Page, html
from ledger.reading import Readable
from ledger.rules.families import family as rules_family
from projections import explain as ex
from projections import queries, unrated
from projections.projector import View
from projections.queries.common import system_order
from projections.timetravel import NoSuchList, list_view

SEARCH_LIMIT = 50


def search(view: View, query: dict[str, str], when: When) -> tuple[object, Page]:
    text = query.get("q", "").strip()
    offset = whole(query.get("offset", "0"), "offset")
    found: dict[str, Any] = {"total": 0, "players": []}
    if text:
        found = queries.search_players(view, text, SEARCH_LIMIT, offset)
    data = {"query": text, "offset": offset, **found}
    page = html(
        "search.html",
        title="Players",
        when=when,
        keep={"q": text},
        text=text,
        offset=offset,
        limit=SEARCH_LIMIT,
        **found,
    )
    return data, page


def player_data(view: View, player: str, when: When) -> dict[str, Any]:
    return shown(view, queries.player(view, player), player, when)


def shown(view: View, out: dict[str, Any] | None, player: str, when: When) -> dict[str, Any]:
    """A player's answer (`queries.player`'s) as his pages show it at `when`."""
    if out is None:
        raise HttpError("404 Not Found", f"player {player!r} is not in the ledger")
    if when.as_of is not None:
        out["ratings"] = queries.ratings_as_of(view, player, when.as_of)
        out.pop("unrated", None)  # said of the last list, not of `as_of`'s
    out["ratings"] = {s: out["ratings"][s] for s in sorted(out["ratings"], key=system_order(view))}
    out["as_of"] = when.as_of
    out["position"] = when.position
    fields = rules_family(view.family).page_fields
    for r in out["ratings"].values():
        r |= fields(r)
    return out


def player(
    view: View, player: str, when: When, memo: dict[Any, Any] | None = None
) -> tuple[object, Page]:
    """His page: what it reads of him read once (`queries.player_reads`: his profile, the
    merges in force, his history rows); a section's reasons for rating him not kept in
    `memo` for its other players' pages (the model's state's: `sessions.Memos`)."""
    reads = queries.player_reads(view, player)
    data = shown(view, None if reads is None else reads.out, player, when)
    assert reads is not None
    profile, merged = reads.profile, reads.merged
    data["card"] = None if profile is None else queries.merged_card(view, player, profile, merged)
    ids = queries.records_of(player, merged)
    played = queries.played_sections(view, player, ids, reads.history)
    if when.as_of is not None:
        played = [t for t in played if t["end_date"] <= when.as_of]
    memo = {} if memo is None else memo
    for t in played:
        if t["ratings"]:
            continue
        key = ("not_rated", t["section_id"])
        why = memo.get(key, memo)  # `memo` itself: not worked out yet
        if why is memo:
            why = memo[key] = unrated.reasons(view, t["section_id"])
        if why is not None and player in why.players:
            t["not_rated"] = why.players[player]  # only on a section that rated him not
    data["sections"] = played

    def page() -> str:
        """The HTML, its charts and lists read only for it (never for the JSON twin)."""
        words = rules_family(view.family).words
        fields = [
            (k, label)
            for k, label in words.ratings
            if any(r.get(k) is not None for r in data["ratings"].values())
        ]
        series = {s: points(queries.history(view, player, s), when.as_of) for s in data["ratings"]}
        return html(
            "player.html",
            title=_heading(player, data["card"]),
            when=when,
            keep=None,
            player=player,
            data=data,
            card=data["card"] or {},
            bounds=words.bounds,
            fields=fields,
            chart=charts({words.system(s): p for s, p in series.items()})
            if any(series.values())
            else "",
            played=played,
            lists=list(reversed(queries.published_lists(view, view.family))),
        )()

    return data, page


def _heading(player: str, card: dict[str, Any] | None) -> str:
    """`GM Sokolov, Ivan` as federations head a player's page; `Player ID` without a name."""
    if not card or not card["name"]:
        return f"Player {player}"
    return f"{card['title']} {card['name']}" if card["title"] else card["name"]


def on_list(
    view: View, ledger: Readable, player: str, name: str, when: When
) -> tuple[object, Page]:
    """What a published list said of a player: the read model as known at the list's cutoff."""
    systems = queries.systems_of(view, player)
    try:
        with list_view(ledger, view, name) as past:
            said = {s: queries.list_rating(past, player, s, name) for s in systems}
    except NoSuchList as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    said = {s: r for s, r in said.items() if r is not None}
    data = {"id": player, "list": name, "ratings": said}
    page = html(
        "on_list.html",
        title=f"Player {player} on the list {name}",
        when=when,
        keep=None,
        player=player,
        name=name,
        said=said,
    )
    return data, page


def proof(
    view: View, ledger: Readable, player: str, name: str, system: str | None, when: When
) -> tuple[object, Page]:
    """A player's proof bundle for a list (projections/proofs.py); its page is the JSON."""
    from projections.proofs import BundleError, make_bundle

    names = [x.name for x in queries.published_lists(view, view.family)]
    if name not in names:
        raise HttpError("404 Not Found", f"no {view.family} list named {name!r}")
    if system is None:
        raise HttpError("400 Bad Request", "give ?system= (the rating system of the row)")
    previous = names[names.index(name) - 1] if names.index(name) else None
    try:
        with (
            list_view(ledger, view, name) as at_list,
            list_view(ledger, view, previous) if previous else nullcontext() as before,
        ):
            bundle = make_bundle(ledger, at_list, before, name, player, system)
    except BundleError as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    said = rules_family(view.family).words.system(system)
    title = f"Proof of {player}'s {said} row on {name}"
    return bundle, html("proof.html", title=title, when=when, keep=None, bundle=bundle)


def points(rows: list[dict[str, Any]], as_of: str | None) -> list[tuple[str, float]]:
    """(end date, rating after) of each change, up to `as_of`: the chart's points."""
    return [
        (r["end_date"], r["post_rating"])
        for r in rows
        if r["post_rating"] is not None and (as_of is None or r["end_date"] <= as_of)
    ]


def history(view: View, player: str, system: str | None, when: When) -> tuple[object, Page]:
    name = player_data(view, player, when).get("name")
    systems = queries.systems_of(view, player)
    system = system or (systems[0] if systems else None)
    rows = [] if system is None else queries.history(view, player, system)
    return _history(view, player, name, system, systems, rows, when)


def history_known(
    view: View, player: str, system: str | None, when: When, position: int
) -> tuple[object, Page]:
    """`history` as known at `position`, read from the model's record (`queries.answers`
    holds for the player and his profile: issue 33), the same answer as a past model's."""
    if not queries.player_known_at(view, player, position):
        raise HttpError("404 Not Found", f"player {player!r} is not in the ledger")
    found = queries.history_known_at(view, player, position)
    systems = list(found)
    system = system or (systems[0] if systems else None)
    rows = found.get(system, []) if system else []
    name = queries.names(view, [player]).get(player)
    return _history(view, player, name, system, systems, rows, when)


def _history(
    view: View,
    player: str,
    name: str | None,
    system: str | None,
    systems: list[str],
    rows: list[dict[str, Any]],
    when: When,
) -> tuple[object, Page]:
    if when.as_of is not None:
        rows = [r for r in rows if r["end_date"] <= when.as_of]
    out = {"id": player, "system": system, "as_of": when.as_of, "history": rows}
    words = rules_family(view.family).words
    page = html(
        "history.html",
        title=f"History of {player} ({words.system(system) if system else 'unrated'})",
        when=when,
        keep={"system": system},
        player=player,
        name=name,
        system=system,
        systems=systems,
        rows=[(r, item_params(r["item_key"])) for r in rows],
        fields=words.history,
        bounds=words.bounds,
        chart=charts({words.system(system): points(rows, None)}) if system and rows else "",
    )
    return out, page


def item_params(key: str) -> dict[str, str]:
    """The explain parameter of an item: `section=ID` for a section, else `item=KEY`."""
    kind, _, name = key.partition(":")
    return {"section": name} if kind == "section" else {"item": key}


def explain(view: View, player: str, query: dict[str, str], when: When) -> tuple[object, Page]:
    system = query.get("system")
    section = query.get("section")
    item = "section:" + section if section else query.get("item")
    if not system:
        raise HttpError("400 Bad Request", "explain needs ?system=")
    if item is None and when.as_of is None:
        raise HttpError("400 Bad Request", "explain needs ?section=, ?item= or ?as_of=")
    try:
        out = ex.explain(view, player, system, item, None if item else when.as_of)
    except ex.NotFound as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    games = out.get("games") or []
    page = html(
        "explain.html",
        title=f"Explain {player} {rules_family(view.family).words.system(system)} "
        f"{out['item']['key'] if 'item' in out else section}",
        when=when,
        keep={"system": system, "section": section, "item": None if section else item},
        player=player,
        system=system,
        out=out,
        games=games,
        total=sum(g["result"] for g in games),
        expected=sum(g["expected"] for g in games),
    )
    return out, page
