"""What-if read models: `replay` the ledger under other rules, `diff` two read models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    print_json,
    reported,
    rules_family,
    system_name,
    usage,
)
from ledger.rules import families
from ledger.store import DEFAULT_STORE

if TYPE_CHECKING:
    from ledger.log import LedgerEntry
    from ledger.reading import Readable


def _entries(ledger: Readable, after: int, label: str) -> Iterator[LedgerEntry]:
    """The ledger's entries after `after`, with a progress bar on a terminal."""
    from ledger.evidence import read_verified_entries
    from ledger.progress import progress

    last = ledger.recorder.max_notification_id() or 0
    return progress(read_verified_entries(ledger, after), max(last - after, 0), label)


def parse_amend(text: str) -> dict[str, Any]:
    """`PARAM=VALUE@DATE[..UNTIL]`, e.g. `bonus_multiplier=10@2025-01-01..2026-01-01`."""
    from ledger.plausibility import check_parameter

    expected = "expected PARAM=VALUE@YYYY-MM-DD[..YYYY-MM-DD]"
    parameter, equals, rest = text.partition("=")
    value, at, dates = rest.rpartition("@")
    if not parameter or not equals:
        usage(f"--amend {text!r}: no PARAM= ({expected})")
    if not at or not value:
        usage(f"--amend {text!r}: no VALUE@DATE ({expected})")
    effective, _, until = dates.partition("..")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        usage(f"--amend {text!r}: {value!r} is not a number or JSON ({expected})")
    try:
        starts, ends = date.fromisoformat(effective), date.fromisoformat(until) if until else None
        amended = families.parse_parameter(parameter, parsed)
        if ends is not None and ends <= starts:
            raise ValueError("an amendment's until date must be after its effective date")
        check_parameter(parameter, amended)
    except (ValueError, TypeError) as exc:
        usage(f"--amend {text!r}: {exc} ({expected})")
    return {
        "parameter": parameter,
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
    as_json: AsJson = False,
    family: Family = None,
    without_uplift: Annotated[
        bool, typer.Option("--without-uplift", help="FIDE: as if no uplift had been recorded")
    ] = False,
) -> None:
    """Build a what-if read model under other rules, without touching the ledger."""
    from ledger.application import RatingsLedger
    from projections import compare as cmp
    from projections.projector import View
    from projections.what_if import WhatIf

    family = rules_family(store, family)
    found = families.family(family)
    if rules is not None and rules not in found.versions:
        usage(f"--rules: unknown {family} version {rules!r}; known: {', '.join(found.versions)}")
    amendments = tuple(parse_amend(a) for a in amend or ())
    for a in amendments:
        if a["parameter"] not in found.parameters:
            usage(f"--amend: {a['parameter']!r} is not a rules parameter of {family}")
    if without_uplift and found.periods is None:
        usage(f"--without-uplift: the {family} family has no uplift to leave out")
    what_if = WhatIf(rules, amendments, without_uplift)
    if to.exists():
        usage(f"--to: {to} exists; a what-if replay writes a new read model")
    with (
        reported(),
        closing(View(to, family, what_if)) as v,
        closing(RatingsLedger(store)) as ledger,
    ):
        stats = v.rebuild(_entries(ledger, 0, "replaying"))
        digest = v.digest()
    if as_json:
        print_json(
            {
                "what_if": str(what_if),
                "to": str(to),
                "items_rated": stats.items_rated,
                "rows": stats.rows,
                "digest": digest,
                "compare": None if compare is None else cmp.diff(str(compare), str(to)),
            }
        )
        return
    typer.echo(
        f"{what_if}: {stats.items_rated} items rated into {to}, {stats.rows} history rows; "
        f"digest {digest}"
    )
    if compare is not None:
        typer.echo(cmp.render(cmp.diff(str(compare), str(to))))


def diff(
    view_a: Annotated[Path, typer.Argument(help="Read model A")],
    view_b: Annotated[Path, typer.Argument(help="Read model B")],
    system: Annotated[
        str | None, typer.Option("--system", callback=system_name, help="Only this system")
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Who changes between two read models, and by how much."""
    from projections import compare as cmp

    for path in (view_a, view_b):
        if not path.exists():
            usage(f"{path}: no such read model")
    out = cmp.diff(str(view_a), str(view_b), system)
    typer.echo(json.dumps(out, indent=2) if as_json else cmp.render(out))
