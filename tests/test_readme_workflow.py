"""Issue 20: "the README's office workflow fails as written" — how we will check it: "The
README's office workflow, run line by line on a fresh clone, exits 0 at every line". The shell
blocks of "The ledger" and "The ratings office's day", run in order in one shell on a fresh
store and keyring, in a folder holding the clone's examples/."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SECTIONS = ("## The ledger", "## The ratings office's day")


def workflow() -> list[str]:
    """The command lines of the README's shell blocks under SECTIONS, in order (a line ending
    in a backslash joined to the next, as the shell reads it)."""
    text = (ROOT / "README.md").read_text()
    lines = []
    for heading in SECTIONS:
        part = text[text.index(heading + "\n") :]
        part = part[: part.find("\n## ", len(heading))]
        for block in re.findall(r"```sh\n(.*?)```", part, re.S):
            lines += [x for x in block.replace("\\\n", "").splitlines() if x.strip()]
    return lines


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_readme_workflow_exits_0_at_every_line(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    lines = workflow()
    assert len(lines) > 20
    script = "".join(f'{line}\necho "::exit $? ::"\n' for line in lines)
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "RATINGS_LEDGER_KEYRING": str(tmp_path / "keys"),
        "HOME": str(tmp_path),
    }
    env.pop("RATINGS_LEDGER_STORE", None)
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    codes = [int(c) for c in re.findall(r"::exit (\d+) ::", done.stdout)]
    failed = [(line, c) for line, c in zip(lines, codes, strict=True) if c != 0]
    assert failed == [], done.stderr
