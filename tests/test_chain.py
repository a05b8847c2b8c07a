"""Tamper evidence: a SHA-256 chain over the ledger; `verify` finds the first broken position."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.chain import GENESIS, link, parse_expected, seal, verify
from ledger.cli import app
from ledger.cli.verify import register as register_verify
from ledger.commands import RegisterPlayer, parse
from ledger.log import read_entries

if "verify" not in {c.name for c in app.registered_commands}:
    register_verify(app)  # the lead wires `verify` into ledger/cli.py

FAR = 10**9  # a free position to move a row through while swapping two


@contextmanager
def raw_store(url: str) -> Iterator[tuple[Any, str, str, str]]:
    """A direct connection to the store: (connection, events table, position column, mark)."""
    if url.startswith("sqlite"):
        conn = sqlite3.connect(url[len("sqlite:///") :])
        with closing(conn):
            yield conn, "stored_events", "rowid", "?"
            conn.commit()
        return
    import psycopg

    schema = parse_qs(urlsplit(url).query)["schema"][0]
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        yield conn, f'"{schema}".ratingsledger_events', "notification_id", "%s"


def edit(url: str, position: int) -> None:
    """Change a member id inside the stored payload of the entry at `position`."""
    with raw_store(url) as (conn, table, pos, mark):
        if mark == "?":
            changed, old, new = "replace(state, ?, ?)", b"30000002", b"30000009"
        else:
            changed = "convert_to(replace(convert_from(state, 'UTF8'), %s, %s), 'UTF8')"
            old, new = "30000002", "30000009"
        conn.execute(
            f"UPDATE {table} SET state = {changed} WHERE {pos} = {mark}", (old, new, position)
        )


def delete(url: str, position: int) -> None:
    with raw_store(url) as (conn, table, pos, mark):
        conn.execute(f"DELETE FROM {table} WHERE {pos} = {mark}", (position,))


def swap(url: str, first: int, second: int) -> None:
    with raw_store(url) as (conn, table, pos, mark):
        for old, new in ((first, FAR), (second, first), (FAR, second)):
            conn.execute(f"UPDATE {table} SET {pos} = {mark} WHERE {pos} = {mark}", (new, old))


@pytest.fixture
def sealed_ledger(ledger: RatingsLedger) -> RatingsLedger:
    """Five more entries after the setup's four: one registration each."""
    for member in ("30000001", "30000002", "30000003", "30000004", "30000005"):
        ledger.register_player(parse(RegisterPlayer, {"id": member, "name": member}), actor="td")
    return ledger


def positions(ledger: RatingsLedger) -> list[int]:
    return [e.position for e in read_entries(ledger)]


def test_every_entry_is_sealed_when_it_is_appended(sealed_ledger: RatingsLedger) -> None:
    # Issue: "Every ledger entry carries a SHA-256 hash over a canonical encoding of its
    # payload and the previous entry's hash (a chain in ledger order)."
    found = verify(sealed_ledger, seal_tail=False)
    assert found.broken is None
    assert found.entries == len(positions(sealed_ledger)) == found.head.position
    assert seal(sealed_ledger) == found.head  # nothing was left to seal


def test_the_head_is_the_hash_of_every_entry_chained_from_genesis(
    sealed_ledger: RatingsLedger,
) -> None:
    # Issue: "the head digest must cover every entry".
    previous = GENESIS
    for n in sealed_ledger.recorder.select_notifications(0, 1000, inclusive_of_start=False):
        previous = link(previous, n)
    assert verify(sealed_ledger).head.digest == previous


@pytest.mark.parametrize(
    ("tamper", "expected_at", "reason"),
    [
        (lambda url: edit(url, 6), 6, "edited"),
        (lambda url: delete(url, 5), 5, "missing"),
        (lambda url: delete(url, 9), 9, "missing"),
        (lambda url: swap(url, 4, 7), 4, "edited"),
    ],
    ids=["edit", "delete", "delete-last", "reorder"],
)
def test_a_row_changed_behind_the_ledgers_back_breaks_the_chain_at_its_position(
    sealed_ledger: RatingsLedger,
    store_url: str,
    tamper: Callable[[str], None],
    expected_at: int,
    reason: str,
) -> None:
    # Issue: "Tests edit a stored event row directly in SQLite and in PostgreSQL, delete one,
    # and reorder two: each is detected at the right position."
    assert positions(sealed_ledger) == list(range(1, 10))
    tamper(store_url)
    found = verify(sealed_ledger)
    assert found.broken is not None
    assert (found.broken.position, reason in found.broken.reason) == (expected_at, True)


def test_verify_exits_0_with_the_head_and_1_at_the_first_broken_position(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Issue: "`ratings-ledger verify` recomputes the chain and reports the first broken
    # position (exit 1) or the head digest (exit 0)".
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "--store", store_url])
    assert ok.exit_code == 0
    assert ok.stdout.startswith("chain intact: 9 entries, head ")
    edit(store_url, 6)
    broken = runner.invoke(app, ["verify", "--store", store_url])
    assert broken.exit_code == 1
    assert broken.stderr == (
        "error: chain broken at position 6: the entry differs from the one sealed (edited)\n"
    )


def test_an_auditors_recorded_digest_is_checked_later_even_after_more_entries(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Issue: "`verify --digest` prints the head digest and position, which an auditor records
    # and later checks with `verify --expect DIGEST@POS`."
    runner = CliRunner()
    recorded = runner.invoke(app, ["verify", "--digest", "--store", store_url]).stdout.strip()
    assert parse_expected(recorded).position == 9
    sealed_ledger.register_player(parse(RegisterPlayer, {"id": "30000006"}), actor="td")
    later = runner.invoke(app, ["verify", "--expect", recorded, "--store", store_url])
    assert (later.exit_code, later.stdout.rstrip().endswith(f"matches {recorded}")) == (0, True)
    forged = recorded.replace(recorded[0], "f" if recorded[0] != "f" else "e", 1)
    rewritten = runner.invoke(app, ["verify", "--expect", forged, "--store", store_url])
    assert rewritten.exit_code == 1
    assert "the ledger was rewritten" in rewritten.stderr


def test_a_rewritten_chain_table_is_caught_by_the_recorded_digest(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Issue: detection "must work for edits made after sealing": an attacker who also rewrites
    # the chain table passes `verify`, but not the digest the auditor recorded.
    recorded = str(verify(sealed_ledger).head)
    edit(store_url, 6)
    with raw_store(store_url) as (conn, table, pos, mark):
        chain = table.replace("ratingsledger_events", "ratingsledger_chain")
        chain = "ratingsledger_chain" if table == "stored_events" else chain
        conn.execute(f"DELETE FROM {chain}")
    assert verify(sealed_ledger).broken is None
    result = CliRunner().invoke(app, ["verify", "--expect", recorded, "--store", store_url])
    assert result.exit_code == 1


@pytest.mark.parametrize("text", ["abc@3", "0" * 64, "0" * 64 + "@x", "g" * 64 + "@1"])
def test_a_malformed_expected_digest_is_bad_input(store_url: str, text: str) -> None:
    # Issue: the auditor gives "DIGEST@POS"; anything else is refused as bad input (exit 2).
    result = CliRunner().invoke(app, ["verify", "--expect", text, "--store", store_url])
    assert (result.exit_code, result.stderr.count("\n")) == (2, 1)
