"""Sections: SectionSubmitted once per section id, then SectionCorrected or SectionWithdrawn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import uuid5

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.application import RatingsLedger
from ledger.commands import SubmitSection, parse
from ledger.domain import NAMESPACE
from ledger.errors import InvalidCommand
from ledger.log import read_entries

Make = Callable[..., SubmitSection]
PLAYERS = [{"id": p} for p in ("12345678", "30000001", "30000002", "30000003")]


def test_a_submitted_section_records_its_report_with_normalized_results_forfeits_and_byes(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "results 1-0, 0-1, 1/2-1/2 (accept ½-½, store normalized), plus forfeits
    # 1F-0F/0F-1F and byes ..., recorded but not rated".
    games = [
        {"round": 1, "white": "12345678", "black": "30000001", "result": "½-½"},
        {"round": 1, "white": "30000002", "black": "30000003", "result": "1F-0F"},
    ]
    byes = [{"round": 2, "player": "30000003", "bye": "half"}]
    [entry] = ledger.sections.submit(section_ready(games=games, byes=byes), actor="td")
    assert entry.type == "SectionSubmitted"
    assert entry.payload["games"][0]["result"] == "1/2-1/2"
    assert entry.payload["games"][1]["result"] == "1F-0F"
    assert entry.payload["byes"] == byes
    assert entry.payload["start_date"] == "2024-05-04"
    assert entry.payload["players"] == PLAYERS
    assert entry.aggregate_id == str(uuid5(NAMESPACE, "section:2024-05-GP-OPEN"))


def test_resubmitting_a_section_id_is_rejected_and_never_duplicated(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "re-submitting an existing section id is ... a clear "section X already exists"
    # error, never a duplicate".
    ledger.sections.submit(section_ready(), actor="td")
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="^section_id: section '2024-05-GP-OPEN' already exi"):
        ledger.sections.submit(section_ready(event_name="Other"), actor="td")
    assert list(read_entries(ledger)) == before


def test_a_section_with_an_unregistered_player_is_rejected_naming_the_player(
    ledger: RatingsLedger, register_players: Callable[..., None]
) -> None:
    # Brief: "players (ids, must be registered)".
    register_players("12345678", "30000001", "30000003")
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand) as e:
        ledger.sections.submit(parse(SubmitSection, section_data()), actor="td")
    assert str(e.value) == "players[2].id: '30000002' is not a registered player"
    assert list(read_entries(ledger)) == before


def test_a_list_of_sections_is_rejected_whole_when_one_item_is_bad(
    ledger: RatingsLedger, section_ready: Make, register_players: Callable[..., None]
) -> None:
    # Brief: "a list is all-or-nothing: validate every item before appending any".
    before = list(read_entries(ledger))
    stranger = [*PLAYERS[:3], {"id": "99999999"}]
    games = [{"round": 1, "white": "12345678", "black": "99999999", "result": "1-0"}]
    with pytest.raises(InvalidCommand) as e:
        ledger.sections.submit(
            section_ready("A"), section_ready("B", players=stranger, games=games), actor="td"
        )
    assert (e.value.index, str(e.value)) == (
        1,
        "players[3].id: '99999999' is not a registered player",
    )
    assert list(read_entries(ledger)) == before


def test_a_section_id_given_twice_in_one_list_is_rejected(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: one aggregate per section id, "never a duplicate".
    with pytest.raises(InvalidCommand, match=r"'A' is given twice \(also in item 0\)"):
        ledger.sections.submit(section_ready("A"), section_ready("A"), actor="td")


def section_data(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "section_id": "2024-05-GP-OPEN",
        "event_name": "Grand Prix",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-05",
        "players": PLAYERS,
        "games": [{"round": 1, "white": "12345678", "black": "30000002", "result": "1-0"}],
    }
    data.update(changes)
    return data


def game(**changes: Any) -> list[dict[str, Any]]:
    return [{"round": 1, "white": "12345678", "black": "30000001", "result": "1-0", **changes}]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"games": game(result="2-0")},
            "games[0].result: '2-0' is not one of 1-0, 0-1, 1/2-1/2, 1F-0F, 0F-1F",
        ),
        ({"games": game(result="1/2")}, "games[0].result: '1/2' is not one of"),
        ({"games": game(black="12345678")}, "games[0].black: '12345678' is paired with themse"),
        ({"games": game(white="40000000")}, "games[0].white: '40000000' is not in players"),
        ({"games": game(round=0)}, "games[0].round: 0: input should be greater than or equal"),
        ({"games": game(board=3)}, "games[0].board: is not a known field (value 3)"),
        ({"games": game() * 2}, "games[1].white: '12345678' already has a game or bye in round"),
        ({"games": []}, "games: []: list should have at least 1 item"),
        ({"end_date": "2024-05-03"}, "end_date: 2024-05-03 is before start_date 2024-05-04"),
        ({"start_date": "May 4"}, "start_date: 'May 4' is not a date (YYYY-MM-DD)"),
        ({"online": "no"}, "online: 'no': input should be a valid boolean"),
        ({"system": "OLR"}, "system: 'OLR' is an online system but online is false"),
        ({"online": True, "system": "OTBB"}, "system: 'OTBB' is an over-the-board system but"),
        ({"rules": "uschess-2019"}, "rules: 'uschess-2019' is not one of uschess, fide, icu,"),
        ({"time_control": "ninety minutes"}, "time_control: time control 'ninety minutes': can"),
        ({"players": PLAYERS[:1]}, "players: [{'id': '12345678'}]: list should have at least 2"),
        ({"players": [*PLAYERS, PLAYERS[0]]}, "players[4].id: '12345678' is listed twice"),
        (
            {"byes": [{"round": 1, "player": "12345678", "bye": "full"}]},
            "byes[0].player: '12345678' already has a game or bye in round 1",
        ),
        ({"byes": [{"round": 2, "player": "4", "bye": "half"}]}, "byes[0].player: '4' is not in"),
        ({"byes": [{"round": 2, "player": "12345678", "bye": "1"}]}, "byes[0].bye: '1': input"),
        ({"event_name": ""}, "event_name: must not be empty"),
        ({"section_id": "has space"}, "section_id: 'has space' is not an id"),
        ({"notes": "x"}, "notes: is not a known field (value 'x')"),
    ],
)
def test_a_malformed_section_is_rejected_with_one_line_naming_the_field_and_value(
    changes: dict[str, Any], message: str
) -> None:
    # Brief: "unknown player in a game, a player paired with themselves, a bad result string,
    # end before start, ... → ... ONE clear line ... naming the field and value".
    with pytest.raises(InvalidCommand) as e:
        parse(SubmitSection, section_data(**changes))
    assert str(e.value).startswith(message)


ACCEPTED = {"1-0", "0-1", "1/2-1/2", "½-½", "1F-0F", "0F-1F"}


@given(st.text(max_size=8).filter(lambda text: text not in ACCEPTED))
def test_any_other_result_string_is_rejected_naming_it(result: str) -> None:
    # Brief: "results 1-0, 0-1, 1/2-1/2 (accept ½-½ ...), plus forfeits 1F-0F/0F-1F";
    # anything else is "a bad result string".
    with pytest.raises(InvalidCommand) as e:
        parse(SubmitSection, section_data(games=game(result=result)))
    assert str(e.value).startswith(f"games[0].result: {result!r} is not one of")


@given(st.sampled_from(sorted(ACCEPTED)))
def test_every_accepted_result_is_stored_in_its_normal_form(result: str) -> None:
    # Brief: "accept ½-½, store normalized".
    stored = parse(SubmitSection, section_data(games=game(result=result))).games[0].result
    assert stored == ("1/2-1/2" if result == "½-½" else result)


@pytest.mark.parametrize("time_control", ["90+30", "90'+30\""])
def test_a_fide_or_icu_section_keeps_its_own_time_control_notation(time_control: str) -> None:
    # Brief: "rules family hint optional"; only US Chess time controls are parsed here.
    for rules in ("fide", "icu"):
        section = parse(SubmitSection, section_data(rules=rules, time_control=time_control))
        assert section.time_control == time_control


def test_a_correction_records_the_full_replacement_revision_with_its_reason(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "SectionCorrected (a full replacement revision, with reason)".
    ledger.sections.submit(section_ready(), actor="td")
    games = game(result="0-1")
    [entry] = ledger.sections.correct(
        section_ready(games=games), reason="round 1 result reversed", actor="office"
    )
    assert entry.type == "SectionCorrected"
    assert entry.payload["games"] == games
    assert entry.payload["reason"] == "round 1 result reversed"
    assert entry.payload["event_name"] == "Grand Prix"
    assert entry.actor == "office"


def test_a_withdrawal_records_the_reason_and_ends_the_section(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "SectionWithdrawn (with reason)"; "correcting/withdrawing an unknown or withdrawn
    # section" is bad input.
    ledger.sections.submit(section_ready(), actor="td")
    [entry] = ledger.sections.withdraw(
        "2024-05-GP-OPEN", reason="not a rated event", actor="office"
    )
    assert (entry.type, entry.payload) == (
        "SectionWithdrawn",
        {"section_id": "2024-05-GP-OPEN", "reason": "not a rated event"},
    )
    before = list(read_entries(ledger))
    with pytest.raises(InvalidCommand, match="was withdrawn; it cannot change"):
        ledger.sections.correct(section_ready(), reason="late fix", actor="office")
    with pytest.raises(InvalidCommand, match="was withdrawn; it cannot change"):
        ledger.sections.withdraw("2024-05-GP-OPEN", reason="again", actor="office")
    with pytest.raises(InvalidCommand, match="section '2024-05-GP-OPEN' already exists"):
        ledger.sections.submit(section_ready(), actor="td")
    assert list(read_entries(ledger)) == before


def test_correcting_or_withdrawing_an_unknown_section_is_rejected(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "correcting/withdrawing an unknown ... section" is bad input.
    with pytest.raises(InvalidCommand, match="^section_id: section 'NOPE' does not exist"):
        ledger.sections.correct(section_ready("NOPE"), reason="fix", actor="office")
    with pytest.raises(InvalidCommand, match="^section_id: section 'NOPE' does not exist"):
        ledger.sections.withdraw("NOPE", reason="fix", actor="office")


def test_a_correction_must_still_name_only_registered_players(
    ledger: RatingsLedger, section_ready: Make
) -> None:
    # Brief: "players (ids, must be registered)" holds for every revision.
    ledger.sections.submit(section_ready(), actor="td")
    players = [*PLAYERS, {"id": "77777777"}]
    with pytest.raises(InvalidCommand, match=r"^players\[4\].id: '77777777' is not a registered"):
        ledger.sections.correct(section_ready(players=players), reason="add", actor="office")


@pytest.mark.parametrize("reason", ["", "  "])
def test_a_correction_or_withdrawal_without_a_reason_is_rejected(
    ledger: RatingsLedger, section_ready: Make, reason: str
) -> None:
    # Brief: "corrections/overrides a reason"; "SectionWithdrawn (with reason)".
    ledger.sections.submit(section_ready(), actor="td")
    with pytest.raises(InvalidCommand, match="^reason: must not be empty"):
        ledger.sections.correct(section_ready(), reason=reason, actor="office")
    with pytest.raises(InvalidCommand, match="^reason: must not be empty"):
        ledger.sections.withdraw("2024-05-GP-OPEN", reason=reason, actor="office")
