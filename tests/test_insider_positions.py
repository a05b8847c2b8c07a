"""An insider with write access to the database (issue 18, red team): entries moved to other
positions with their chain and tree recomputed, a tail deleted without its tree rows, a tree row
changed. Each is caught by `verify` and every checked read, in one line, on both stores."""

from __future__ import annotations

from contextlib import closing

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import DirectorOverride, RegisterPlayer, VoidEntry, parse
from ledger.entrypoints.cli import app
from ledger.errors import LedgerError
from ledger.evidence.chain import verify
from ledger.evidence.checkpoints import V2, Checkpoint
from ledger.evidence.transparency import latest
from tests.tamper_helpers import (
    checked_read,
    edit,
    insert,
    raw_store,
    renumber,
    reseal,
    resign,
    truncate_entries,
)

runner = CliRunner()


def voided_override(ledger: RatingsLedger, register_players) -> tuple[int, int]:
    """A director's override, then its void: (the override's position, the void's)."""
    register_players("30000001")
    override = {"player": "30000001", "action": "adjust_rating", "value": 2000}
    decided = override | {"effective": "2024-06-01", "reason": "the director's decision"}
    ledger.decisions.override(parse(DirectorOverride, decided), actor="director")
    at = ledger.recorder.max_notification_id()
    ledger.decisions.void(
        parse(VoidEntry, {"position": at, "reason": "a mistake"}), actor="director"
    )
    return at, ledger.recorder.max_notification_id()


def one_line_error(store_url: str, *command: str) -> str:
    result = runner.invoke(app, [*command, "--store", store_url])
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    return result.stderr


def test_entries_renumbered_so_a_void_points_at_nothing_break_the_moved_writes_signature(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "changing the notification ids": the void says `position=N`; moving the voided override
    # to N+1 (and the void after it), chain and tree recomputed, brought the override back
    # while `verify` said "chain intact" — each write now signs its last entry's position.
    override, void = voided_override(ledger, register_players)
    assert verify(ledger).broken is None
    renumber(store_url, override)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == override + 1
    assert "signature" in found.broken.reason
    read, stopped = checked_read(ledger)  # issue 28: a read stops before it, naming it
    assert stopped.position == override + 1 and max(read) < override
    assert f"position {override + 1}" in one_line_error(store_url, "verify")
    rebuilt = runner.invoke(app, ["rebuild", "--store", store_url])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert rebuilt.stderr.startswith(f"warning: entry {override + 1} fails verification")


def test_a_write_signed_without_its_position_after_writes_that_sign_it_is_refused(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "a key of their own": a TD re-signs their own write the older way (a checkpoint with no
    # position), which would leave its place unsigned; once a ledger signs positions, refused.
    register_players("30000001")
    at = ledger.recorder.max_notification_id()
    with raw_store(store_url) as (conn, table, pos, mark, _):
        rows = conn.execute(
            f"SELECT {pos}, originator_id, originator_version, topic, state FROM {table} "
            f"ORDER BY {pos}"
        ).fetchall()
    head = latest(ledger)
    assert head.position == at and rows[-1][0] == at
    older = Checkpoint(head.ledger, head.size, head.root)  # the same head, position unsigned
    key = ledger.keyring.private_key("td")
    assert key is not None
    with raw_store(store_url) as (conn, _, _, mark, chain):
        conn.execute(
            f"UPDATE {chain} SET signature = {mark} WHERE position = {mark}",
            ((V2 + key.sign(older.body())).hex(), at),
        )
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == at
    assert found.broken.reason == (
        "the write is signed without its position in a ledger that signs them"
    )


def test_a_write_re_signed_by_its_own_td_after_renumbering_checks_only_if_the_td_signs_it(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # What a stolen key can do (docs/decisions.md, "Signed writes"): its holder can re-sign
    # their own write at its new place; the director's write after it still breaks.
    register_players("30000001")
    moved = ledger.recorder.max_notification_id()
    ledger.roles.grant("ann", "auditor", actor="director")
    renumber(store_url, moved)
    key = ledger.keyring.private_key("td")
    assert key is not None
    resign(store_url, moved + 1, key)
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == moved + 2


def test_a_checkpoint_names_the_position_of_its_last_entry_and_reads_back_as_written(
    ledger: RatingsLedger, register_players
) -> None:
    # "this ledger, with these N entries, the last at position P, has this root"
    register_players("30000001", "30000002")
    head = latest(ledger)
    assert head.position == ledger.recorder.max_notification_id()
    assert head.text().splitlines()[4] == str(head.position)
    again = Checkpoint.parse(head.text())
    assert again == head and again.signatures == head.signatures
    older = Checkpoint.parse(Checkpoint(head.ledger, head.size, head.root).text())
    assert older.position is None and older.body().startswith(b"ratings-ledger checkpoint 2\n")


def test_a_tail_deleted_with_its_chain_rows_but_not_its_tree_rows_is_reported_as_truncated(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "deleting the last N entries ... without the tree rows": the stored tree still holds
    # them, so `verify` names the first deleted position instead of "chain intact"
    register_players("30000001")
    kept = ledger.recorder.max_notification_id()
    register_players("30000002")
    register_players("30000003")
    truncate_entries(store_url, kept)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == kept + 1
    assert found.broken.reason == (
        f"the ledger's tree holds {kept + 2} entries but the ledger {kept}: the entries from "
        f"position {kept + 1} on were deleted (truncated)"
    )
    assert "truncated" in one_line_error(store_url, "verify")
    assert "changed outside the ledger" in one_line_error(store_url, "checkpoint")
    with closing(RatingsLedger(store_url)) as again:  # a refused write appends nothing
        with pytest.raises(LedgerError) as raised:
            again.players.register(parse(RegisterPlayer, {"id": "30000009"}), actor="td")
        assert "\n" not in str(raised.value)
        assert again.recorder.max_notification_id() == kept


def test_a_changed_tree_row_that_changes_the_root_is_reported_by_verify(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "Its rows are not trusted": a tree whose root is not the entries' is shown, not served
    # (the node over the first four leaves of seven; a lone leaf row under it fails only the
    # inclusion proofs it serves, against signed checkpoints)
    register_players("30000001", "30000002", "30000003")
    with raw_store(store_url) as (conn, table, _, mark, _):
        tree = table.replace("ratingsledger_events", "ratingsledger_tree")
        if mark == "?":
            tree = "ratingsledger_tree"
        conn.execute(f"UPDATE {tree} SET hash = {mark} WHERE level = 2 AND idx = 0", ("0" * 64,))
    found = verify(ledger)
    assert found.broken is not None
    assert found.broken.reason.startswith("the ledger's tree does not match its")


def test_an_entry_back_dated_by_its_own_signer_is_named_and_not_known_before_those_before_it(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "entries with times going backwards": a TD signs, with their own key, a profile change
    # dated years before the ledger began; `--as-known-at` reads a prefix of the log, so a
    # moment before the entries preceding it does not see it, and `verify` names it
    # (docs/decisions.md)
    import json
    from datetime import UTC, datetime

    from projections.timetravel import position_at
    from tests.test_insider_attacks import stored

    register_players("30000001")
    at = ledger.recorder.max_notification_id()
    aggregate, version, topic, payload = stored(store_url, at)
    payload["timestamp"]["_data_"] = "2023-01-01T00:00:00+00:00"
    payload["name"] = "Back Dated"
    key = ledger.keyring.private_key("td")
    late = insert(store_url, aggregate, version + 1, topic, json.dumps(payload).encode(), key, True)
    found = verify(ledger)  # signed by its holder, but dated years before the entry before it
    assert found.broken is not None and found.broken.position == late
    assert found.broken.reason.startswith("recorded at 2023-01-01T00:00:00+00:00, before the")
    assert found.broken.reason.endswith("by more than 3600 s (misdated)")
    assert position_at(ledger, datetime(2024, 1, 1, tzinfo=UTC)) == 0
    assert position_at(ledger, datetime.now(UTC)) == late


def test_an_entry_dated_in_the_future_by_its_own_signer_is_named_by_verify(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # a profile change dated 2099 made every `--as-known-at` before 2099 stop before it,
    # hiding the director's later decisions (the red team's run: 1500 shown as 590), while
    # `verify` said intact; now `verify` names it
    import json

    from tests.test_insider_attacks import stored

    register_players("30000001")
    at = ledger.recorder.max_notification_id()
    aggregate, version, topic, payload = stored(store_url, at)
    payload["timestamp"]["_data_"] = "2099-01-01T00:00:00+00:00"
    key = ledger.keyring.private_key("td")
    late = insert(store_url, aggregate, version + 1, topic, json.dumps(payload).encode(), key, True)
    found = verify(ledger)
    assert found.broken is not None and (found.broken.position, found.broken.reason) == (
        late,
        "recorded at 2099-01-01T00:00:00+00:00, in the future (misdated)",
    )


def test_an_edit_inside_a_write_of_several_entries_is_reported_at_the_writes_first_position(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "naming its position": the break names the write the signature covers, from its start
    # (the line says "the write at positions A–B"), not its last entry
    register_players("30000001", "30000002", "30000003")
    last = ledger.recorder.max_notification_id()
    edit(store_url, last - 1, "30000002", "30000009")
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == last - 2
    assert found.broken.reason.startswith(f"the write at positions {last - 2}–{last}: its")
