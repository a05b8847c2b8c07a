"""Issue 32's leftovers: "a write refused for bad input in an empty folder creates an empty
`ratings-ledger.db` — a refused write must create nothing" (README: a refused write appends
nothing; here there is nothing to append to, and nothing is made either)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from tests.door_helpers import EXAMPLES

REFUSED = [
    (("withdraw", "S-1", "--reason", "r", "--actor", "director"), 4),  # no ledger set up
    (("register", "players.json", "--actor", "director"), 4),
    (("register", "missing.json", "--actor", "director"), 2),  # bad input
    (("import", "trf", "may-open.trf", "--actor", "td"), 2),
    (("set-aside", "3", "--reason", "r", "--actor", "director"), 4),
    (("submit", "players.json", "--actor", "td", "--dry-run"), 2),
]


@pytest.mark.parametrize(("args", "code"), REFUSED, ids=[" ".join(a[:2]) for a, _ in REFUSED])
def test_a_write_refused_in_an_empty_folder_creates_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], code: int
) -> None:
    """Refused in one line, with its exit code, and the folder holds only its inputs."""
    for name in ("players.json", "may-open.trf"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RATINGS_LEDGER_STORE", raising=False)
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == code, out.output
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["may-open.trf", "players.json"]


def test_init_in_an_empty_folder_still_makes_its_ledger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is removed only when nothing was written to it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RATINGS_LEDGER_STORE", raising=False)
    assert CliRunner().invoke(app, ["init", "--actor", "director"]).exit_code == 0
    assert (tmp_path / "ratings-ledger.db").is_file()
