"""Read-model commands: `catch-up`, `rebuild`, `player`, `history`, `rating`."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from ledger.application import RatingsLedger
from ledger.cli_ledger import Store, _reported
from ledger.log import LedgerEntry, read_entries, read_verified_entries
from ledger.progress import progress
from ledger.rules.uschess.versions import VERSIONS, Amendment
from ledger.store import DEFAULT_STORE, view_path
from projections.view import View, WhatIf

ViewPath = Annotated[
    Path | None,
    typer.Option(
        "--view",
        envvar="RATINGS_LEDGER_VIEW",
        help="The read model's SQLite file (default: beside a SQLite store, "
        "else ./ratings-ledger-view.db)",
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON")]
Family = Annotated[
    str,
    typer.Option(
        "--rules-family",
        help="Rate under uschess (default), fide (FIDE 10.0) or icu; one read model each",
    ),
]


def register(app: typer.Typer) -> None:
    """Add the read-model commands to the `ratings-ledger` app."""
    app.command("catch-up")(catch_up)
    app.command("rebuild")(rebuild)
    app.command("player")(player)
    app.command("history")(history)
    app.command("rating")(rating)
    app.command("explain")(explain)
    app.command("replay")(replay)
    app.command("diff")(diff)


KnownAt = Annotated[
    str | None,
    typer.Option(
        "--as-known-at",
        help="What the ledger said at this time (ISO date-time), before later corrections",
    ),
]
Position = Annotated[
    int | None, typer.Option("--position", min=1, help="What the ledger said at this position")
]


@contextmanager
def _view(
    store: str,
    view: Path | None,
    family: str,
    known_at: str | None = None,
    position: int | None = None,
) -> Iterator[View]:
    """The read model caught up; or, bitemporally, as the ledger stood at a time or position."""
    with (
        _reported(),
        closing(_open(store, view, family)) as v,
        closing(RatingsLedger(store, readonly=True)) as ledger,
    ):
        if known_at is not None:
            position = _position_at(ledger, known_at)
        with view_at(ledger, v, position) as shown:
            yield shown


@contextmanager
def view_at(ledger: RatingsLedger, v: View, position: int | None = None) -> Iterator[View]:
    """`v` caught up with the ledger; with `position`, the read model as the ledger stood
    then (built in a temporary file, removed on exit)."""
    v.catch_up(_entries(ledger, v.last_position, "catching up"))
    if position is None:
        yield v
        return
    with tempfile.TemporaryDirectory() as tmp:
        past = v.at_position(
            lambda after: read_verified_entries(ledger, after), position, Path(tmp) / "past.db"
        )
        with closing(past):
            yield past


def position_at(ledger: RatingsLedger, moment: datetime) -> int:
    """The last ledger position recorded at or before `moment` (UTC if naive); 0 if none."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    position = 0
    for e in read_entries(ledger):
        if datetime.fromisoformat(e.recorded_at) > moment:
            break
        position = e.position
    return position


def _position_at(ledger: RatingsLedger, known_at: str) -> int:
    """The last ledger position recorded at or before `known_at`."""
    try:
        moment = datetime.fromisoformat(known_at)
    except ValueError:
        _fail(f"--as-known-at: {known_at!r} is not an ISO date or date-time")
    position = position_at(ledger, moment)
    if position == 0:
        _fail(f"--as-known-at: the ledger had no entries at {known_at}")
    return position


def _entries(ledger: RatingsLedger, after: int, label: str) -> Iterator[LedgerEntry]:
    """The ledger's entries after `after`, their signatures checked (`read_verified_entries`:
    an entry whose signature fails stops the catch-up or rebuild with one line naming its
    position), with a progress bar on a terminal."""
    last = ledger.recorder.max_notification_id() or 0
    return progress(read_verified_entries(ledger, after), max(last - after, 0), label)


def _open(store: str, view: Path | None, family: str) -> View:
    try:
        return View(view_path(store, view, family), family)
    except ValueError as exc:
        _fail(str(exc))


def catch_up(
    store: Store = DEFAULT_STORE, view: ViewPath = None, family: Family = "uschess"
) -> None:
    """Bring the read model up to date with the ledger (incremental)."""
    with (
        _reported(),
        closing(_open(store, view, family)) as v,
        closing(RatingsLedger(store, readonly=True)) as ledger,
    ):
        stats = v.catch_up(_entries(ledger, v.last_position, "catching up"))
    typer.echo(
        f"caught up to position {stats.last_position}: {stats.entries} entries, "
        f"{stats.items_rated} items rated, {len(stats.players)} players changed"
    )


def rebuild(
    store: Store = DEFAULT_STORE, view: ViewPath = None, family: Family = "uschess"
) -> None:
    """Replay the whole ledger into an empty read model."""
    with (
        _reported(),
        closing(_open(store, view, family)) as v,
        closing(RatingsLedger(store, readonly=True)) as ledger,
    ):
        stats = v.rebuild(_entries(ledger, 0, "rebuilding"))
        digest = v.digest()
    typer.echo(
        f"rebuilt to position {stats.last_position}: {stats.items_rated} items rated, "
        f"{stats.rows} history rows; digest {digest}"
    )


def player(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """A player's ratings in every system they are rated in."""
    with _view(store, view, family, known_at, position) as v:
        out = v.player(player_id)
    if out is None:
        _missing(f"player {player_id!r} is not in the ledger")
    if as_json:
        _print(out)
        return
    typer.echo(f"{out['id']}  {out.get('name') or ''}")
    for system, r in out["ratings"].items():
        flag = "" if r["established"] else f"  (P{r['games']})"
        typer.echo(
            f"  {system:<5} {r['official_rating']:>5}{flag}  N={r['games']}  "
            f"W/D/L={r['wins']}/{r['draws']}/{r['losses']}  floor={r['floor']} ({r['floor_bound']})"
            + (f"  ceiling={r['ceiling']}" if r["ceiling"] is not None else "")
        )


def history(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: Annotated[str, typer.Option("--system", help="Rating system (OTBR…, FIDE, ICU)")],
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """Every change of a player's rating in one system, in rating order."""
    with _view(store, view, family, known_at, position) as v:
        rows = v.history(player_id, system)
    if as_json:
        _print(rows)
        return
    for r in rows:
        pre = "unrated" if r["pre_rating"] is None else f"{r['pre_rating']:.2f}"
        post = "-" if r["post_rating"] is None else f"{r['post_rating']:.2f}"
        typer.echo(
            f"{r['end_date']}  {r['item_key']:<40} {pre:>9} -> {post:>9}  "
            f"N {r['games_before']}->{r['games_after']}  {r['formula']}  [{r['rules']}]"
        )


def rating(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: Annotated[str, typer.Option("--system", help="Rating system (OTBR…, FIDE, ICU)")],
    as_of: Annotated[str, typer.Option("--as-of", help="YYYY-MM-DD")],
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """The rating in effect on a date (after every item that ended on or before it)."""
    try:
        day = date.fromisoformat(as_of).isoformat()
    except ValueError:
        _fail(f"--as-of: {as_of!r} is not a date (YYYY-MM-DD)")
    with _view(store, view, family, known_at, position) as v:
        out = v.rating_as_of(player_id, system, day)
    if out is None:
        _missing(f"{player_id!r} had no {system} rating on {day}")
    if as_json:
        _print(out)
    else:
        typer.echo(f"{player_id} {system} on {day}: {out['official_rating']} ({out['rating']})")


def explain(
    player_id: Annotated[str, typer.Argument(help="Member id")],
    system: Annotated[str, typer.Option("--system", help="Rating system (OTBR…, FIDE, ICU)")],
    section: Annotated[
        str | None, typer.Option("--section", help="A section id (or item key)")
    ] = None,
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="The change in effect on YYYY-MM-DD")
    ] = None,
    as_json: AsJson = False,
    store: Store = DEFAULT_STORE,
    view: ViewPath = None,
    family: Family = "uschess",
    known_at: KnownAt = None,
    position: Position = None,
) -> None:
    """Every number behind a rating change: inputs, rules, each step, floors (recomputed)."""
    from projections import explain as ex

    if (section is None) == (as_of is None):
        _fail("give exactly one of --section and --as-of")
    if as_of is not None:
        try:
            as_of = date.fromisoformat(as_of).isoformat()
        except ValueError:
            _fail(f"--as-of: {as_of!r} is not a date (YYYY-MM-DD)")
    with _view(store, view, family, known_at, position) as v:
        try:
            out = ex.explain(v, player_id, system, section, as_of)
        except ex.NotFound as exc:
            _missing(str(exc))
    if as_json:
        _print(out)
    else:
        typer.echo(ex.render(out))


def parse_amend(text: str) -> dict[str, Any]:
    """`PARAM=VALUE@DATE[..UNTIL]`, e.g. `bonus_multiplier=10@2025-01-01..2026-01-01`."""
    try:
        parameter, rest = text.split("=", 1)
        value, dates = rest.rsplit("@", 1)
        effective, _, until = dates.partition("..")
        parsed: Any = json.loads(value)
        amendment = Amendment(
            parameter,
            parsed,
            date.fromisoformat(effective),
            date.fromisoformat(until) if until else None,
        )
    except ValueError as exc:
        _fail(f"--amend {text!r}: {exc} (expected PARAM=VALUE@YYYY-MM-DD[..YYYY-MM-DD])")
    return {
        "parameter": amendment.parameter,
        "value": parsed,
        "effective": effective,
        "until": until or None,
    }


def replay(
    to: Annotated[Path, typer.Option("--to", help="The what-if read model to write")],
    rules: Annotated[
        str | None, typer.Option("--rules", help="Rate every section under this version")
    ] = None,
    amend: Annotated[
        list[str] | None,
        typer.Option(
            "--amend", help="PARAM=VALUE@DATE[..UNTIL], e.g. bonus_multiplier=10@2025-01-01"
        ),
    ] = None,
    compare: Annotated[
        Path | None, typer.Option("--compare", help="Also diff against this read model")
    ] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Build a what-if read model under other rules, without touching the ledger."""
    from projections import compare as cmp

    if rules is not None and rules not in VERSIONS:
        _fail(f"--rules: unknown version {rules!r}; known: {', '.join(VERSIONS)}")
    what_if = WhatIf(rules, tuple(parse_amend(a) for a in amend or ()))
    if to.exists():
        _fail(f"--to: {to} exists; a what-if replay writes a new read model")
    with (
        _reported(),
        closing(View(to, "uschess", what_if)) as v,
        closing(RatingsLedger(store, readonly=True)) as ledger,
    ):
        stats = v.rebuild(_entries(ledger, 0, "replaying"))
        digest = v.digest()
    typer.echo(
        f"{what_if}: {stats.items_rated} items rated into {to}, {stats.rows} history rows; "
        f"digest {digest}"
    )
    if compare is not None:
        typer.echo(cmp.render(cmp.diff(str(compare), str(to))))


def diff(
    view_a: Annotated[Path, typer.Argument(help="Read model A")],
    view_b: Annotated[Path, typer.Argument(help="Read model B")],
    system: Annotated[str | None, typer.Option("--system", help="Only this system")] = None,
    as_json: AsJson = False,
) -> None:
    """Who changes between two read models, and by how much."""
    from projections import compare as cmp

    for path in (view_a, view_b):
        if not path.exists():
            _fail(f"{path}: no such read model")
    out = cmp.diff(str(view_a), str(view_b), system)
    typer.echo(json.dumps(out, indent=2) if as_json else cmp.render(out))


def _print(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _missing(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)
