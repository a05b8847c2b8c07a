"""Issue 30, cause 7: one family vocabulary in every command (`replay`, `estimate`)."""

import json

import pytest
from typer.testing import CliRunner

from ledger import estimate as est
from ledger.entrypoints.cli import app


def section(result="1-0", system="OTBR"):
    return est.load_section(
        {
            "start_date": "2024-03-01",
            "end_date": "2024-03-03",
            "time_control": "G/90+30",
            "system": system,
            "players": [{"id": "a", "unrated": True}, {"id": "b", "rating": 1850.25, "games": 40}],
            "games": [{"white": "a", "black": "b", "result": result}],
        }
    )


@pytest.mark.parametrize(
    ("rules", "system", "named"),
    [("fide-2024", "OTBR", "FIDE"), ("fide-2024", "rapid", "FIDE_RAPID"), ("icu", "OTBR", "ICU")],
)
def test_estimate_labels_fide_and_icu_results_with_their_own_system_names(rules, system, named):
    # Issue 30: "`estimate` labels FIDE and ICU results `"system": "OTBR"`".
    assert est.estimate(section(system=system), rules)["system"] == named


def test_a_first_event_lost_to_a_player_rated_1850_25_says_it_is_disregarded():
    # Issue 30: "with `fide-2024` a player whose one game was against an opponent rated
    # 1850.25 gets 'no games against rated opponents'": 8.2.1 disregards a zero first event.
    lost = est.estimate(section("0-1"), "fide-2024")["players"][0]
    assert lost["reason"] == "8.2.1: a score of zero in the first event is disregarded"
    won = est.estimate(section("1-0"), "fide-2024")["players"][0]
    assert won["reason"] == "7.1.4: 1 games against rated opponents, at least 5"


def test_the_estimate_command_prints_the_fide_list(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(section().model_dump(mode="json", exclude_none=True)))
    out = CliRunner().invoke(app, ["estimate", str(path), "--rules", "fide-2024"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["system"] == "FIDE"
