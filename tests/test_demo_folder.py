"""A demo ledger names its folder (issue 31: "A demo ledger is built in a temporary folder the
output never names"): ./scripts/demo ends by saying where its ledger and read model are, and
how to read and serve them, and the command it prints works."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_ends_naming_its_ledger_and_read_model_and_how_to_read_them(
    tmp_path: Path,
) -> None:
    # Issue 31: "./scripts/demo prints where its ledger and read model are (and how to
    # serve/read them)". A small ledger (DEMO_PLAYERS, DEMO_GAMES) keeps the run short.
    folder = tmp_path / "demo"
    env = os.environ | {"DEMO_DIR": str(folder), "DEMO_PLAYERS": "30", "DEMO_GAMES": "200"}
    env.pop("RATINGS_LEDGER_STORE", None)
    done = subprocess.run(
        [ROOT / "scripts" / "demo"], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    tail = done.stdout.splitlines()[-5:]
    store = f"sqlite:///{folder}/ratings-ledger.db"
    assert tail[0].startswith(f"== the demo's ledger and read model are kept in {folder}")
    assert tail[1:3] == [
        f"ledger:     {folder}/ratings-ledger.db",
        f"read model: {folder}/ratings-ledger.view.db",
    ]
    assert (folder / "ratings-ledger.db").is_file()
    assert (folder / "ratings-ledger.view.db").exists()
    assert tail[4].startswith("serve it:   ") and f"serve --store {store}" in tail[4]
    read = shlex.split(tail[3].removeprefix("read it:"))
    shown = subprocess.run(read, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert read[2] in shown.stdout  # the player the demo showed, read again from its folder
