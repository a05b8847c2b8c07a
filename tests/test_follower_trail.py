"""Issue 33, "Beyond one process": each server's read model follows the store, and its follower
goes on from where its last verified read ended (`ledger.evidence.verified.Trail`) instead of
learning the keys and the tree from the log at every append. Issue 28's rule holds along it:
"no entry is yielded before the signature of its write checks", so a read along a trail answers
what a read from the log answers, breaks included."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.domain import player_key
from ledger.entrypoints.cli import app
from ledger.evidence import verified
from ledger.evidence.verified import Trail, read_verified_entries
from ledger.log import breaks_reported, read_entries
from ledger.reading import open_ledger
from projections import binding
from projections.projector import View
from projections.session import ReadSession, followed
from tests.tamper_helpers import checked_read, edit, insert

CARL, LATER, OTHER = "30000001", "30000009", "30000008"


def along(ledger: RatingsLedger, trail: Trail, after: int) -> tuple[list[int], Any]:
    """The positions a read along `trail` yields after `after`, and the break it reports."""
    found: list[Any] = []
    with breaks_reported(found.append):
        positions = [e.position for e in read_verified_entries(ledger, after, trail=trail)]
    assert len(found) <= 1
    return positions, (found[0] if found else None)


def register(ledger: RatingsLedger, member: str, actor: str = "director") -> int:
    ledger.players.register(parse(RegisterPlayer, {"id": member}), actor=actor)
    return ledger.recorder.max_notification_id() or 0


def profile_entry(ledger: RatingsLedger, member: str, **changed: Any) -> bytes:
    """A profile update of `member` with `changed` fields, as stored bytes."""
    registered = next(e for e in read_entries(ledger) if e.payload.get("member_id") == member)
    payload = json.loads(registered.state) | changed
    payload.pop("originator_topic", None)
    return json.dumps(payload).encode()


def forged_rerating(ledger: RatingsLedger, url: str) -> int:
    """Carl's FIDE rating changed by an entry the TD signs with his own key (no authority)."""
    state = profile_entry(ledger, CARL, fide={"rating": 2533, "date": "2019-01-01"})
    key = ledger.keyring.private_key("td")
    return insert(url, player_key(CARL), 2, "ratings-ledger:PlayerProfileUpdated", state, key, True)


def unsigned_row(ledger: RatingsLedger, url: str) -> int:
    """A row an insider adds with no signature and no chain row."""
    state = json.dumps({"member_id": OTHER}).encode()
    return insert(url, player_key(OTHER), 1, "ratings-ledger:PlayerRegistered", state)


def stranger_signed(ledger: RatingsLedger, url: str) -> int:
    """A write signed, sealed and put in the tree with a key the ledger never granted."""
    state = profile_entry(ledger, CARL, federation="ENG")
    key = Ed25519PrivateKey.generate()
    return insert(url, player_key(CARL), 2, "ratings-ledger:PlayerProfileUpdated", state, key, True)


def edited_write(ledger: RatingsLedger, url: str) -> int:
    """An honest write whose stored payload is changed before the follower reads it."""
    position = register(ledger, LATER)
    edit(url, position, LATER, OTHER)
    return position


ATTACKS: list[Callable[[RatingsLedger, str], int]] = [
    forged_rerating,
    unsigned_row,
    stranger_signed,
    edited_write,
]


@pytest.fixture
def trailed(ledger: RatingsLedger) -> tuple[RatingsLedger, Trail, int]:
    """A ledger with Carl registered, read once along a new trail: (ledger, trail, its head)."""
    head = register(ledger, CARL, actor="td")
    trail = Trail()
    assert along(ledger, trail, 0) == (list(range(1, head + 1)), None)
    assert trail.position == head
    return ledger, trail, head


def test_a_read_along_a_trail_learns_nothing_from_the_log_again(
    trailed: tuple[RatingsLedger, Trail, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: a follower catches up after a notification: only the new writes are read and
    # checked, against the verifier its last read left (no keys, lists or tree read again).
    ledger, trail, head = trailed
    later = register(ledger, LATER)

    def refused(*_: object) -> None:
        raise AssertionError("learnt from the log again")

    monkeypatch.setattr(verified, "verifier_at", refused)
    monkeypatch.setattr(verified, "write_start", refused)
    assert along(ledger, trail, head) == (list(range(head + 1, later + 1)), None)
    assert trail.position == later


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.__name__)
def test_a_new_entry_that_does_not_check_stops_a_read_along_a_trail_where_a_read_from_the_log_stops(
    trailed: tuple[RatingsLedger, Trail, int],
    store_url: str,
    attack: Callable[[RatingsLedger, str], int],
) -> None:
    # Issue 28 (kept by issue 33's followers): "no entry is yielded before the signature of its
    # write checks"; the read stops at the bad write, names it, and goes no further.
    ledger, trail, head = trailed
    position = attack(ledger, store_url)
    expected = checked_read(ledger, head)
    assert expected[1] is not None and expected[1].position == position
    assert along(ledger, trail, head) == expected
    assert along(ledger, trail, head) == expected  # and again, the trail dropped at the break


@pytest.mark.parametrize("read_between", [True, False], ids=["read-between", "unread"])
def test_a_set_aside_after_the_trail_is_passed_over_as_a_read_from_the_log_passes_over_it(
    trailed: tuple[RatingsLedger, Trail, int], store_url: str, read_between: bool
) -> None:
    # Issue 28: "after `set-aside`, reads catch up past it"; a set-aside changes what a check
    # passes over, so a read along the trail that meets a bad entry checks from the log again
    # (the follower may not have read between the bad entry and its set-aside).
    ledger, trail, head = trailed
    position = forged_rerating(ledger, store_url)
    register(ledger, LATER)
    if read_between:
        assert along(ledger, trail, head)[1].position == position
    done = CliRunner().invoke(
        app,
        ["set-aside", str(position), "--reason", "forged", "--actor", "director"]
        + ["--store", store_url],
    )
    assert done.exit_code == 0, done.output
    expected = checked_read(ledger, head)
    assert expected[1] is None and position not in expected[0]
    assert along(ledger, trail, head) == expected
    assert trail.position == ledger.recorder.max_notification_id()


def test_a_set_aside_of_an_entry_the_trail_verified_is_honoured_as_a_read_from_the_log_does(
    trailed: tuple[RatingsLedger, Trail, int], store_url: str
) -> None:
    # Issue 28: a check passes over what a director set aside, wherever it is: a set-aside of
    # the TD's grant, signed by the director past the write path's own refusal, takes the TD's
    # key away from every read, a read along a trail that verified the grant included.
    ledger, trail, head = trailed
    grant = next(
        e
        for e in read_entries(ledger)
        if e.type == "RoleGranted" and e.payload.get("holder") == "td"
    )
    stamp = json.loads(grant.state)["timestamp"]
    aside = {"timestamp": stamp, "positions": [grant.position], "reason": "r", "actor": "director"}
    director = ledger.keyring.private_key("director")
    topic, state = "ratings-ledger:EntrySetAside", json.dumps(aside).encode()
    insert(store_url, uuid.uuid4(), 1, topic, state, director, True)
    registration = profile_entry(ledger, CARL, member_id=OTHER)
    key = ledger.keyring.private_key("td")
    by_td = insert(
        store_url, player_key(OTHER), 1, "ratings-ledger:PlayerRegistered", registration, key, True
    )
    expected = checked_read(ledger, head)
    assert expected[1] is not None and expected[1].position == by_td
    assert along(ledger, trail, head) == expected


def test_a_read_model_caught_up_along_a_trail_is_bound_and_built_as_one_caught_up_from_the_log(
    ledger: RatingsLedger, tmp_path: Any
) -> None:
    # Issue 33: a follower's read model is the same read model; its binding (the ledger, the
    # link it was built to, the federation there) is what a catch-up from the log records.
    register(ledger, CARL)
    followed, plain = View(tmp_path / "followed.db"), View(tmp_path / "plain.db")
    trail = Trail()
    try:
        for member in (None, LATER, OTHER):
            if member is not None:
                register(ledger, member)
            ReadSession(ledger, followed, owns_ledger=False, trail=trail).catch_up()
            ReadSession(ledger, plain, owns_ledger=False).catch_up()
            assert trail.link_at(followed.last_position) is not None
            assert binding.binding(followed) == binding.binding(plain)
            assert followed.digest() == plain.digest()
    finally:
        followed.close()
        plain.close()


def test_a_catch_up_of_a_followed_read_model_goes_on_from_the_followers_trail(
    ledger: RatingsLedger, store_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: a request that comes before its server's follower catches the model up itself;
    # it goes on from the follower's trail (each thread has its ledger and model open).
    path = tmp_path / "followed.db"
    head = register(ledger, CARL)
    readers = [open_ledger(store_url), open_ledger(store_url)]
    views = [View(path), View(path)]
    try:
        trail = followed(readers[0], path)
        ReadSession(readers[0], views[0], owns_ledger=False).catch_up()
        assert (trail.position, views[0].last_position) == (head, head)
        later = register(ledger, LATER)
        monkeypatch.setattr(verified, "verifier_at", lambda *_: pytest.fail("read from the log"))
        ReadSession(readers[1], views[1], owns_ledger=False).catch_up()
        assert (trail.position, views[1].last_position) == (later, later)
    finally:
        for view in views:
            view.close()
        for reader in readers:
            reader.close()
