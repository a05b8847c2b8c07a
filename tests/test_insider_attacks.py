"""An insider with write access to the database and a key of their own (issue "A ledger an
insider cannot rewrite"): authority comes from the log itself, and each write signs the
checkpoint it makes (ledger id, size, Merkle root), so a self-grant, a re-chained deletion, a
reorder or a write copied from another ledger breaks a signature that `verify`, every read and
the write path check — on both stores."""

from __future__ import annotations

import json
from contextlib import closing
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import DirectorOverride, RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli import app
from ledger.errors import LedgerError
from ledger.evidence.chain import verify
from tests.conftest import section_data
from tests.tamper_helpers import checked_read, delete, insert, raw_store, reseal, swap

runner = CliRunner()


def stored(store_url: str, position: int) -> tuple[Any, int, str, dict[str, Any]]:
    """(aggregate id, version, topic, payload) of the entry at `position`."""
    with raw_store(store_url) as (conn, table, pos, mark, _):
        aggregate, version, topic, state = conn.execute(
            f"SELECT originator_id, originator_version, topic, state FROM {table} "
            f"WHERE {pos} = {mark}",
            (position,),
        ).fetchone()
    state = state.encode() if isinstance(state, str) else bytes(state)
    from uuid import UUID

    aggregate = aggregate if not isinstance(aggregate, str) else UUID(aggregate)
    return aggregate, version, topic, json.loads(state)


def positions_of(ledger: RatingsLedger, kind: str) -> list[int]:
    from ledger.log import read_entries

    return [e.position for e in read_entries(ledger) if e.type == kind]


def forged_grant(ledger: RatingsLedger, store_url: str, key_of: str | None) -> int:
    """A RoleGranted making 'td' a director, signed by 'td' (None: unsigned), appended and
    sealed as the recorder would (chain and tree recomputed)."""
    grant = positions_of(ledger, "RoleGranted")[-1]
    aggregate, version, topic, payload = stored(store_url, grant)
    last = max(e for e in [version] + [stored(store_url, p)[1] for p in [grant]])
    payload = {**payload, "holder": "td", "role": "director", "actor": "td"}
    state = json.dumps(payload).encode()
    key = ledger.keyring.private_key(key_of) if key_of else None
    return insert(store_url, aggregate, last + 1, topic, state, key=key, seal=True)


def test_a_td_granting_themselves_director_with_their_own_key_is_refused_everywhere(
    ledger: RatingsLedger, store_url: str
) -> None:
    # "refuse any entry whose signer lacked the role then, naming the position"
    position = forged_grant(ledger, store_url, "td")
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == position
    assert "'td' had no authority to record it" in found.broken.reason
    assert "grant-role takes director" in found.broken.reason
    read, stopped = checked_read(ledger)  # issue 28: a read stops before it, naming it
    assert stopped.position == position and max(read) < position
    # the write path never acts on it: the TD's override as a "director" appends nothing
    with closing(RatingsLedger(store_url)) as again:
        before = again.recorder.max_notification_id()
        override = {"player": "30000001", "action": "adjust_rating", "value": 2700}
        decided = parse(DirectorOverride, override | {"effective": "2024-06-01", "reason": "r"})
        with pytest.raises(LedgerError) as refused:  # the roles, not the command's fields
            again.decisions.override(decided, actor="td")
        assert "'td'" in str(refused.value)
        assert again.recorder.max_notification_id() == before


def test_an_unsigned_rechained_grant_grants_nothing_and_refuses_no_one(
    ledger: RatingsLedger, store_url: str
) -> None:
    # "the write path never trusts an unverified record"; issue 28 ("never fail closed for
    # everyone"): the forged grant is ignored, so the director still writes and the TD it
    # names still may not act as a director.
    forged_grant(ledger, store_url, None)
    with closing(RatingsLedger(store_url)) as again:
        before = again.recorder.max_notification_id()
        again.players.register(parse(RegisterPlayer, {"id": "30000009"}), actor="director")
        assert again.recorder.max_notification_id() == before + 1
        override = {"player": "30000009", "action": "adjust_rating", "value": 2700}
        decided = parse(DirectorOverride, override | {"effective": "2024-06-01", "reason": "r"})
        with pytest.raises(LedgerError) as refused:
            again.decisions.override(decided, actor="td")
        assert "'td' may not override" in str(refused.value)
        assert again.recorder.max_notification_id() == before + 1


def test_a_middle_write_deleted_and_the_chain_and_tree_recomputed_breaks_the_next_signature(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "deleting a middle write ... and recomputing the links ... breaks a signature"
    register_players("30000001")
    register_players("30000002")
    middle = positions_of(ledger, "PlayerRegistered")[0]
    register_players("30000003")
    delete(store_url, middle)
    reseal(store_url)  # chain rows and the tree recomputed from what is left
    found = verify(ledger)
    assert found.broken is not None and found.broken.position > middle
    assert "signature" in found.broken.reason


def test_a_withdrawn_section_brought_back_by_deleting_its_withdrawal_is_caught(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # the collusion case: a withdrawn section came back (590 → 1242)
    register_players("12345678", "30000001", "30000002", "30000003")
    ledger.sections.submit(parse(SubmitSection, section_data()), actor="td")
    ledger.sections.withdraw("2024-05-GP-OPEN", reason="collusion", actor="office")
    withdrawal = positions_of(ledger, "SectionWithdrawn")[0]
    register_players("30000004")
    delete(store_url, withdrawal)
    reseal(store_url)
    assert verify(ledger).broken is not None


def test_two_writes_swapped_and_resealed_break_a_signature(
    ledger: RatingsLedger, store_url: str, register_players
) -> None:
    # "a reorder after the last anchor" breaks a signature, not just a recomputable link
    register_players("30000001")
    register_players("30000002")
    first, second = positions_of(ledger, "PlayerRegistered")
    swap(store_url, first, second)
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == first


def test_a_section_signed_by_the_same_td_in_another_ledger_does_not_check_when_copied_in(
    ledger: RatingsLedger, store_url: str, register_players, tmp_path
) -> None:
    # "a TD-signed section copied in from another ledger that uses the same key"
    other_url = f"sqlite:///{tmp_path / 'other.db'}"
    with closing(RatingsLedger(other_url)) as other:
        other.roles.initialize(actor="director")
        other.roles.grant("td", "tournament_director", actor="director")
        other.players.register(
            *(parse(RegisterPlayer, {"id": m}) for m in ("12345678", "30000001")), actor="td"
        )
        other.players.register(
            *(parse(RegisterPlayer, {"id": m}) for m in ("30000002", "30000003")), actor="td"
        )
        other.sections.submit(parse(SubmitSection, section_data()), actor="td")
        copied = positions_of(other, "SectionSubmitted")[0]
        with raw_store(other_url) as (conn, table, pos, mark, chain):
            aggregate, version, topic, state = conn.execute(
                f"SELECT originator_id, originator_version, topic, state FROM {table} "
                f"WHERE {pos} = ?",
                (copied,),
            ).fetchone()
            signature = conn.execute(
                f"SELECT signature FROM {chain} WHERE position = ?", (copied,)
            ).fetchone()[0]
    register_players("12345678", "30000001", "30000002", "30000003")
    from uuid import UUID

    position = insert(store_url, UUID(str(aggregate)), version, topic, bytes(state), seal=True)
    with raw_store(store_url) as (conn, _, _, mark, chain):
        conn.execute(
            f"UPDATE {chain} SET signature = {mark} WHERE position = {mark}", (signature, position)
        )
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == position
    result = runner.invoke(app, ["verify", "--store", store_url])
    assert result.exit_code != 0 and f"position {position}" in result.output
