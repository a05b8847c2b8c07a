"""Writes given as options: a director's decisions (`override`, `revoke-override`,
`amend-rules`, `void`, `merge-players`), a prize's floor and FIDE's uplift."""

from __future__ import annotations

import json
from contextlib import closing
from typing import Annotated

import typer

from ledger.entrypoints.cli.common import Actor, Store, SystemName, reported, show_entries
from ledger.entrypoints.cli.writing import AsJson, DryRun, Reason, ViewOption, _number, _report
from ledger.store import DEFAULT_STORE


def fide_uplift(
    effective: Annotated[str, typer.Option(help="The FIDE list it raises (YYYY-MM-DD)")],
    reason: Annotated[str, typer.Option(help="Why: the decision it records")],
    actor: Actor,
    ceiling: Annotated[str, typer.Option(help="Ratings below this are raised")] = "2000",
    share: Annotated[str, typer.Option(help="By this share of the gap to the ceiling")] = "0.4",
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record FIDE's one-time uplift of a list (1 March 2024: every rating below 2000 raised
    by 0.4 × (2000 − R)), once; the FIDE read model applies it to that list."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import RecordFideUplift

    data = {"effective": effective, "reason": reason}
    with reported():
        uplift = commands.parse(
            RecordFideUplift, {**data, "ceiling": _number(ceiling), "share": _number(share)}
        )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.decisions.record_fide_uplift(uplift, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def award_money_floor(
    player: Annotated[str, typer.Option(help="Member id of the prize winner")],
    amount: Annotated[str, typer.Option(help="Prize amount in dollars")],
    limit: Annotated[str, typer.Option(help="The prize's rating limit: 1800 for under-1800")],
    date: Annotated[str, typer.Option(help="Date of the prize (YYYY-MM-DD)")],
    actor: Actor,
    system: SystemName = "OTBR",
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a large cash prize that may raise the winner's floor (§5); print what it changes,
    or why it changes nothing."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import AwardMoneyFloor

    data = {"player": player, "amount": _number(amount), "limit": _number(limit), "date": date}
    with reported():
        award = commands.parse(AwardMoneyFloor, {**data, "system": system})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.decisions.award_money_floor(award, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json, always=False)


def override(
    player: Annotated[str, typer.Option(help="Member id")],
    action: Annotated[
        str,
        typer.Option(
            help="impose_ceiling, lift_ceiling, set_floor, grant_floor_lowering or adjust_rating"
        ),
    ],
    effective: Annotated[str, typer.Option(help="Effective date (YYYY-MM-DD)")],
    reason: Reason,
    actor: Actor,
    system: SystemName = "OTBR",
    value: Annotated[str | None, typer.Option(help="The ceiling, floor or rating")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a director's decision about a player's rating (§7); print what it changes."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import DirectorOverride

    data: dict[str, object] = {
        "player": player,
        "action": action,
        "system": system,
        "effective": effective,
    }
    if value is not None:
        data["value"] = _number(value)
    with reported():
        decision = commands.parse(DirectorOverride, {**data, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.decisions.override(decision, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def revoke_override(
    position: Annotated[
        int, typer.Argument(metavar="POSITION", min=1, help="The decision's ledger position")
    ],
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Revoke a director's decision (a new fact; the decision stays in the ledger); print the
    ratings it changes."""
    from ledger.application import RatingsLedger

    with reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.decisions.revoke_override(position, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def amend_rules(
    parameter: Annotated[str, typer.Option(help="bonus_multiplier, fide_conversion, ...")],
    value: Annotated[str, typer.Option(help='A number, or JSON {"split", "low", "high"}')],
    effective: Annotated[str, typer.Option(help="First date in force (YYYY-MM-DD)")],
    reason: Reason,
    actor: Actor,
    until: Annotated[str | None, typer.Option(help="First date no longer in force")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a rules parameter's value from a date (it may be recorded after that date);
    print the ratings the (retroactive) change re-rates."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import AmendRules

    try:
        parsed: object = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    data = {"parameter": parameter, "value": parsed, "effective": effective, "reason": reason}
    if until is not None:
        data["until"] = until
    with reported():
        amendment = commands.parse(AmendRules, data)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.decisions.amend_rules(amendment, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def void(
    position: Annotated[int, typer.Argument(help="The ledger position of the entry to void")],
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Take back one entry's effect on ratings (directors only); a section is withdrawn or
    corrected instead."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import VoidEntry

    with reported():
        decision = commands.parse(VoidEntry, {"position": position, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.decisions.void(decision, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)


def merge_players(
    source: Annotated[str, typer.Argument(metavar="FROM", help="The record merged away")],
    into: Annotated[str, typer.Argument(metavar="INTO", help="The record it joins")],
    reason: Reason,
    actor: Actor,
    force: Annotated[
        bool, typer.Option("--force", help="Merge over a profile conflict (INTO's fields stand)")
    ] = False,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Join two records of one person: FROM's games, items and the profile fields INTO lacks
    count as INTO's, its history re-rated; print the ratings it changes."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import MergePlayers

    with reported():
        merge = commands.parse(
            MergePlayers, {"player": source, "into": into, "reason": reason, "force": force}
        )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.players.merge(merge, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def set_aside(
    positions: Annotated[
        list[int],
        typer.Argument(metavar="POSITION...", help="The entry (or entries) failing verification"),
    ],
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
) -> None:
    """Set aside an entry that fails verification (directors only): it stays in the ledger and
    its tree, but reads go on past it without applying it, and `verify` lists it as set aside."""
    from ledger import commands
    from ledger.application import RatingsLedger
    from ledger.commands import SetAside

    with reported():
        decision = commands.parse(SetAside, {"positions": positions, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.asides.set_aside(decision, actor=actor)
    show_entries(entries, dry_run, as_json, ledger.receipt)
