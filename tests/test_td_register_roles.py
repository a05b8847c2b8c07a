"""Issue 28, "Roles fit the harm": a tournament director registers new players; changing a
registered player's rating-relevant fields (ratings, their dates, birth date, FIDE id,
federation) is a ratings_admin's or director's write, refused to a TD (exit 4, nothing
appended) and refused by `verify` when an insider signs it with the TD's key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ledger import events, roles
from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.domain import player_key
from ledger.entrypoints.cli import app
from ledger.evidence.chain import verify
from ledger.log import read_entries
from tests.conftest import section_data
from tests.tamper_helpers import checked_read, insert, raw_store

runner = CliRunner()
CARL = "30000001"
CARL_FIDE = {"rating": 2060, "date": "2024-01-01"}
BACKDATED = {"id": CARL, "fide": {"rating": 2533, "date": "2019-01-01"}}


@pytest.fixture
def carl(ledger: RatingsLedger) -> RatingsLedger:
    """Carl and three others registered by the TD, Carl with a FIDE rating; one section."""
    for member in ("12345678", CARL, "30000002", "30000003"):
        fields: dict[str, Any] = {"id": member}
        if member == CARL:
            fields |= {"name": "Carl", "fide": CARL_FIDE}
        ledger.players.register(parse(RegisterPlayer, fields), actor="td")
    ledger.sections.submit(parse(SubmitSection, section_data()), actor="td")
    return ledger


def register(store_url: str, tmp_path: Path, actor: str, *players: dict[str, Any]) -> Any:
    file = tmp_path / f"players-{actor}.json"
    file.write_text(json.dumps(list(players)))
    return runner.invoke(app, ["register", str(file), "--actor", actor, "--store", store_url])


def player_json(store_url: str, tmp_path: Path, member: str) -> dict[str, Any]:
    view = str(tmp_path / "ledger.view.db")
    read = runner.invoke(app, ["player", member, "--json", "--store", store_url, "--view", view])
    assert read.exit_code == 0, read.output
    return json.loads(read.stdout)


def test_a_tds_backdated_fide_rating_for_a_registered_player_is_refused_and_appends_nothing(
    carl: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    """ "a TD's `register` that would change them is refused (exit 4, nothing appended)"."""
    before = player_json(store_url, tmp_path, CARL)
    head = carl.recorder.max_notification_id()
    result = register(store_url, tmp_path, "td", BACKDATED)
    assert result.exit_code == 4, result.output
    assert result.stderr == (
        f"error: 'td' may not change the fide of registered player '{CARL}': that takes "
        "director or ratings_admin; nothing was appended\n"
    )
    assert carl.recorder.max_notification_id() == head
    assert player_json(store_url, tmp_path, CARL) == before


def test_a_td_register_of_new_players_beside_a_rerating_is_refused_whole(
    carl: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    """ "A tournament director registers new players" — but not in the same file as a change of
    a registered player's rating fields: the whole register appends nothing."""
    head = carl.recorder.max_notification_id()
    result = register(
        store_url, tmp_path, "td", {"id": "30000009"}, {"id": CARL, "birth_date": "2010-01-01"}
    )
    assert result.exit_code == 4 and "birth_date of registered player" in result.stderr
    assert carl.recorder.max_notification_id() == head


def test_the_office_records_the_same_change_and_a_td_may_still_fix_a_name(
    carl: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    """ "Changing an existing player's rating-relevant fields ... is a ratings_admin's or
    director's write"; the name is not one of them."""
    recorded = register(store_url, tmp_path, "office", BACKDATED)
    assert recorded.exit_code == 0, recorded.output
    last = list(read_entries(carl))[-1]
    assert (last.type, last.actor, last.payload["fide"]["rating"]) == (
        "PlayerProfileUpdated",
        "office",
        2533,
    )
    renamed = register(store_url, tmp_path, "td", {"id": CARL, "name": "Carl Smith"})
    assert renamed.exit_code == 0, renamed.output
    assert list(read_entries(carl))[-1].payload["name"] == "Carl Smith"
    assert verify(carl).broken is None


def forged_profile(carl: RatingsLedger, store_url: str, signer: str, **changes: Any) -> int:
    """A PlayerProfileUpdated of Carl with `changes`, signed with `signer`'s own key and sealed
    as the recorder would (an insider with database access and that key)."""
    with raw_store(store_url) as (conn, table, pos, mark, _):
        rows = conn.execute(
            f"SELECT originator_version, state FROM {table} WHERE topic = {mark} "
            f"AND originator_id = {mark}",
            (
                "ratings-ledger:PlayerRegistered",
                player_key(CARL).hex if mark == "?" else player_key(CARL),
            ),
        ).fetchall()
    version, state = rows[0]
    payload = json.loads(state.encode() if isinstance(state, str) else bytes(state))
    payload.pop("originator_topic", None)
    payload |= {"actor": signer, **changes}
    key = carl.keyring.private_key(signer)
    topic = "ratings-ledger:PlayerProfileUpdated"
    state = json.dumps(payload).encode()
    return insert(store_url, player_key(CARL), version + 1, topic, state, key, seal=True)


def test_an_insider_signing_a_rerating_with_the_tds_key_is_named_by_verify(
    carl: RatingsLedger, store_url: str
) -> None:
    """ "the Verifier must refuse a TD-signed entry that changes those fields (so `verify` no
    longer says intact when an insider signs such an entry with the TD's key)"."""
    position = forged_profile(carl, store_url, "td", fide={"rating": 2533, "date": "2019-01-01"})
    found = verify(carl)
    assert found.broken is not None and found.broken.position == position
    assert found.broken.reason == (
        "'td' had no authority to record it: it changes a registered player's fide, which takes "
        "director or ratings_admin, and its signer held tournament_director there"
    )
    read, stopped = checked_read(carl)
    assert stopped.position == position and max(read) < position


@pytest.mark.parametrize(
    ("signer", "changes"),
    [("td", {"name": "Carl Smith", "club": "Dublin CC"}), ("office", {"birth_date": "2009-03-01"})],
)
def test_a_signed_profile_change_within_its_signers_roles_verifies(
    carl: RatingsLedger, store_url: str, signer: str, changes: dict[str, Any]
) -> None:
    """The change is judged by what it changes, not by the fields it carries (a profile entry
    carries the whole profile, Carl's FIDE rating included): honest ledgers keep verifying."""
    forged_profile(carl, store_url, signer, **changes)
    assert verify(carl).broken is None


def test_the_rating_fields_are_declared_once_among_the_profiles_fields() -> None:
    """ "decide the exact list, in one declared place": every rating field is a profile field."""
    assert set(roles.RATING_FIELDS) <= set(events.PlayerProfileUpdated.__struct_fields__)
    assert {"name", "club", "title", "sex"}.isdisjoint(roles.RATING_FIELDS)


@pytest.mark.parametrize("record", ["his own, again", "another"])
def test_a_td_signed_registration_that_rerates_a_registered_player_is_named_by_verify(
    carl: RatingsLedger, store_url: str, record: str
) -> None:
    """The same re-rating through the other profile kind: a second `PlayerRegistered` of Carl
    (on his record after his first entry, or on a record of its own, which the read side would
    take as Carl's) signed with the TD's key is refused like the update."""
    from uuid import uuid4

    [registered] = [e for e in read_entries(carl) if e.payload.get("member_id") == CARL]
    payload = json.loads(registered.state) | {"fide": {"rating": 2533, "date": "2019-01-01"}}
    again = record == "his own, again"
    aggregate, version = (player_key(CARL), 2) if again else (uuid4(), 1)
    topic, state = "ratings-ledger:PlayerRegistered", json.dumps(payload).encode()
    key = carl.keyring.private_key("td")
    position = insert(store_url, aggregate, version, topic, state, key, seal=True)
    found = verify(carl)
    assert found.broken is not None and found.broken.position == position
    why = "changes a registered player's fide" if again else "not on its player's record"
    assert why in found.broken.reason
