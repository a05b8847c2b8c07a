"""Read-model commands: `catch-up`, `rebuild`, `player`, `history`, `rating`, `lists`,
`explain`, `problems`; the what-if `replay` and `diff` (`whatif`) are registered here too."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    SystemName,
    ViewPath,
    iso_day,
    missing,
    print_json,
    reported,
    rules_family,
    usage,
)
from ledger.entrypoints.cli.output import AsCsv, AsNl, AsTsv, chosen, emit
from ledger.entrypoints.cli.reading import (
    KnownAt,
    ListName,
    Position,
    _session,
    caught_up,
    player_known,
)
from ledger.entrypoints.cli.whatif import diff, replay
from ledger.entrypoints.player_text import system_words
from ledger.store import DEFAULT_STORE


def register(app: typer.Typer) -> None:
    """Add the read-model commands to the `ratings-ledger` app."""
    app.command("catch-up")(catch_up)
    app.command("rebuild")(rebuild)
    app.command("player")(player)
    app.command("history")(history)
    app.command("rating")(rating)
    app.command("lists")(lists)
    app.command("explain")(explain)
    app.command("replay")(replay)
    app.command("diff")(diff)
    app.command("problems")(problems)


HISTORY_CSV = (
    "end_date",
    "item_key",
    "pre_rating",
    "post_rating",
    "official_rating",
    "games_before",
    "games_after",
    "formula",
    "rules",
)


NO_LIST = "no list published; each section applied at once"


def catch_up(
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    as_json: AsJson = False,
) -> None:
    """Bring the read model up to date with the ledger (incremental)."""
    family = rules_family(store, family)
    with reported(), closing(_session(store, view, family)) as session:
        stats = session.catch_up()
    if as_json:
        print_json(
            {
                "last_position": stats.last_position,
                "entries": stats.entries,
                "items_rated": stats.items_rated,
                "players_changed": len(stats.players),
            }
        )
        return
    typer.echo(
        f"caught up to position {stats.last_position}: {stats.entries} entries, "
        f"{stats.items_rated} items rated, {len(stats.players)} players changed"
    )


def rebuild(
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    as_json: AsJson = False,
) -> None:
    """Replay the whole ledger into an empty read model."""
    family = rules_family(store, family)
    with reported(), closing(_session(store, view, family)) as session:
        stats = session.rebuild()
        digest = session.view.digest()
    if as_json:
        print_json(
            {
                "last_position": stats.last_position,
                "items_rated": stats.items_rated,
                "rows": stats.rows,
                "digest": digest,
            }
        )
        return
    typer.echo(
        f"rebuilt to position {stats.last_position}: {stats.items_rated} items rated, "
        f"{stats.rows} history rows; digest {digest}"
    )


def player(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """A player's card and ratings in every system they are rated in (a record a system)."""
    from ledger.entrypoints.player_text import player_lines
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family, known_at, position) as v:
        out = queries.player(v, player_id)
        card = queries.player_card(v, player_id)
    if out is None:
        missing(f"player {player_id!r} is not in the ledger")
    out["card"], out["family"] = card, family  # the family its ratings are rated under
    records = [{"id": player_id, "system": s, **r} for s, r in out["ratings"].items()]

    def table() -> None:
        for line in player_lines(out, False):
            typer.echo(line)

    first: Mapping[str, object] = next(iter(out["ratings"].values()), {})
    emit(fmt, records, ["id", "system", *first], table, out)


def merged_note(player_id: str, into: str) -> None:
    """One line on standard error when a record merged away is asked for: its games and ratings
    are the record it joined (`merge-players`)."""
    if into != player_id:
        typer.echo(f"note: {player_id} was merged into {into}; showing {into}", err=True)


def history(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: SystemName,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """Every change of a player's rating in one system, in rating order."""
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with player_known(store, view, family, player_id, known_at, position) as k:
        if k.position is None:
            known = queries.player(k.view, player_id) is not None
            into = queries.survivor(k.view, player_id)
            rows = queries.history(k.view, into, system)
        else:  # from the model's record of what it knew when (issue 33)
            known, into = queries.player_known_at(k.view, player_id, k.position), player_id
            found = queries.history_known_at(k.view, player_id, k.position, [system])
            rows = found.get(system, [])
    if not known:
        missing(f"player {player_id!r} is not in the ledger")
    merged_note(player_id, into)

    def table() -> None:
        for r in rows:
            pre = "unrated" if r["pre_rating"] is None else f"{r['pre_rating']:.2f}"
            post = "-" if r["post_rating"] is None else f"{r['post_rating']:.2f}"
            typer.echo(
                f"{r['end_date']}  {r['item_key']:<40} {pre:>9} → {post:>9}  "
                f"N {r['games_before']}→{r['games_after']}  {r['formula']}  [{r['rules']}]"
            )

    emit(fmt, rows, HISTORY_CSV, table)


def rating(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: SystemName,
    as_of: Annotated[str | None, typer.Option("--as-of", help="YYYY-MM-DD")] = None,
    list_name: ListName = None,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """The rating in effect on a date (after every item that ended on or before it), or on a
    published list; under FIDE periods, the published rating and the pending change."""
    from projections import queries
    from projections.periods import rates_from_previous_list

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    if list_name is not None:
        if as_of is not None or known_at is not None or position is not None:
            usage("--list says what a list said; leave out --as-of, --as-known-at, --position")
        family = rules_family(store, family)
        _list_rating(player_id, system, list_name, fmt, store, view, family)
        return
    if as_of is None:
        usage("give --as-of or --list")
    day = iso_day("--as-of", as_of)
    family = rules_family(store, family)
    with player_known(store, view, family, player_id, known_at, position) as k:
        v = k.view
        by_lists = queries.rates_by_lists(v)
        if k.position is not None:  # from the model's record of what it knew when (issue 33)
            out = queries.rating_known_at(v, player_id, system, day, k.position)
        else:
            into = queries.survivor(v, player_id)
            merged_note(player_id, into)
            player_id = into
            if by_lists and rates_from_previous_list(family):
                out = queries.published_and_pending(v, player_id, system, day)
            else:
                out = queries.rating_as_of(v, player_id, system, day)
    if out is None:
        missing(f"{player_id!r} had no {system} rating on {day}")
    if rates_from_previous_list(family) and not by_lists:
        out["note"] = NO_LIST

    def table() -> None:
        if "published" in out:
            typer.echo(_pending_line(out, system_words(family, [system])[system]))
            return
        said = system_words(family, [system])[system]
        typer.echo(f"{player_id} {said} on {day}: {out['official_rating']} ({out['rating']})")
        if "note" in out:
            typer.echo(out["note"])

    emit(fmt, [out], table=table, document=out)


def _list_rating(
    player_id: str,
    system: str,
    list_name: str,
    fmt: str,
    store: str,
    view: Path | None,
    family: str,
) -> None:
    from projections import queries

    with caught_up(store, view, family, list_name=list_name) as v:
        out = queries.list_rating(v, player_id, system, list_name)
    if out is None:
        missing(f"{player_id!r} had no {system} rating on the list {list_name!r}")
    said = system_words(family, [system])[system]
    emit(
        fmt,
        [out],
        table=lambda: typer.echo(
            f"{player_id} {said} on the list {out['list']} (as of {out['as_of']}): "
            f"{out['official_rating']} ({out['rating']})"
        ),
        document=out,
    )


def _pending_line(out: dict[str, Any], said: str) -> str:
    """`G FIDE standard on 2003-05-01: published 2287 (2286.95, list 2003-04); pending +1.5 (1
    section)` (`said`: the system as its family calls it)"""
    p = out["published"]
    text = f"{out['id']} {said} on {out['as_of']}: "
    if p is None:
        text += "unrated"
    else:
        source = f", list {p['list']}" if p["list"] else ", before any list"
        text += f"published {p['official_rating']} ({p['rating']}{source})"
    if out["pending_sections"]:
        text += (
            f"; pending {out['pending_change']:+} from {out['pending_sections']} "
            f"section{'s' if out['pending_sections'] != 1 else ''} (next list)"
        )
    if out["pending_results"]:
        text += f"; {out['pending_results']} Ru result(s) waiting for the next list"
    return text


def lists(
    list_family: Annotated[
        str | None, typer.Option("--family", help="Only this family's lists (uschess, fide, icu)")
    ] = None,
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """The published rating lists, each family's in the order published."""
    from projections import queries
    from projections.schema import LIST_COLUMNS

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        found = queries.published_lists(v, list_family)

    def table() -> None:
        if not found:
            typer.echo("no list published")
        for x in found:
            typer.echo(
                f"{x.family:<8} #{x.number:<3} {x.name:<20} as of {x.as_of}  "
                f"cutoff {x.cutoff_position}  (position {x.position})"
            )

    emit(fmt, [x.row() for x in found], LIST_COLUMNS, table)


def explain(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: SystemName,
    section: Annotated[
        str | None, typer.Option("--section", help="A section id (or item key)")
    ] = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="The change in effect on YYYY-MM-DD")
    ] = None,
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """Every number behind a rating change: inputs, rules, each step, floors (recomputed)."""
    from projections import explain as ex

    if (section is None) == (as_of is None):
        usage("give exactly one of --section and --as-of")
    as_of = iso_day("--as-of", as_of)
    family = rules_family(store, family)
    with caught_up(store, view, family, known_at, position) as v:
        try:
            out = ex.explain(v, player_id, system, section, as_of)
        except ex.NotFound as exc:
            missing(str(exc))
    if as_json:
        print_json({"family": family, **out})
    else:
        typer.echo(ex.render(out))


def problems(
    as_json: AsJson = False,
    as_csv: AsCsv = False,
    as_tsv: AsTsv = False,
    as_nl: AsNl = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = None,
) -> None:
    """The ledger entries the read model could not apply, and why."""
    from projections import queries

    fmt = chosen(as_json, as_csv, as_tsv, as_nl)
    family = rules_family(store, family)
    with caught_up(store, view, family) as v:
        rows = queries.problems(v)

    def table() -> None:
        if not rows:
            typer.echo("no problems: every entry was applied")
        for r in rows:
            typer.echo(
                f"{r['position']:>8}  {r['kind']:<24} {r['item_key'] or '-':<40} {r['reason']}"
            )

    emit(fmt, rows, ("position", "kind", "item_key", "reason"), table)
