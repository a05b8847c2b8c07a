"""Names shaped like SQL or HTML are stored and shown verbatim (parameterized SQL only); ids
shaped like them are refused cleanly by the id format, and no table is touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.evidence.chain import verify
from ledger.log import read_entries

SQL = "1'; DROP TABLE stored_events; --"
HTML = "<script>alert(1)</script>"
runner = CliRunner()


def cli(store_url: str, *args: str, actor: str = "director") -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--actor", actor, "--store", store_url])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("hostile", [SQL, HTML, 'Robert"); DELETE FROM chain; --', "a\\'b"])
def test_hostile_names_reasons_and_actors_are_stored_and_shown_verbatim(
    ledger: RatingsLedger, store_url: str, tmp_path: Path, hostile: str
) -> None:
    # Issue: "Identifiers and names shaped like SQL (`1'; DROP TABLE stored_events; --`) and
    # HTML (`<script>alert(1)</script>`) are stored and shown verbatim: parameterized SQL only".
    ledger.keyring.ensure(hostile)
    assert cli(store_url, "grant-role", hostile, "tournament_director")[0] == 0
    players = tmp_path / "players.json"
    players.write_text(json.dumps([{"id": f"4000000{i}", "name": hostile} for i in range(2)]))
    assert cli(store_url, "register", str(players), actor=hostile)[0] == 0
    game = {"round": 1, "white": "40000000", "black": "40000001", "result": "1-0"}
    section = {
        "section_id": "HOSTILE-1",
        "event_name": hostile,
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-04",
        "players": [{"id": "40000000"}, {"id": "40000001"}],
        "games": [game],
    }
    (tmp_path / "section.json").write_text(json.dumps(section))
    assert cli(store_url, "submit", str(tmp_path / "section.json"), actor=hostile)[0] == 0
    code, _, _ = cli(store_url, "withdraw", "HOSTILE-1", "--reason", hostile)
    assert code == 0
    log = runner.invoke(app, ["log", "--json", "--store", store_url])
    entries = json.loads(log.stdout)
    assert [e["payload"]["name"] for e in entries if e["type"] == "PlayerRegistered"] == [
        hostile
    ] * 2
    assert {
        e["actor"] for e in entries if e["type"] in ("PlayerRegistered", "SectionSubmitted")
    } == {hostile}
    assert [e["payload"]["reason"] for e in entries if e["type"] == "SectionWithdrawn"] == [hostile]
    assert hostile in ledger.roles.holders()
    view = tmp_path / "view.db"
    caught = runner.invoke(app, ["catch-up", "--store", store_url, "--view", str(view)])
    assert caught.exit_code == 0, caught.stderr
    shown = runner.invoke(
        app, ["player", "40000000", "--json", "--store", store_url, "--view", str(view)]
    )
    assert json.loads(shown.stdout)["name"] == hostile
    assert verify(ledger).broken is None


@pytest.mark.parametrize("hostile", [SQL, HTML])
def test_ids_shaped_like_sql_or_html_are_refused_in_one_line_and_nothing_is_dropped(
    ledger: RatingsLedger, store_url: str, tmp_path: Path, hostile: str
) -> None:
    # Issue: "... stored and shown verbatim: parameterized SQL only". Member and section ids
    # have a format (letters, digits, . _ - ...), so such ids are bad input: exit 2, one line,
    # and every table is still there.
    before = verify(ledger).head
    (tmp_path / "p.json").write_text(json.dumps({"id": hostile}))
    code, _, stderr = cli(store_url, "register", str(tmp_path / "p.json"))
    assert (code, stderr) == (
        2,
        f"error: id: {hostile!r} is not a member id (letters, digits, . _ -; ≤ 32)\n",
    )
    code, _, stderr = cli(store_url, "withdraw", hostile, "--reason", "r")
    assert (code, stderr.count("\n")) == (2, 1)
    assert verify(ledger).head == before
    assert len(list(read_entries(ledger))) == before.position
