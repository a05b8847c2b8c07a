"""`void POSITION`: a director takes back one non-section entry's effect (EntryVoided); and
`problems` lists what the read model could not apply."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import DirectorOverride, VoidEntry, parse
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.errors import AccessDenied, InvalidCommand
from ledger.log import read_entries

OVERRIDE = {
    "player": "12345678",
    "action": "set_floor",
    "value": 1700.0,
    "effective": "2024-07-01",
    "reason": "review",
}


def void(position: int, reason: str = "recorded in error") -> VoidEntry:
    return parse(VoidEntry, {"position": position, "reason": reason})


@pytest.fixture
def overridden(ledger: RatingsLedger, register_players: Callable[..., None]) -> int:
    """The position of a DirectorOverride in the ledger."""
    register_players("12345678")
    [entry] = ledger.decisions.override(parse(DirectorOverride, OVERRIDE), actor="director")
    return entry.position


def test_a_director_voids_an_entry_with_its_position_and_reason(
    ledger: RatingsLedger, overridden: int
) -> None:
    [entry] = ledger.decisions.void(void(overridden), actor="director")
    assert (entry.type, entry.actor) == ("EntryVoided", "director")
    assert entry.payload == {"position": overridden, "reason": "recorded in error"}
    assert list(read_entries(ledger))[-1] == entry


def test_only_a_director_may_void(ledger: RatingsLedger, overridden: int) -> None:
    with pytest.raises(AccessDenied, match="'office' may not void: it takes the role director"):
        ledger.decisions.void(void(overridden), actor="office")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("section", "is SectionSubmitted: withdraw or correct the section instead"),
        ("missing", "the ledger has no entry at 999"),
        ("twice", "is already voided"),
        ("void", "is EntryVoided: a void cannot be voided"),
        ("role", "is RoleGranted: revoke the role instead"),
    ],
)
def test_void_refuses_what_it_cannot_undo(
    ledger: RatingsLedger, overridden: int, section_ready: Callable, target: str, message: str
) -> None:
    [section] = ledger.sections.submit(section_ready(), actor="td")
    [voided] = ledger.decisions.void(void(overridden), actor="director")
    position = {"section": section.position, "missing": 999, "twice": overridden}.get(target)
    position = position or {"void": voided.position, "role": 2}[target]
    count = ledger.recorder.max_notification_id()
    with pytest.raises(InvalidCommand, match=message) as refused:
        ledger.decisions.void(void(position), actor="director")
    assert refused.value.path == ("position",)
    assert ledger.recorder.max_notification_id() == count


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_the_void_command_records_one_line_and_refuses_with_exit_2(
    ledger: RatingsLedger, overridden: int
) -> None:
    store = ledger.store
    args = ("--reason", "typo", "--actor", "director", "--store", store)
    done = cli("void", str(overridden), *args)
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("recorded EntryVoided at position ")
    assert f"position={overridden}" in done.stdout
    again = cli("void", str(overridden), *args)
    assert again.exit_code == 2
    assert again.stderr == f"error: position: the entry at {overridden} is already voided\n"
    assert cli("void", "0", *args).exit_code == 2


@pytest.fixture
def store_with_problem(tmp_path: Path) -> tuple[str, Path]:
    """A ledger and its read model holding one recorded problem."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    app_ = RatingsLedger(store)
    app_.roles.initialize(actor="director")
    app_.close()
    assert cli("catch-up", "--store", store).exit_code == 0
    view = tmp_path / "ledger.view.db"
    with sqlite3.connect(view) as db:
        db.execute("create table if not exists problems (position, item_key, kind, reason)")
        db.execute("insert into problems values (1, 'section:X', 'unreadable', 'not JSON')")
    return store, view


def test_problems_says_there_are_none_before_the_projector_records_any(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    RatingsLedger(store).roles.initialize(actor="director")
    result = cli("problems", "--store", store)
    assert result.exit_code == 0, result.output
    assert result.stdout == "no problems: every entry was applied\n"
    assert cli("problems", "--json", "--store", store).stdout.strip() == "[]"


def test_problems_lists_each_recorded_problem(store_with_problem) -> None:
    store, _ = store_with_problem
    result = cli("problems", "--json", "--store", store)
    assert result.exit_code == 0, result.output
    assert result.stdout.count('"position": 1') == 1
    assert "section:X" in cli("problems", "--store", store).stdout


def test_the_problems_page_lists_each_recorded_problem(store_with_problem) -> None:
    store, view = store_with_problem
    site = Site(store, view)
    seen: list[str] = []
    body = b"".join(
        site({"PATH_INFO": "/problems", "REQUEST_METHOD": "GET"}, lambda s, h: seen.append(s))
    )
    assert seen == ["200 OK"]
    assert b"section:X" in body and b"not JSON" in body


@pytest.mark.parametrize(
    ("kind", "instead"),
    [
        ("ListPublished", "a published list stands as published"),
        ("ListRatingsCommitted", "a list's ratings stand as committed"),
    ],
)
def test_a_void_of_a_list_or_of_its_commitment_is_refused_saying_what_to_do_instead(
    tmp_path: Path, kind: str, instead: str
) -> None:
    """Issue 28: "`void` of a list or of its commitment exits 0 and changes nothing" →
    "voiding a list or a commitment is either refused or takes effect, and says which"."""
    store = ("--store", f"sqlite:///{tmp_path / 'ledger.db'}")
    assert cli("init", "--actor", "ed", *store).exit_code == 0
    published = cli(
        "publish-list", "--family", "uschess", "--name", "L1", "--as-of", "2024-06-30",
        "--actor", "ed", *store,
    )  # fmt: skip
    assert published.exit_code == 0, published.output
    with RatingsLedger(store[1]) as ledger:
        [position] = [e.position for e in read_entries(ledger) if e.type == kind]
        count = ledger.recorder.max_notification_id()
    lists = cli("lists", "--json", *store).stdout
    refused = cli("void", str(position), "--reason", "wrong", "--actor", "ed", *store)
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"error: position: the entry at {position} is {kind}: {instead}; "
        "publish a corrected list instead\n"
    )
    with RatingsLedger(store[1]) as ledger:
        assert ledger.recorder.max_notification_id() == count
    assert cli("lists", "--json", *store).stdout == lists
    assert cli("verify", *store).exit_code == 0
