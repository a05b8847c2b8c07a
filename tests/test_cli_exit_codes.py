"""Issue 20, "exit codes (unknown record → 1)": every read command asked about a player,
section or list the ledger does not hold prints one `error:` line and exits 1 (`history` of an
unknown player printed nothing and exited 0), and the same command about a known one exits 0."""

from __future__ import annotations

import pytest
from conftest import FEDERATION
from typer.testing import CliRunner

from ledger.entrypoints.cli import app

MULLER = list(FEDERATION)[0]
NOBODY = "99999999"
DAY = ("--as-of", "2024-06-01")
# (command with a known record, the same command with an unknown one)
ASKED = [
    (("player", MULLER), ("player", NOBODY)),
    (("history", MULLER, "--system", "OTBR"), ("history", NOBODY, "--system", "OTBR")),
    (("rating", MULLER, "--system", "OTBR", *DAY), ("rating", NOBODY, "--system", "OTBR", *DAY)),
    (
        ("explain", MULLER, "--system", "OTBR", *DAY),
        ("explain", NOBODY, "--system", "OTBR", *DAY),
    ),
    (
        ("export-history", MULLER, "--system", "OTBR"),
        ("export-history", NOBODY, "--system", "OTBR"),
    ),
    (("sections", "--player", MULLER), ("sections", "--player", NOBODY)),
    (("crosstable", "JAN"), ("crosstable", "NOSUCH")),
    (("section", "JAN"), ("section", "NOSUCH")),
    (("rating", MULLER, "--system", "OTBR", "--list", "NOSUCH"),) * 2,
]


@pytest.mark.parametrize(("known", "unknown"), ASKED, ids=lambda a: " ".join(a[:1]))
def test_an_unknown_record_is_one_error_line_and_exit_1(federation_store, known, unknown):
    runner = CliRunner()
    if known != unknown:
        ok = runner.invoke(app, [*known, "--store", federation_store])
        assert ok.exit_code == 0, ok.output
    out = runner.invoke(app, [*unknown, "--store", federation_store])
    assert out.exit_code == 1
    assert out.stdout == ""
    [line] = out.stderr.splitlines()
    assert line.startswith("error: ") and ("NOSUCH" in line or NOBODY in line)


def test_history_of_a_known_player_in_a_system_he_is_not_rated_in_is_empty(federation_store):
    # A known player with no change in a system is not an unknown record: no rows, exit 0.
    out = CliRunner().invoke(
        app, ["history", MULLER, "--system", "OTBB", "--csv", "--store", federation_store]
    )
    assert (out.exit_code, out.stdout.splitlines()[1:]) == (0, [])
