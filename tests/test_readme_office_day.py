"""The README's "The ratings office's day", run line by line (issue 20: "The README's office
workflow, run line by line on a fresh clone, exits 0 at every line"; it exited 4 at
`import trf … --actor office`)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.signing import Keyring

ROOT = Path(__file__).parent.parent


def office_day() -> list[str]:
    """The shell lines of the README's office block (continuation lines joined)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## The ratings office's day", 1)[1].split("```sh\n", 1)[1]
    return [line for line in block.split("\n```", 1)[0].replace("\\\n", "").splitlines() if line]


def test_the_readme_office_block_is_the_one_this_test_runs() -> None:
    lines = office_day()
    assert lines[0].startswith("ratings-ledger import trf examples/may-open.trf")
    assert "--actor office" in lines[0]


@pytest.mark.skipif(shutil.which("sed") is None, reason="the README edits with sed")
def test_every_line_of_the_office_day_exits_0(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    store = ["--store", f"sqlite:///{tmp_path / 'ratings-ledger.db'}"]
    runner = CliRunner()
    # "The ledger": the director sets the ledger up and grants the office its role and key.
    assert runner.invoke(app, ["init", "--actor", "ed@federation", *store]).exit_code == 0
    key = Keyring().public_key("office")  # `keys new office` on the office's machine
    assert key is not None
    grant = ["grant-role", "office", "ratings_admin", "--public-key", key]
    assert runner.invoke(app, [*grant, "--actor", "ed@federation", *store]).exit_code == 0
    for line in office_day():
        words = shlex.split(line, comments=True)
        target = None
        if ">" in words:
            words, target = words[: words.index(">")], words[words.index(">") + 1]
        if words[0] != "ratings-ledger":
            done = subprocess.run(words, check=False, capture_output=True, text=True)
            assert done.returncode == 0, line
            if target is not None:
                (tmp_path / target).write_text(done.stdout)
            continue
        result = runner.invoke(app, [*words[1:], *store])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        if target is not None:
            (tmp_path / target).write_text(result.stdout)
