"""Limits as documented for every input (issue 31: "`import trf` accepts a 9.05 MiB file though
the README refuses files over 8 MiB (JSON is refused); a 12 MB random file is refused for '0
player lines', not its size"): each input is refused by its size first, in one line naming the
limit of `ledger.bounds.INPUT_LIMITS`, and the README says what that table says."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from test_web import get
from typer.testing import CliRunner

from ledger.bounds import (
    INPUT_LIMITS,
    MAX_SECTION_GAMES,
    MAX_SECTION_PLAYERS,
    limits_sentence,
    size_text,
)
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.evidence.signing import KEYRING_VARIABLE

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
TRF = FIXTURES / "real" / "karl-mala-2005.trf"


def refusal(path: Path, kind: str, size: int | None = None) -> str:
    """The one line an input of `kind` over its limit is refused with."""
    limit = INPUT_LIMITS[kind]
    held = f"{path.stat().st_size if size is None else size:,} bytes"
    return (
        f"error: {path}: {held}; {limit.what} may hold at most {size_text(limit.size)} "
        f"({limit.size:,} bytes; INPUT_LIMITS[{kind!r}])\n"
    )


def grown(source: Path, target: Path, size: int) -> Path:
    """`source` copied to `target`, padded to `size` bytes with TRF comment lines (a file that
    would parse whole, so only its size can refuse it)."""
    text = source.read_bytes()
    line = b"### padding: a comment line every reader skips\n"
    target.write_bytes(text + line * ((size - len(text)) // len(line) + 1))
    return target


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stderr


def test_the_readme_states_the_limits_of_the_one_table() -> None:
    # Issue 31: "the README's limits paragraph generated from or checked against that table".
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert limits_sentence() in readme
    assert f"a section over {MAX_SECTION_GAMES:,} games or {MAX_SECTION_PLAYERS:,} players" in (
        readme
    )
    assert "8 MiB for a JSON file, a TRF file, a US Chess DBF file or a --map file" in readme


def test_a_trf_of_9_05_mib_is_refused_by_its_size_naming_the_8_mib_limit(tmp_path: Path) -> None:
    # Issue 31: "`import trf` accepts a 9.05 MiB file though the README refuses files over 8 MiB".
    path = grown(TRF, tmp_path / "big.trf", int(9.05 * 1024 * 1024))
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    code, stderr = run("import", "trf", str(path), "--actor", "td", "--store", store)
    assert (code, stderr) == (2, refusal(path, "trf"))
    assert "8 MiB" in stderr


def test_a_12_mb_random_file_is_refused_for_its_size_not_its_player_lines(tmp_path: Path) -> None:
    # Issue 31: "a 12 MB random file is refused for '0 player lines', not its size".
    path = tmp_path / "random.trf"
    path.write_bytes(os.urandom(12_000_000))
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    code, stderr = run("import", "trf", str(path), "--actor", "td", "--store", store, "--dry-run")
    assert (code, stderr) == (2, refusal(path, "trf"))
    assert "player" not in stderr


def test_a_trf_at_its_limit_is_read(tmp_path: Path) -> None:
    # Issue 31: the limit is the README's "over 8 MiB": a file of exactly 8 MiB is no refusal.
    path = grown(TRF, tmp_path / "at.trf", 0)
    with path.open("ab") as f:
        f.write(b"#" * (INPUT_LIMITS["trf"].size - path.stat().st_size))
    assert path.stat().st_size == INPUT_LIMITS["trf"].size
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run("init", "--actor", "director", "--store", store)[0] == 0
    code, stderr = run(
        "import",
        "trf",
        str(path),
        "--register-players",
        "--actor",
        "director",
        "--store",
        store,
        "--dry-run",
        "--json",
    )
    assert "INPUT_LIMITS" not in stderr
    assert code == 0, stderr


def test_a_map_file_over_its_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    # Issue 31: "Make every input (... map files ...) refused by size FIRST".
    path = tmp_path / "map.csv"
    with path.open("wb") as f:
        f.truncate(INPUT_LIMITS["map"].size + 1)  # sparse: its size, never its bytes, refuses
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    code, stderr = run(
        "import", "trf", str(TRF), "--map", str(path), "--actor", "td", "--store", store
    )
    assert (code, stderr) == (2, refusal(path, "map"))


def test_a_dbf_file_over_its_limit_is_refused_before_any_is_read(tmp_path: Path) -> None:
    # Issue 31: "Make every input (... US Chess DBF ...) refused by size FIRST".
    folder = tmp_path / "report"
    shutil.copytree(FIXTURES / "uschess-dbf", folder)
    details = folder / "TDEXPORT.DBF"
    with details.open("ab") as f:
        f.truncate(INPUT_LIMITS["dbf"].size + 1)
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    code, stderr = run("import", "uschess-dbf", str(folder), "--actor", "td", "--store", store)
    assert (code, stderr) == (2, refusal(details, "dbf"))


def test_a_json_command_file_over_its_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    # README: "Inputs over their size limit (8 MiB for a JSON file ...) are refused unread".
    path = tmp_path / "section.json"
    path.write_text("[" + " " * INPUT_LIMITS["json"].size + "]")
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run("submit", str(path), "--actor", "td", "--store", store) == (
        2,
        refusal(path, "json"),
    )
    assert run("estimate", str(path)) == (2, refusal(path, "json"))


def test_a_key_file_over_its_limit_is_refused_by_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 31: "Make every input (... keys ...) refused by size FIRST, in one line".
    monkeypatch.setenv(KEYRING_VARIABLE, str(tmp_path))
    path = tmp_path / "td.key"
    path.write_bytes(b"-" * (INPUT_LIMITS["key"].size + 1))
    assert run("keys", "show", "td") == (2, refusal(path, "key"))


def test_a_checkpoint_file_over_its_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    # Issue 31: every input refused by size first (a checkpoint file is read like a key file).
    path = tmp_path / "checkpoint.txt"
    path.write_bytes(b"x" * (INPUT_LIMITS["key"].size + 1))
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run("init", "--actor", "director", "--store", store)[0] == 0
    code, stderr = run("cosign", str(path), "--actor", "auditor", "--store", store)
    assert (code, stderr) == (1, refusal(path, "key").replace("error: ", "error: the checkpoint "))


def test_a_web_query_string_over_its_limit_is_refused_414_naming_it(tmp_path: Path) -> None:
    # Issue 31: "Make every input (... web query strings) refused by size FIRST".
    site = Site(f"sqlite:///{tmp_path / 'ledger.db'}")
    query = "q=" + "a" * INPUT_LIMITS["query"].size
    page = get(site, "/api/players", query)
    assert page.status == 414
    assert page.json()["detail"] == (  # problem details (RFC 9457, issue 32)
        f"the query string is {len(query):,} bytes; a web query string may hold at most 8 KiB "
        f"({INPUT_LIMITS['query'].size:,} bytes; INPUT_LIMITS['query'])"
    )
    assert re.search(r"8 KiB", get(site, "/players", query).text)


def test_a_public_key_longer_than_a_key_is_refused_by_its_length_unshown(tmp_path: Path) -> None:
    # Issue 31: "Make every input (... keys ...) refused by size FIRST, in one line naming the
    # limit": a 100,000-character --public-key is not echoed back.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run("init", "--actor", "director", "--store", store)[0] == 0
    key = "a" * 100_000
    code, stderr = run(
        "grant-role", "x", "auditor", "--actor", "director", "--public-key", key, "--store", store
    )
    assert (code, stderr) == (
        2,
        "error: public_key: 100,000 characters; an Ed25519 public key is 64 hex digits\n",
    )
