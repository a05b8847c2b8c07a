"""Registering players: PlayerRegistered, then PlayerProfileUpdated for changed fields."""

from __future__ import annotations

from uuid import uuid5

import pytest

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.domain import NAMESPACE
from ledger.errors import InvalidCommand
from ledger.log import read_entries

ANN = {
    "id": "12345678",
    "name": "Ann Lee",
    "birth_date": "2010-04-02",
    "adult": False,
    "fide": {"rating": 1850, "date": "2024-01-01"},
    "cfc": {"rating": 1700, "date": "2023-06-01"},
}


def player(**data: object) -> RegisterPlayer:
    return parse(RegisterPlayer, data)


def test_registering_a_player_records_the_full_profile_with_dates_as_iso_strings(
    ledger: RatingsLedger,
) -> None:
    # Brief: "PlayerRegistered ...: member id, name, birth date (optional), adult-membership
    # flag, FIDE rating (+ date, games, federation), CFC rating (+ date), ..."; dates as ISO.
    [entry] = ledger.players.register(player(**ANN), actor="office")
    assert entry.type == "PlayerRegistered"
    assert entry.actor == "office"
    assert entry.payload == {
        "member_id": "12345678",
        "name": "Ann Lee",
        "birth_date": "2010-04-02",
        "adult": False,
        "fide": {"rating": 1850.0, "date": "2024-01-01", "games": None, "federation": None},
        "cfc": {"rating": 1700.0, "date": "2023-06-01"},
        "fide_adjustment_opt_in": None,
        "membership_expires": None,
        "playing_since": None,
        "fide_id": None,
        "title": None,
        "sex": None,
        "club": None,
        "federation": None,
        "birth_year": None,
        "reported_rating": None,
        "fide_k": None,  # issue 30: FIDE's K, reached 2400 and list flags, not given
        "fide_reached_2400": None,
        "fide_flags": None,
    }


def test_a_player_aggregate_id_is_the_uuid5_of_player_and_member_id(ledger: RatingsLedger) -> None:
    # Brief: "one per player (id = uuid5 of "player:"+member id)".
    [entry] = ledger.players.register(player(id="30000001"), actor="office")
    assert entry.aggregate_id == str(uuid5(NAMESPACE, "player:30000001"))


def test_registering_again_records_a_profile_update_that_keeps_fields_not_given(
    ledger: RatingsLedger,
) -> None:
    # Brief: "PlayerRegistered / PlayerProfileUpdated"; the file contract: "all but id optional".
    ledger.players.register(player(**ANN), actor="office")
    [entry] = ledger.players.register(
        player(id="12345678", adult=True, membership_expires="2025-12-31"), actor="office"
    )
    assert entry.type == "PlayerProfileUpdated"
    assert entry.payload["adult"] is True
    assert entry.payload["membership_expires"] == "2025-12-31"
    assert entry.payload["name"] == "Ann Lee"
    assert entry.payload["fide"]["rating"] == 1850.0


def test_an_explicit_null_clears_a_registered_field(ledger: RatingsLedger) -> None:
    # Brief: the profile's optional fields (e.g. birth date) may be absent; null records absence.
    ledger.players.register(player(**ANN), actor="office")
    [entry] = ledger.players.register(player(id="12345678", cfc=None), actor="office")
    assert entry.payload["cfc"] is None
    assert entry.payload["birth_date"] == "2010-04-02"


def test_registering_the_same_profile_again_is_refused_as_changing_nothing(
    ledger: RatingsLedger,
) -> None:
    # Issue 11: "a profile update that changes nothing (register with identical fields)" is
    # refused; events are "immutable facts": re-sending a player file adds no fact.
    ledger.players.register(player(**ANN), actor="office")
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="already registered with these fields"):
        ledger.players.register(player(**ANN), actor="office")
    assert list(read_entries(ledger)) == before


def test_a_player_list_is_appended_in_file_order_at_consecutive_positions(
    ledger: RatingsLedger,
) -> None:
    # Brief: "Files may hold one object or a list"; "The ledger position ... (global order)".
    start = ledger.recorder.max_notification_id() or 0
    entries = ledger.players.register(*(player(id=f"3000000{i}") for i in range(5)), actor="office")
    assert [e.payload["member_id"] for e in entries] == [f"3000000{i}" for i in range(5)]
    assert [e.position for e in entries] == list(range(start + 1, start + 6))


def test_a_member_id_given_twice_in_one_batch_rejects_the_whole_batch(
    ledger: RatingsLedger,
) -> None:
    # Brief: "a list is all-or-nothing: validate every item before appending any".
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match=r"'30000001' is given twice \(also in item 0\)") as e:
        ledger.players.register(
            player(id="30000001"), player(id="30000002"), player(id="30000001"), actor="office"
        )
    assert e.value.index == 2
    assert list(read_entries(ledger)) == before


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "No Id"}, "id: is required"),
        ({"id": ""}, "id: '' is not a member id"),
        ({"id": 12345678}, "id: 12345678: input should be a valid string"),
        ({"id": "1", "nickname": "x"}, "nickname: is not a known field (value 'x')"),
        ({"id": "1", "birth_date": "04/02/2010"}, "birth_date: '04/02/2010' is not a date"),
        ({"id": "1", "birth_date": "2010-02-30"}, "birth_date: '2010-02-30' is not a date"),
        ({"id": "1", "birth_date": 20100402}, "birth_date: 20100402 is not a date"),
        ({"id": "1", "adult": 1}, "adult: 1: input should be a valid boolean"),
        ({"id": "1", "fide": {"rating": -5}}, "fide.rating: -5: input should be greater than"),
        ({"id": "1", "fide": {"rating": "1850"}}, "fide.rating: '1850': input should be a valid"),
        ({"id": "1", "fide": {"date": "2024-01-01"}}, "fide.rating: is required"),
        ({"id": "1", "fide": {"rating": 1850, "federation": "usa"}}, "fide.federation: 'usa'"),
        ({"id": "1", "fide": {"rating": 1850, "games": -1}}, "fide.games: -1: input should"),
        ({"id": "1", "cfc": {"rating": 1700, "games": 3}}, "cfc.games: is not a known field"),
        ({"id": "1", "name": "   "}, "name: must not be empty"),
    ],
)
def test_a_bad_player_field_is_rejected_naming_the_field_and_value(
    data: dict[str, object], message: str
) -> None:
    # Brief: "bad input (bad JSON, unknown field, wrong type, ..., negative rating, ...) →
    # ... ONE clear line ... naming the field and value".
    with pytest.raises(InvalidCommand) as e:
        parse(RegisterPlayer, data)
    assert str(e.value).startswith(message)


@pytest.mark.parametrize("actor", ["", "   "])
def test_a_write_without_an_actor_is_rejected(ledger: RatingsLedger, actor: str) -> None:
    # Brief: "each records actor"; "Every write takes --actor (required)".
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="^actor: must not be empty"):
        ledger.players.register(player(id="1"), actor=actor)
    assert list(read_entries(ledger)) == before
