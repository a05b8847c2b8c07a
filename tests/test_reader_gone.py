"""A reader that goes away (issue 31, "a ratings office's first week without a surprise"; brief:
"`ratings-ledger player ID | head -1` prints a BrokenPipeError traceback: exit quietly (as Unix
tools do) on the fast and the full path")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

A, B, C = "20000031", "20000032", "20000033"
MAIN = "from ledger.entrypoints.quick import main; main()"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A ledger of one round robin, its read model caught up (the fast path answers)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('pipe') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(url))
    ledger.register(A, B, C, adult=True)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.app.close()
    assert CliRunner().invoke(app, ["catch-up", "--store", url]).exit_code == 0
    return url


@pytest.mark.parametrize("how", ["fast", "fast-json", "full"])
def test_a_reader_that_goes_away_ends_player_quietly(store, tmp_path, how):
    # "exit quietly (as Unix tools do)": the pipe's reader closed before a line is written
    # (`| head -0`); nothing on stderr, no traceback, exit 0 as the full command's EPIPE did.
    # The full path: a read model not built yet (`--view`), which only it builds.
    args = {"fast": [], "fast-json": ["--json"], "full": ["--view", str(tmp_path / "v.db")]}
    writer = _closed_pipe()
    argv = ["ratings-ledger", "player", A, "--store", store, *args[how]]
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.argv = {argv!r}; {MAIN}"],
        stdout=writer,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    os.close(writer)
    assert (done.returncode, done.stderr) == (0, "")


def _closed_pipe() -> int:
    """The writing end of a pipe whose reading end is closed: every write raises EPIPE."""
    reader, writer = os.pipe()
    os.close(reader)
    return writer
