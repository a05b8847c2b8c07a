"""Faults of the machine, tried on a real small disk (issue 18, "Faults": "disk full and
read-only filesystems give one line, a committed write always reports success, files (keys,
views) are written atomically; integers beyond SQLite's range and control characters are
refused in one line"). The disk is a tmpfs mounted for the test (root only)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.evidence.signing import KEYRING_VARIABLE, Keyring

PLAYERS = ("20000001", "20000002", "20000003", "20000004")


def _mount(where: Path, *options: str) -> None:
    subprocess.run(["mount", *options, where], check=True, capture_output=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 6 MiB disk of its own, holding a small ledger and its read model."""
    where = tmp_path / "disk"
    where.mkdir()
    try:
        _mount(where, "-t", "tmpfs", "-o", "size=6m", "tmpfs")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("mounting a small disk needs root (mount -t tmpfs): the fault tests skip")
    try:
        ledger = Ledger(RatingsLedger(f"sqlite:///{where / 'ledger.db'}"))
        ledger.register(*PLAYERS, adult=True)
        ledger.submit(round_robin("JAN", list(PLAYERS), "2024-01-06"))
        ledger.app.close()
        yield where
    finally:
        subprocess.run(["umount", "-l", where], check=False, capture_output=True)


def run(where: Path, *args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, [*args, "--store", f"sqlite:///{where / 'ledger.db'}"])
    return result.exit_code, result.output.splitlines()


def fill(where: Path, leave_kib: int) -> Path:
    """Fill the disk but `leave_kib` KiB."""
    free = subprocess.run(
        ["df", "--output=avail", "-k", where], check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    filler = where / "filler"
    with filler.open("wb") as out:
        out.write(b"\0" * max(int(free) - leave_kib, 0) * 1024)
    return filler


def test_a_full_disk_refuses_a_read_in_one_line_and_loses_no_committed_write(disk):
    assert run(disk, "player", PLAYERS[0])[0] == 0  # the read model exists
    section = disk.parent / "section.json"
    section.write_text(json.dumps(round_robin("FEB", list(PLAYERS), "2024-02-03")))
    filler = fill(disk, 100)  # room for the ledger's write, not for the read model's
    code, lines = run(disk, "submit", str(section), "--actor", "td")
    assert code == 0  # "a committed write always reports success"
    assert any(line.startswith("recorded SectionSubmitted") for line in lines)
    code, lines = run(disk, "player", PLAYERS[0])
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: the disk is full")
    filler.unlink()
    code, lines = run(disk, "sections")
    assert code == 0 and any("FEB" in line for line in lines)  # the write was kept


def test_a_read_only_file_system_gives_one_line_for_every_read(disk):
    run(disk, "player", PLAYERS[0])
    _mount(disk, "-o", "remount,ro")
    for command in (["player", PLAYERS[0]], ["sections"], ["catch-up"], ["rebuild"]):
        code, lines = run(disk, *command)
        assert code == 1, command
        assert len(lines) == 1 and lines[0].startswith("error: cannot write"), (command, lines)
    code, lines = run(disk, "verify", "--view")
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: "), lines


def test_a_key_that_cannot_be_written_leaves_no_file_and_can_be_made_later(disk, monkeypatch):
    ring = disk / "keys"
    monkeypatch.setenv(KEYRING_VARIABLE, str(ring))
    Keyring(ring).path.mkdir()
    filler = fill(disk, 0)
    result = CliRunner().invoke(app, ["keys", "new", "auditor"])
    assert result.exit_code != 0
    assert result.output.splitlines() == [result.output.strip()]
    assert "cannot write a key" in result.output
    assert list(ring.iterdir()) == []  # no 0-byte key, no temporary file
    filler.unlink()
    assert CliRunner().invoke(app, ["keys", "new", "auditor"]).exit_code == 0
    assert Keyring(ring).private_key("auditor") is not None


def test_an_empty_key_file_left_by_an_older_version_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv(KEYRING_VARIABLE, str(tmp_path))
    (tmp_path / "auditor.key").write_bytes(b"")
    assert CliRunner().invoke(app, ["keys", "new", "auditor"]).exit_code == 0
    assert Keyring(tmp_path).private_key("auditor") is not None


@pytest.mark.parametrize(
    "args",
    [
        ["revoke-override", str(10**30), "--reason", "r", "--actor", "director"],
        ["void", str(2**63), "--reason", "r", "--actor", "admin"],
        ["prove-inclusion", str(10**24)],
        ["log", "--after", str(2**64)],
    ],
)
def test_a_number_no_store_holds_is_refused_in_one_line(tmp_path, args):
    result = CliRunner().invoke(app, [*args, "--store", f"sqlite:///{tmp_path / 'l.db'}"])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        next(line for line in result.output.splitlines() if "beyond what the ledger stores" in line)
    ]


@pytest.mark.parametrize("text", ["OT\x07BR", "OT\x1b[31mBR", "OT\u202eBR"])
def test_a_control_character_in_an_option_is_escaped_never_echoed(tmp_path, text):
    result = CliRunner().invoke(
        app, ["history", "20000001", "--system", text, "--store", f"sqlite:///{tmp_path}/l.db"]
    )
    assert result.exit_code == 2
    assert len(result.output.splitlines()) == 1
    assert not any(c in result.output for c in "\x07\x1b\u202e")
