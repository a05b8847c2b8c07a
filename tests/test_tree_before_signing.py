"""The write path extends only a verified tree (issue 28): before a write signs, the tree
frontier it extends must have the root of the last signed checkpoint (that write's signature
checked with the key its signer held); a tree row changed outside the ledger, or an entry edited
and the tree recomputed over it, refuses the write in one line naming it, nothing appended,
and the reads that worked keep working — on both stores."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from uuid import UUID

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli import app
from ledger.evidence import read_verified_entries
from ledger.evidence.appending import TreeRefused
from ledger.evidence.chain import verify
from ledger.evidence.signing import Keyring, message, write_message
from ledger.evidence.tree import TREE_TABLE
from ledger.log import read_entries
from ledger.roles import Role
from tests.conftest import section_data
from tests.tamper_helpers import edit, raw_store, rebuild_tree, reseal

runner = CliRunner()


def last_node(store_url: str) -> tuple[int, int]:
    """(level, index) of the stored tree row the next write extends first: the frontier's
    smallest subtree, which ends at the last entry (no smaller tree reads it)."""
    with raw_store(store_url) as (conn, table, _, _, _):
        size = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    level = (size & -size).bit_length() - 1
    return level, (size >> level) - 1


def change_row(store_url: str, level: int, index: int) -> None:
    with raw_store(store_url) as (conn, table, _, mark, _):
        tree = TREE_TABLE if mark == "?" else table.replace("ratingsledger_events", TREE_TABLE)
        conn.execute(
            f"UPDATE {tree} SET hash = {mark} WHERE level = {mark} AND idx = {mark}",
            ("ab" * 32, level, index),
        )


@pytest.mark.parametrize("last_write", ["a registration", "a role grant"])
def test_a_changed_tree_row_refuses_the_next_write_naming_the_row(
    ledger: RatingsLedger, store_url: str, last_write: str, tmp_path: Path
) -> None:
    """Issue 28: "Before signing, the frontier it extends is checked (against the last signed
    checkpoint, or recomputed); a tampered row refuses the write with one line naming it.\""""
    ledger.players.register(parse(RegisterPlayer, {"id": "30000001"}), actor="td")
    if last_write == "a role grant":  # its checkpoint is the one the key events' check knows
        ledger.roles.grant("ann", Role.TOURNAMENT_DIRECTOR, actor="director")
    signed_at = ledger.recorder.max_notification_id()
    level, index = last_node(store_url)
    change_row(store_url, level, index)
    before = list(read_entries(ledger))
    file = tmp_path / "p.json"
    file.write_text(json.dumps([{"id": "30000002"}]))
    result = runner.invoke(
        app, ["register", str(file), "--actor", "director", "--store", store_url]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: the stored tree row (level {level}, index {index}) does not match the "
        f"checkpoint signed at position {signed_at} (changed outside the ledger): nothing was "
        "appended; run `ratings-ledger verify`\n"
    )
    assert list(read_entries(ledger)) == before
    assert list(read_verified_entries(ledger)) == before
    shown = runner.invoke(app, ["player", "30000001", "--store", store_url])
    assert shown.exit_code == 0, shown.output
    verified = runner.invoke(app, ["verify", "--store", store_url])
    assert verified.exit_code == 1 and "tree does not match" in verified.stderr


def test_a_changed_tree_row_after_a_tds_honest_name_change_names_the_row(
    ledger: RatingsLedger, store_url: str
) -> None:
    """Issue 28: "a tampered row refuses the write with one line naming it" — the row, not
    a tournament director's earlier name change (which leaves the rating fields as they were,
    so every read verifies it), when the refusal names what does not match."""
    profile = {"id": "30000001", "birth_date": "2000-01-02", "federation": "USA"}
    ledger.players.register(parse(RegisterPlayer, profile | {"name": "Carl A"}), actor="td")
    ledger.players.register(parse(RegisterPlayer, profile | {"name": "Carl B"}), actor="td")
    assert verify(ledger).broken is None
    signed_at = ledger.recorder.max_notification_id()
    level, index = last_node(store_url)
    change_row(store_url, level, index)
    with closing(RatingsLedger(store_url)) as director:  # its own tree: the stored rows
        with pytest.raises(TreeRefused) as refused:
            director.players.register(parse(RegisterPlayer, {"id": "30000002"}), actor="director")
        assert director.recorder.max_notification_id() == signed_at
    assert str(refused.value) == (
        f"the stored tree row (level {level}, index {index}) does not match the checkpoint "
        f"signed at position {signed_at} (changed outside the ledger): nothing was appended; "
        "run `ratings-ledger verify`"
    )


def test_an_edited_result_with_the_tree_recomputed_over_it_refuses_the_next_write(
    ledger: RatingsLedger, store_url: str, section_ready
) -> None:
    """Issue 28: "Change a section's result and recompute the tree rows: the director's next
    write signs a root that contains the edit" — now it is refused, naming the entry."""
    [submitted, *_] = ledger.sections.submit(section_ready(), actor="td")
    edit(store_url, submitted.position, '"1/2-1/2"', '"1-0"')
    with raw_store(store_url) as (conn, table, pos, mark, _):
        rebuild_tree(conn, table, pos, mark)
    with closing(RatingsLedger(store_url)) as director:
        before = director.recorder.max_notification_id()
        with pytest.raises(TreeRefused) as refused:
            director.players.register(parse(RegisterPlayer, {"id": "30000009"}), actor="director")
        assert director.recorder.max_notification_id() == before
    assert str(refused.value).startswith(
        f"the entry at position {submitted.position} does not check ("
    )
    assert "\n" not in str(refused.value)
    assert str(refused.value).endswith(
        f"does not match the checkpoint signed at position {before}: nothing was appended; "
        "run `ratings-ledger verify`"
    )


def test_honest_writes_after_other_writers_extend_the_stored_tree(
    ledger: RatingsLedger, store_url: str
) -> None:
    """Issue 28: the check costs honest writers nothing but time: writes from two applications
    in turn (each extending the tree the other stored, after a key write and after a plain one)
    are accepted and every read works."""
    with closing(RatingsLedger(store_url)) as other:
        for n in range(6):
            writer = (ledger, other)[n % 2]
            writer.players.register(parse(RegisterPlayer, {"id": f"3000001{n}"}), actor="td")
            if n == 2:
                other.roles.grant("ann", Role.TOURNAMENT_DIRECTOR, actor="director")
        ledger.sections.submit(
            parse(
                SubmitSection,
                section_data(
                    players=[{"id": p} for p in ("30000010", "30000011", "30000012", "30000013")],
                    games=[
                        {"round": 1, "white": "30000010", "black": "30000011", "result": "1-0"},
                        {"round": 1, "white": "30000012", "black": "30000013", "result": "0-1"},
                    ],
                ),
            ),
            actor="td",
        )
    assert list(read_verified_entries(ledger)) == list(read_entries(ledger))


def signed_before_trees(store_url: str, keyring: Keyring) -> None:
    """Turn the ledger into one written before trees: every write signed the older way (over
    its own entries, `write_message`), the chain recomputed, no tree rows."""
    with raw_store(store_url) as (conn, table, pos, mark, chain):
        rows = conn.execute(
            f"SELECT e.{pos}, e.originator_id, e.originator_version, e.topic, e.state, "
            f"c.signature FROM {table} e JOIN {chain} c ON c.position = e.{pos} ORDER BY e.{pos}"
        ).fetchall()
        write: list[bytes] = []
        for position, aggregate, version, topic, state, signature in rows:
            state = state.encode() if isinstance(state, str) else bytes(state)
            aggregate = UUID(str(aggregate)) if mark == "?" else aggregate
            write.append(message(aggregate, version, topic, state))
            if signature:
                key = keyring.private_key(json.loads(state)["actor"])
                assert key is not None
                older = key.sign(write_message(write)).hex()
                update = f"UPDATE {chain} SET signature = {mark} WHERE position = {mark}"
                conn.execute(update, (older, position))
                write = []
    reseal(store_url)
    with raw_store(store_url) as (conn, table, _, mark, _):
        tree = TREE_TABLE if mark == "?" else table.replace("ratingsledger_events", TREE_TABLE)
        conn.execute(f"DELETE FROM {tree}")


def test_a_ledger_from_before_trees_is_verified_and_its_tree_made_at_its_next_write(
    ledger: RatingsLedger, store_url: str, keyring: Keyring
) -> None:
    """Issue 28 brief: "Ledgers from before trees keep working: there, recompute the frontier
    from the verified entries" (the first write that signs a checkpoint fills the tree)."""
    ledger.players.register(parse(RegisterPlayer, {"id": "30000001"}), actor="td")
    signed_before_trees(store_url, keyring)
    assert verify(ledger).broken is None
    with closing(RatingsLedger(store_url)) as later:
        later.players.register(parse(RegisterPlayer, {"id": "30000002"}), actor="td")
        later.players.register(parse(RegisterPlayer, {"id": "30000003"}), actor="office")
        assert verify(later).broken is None
        assert list(read_verified_entries(later)) == list(read_entries(later))


def test_an_edited_entry_in_a_ledger_from_before_trees_refuses_its_first_tree(
    ledger: RatingsLedger, store_url: str, keyring: Keyring
) -> None:
    """Issue 28: "Nothing derived is trusted": the tree a ledger from before trees gets is made
    only over entries whose signatures check; an edited one is named, nothing appended."""
    [entry] = ledger.players.register(parse(RegisterPlayer, {"id": "30000001"}), actor="td")
    signed_before_trees(store_url, keyring)
    edit(store_url, entry.position, "30000001", "30000007")
    with closing(RatingsLedger(store_url)) as later:
        before = later.recorder.max_notification_id()
        with pytest.raises(TreeRefused) as refused:
            later.players.register(parse(RegisterPlayer, {"id": "30000002"}), actor="director")
        assert later.recorder.max_notification_id() == before
    assert str(refused.value).startswith(f"the entry at position {entry.position} does not check")
    assert "does not match the ledger's signed entries: nothing was appended" in str(refused.value)


def test_a_changed_tree_row_under_a_key_write_refuses_the_next_write_naming_the_row(
    ledger: RatingsLedger, store_url: str
) -> None:
    """Issue 28: "a tampered row refuses the write with one line naming it" — also a row the
    check of the log's key events reads (the tree before a role grant), not only the frontier."""
    n = 0
    while ledger.recorder.max_notification_id() < 8:
        n += 1
        ledger.players.register(parse(RegisterPlayer, {"id": f"3000010{n}"}), actor="td")
    [grant] = ledger.roles.grant("ann", Role.TOURNAMENT_DIRECTOR, actor="director")
    ledger.players.register(parse(RegisterPlayer, {"id": "30000001"}), actor="td")
    change_row(store_url, 3, 0)  # the first 8 entries: read to check the grant at position 9
    with closing(RatingsLedger(store_url)) as director:
        before = list(read_entries(director))
        with pytest.raises(TreeRefused) as refused:
            director.players.register(parse(RegisterPlayer, {"id": "30000002"}), actor="director")
        assert list(read_entries(director)) == before
    assert str(refused.value) == (
        "the stored tree row (level 3, index 0) does not match the checkpoint the key write at "
        f"position {grant.position} signed (changed outside the ledger): nothing was appended; "
        "run `ratings-ledger verify`"
    )
    assert list(read_verified_entries(ledger)) == before
