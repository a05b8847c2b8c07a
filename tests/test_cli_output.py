"""Issue 20, "one CLI convention across commands for output (`--json`, `--csv`, `--tsv`,
`--nl`, a table by default)", as sqlite-utils prints: every command that prints records takes
the same four flags, and the four say the same records."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import FEDERATION
from typer.testing import CliRunner

from ledger.entrypoints.cli import app

MULLER = list(FEDERATION)[0]
RECORDS = [
    ("player", MULLER),
    ("history", MULLER, "--system", "OTBR"),
    ("rating", MULLER, "--system", "OTBR", "--as-of", "2024-06-01"),
    ("lists",),
    ("problems",),
    ("search", "a"),
    ("sections",),
    ("requests",),
    ("supplement", "--as-of", "2024-06-01"),
    ("list", "--system", "OTBR", "--as-of", "2024-06-01"),
    ("export-history", MULLER, "--system", "OTBR"),
    ("crosstable", "JAN"),
    ("log",),
]


@pytest.fixture(scope="module")
def run(federation_store):
    runner = CliRunner()

    def invoke(*args: str):
        out = runner.invoke(app, [*args, "--store", federation_store])
        assert out.exit_code == 0, out.output
        return out.stdout

    return invoke


def table(text: str, sep: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text), delimiter=sep))


@pytest.mark.parametrize("args", RECORDS, ids=lambda a: a[0])
def test_every_command_that_prints_records_takes_csv_tsv_and_nl_and_they_agree(run, args):
    # "--csv, --tsv (a header row, a row a record), --nl (one record a line)": the same
    # records, in the same order, whatever the format.
    as_csv, as_tsv = table(run(*args, "--csv"), ","), table(run(*args, "--tsv"), "\t")
    lines = run(*args, "--nl").splitlines()
    assert as_csv == as_tsv
    assert len(lines) == len(as_csv)
    for line, row in zip(lines, as_csv, strict=True):
        record = json.loads(line)
        for key in set(record) & set(row):  # a CSV cell is the record's value as text
            if not isinstance(record[key], dict | list | bool | None):
                assert row[key] == str(record[key])


@pytest.mark.parametrize("args", RECORDS, ids=lambda a: a[0])
def test_every_command_that_prints_records_prints_json_and_a_table_by_default(run, args):
    json.loads(run(*args, "--json"))
    default = run(*args)
    assert default.strip() and not default.lstrip().startswith(("{", "["))


def test_the_records_are_the_ones_the_command_finds(run):
    # search "a": every one of the federation's four names holds an "a" (the fifth player has
    # no name); each is one row in CSV and one line in --nl, in the same order.
    found = [r["id"] for r in table(run("search", "a", "--csv"), ",")]
    assert sorted(found) == sorted(FEDERATION)
    assert [json.loads(x)["id"] for x in run("search", "a", "--nl").splitlines()] == found
    history = table(run("history", MULLER, "--system", "OTBR", "--tsv"), "\t")
    assert [r["item_key"] for r in history] == ["section:JAN", "section:MAR"]


@pytest.mark.parametrize("pair", [("--csv", "--json"), ("--tsv", "--nl"), ("--csv", "--tsv")])
def test_two_formats_at_once_are_one_usage_error(federation_store, pair):
    out = CliRunner().invoke(app, ["sections", *pair, "--store", federation_store])
    assert out.exit_code == 2
    assert out.stderr == f"error: {pair[0]} and {pair[1]}: choose one\n"


def test_supplement_keeps_its_fide_txt_layout_and_the_old_format_option(run):
    # The FIDE TXT layout is a file format, not an output convention: --fide-txt; the old
    # `--format json` still prints what --json prints.
    assert run("supplement", "--as-of", "2024-06-01", "--fide-txt").startswith("ID Number")
    assert run("supplement", "--as-of", "2024-06-01", "--format", "json") == run(
        "supplement", "--as-of", "2024-06-01", "--json"
    )
