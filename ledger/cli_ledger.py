"""The ledger's write verbs and `log` for the `ratings-ledger` command line.

Bad input exits 2, a conflict with other writers 3, an unusable store 1, a write the actor's
roles do not allow (or any write to a ledger never set up with `init --actor NAME`) 4; each with
one line on stderr and nothing appended.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from itertools import islice
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar

import typer
from pydantic import BaseModel

from ledger import commands
from ledger.application import RatingsLedger
from ledger.chain import Head, link_at
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
)
from ledger.domain import ConflictError, InvalidCommand, LedgerError
from ledger.errors import field_path
from ledger.log import LedgerEntry, read_entries
from ledger.roles import AccessDenied, Role
from ledger.store import DEFAULT_STORE, STORE_VARIABLE, redacted, view_path

M = TypeVar("M", bound=BaseModel)

Store = Annotated[
    str,
    typer.Option(
        envvar=STORE_VARIABLE,
        help="sqlite:///PATH.db (default in the current directory) or "
        "postgresql://USER@HOST:PORT/DB[?schema=NAME]",
    ),
]
Actor = Annotated[str, typer.Option(help="Who makes this change; recorded with it.")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change; append nothing")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the consequences as JSON")]
ViewOption = Annotated[
    Path | None, typer.Option("--view", help="The read model to report from (default beside)")
]
Reason = Annotated[str, typer.Option(help="Why; recorded with the change.")]
JsonFile = Annotated[Path, typer.Argument(help="JSON file holding one object or a list")]
SectionId = Annotated[str, typer.Argument(help="The section's id")]
Holder = Annotated[str, typer.Argument(help="The actor who gets or loses the role")]
RoleName = Annotated[str, typer.Argument(help=" | ".join(Role))]
SUBJECT_KEYS = (
    "holder",
    "role",
    "section_id",
    "match_id",
    "member_id",
    "system",
    "action",
    "rating_list",
    "parameter",
)


def register(app: typer.Typer) -> None:
    """Add the ledger's commands to the `ratings-ledger` app."""
    app.command("init")(init)
    app.command("register")(register_players)
    app.command("opening-balance")(opening_balance)
    app.command("submit")(submit)
    app.command("correct")(correct)
    app.command("withdraw")(withdraw)
    app.command("fide-adjust")(fide_adjust)
    app.command("award-money-floor")(award_money_floor)
    app.command("match")(match)
    app.command("override")(override)
    app.command("amend-rules")(amend_rules)
    app.command("grant-role")(grant_role)
    app.command("revoke-role")(revoke_role)
    app.command("log")(log)


def init(
    actor: Annotated[str, typer.Option(help="Who sets the ledger up; they become its director.")],
    store: Store = DEFAULT_STORE,
) -> None:
    """Set the ledger up, once, with ACTOR as its first director (creating its tables); ACTOR's
    key is made in the keyring if it has none, and its public key recorded."""
    with _reported(), closing(RatingsLedger(store)) as ledger:
        director = ledger.initialize(actor=actor)[0].actor
        count = ledger.recorder.max_notification_id() or 0
    typer.echo(f"ledger ready at {redacted(store)}, director {director!r} ({count} entries)")
    typer.echo(f"receipt {ledger.receipt}")


def grant_role(
    holder: Holder,
    role: RoleName,
    actor: Actor,
    public_key: Annotated[
        str | None,
        typer.Option(help="HOLDER's public key (`keys new`); default: the one held or in keyring"),
    ] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Give HOLDER a role with their public key (directors only); a new key rotates theirs.
    See docs/decisions.md for what each role allows."""
    with _reported(), closing(RatingsLedger(store)) as ledger:
        entries = ledger.grant_role(holder, role, actor=actor, public_key=public_key)
    _print_entries(entries, ledger.receipt)


def revoke_role(holder: Holder, role: RoleName, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Take a role from HOLDER (directors only); the last director cannot lose the role."""
    with _reported(), closing(RatingsLedger(store)) as ledger:
        entries = ledger.revoke_role(holder, role, actor=actor)
    _print_entries(entries, ledger.receipt)


def register_players(file: JsonFile, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Register players from a player file; a registered player's changed fields are updated."""
    _append_file(file, RegisterPlayer, store, RatingsLedger.register_player, actor)


def opening_balance(file: JsonFile, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Record players' opening balances (their record per system when moving onto the ledger)."""
    _append_file(file, RecordOpeningBalance, store, RatingsLedger.record_opening_balance, actor)


def submit(file: JsonFile, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Submit sections from a section file (a list is accepted or rejected as a whole)."""
    _append_file(file, SubmitSection, store, RatingsLedger.submit_section, actor)


def correct(
    section_id: SectionId,
    file: JsonFile,
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Replace a section's report with the section in FILE (the same section id); print the
    ratings it changes."""
    with _reported():
        sections, listed = commands.load_file(file, SubmitSection)
        if listed:
            raise InvalidCommand((), f"{file}: a correction file holds one section, not a list")
        if sections[0].section_id != section_id:
            raise InvalidCommand(
                ("section_id",),
                f"{sections[0].section_id!r} in {file} is not the section being corrected "
                f"({section_id!r})",
            )
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.correct_section(sections[0], reason=reason, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def withdraw(
    section_id: SectionId,
    reason: Reason,
    actor: Actor,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Withdraw a section from rating (final); print the ratings it changes."""
    with _reported(), closing(RatingsLedger(store, preview=dry_run)) as ledger:
        entries = ledger.withdraw_section(section_id, reason=reason, actor=actor)
        _report(ledger, store, view, entries, dry_run, as_json)


def fide_adjust(file: JsonFile, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Submit players' games in foreign FIDE events for one FIDE rating list (§6)."""
    _append_file(file, SubmitFideAdjustment, store, RatingsLedger.submit_fide_adjustment, actor)


def award_money_floor(
    player: Annotated[str, typer.Option(help="Member id of the prize winner")],
    amount: Annotated[str, typer.Option(help="Prize amount in dollars")],
    limit: Annotated[str, typer.Option(help="The prize's rating limit: 1800 for under-1800")],
    date: Annotated[str, typer.Option(help="Date of the prize (YYYY-MM-DD)")],
    actor: Actor,
    system: Annotated[str, typer.Option(help="Rating system")] = "OTBR",
    store: Store = DEFAULT_STORE,
) -> None:
    """Record a large cash prize that may raise the winner's floor (§5)."""
    data = {"player": player, "amount": _number(amount), "limit": _number(limit), "date": date}
    with _reported():
        award = commands.parse(AwardMoneyFloor, {**data, "system": system})
        with closing(RatingsLedger(store)) as ledger:
            entries = ledger.award_money_floor(award, actor=actor)
    _print_entries(entries, ledger.receipt)


def match(file: JsonFile, actor: Actor, store: Store = DEFAULT_STORE) -> None:
    """Submit matches from a match file."""
    _append_file(file, SubmitMatch, store, RatingsLedger.submit_match, actor)


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
    system: Annotated[str, typer.Option(help="Rating system")] = "OTBR",
    value: Annotated[str | None, typer.Option(help="The ceiling, floor or rating")] = None,
    store: Store = DEFAULT_STORE,
    dry_run: DryRun = False,
    as_json: AsJson = False,
    view: ViewOption = None,
) -> None:
    """Record a director's decision about a player's rating (§7); print what it changes."""
    data = {"player": player, "action": action, "system": system, "effective": effective}
    if value is not None:
        data["value"] = _number(value)
    with _reported():
        decision = commands.parse(DirectorOverride, {**data, "reason": reason})
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.override(decision, actor=actor)
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
    try:
        parsed: object = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    data = {"parameter": parameter, "value": parsed, "effective": effective, "reason": reason}
    if until is not None:
        data["until"] = until
    with _reported():
        amendment = commands.parse(AmendRules, data)
        with closing(RatingsLedger(store, preview=dry_run)) as ledger:
            entries = ledger.amend_rules(amendment, actor=actor)
            _report(ledger, store, view, entries, dry_run, as_json)


def log(
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of entries")] = False,
    after: Annotated[int, typer.Option(min=0, help="Only entries after this position")] = 0,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many entries")] = None,
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the ledger's entries in order (reads only: read-only credentials suffice)."""
    with _reported(), closing(RatingsLedger(store, readonly=True)) as ledger:
        entries: Iterable[LedgerEntry] = read_entries(ledger, after)
        if limit is not None:
            entries = islice(entries, limit)
        if as_json:
            _print_json(entries)
        else:
            for e in entries:
                typer.echo(
                    f"{e.position:>8}  {e.recorded_at}  {e.type:<24} {e.actor:<16} {_subject(e)}"
                )


def _append_file(
    file: Path,
    model: type[M],
    store: str,
    verb: Callable[..., list[LedgerEntry]],
    actor: str,
) -> None:
    """Validate every command in `file`, then append them all with `verb` (or none)."""
    with _reported() as report:
        items, report.listed = commands.load_file(file, model)
        with closing(RatingsLedger(store)) as ledger:
            entries = verb(ledger, *items, actor=actor)
    _print_entries(entries, ledger.receipt)


class _Report:
    listed = False


@contextmanager
def _reported() -> Iterator[_Report]:
    """Turn a refused command into one line on stderr and exit code 2 (bad input),
    3 (conflict with other writers), 4 (roles) or 1 (store); `listed`: the file held a list."""
    report = _Report()
    try:
        yield report
    except InvalidCommand as exc:
        located = (exc.index,) if report.listed and exc.index is not None else ()
        path = located + exc.path
        _fail(2, f"{field_path(path)}: {exc.message}" if path else exc.message)
    except ConflictError as exc:
        _fail(3, str(exc))
    except AccessDenied as exc:
        _fail(4, str(exc))
    except LedgerError as exc:
        _fail(1, str(exc))


def _fail(code: int, message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _number(text: str) -> object:
    """A number given as an option, else the text (for the model to report)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _subject(entry: LedgerEntry) -> str:
    payload = entry.payload
    return " ".join(f"{k}={payload[k]}" for k in SUBJECT_KEYS if payload.get(k) is not None)


def _report(
    ledger: RatingsLedger,
    store: str,
    view: Path | None,
    entries: list[LedgerEntry],
    dry_run: bool,
    as_json: bool,
) -> None:
    """The entries recorded (or that would be), then the ratings they change."""
    from ledger.consequences import consequences, render

    report = consequences(ledger, view_path(store, view), entries, dry_run) if entries else None
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    if dry_run:
        for e in entries:
            typer.echo(f"would record {e.type} at position {e.position}: {_subject(e)}")
    else:
        _print_entries(entries, ledger.receipt)
    if report is not None:
        typer.echo(render(report))


def receipt_of(store: str, entries: list[LedgerEntry]) -> Head | None:
    """The receipt of a write that appended `entries`: the chain's link at its last one."""
    if not entries:
        return None
    with closing(RatingsLedger(store, readonly=True)) as ledger:
        return Head(link_at(ledger, entries[-1].position) or "", entries[-1].position)


def _print_entries(entries: list[LedgerEntry], receipt: Head | None) -> None:
    """Each entry recorded, then the write's receipt DIGEST@POS (`verify --expect` checks it)."""
    if not entries:
        typer.echo("nothing new to record")
    for e in entries:
        typer.echo(f"recorded {e.type} at position {e.position}: {_subject(e)}")
    if entries and receipt is not None:
        typer.echo(f"receipt {receipt}")


def _print_json(entries: Iterable[LedgerEntry]) -> None:
    out = sys.stdout
    out.write("[")
    written = 0
    for e in entries:
        item = {
            "position": e.position,
            "type": e.type,
            "recorded_at": e.recorded_at,
            "actor": e.actor,
            "aggregate_id": e.aggregate_id,
            "payload": e.payload,
        }
        out.write(("," if written else "") + "\n  " + json.dumps(item, ensure_ascii=False))
        written += 1
    out.write("\n]\n" if written else "]\n")
