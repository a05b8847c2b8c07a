"""Issue 28, "One bad entry never takes the ledger down": where an entry fails verification,
reads keep answering from the verified state with the break named, and the director has a
documented, signed way to set the entry aside (`set-aside POSITION --reason R --actor A`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.domain import ROLES_KEY, player_key
from ledger.entrypoints.cli import app
from ledger.evidence.chain import verify
from ledger.log import read_entries
from tests.conftest import section_data
from tests.tamper_helpers import checked_read, drop_tree_rows, edit, insert, raw_store, rebuild_tree

runner = CliRunner()
CARL, LATER = "30000001", "30000009"


def invoke(store_url: str, *args: str) -> Any:
    return runner.invoke(app, [*args, "--store", store_url])


def forge_rerating(ledger: RatingsLedger, store_url: str) -> int:
    """Carl's FIDE rating and federation changed by an entry signed with the TD's own key (no
    authority)."""
    registered = next(e for e in read_entries(ledger) if e.payload.get("member_id") == CARL)
    forged = {"fide": {"rating": 2533, "date": "2019-01-01"}, "federation": "ENG"}
    payload = json.loads(registered.state) | forged
    payload.pop("originator_topic", None)
    key = ledger.keyring.private_key("td")
    topic, state = "ratings-ledger:PlayerProfileUpdated", json.dumps(payload).encode()
    return insert(store_url, player_key(CARL), 2, topic, state, key, seal=True)


@pytest.fixture
def broken(ledger: RatingsLedger, store_url: str) -> tuple[RatingsLedger, int]:
    """Carl registered (USA, FIDE 2060) and read once; a forged re-rating of Carl; then an honest
    write after it (the director registers LATER), which signs a root over the forged leaf."""
    carl = {"id": CARL, "federation": "USA", "fide": {"rating": 2060, "date": "2024-01-01"}}
    ledger.players.register(parse(RegisterPlayer, carl), actor="td")
    assert invoke(store_url, "catch-up").exit_code == 0
    position = forge_rerating(ledger, store_url)
    ledger.players.register(parse(RegisterPlayer, {"id": LATER}), actor="director")
    return ledger, position


def profile_of(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["card"]


def test_a_read_answers_from_the_verified_state_with_one_warning_naming_the_break(
    broken: tuple[RatingsLedger, int], store_url: str
) -> None:
    """ "reads keep answering from the verified state with the break named"."""
    ledger, position = broken
    read = invoke(store_url, "player", CARL, "--json")
    assert profile_of(read)["federation"] == "USA"
    assert read.stderr == (
        f"warning: entry {position} fails verification ('td' had no authority to record it: it "
        "changes a registered player's fide, federation, which takes director or ratings_admin, "
        "and its signer held tournament_director there): reads answer from the ledger as "
        f"verified up to position {position - 1}; a director may set it aside "
        f"(`ratings-ledger set-aside {position} --reason R --actor A`)\n"
    )
    later = invoke(store_url, "player", LATER)  # after the break: not read yet
    assert later.exit_code == 1 and f"player '{LATER}' is not in the ledger" in later.stderr
    for command in ("catch-up", "rebuild"):
        done = invoke(store_url, command)
        assert done.exit_code == 0 and done.stderr.startswith(f"warning: entry {position} fails")
        assert done.stderr.count("\n") == 1


def test_after_the_directors_set_aside_reads_go_past_it_and_verify_lists_it(
    broken: tuple[RatingsLedger, int], store_url: str
) -> None:
    """ "after `set-aside`, reads catch up past it and `verify` says set aside"."""
    ledger, position = broken
    assert invoke(store_url, "player", CARL).exit_code == 0  # the model stops before it
    done = invoke(
        store_url, "set-aside", str(position), "--reason", "forged", "--actor", "director"
    )
    assert done.exit_code == 0, done.output
    last = list(read_entries(ledger))[-1]
    assert (last.type, last.payload["positions"]) == ("EntrySetAside", [position])
    read = invoke(store_url, "player", CARL, "--json")
    assert (profile_of(read)["federation"], read.stderr) == ("USA", "")
    assert invoke(store_url, "player", LATER).exit_code == 0
    assert checked_read(ledger) == ([p for p in range(1, last.position + 1) if p != position], None)
    checked = invoke(store_url, "verify")
    assert checked.exit_code == 0, checked.output
    lines = checked.stdout.splitlines()
    assert lines[0].startswith("chain intact, every signature checks but the 1 set aside: ")
    assert lines[1:] == [
        f"set aside: entry {position}, by 'director' at position {last.position}: forged"
    ]
    assert verify(ledger).set_aside[position].by_position == last.position
    rebuilt = invoke(store_url, "rebuild")
    assert (rebuilt.exit_code, rebuilt.stderr) == (0, "")


def test_only_a_director_sets_aside_and_only_an_entry_that_fails(
    broken: tuple[RatingsLedger, int], store_url: str
) -> None:
    """ "set-aside by a TD → exit 4"; an entry that verifies is voided, not set aside."""
    ledger, position = broken
    head = ledger.recorder.max_notification_id()
    by_td = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "td")
    assert by_td.exit_code == 4 and by_td.stderr.startswith("error: 'td' may not set-aside")
    later = invoke(store_url, "set-aside", str(head), "--reason", "r", "--actor", "director")
    assert later.exit_code == 2 and f"entry {position} fails verification before" in later.stderr
    nothing = invoke(store_url, "set-aside", str(head + 5), "--reason", "r", "--actor", "director")
    assert nothing.exit_code == 2 and f"no entry at {head + 5}" in nothing.stderr
    assert ledger.recorder.max_notification_id() == head
    done = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert done.exit_code == 0, done.output
    honest = invoke(store_url, "set-aside", str(head), "--reason", "r", "--actor", "director")
    assert honest.exit_code == 2 and honest.stderr.count("\n") == 1
    assert f"the entry at {head} verifies" in honest.stderr
    again = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert again.exit_code == 2 and "set aside already" in again.stderr


@pytest.mark.parametrize("state", [b"not json", b'{"member_id": "30000001"}'])
def test_an_unsigned_unsealed_row_set_aside_leaves_the_chain_and_the_tree_intact(
    ledger: RatingsLedger, store_url: str, state: bytes
) -> None:
    """An insider's row with no signature and no chain row (a leaf of the tree, as the write
    path that came next made it): set aside, `verify` and every read go on past it."""
    position = insert(store_url, player_key(CARL), 1, "ratings-ledger:PlayerRegistered", state)
    ledger.players.register(parse(RegisterPlayer, {"id": LATER}), actor="director")
    assert checked_read(ledger)[1].position == position
    done = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert done.exit_code == 0, done.output
    assert verify(ledger).broken is None and list(verify(ledger).set_aside) == [position]
    assert invoke(store_url, "player", LATER).stderr == ""


def test_a_forged_grant_grants_nothing_and_once_set_aside_every_writer_goes_on(
    ledger: RatingsLedger, store_url: str
) -> None:
    """ "ignoring an unverified key event (a forged grant or revoke) grants nothing": the write
    path never fails closed for everyone, before or after the set-aside."""
    grant = [e for e in read_entries(ledger) if e.type == "RoleGranted"][-1]
    payload = json.loads(grant.state) | {"holder": "td", "role": "director", "actor": "td"}
    payload.pop("originator_topic", None)
    versions = sum(1 for e in read_entries(ledger) if e.aggregate_id == str(ROLES_KEY))
    position = insert(
        store_url,
        ROLES_KEY,
        versions + 1,
        "ratings-ledger:RoleGranted",
        json.dumps(payload).encode(),
        ledger.keyring.private_key("td"),
        seal=True,
    )
    by_td = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "td")
    assert by_td.exit_code == 4  # the forged grant made 'td' no director
    done = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert done.exit_code == 0, done.output
    with RatingsLedger(store_url) as again:
        again.players.register(parse(RegisterPlayer, {"id": LATER}), actor="office")
    assert verify(ledger).broken is None


def test_the_web_site_shows_the_break_on_its_pages_and_in_its_json(
    broken: tuple[RatingsLedger, int], store_url: str
) -> None:
    """ "the web site shows a banner or its JSON a field": both, until it is set aside."""
    from ledger.entrypoints.web.app import Site
    from tests.test_web import get

    _, position = broken
    site = Site(store_url)
    card = get(site, f"/api/players/{CARL}").json()
    assert card["card"]["federation"] == "USA"
    assert card["ledger_break"].startswith(f"entry {position} fails verification")
    assert f"entry {position} fails verification" in get(site, f"/players/{CARL}").text.lower()
    done = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert done.exit_code == 0, done.output
    assert "ledger_break" not in get(site, f"/api/players/{CARL}").json()
    assert "fails verification" not in get(site, f"/players/{LATER}").text


def test_a_set_aside_forged_with_the_tds_key_sets_nothing_aside_and_is_named(
    broken: tuple[RatingsLedger, int], store_url: str
) -> None:
    """An insider hiding the forged entry (or an honest one) with an `EntrySetAside` signed by
    a key that may not set aside: it is honoured nowhere, and reads stop at it too."""
    from uuid import uuid4

    ledger, position = broken
    payload = {"positions": [position], "reason": "hidden", "actor": "td"}
    payload |= {"timestamp": json.loads(list(read_entries(ledger))[-1].state)["timestamp"]}
    forged = insert(
        store_url,
        uuid4(),
        1,
        "ratings-ledger:EntrySetAside",
        json.dumps(payload).encode(),
        ledger.keyring.private_key("td"),
        seal=True,
    )
    assert verify(ledger).set_aside == {}
    assert verify(ledger).broken.position == position
    assert checked_read(ledger)[1].position == position
    done = invoke(store_url, "set-aside", str(position), "--reason", "r", "--actor", "director")
    assert done.exit_code == 0, done.output  # the director's own set-aside, then the forged one
    assert verify(ledger).broken.position == forged
    assert "set-aside takes director" in verify(ledger).broken.reason


def set_aside_at_the_tail(ledger: RatingsLedger, store_url: str, position: int) -> None:
    """The director sets aside the bad entry at the ledger's tail (`position`); then a TD's
    write is accepted, every checked read goes past it and `verify` says it is set aside."""
    reason = ("--reason", "planted", "--actor", "director")
    done = invoke(store_url, "set-aside", str(position), *reason)
    assert done.exit_code == 0, done.output
    by = list(read_entries(ledger))[-1]
    assert (by.type, by.payload["positions"]) == ("EntrySetAside", [position])
    ledger.players.register(parse(RegisterPlayer, {"id": LATER}), actor="td")
    every = [e.position for e in read_entries(ledger)]
    assert checked_read(ledger) == ([p for p in every if p != position], None)
    checked = invoke(store_url, "verify")
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.splitlines()[1:] == [
        f"set aside: entry {position}, by 'director' at position {by.position}: planted"
    ]
    assert invoke(store_url, "player", LATER).stderr == ""


@pytest.mark.parametrize("tree_rows", ["with its tree rows", "with no tree rows"])
def test_an_unsigned_row_at_the_tail_is_set_aside_by_the_directors_next_write(
    ledger: RatingsLedger, store_url: str, tree_rows: str
) -> None:
    """ "One bad entry never takes the ledger down ... the director has a documented, signed
    way to set the entry aside": an insider's unsigned row after the last signed write (its
    tree rows made as the ledger would, or none) does not refuse the director's set-aside,
    which signs the last checkpoint extended by the row's own leaf, hashed from its bytes."""
    state = b'{"member_id": "30000001"}'
    position = insert(store_url, player_key(CARL), 1, "ratings-ledger:PlayerRegistered", state)
    if tree_rows == "with no tree rows":
        drop_tree_rows(store_url, position)
    assert checked_read(ledger)[1].position == position
    set_aside_at_the_tail(ledger, store_url, position)


def test_a_write_signed_by_a_key_no_one_holds_refuses_writes_until_the_director_sets_it_aside(
    ledger: RatingsLedger, store_url: str, tmp_path: Any
) -> None:
    """ "One bad entry never takes the ledger down" and "the write path extends only a verified
    tree": a forged signed write at the tail (a key no one holds, in the TD's name) is not
    signed over by another write (exit 1, naming it, nothing appended), but the director's
    set-aside extends the checkpoint before it, and then every writer goes on."""
    [registered] = ledger.players.register(parse(RegisterPlayer, {"id": "30000002"}), actor="td")
    payload = json.loads(registered.state) | {"member_id": CARL, "actor": "td"}
    payload.pop("originator_topic", None)
    forged = insert(
        store_url,
        player_key(CARL),
        1,
        "ratings-ledger:PlayerRegistered",
        json.dumps(payload).encode(),
        Ed25519PrivateKey.generate(),
        seal=True,
    )
    file = tmp_path / "players.json"
    file.write_text(json.dumps([{"id": LATER}]))
    refused = invoke(store_url, "register", str(file), "--actor", "director")
    assert refused.exit_code == 1 and refused.stderr.count("\n") == 1, refused.output
    assert refused.stderr.startswith(f"error: the entry at position {forged} does not check (")
    assert "nothing was appended" in refused.stderr
    assert ledger.recorder.max_notification_id() == forged
    assert checked_read(ledger)[1].position == forged
    set_aside_at_the_tail(ledger, store_url, forged)


def test_an_edited_section_with_its_tree_recomputed_is_set_aside_and_then_every_writer_goes_on(
    ledger: RatingsLedger, store_url: str, tmp_path: Any
) -> None:
    """Issue 28's third break ("Change a section's result and recompute the tree rows: the
    director's next write signs a root that contains the edit") meets "the director has a
    documented, signed way to set the entry aside": the next write is refused naming the
    entry; the director's set-aside is accepted, and `verify` says set aside."""
    for member in ("12345678", CARL, "30000002", "30000003"):
        ledger.players.register(parse(RegisterPlayer, {"id": member}), actor="td")
    [submitted] = ledger.sections.submit(parse(SubmitSection, section_data()), actor="td")
    edit(store_url, submitted.position, '"1/2-1/2"', '"1-0"')
    with raw_store(store_url) as (conn, table, pos, mark, _):
        rebuild_tree(conn, table, pos, mark)
    file = tmp_path / "players.json"
    file.write_text(json.dumps([{"id": LATER}]))
    refused = invoke(store_url, "register", str(file), "--actor", "director")
    assert refused.exit_code == 1, refused.output
    assert refused.stderr.startswith(f"error: the entry at position {submitted.position} does")
    set_aside_at_the_tail(ledger, store_url, submitted.position)
