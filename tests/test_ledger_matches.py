"""Matches: MatchResultSubmitted once per match id, between two registered players."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import SubmitMatch, parse
from ledger.errors import InvalidCommand
from ledger.log import read_entries

GAMES = [
    {"round": 1, "white": "12345678", "black": "30000001", "result": "1-0"},
    {"round": 2, "white": "30000001", "black": "12345678", "result": "½-½"},
]


def match_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "match_id": "2024-LEE-BO",
        "online": False,
        "time_control": "G/60;d5",
        "start_date": "2024-06-01",
        "end_date": "2024-06-02",
        "players": [{"id": "12345678"}, {"id": "30000001"}],
        "games": GAMES,
    }
    data.update(changes)
    return data


def test_a_match_records_its_players_dates_time_control_and_normalized_games(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "MatchResultSubmitted: match id, two players, start/end dates, time control,
    # games (results)".
    register_players("12345678", "30000001")
    [entry] = ledger.sections.submit_match(parse(SubmitMatch, match_data()), actor="td")
    assert entry.type == "MatchResultSubmitted"
    assert entry.payload["players"] == [{"id": "12345678"}, {"id": "30000001"}]
    assert [g["result"] for g in entry.payload["games"]] == ["1-0", "1/2-1/2"]
    assert (entry.payload["start_date"], entry.payload["end_date"]) == ("2024-06-01", "2024-06-02")


def test_a_match_id_is_accepted_once(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "one per match" aggregate; a duplicate is never appended.
    register_players("12345678", "30000001")
    ledger.sections.submit_match(parse(SubmitMatch, match_data()), actor="td")
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="^match_id: match '2024-LEE-BO' already exists"):
        ledger.sections.submit_match(parse(SubmitMatch, match_data()), actor="td")
    assert list(read_entries(ledger)) == before


def test_a_match_with_an_unregistered_player_is_rejected(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: bad input includes an "unregistered player".
    register_players("12345678")
    with pytest.raises(InvalidCommand, match=r"^players\[1\].id: '30000001' is not a registered"):
        ledger.sections.submit_match(parse(SubmitMatch, match_data()), actor="td")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"players": [{"id": "12345678"}]}, "players: [{'id': '12345678'}]: list should have at"),
        (
            {"players": [{"id": "12345678"}, {"id": "30000001"}, {"id": "30000002"}]},
            "players: [{'id': '12345678'}, {'id': '30000001'}, {'id': '30000002'}]: list should",
        ),
        ({"players": [{"id": "12345678"}] * 2}, "players[1].id: '12345678' is listed twice"),
        ({"games": [GAMES[0], GAMES[0]]}, "games[1].round: game 1 is listed twice"),
        (
            {"games": [{**GAMES[0], "black": "30000002"}]},
            "games[0].black: '30000002' is not in players",
        ),
        ({"end_date": "2024-05-31"}, "end_date: 2024-05-31 is before start_date 2024-06-01"),
        ({"games": [{**GAMES[0], "result": "1-1"}]}, "games[0].result: '1-1' is not one of"),
        ({"time_control": "slow"}, "time_control: time control 'slow': cannot read 'slow'"),
    ],
)
def test_a_malformed_match_is_rejected_naming_the_field(
    changes: dict[str, Any], message: str
) -> None:
    # Brief: "two players"; bad input names "the field and value".
    with pytest.raises(InvalidCommand) as e:
        parse(SubmitMatch, match_data(**changes))
    assert str(e.value).startswith(message)
