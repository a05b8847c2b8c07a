"""Issue 31, "the crosstable mixes `->` and `→`: one arrow everywhere (CLI and pages)": every
rating before → after, on the command line and on the pages, is written with →
(docs/decisions.md, "One arrow")."""

from __future__ import annotations

import pytest
from conftest import FEDERATION
from test_web import get
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site

MULLER = next(iter(FEDERATION))


@pytest.mark.parametrize(
    "command",
    [
        ("crosstable", "JAN"),
        ("history", MULLER, "--system", "OTBR"),
        ("explain", MULLER, "--system", "OTBR", "--section", "JAN"),
    ],
)
def test_the_command_line_writes_before_and_after_with_one_arrow(federation_store, command):
    """Issue 31: "one arrow everywhere (CLI …)"."""
    out = CliRunner().invoke(app, [*command, "--store", federation_store])
    assert out.exit_code == 0, out.output
    assert "→" in out.output and "->" not in out.output


@pytest.mark.parametrize("path", ["/sections/JAN", f"/players/{MULLER}"])
def test_the_pages_write_before_and_after_with_the_same_arrow(federation_store, path):
    """Issue 31: "one arrow everywhere (… and pages)": the crosstable and a player's
    tournaments."""
    page = get(Site(federation_store), path).text
    assert "→" in page and "-&gt;" not in page and "->" not in page
