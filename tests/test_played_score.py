"""A player's sections (issue 33: "a page costs well under a millisecond of Python beyond its
queries"): each report's games are walked once for every player's score and games; a merged
person's are counted game by game. Both must say what a report says."""

from __future__ import annotations

import json

from projections.queries.played import played

REPORT = json.dumps(
    {
        "event_name": "Open",
        "games": [
            {"white": "A", "black": "B", "result": "1-0"},
            {"white": "B", "black": "C", "result": "1/2-1/2"},
            {"white": "C", "black": "A", "result": "0F-1F"},
            {"white": "A", "black": "D", "result": "½-½"},
            {"white": "D", "black": "B", "result": "0-1"},
        ],
        "byes": [{"player": "A", "bye": "half"}, {"player": "E", "bye": "full"}],
    }
).encode()


def test_a_forfeit_scores_its_points_but_is_no_game_and_a_bye_scores_its_value():
    report = played(REPORT)
    assert report.event_name == "Open"
    assert report.score({"A"}) == (1.0 + 1.0 + 0.5 + 0.5, 2)  # the forfeit's point, no game
    assert report.score({"B"}) == (0.0 + 0.5 + 1.0, 3)
    assert report.score({"C"}) == (0.5 + 0.0, 1)
    assert report.score({"E"}) == (1.0, 0)  # a bye only
    assert report.score({"X"}) == (0.0, 0)  # not in the section


def test_a_merged_persons_game_between_two_of_his_records_counts_once():
    report = played(REPORT)
    # A and B one person: A-B counted once (White's point), B-C, C-A (forfeit), A-D, D-B
    assert report.score({"A", "B"}) == (1.0 + 0.5 + 1.0 + 0.5 + 1.0 + 0.5, 4)
    assert report.score({"C", "E"}) == (0.5 + 0.0 + 1.0, 1)
