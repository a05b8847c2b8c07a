"""Size limits: a huge section is refused with a message naming the limit, without reading it
whole (bounded memory)."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.bounds import INPUT_LIMITS, MAX_SECTION_GAMES, MAX_SECTION_PLAYERS
from ledger.entrypoints.cli import app

runner = CliRunner()


def players(n: int) -> list[dict[str, str]]:
    return [{"id": f"P{i}"} for i in range(n)]


def section(games: list[dict[str, object]], listed: list[dict[str, str]]) -> dict[str, object]:
    return {
        "section_id": "BIG",
        "event_name": "Huge open",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-05",
        "players": listed,
        "games": games,
    }


def submit(store_url: str, path: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["submit", str(path), "--actor", "td", "--store", store_url])
    return result.exit_code, result.stderr


def test_a_ten_megabyte_section_file_is_refused_unread_naming_the_limit(
    tmp_path: Path, store_url: str
) -> None:
    # Issue: "a 10 MB section ... is either rated within bounded memory or refused with a
    # message naming the limit."
    path = tmp_path / "big.json"
    padding = " " * (10 * 1024 * 1024)
    path.write_text(json.dumps(section([], players(2))) + padding)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, stderr = submit(store_url, path)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert code == 2
    limit = INPUT_LIMITS["json"].size
    assert stderr == (
        f"error: {path}: {path.stat().st_size:,} bytes; a JSON file may hold at most 8 MiB "
        f"({limit:,} bytes; INPUT_LIMITS['json'])\n"
    )
    assert grown_kib < 5 * 1024  # the 10 MB were never read into memory


@pytest.mark.parametrize(
    ("field", "count", "limit", "name"),
    [
        ("games", 100_000, MAX_SECTION_GAMES, "MAX_SECTION_GAMES"),
        ("players", MAX_SECTION_PLAYERS + 1, MAX_SECTION_PLAYERS, "MAX_SECTION_PLAYERS"),
    ],
)
def test_a_section_over_the_game_or_player_limit_is_refused_naming_the_limit(
    tmp_path: Path, field: str, count: int, limit: int, name: str
) -> None:
    # Issue: "... or 100,000 games is either rated within bounded memory or refused with a
    # message naming the limit."
    game = {"round": 1, "white": "P0", "black": "P1", "result": "1-0"}
    data = section(
        [game] * (count if field == "games" else 1), players(count if field == "players" else 2)
    )
    path = tmp_path / "many.json"
    path.write_text(json.dumps(data, separators=(",", ":")))
    code, stderr = submit(f"sqlite:///{tmp_path / 'ledger.db'}", path)
    assert (code, stderr) == (
        2,
        f"error: {field}: {count} {field}; the limit is {limit:,} ({name})\n",
    )


def test_a_section_at_the_game_limit_is_accepted_as_input(tmp_path: Path) -> None:
    # The limit refuses only what exceeds it: MAX_SECTION_GAMES games in 2 players' rounds.
    from ledger.commands import SubmitSection, parse

    games = [
        {"round": r, "white": "P0", "black": "P1", "result": "1-0"}
        for r in range(1, MAX_SECTION_GAMES + 1)
    ]
    assert len(parse(SubmitSection, section(games, players(2))).games) == MAX_SECTION_GAMES
