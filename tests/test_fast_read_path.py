"""The fast read path (issue 21): "a `player`/`rating` query imports only what it needs".

A `player` query on a read model that holds every entry of its ledger is answered before the
command line, the ledger application or the rules are imported (ledger/entrypoints/quick.py);
anything the full command would have to do first (catch up, refuse) is left to it.
"""

import subprocess
import sys

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.quick import answer

A, B, C = "20000001", "20000002", "20000003"
HEAVY = ("typer", "click", "pydantic", "eventsourcing", "sqlite_utils", "msgspec", "numba", "numpy")
# The family object names its read model's file (Family.view_suffix) and loads its table of
# versions with it; the rating arithmetic and the rater stay out.
RULES = (
    "ledger.rules.uschess.floors",
    "ledger.rules.uschess.kernel",
    "ledger.rules.uschess.section",
    "ledger.rules.uschess.rater",
)


@pytest.fixture
def store(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(url))
    ledger.register(A, B, C, adult=True)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.app.close()
    return url


def full(*args):
    """The full command's answer (typer), which catches the read model up first."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_an_up_to_date_read_model_answers_player_as_the_full_command_does(store, capsys, json_flag):
    # "a `player` query imports only what it needs": the same answer, by the short path.
    expected = full("player", A, "--store", store, *json_flag)
    capsys.readouterr()
    assert answer(["player", A, "--store", store, *json_flag])
    assert capsys.readouterr().out == expected


def test_the_fast_path_imports_no_command_line_application_or_rules(store):
    # "imports only what it needs": neither typer, pydantic, eventsourcing nor the rules (the
    # systems' names, to order them, are all it takes of ledger/rules).
    full("player", A, "--store", store)
    code = (
        "import sys\n"
        "from ledger.entrypoints.quick import answer\n"
        f"assert answer(['player', '{A}', '--store', '{store}'])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))\n"
        f"print(sorted(m for m in sys.modules if m in {RULES!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[-2:] == ["[]", "[]"]


def test_a_read_model_behind_its_ledger_is_left_to_the_full_command(store, capsys):
    # The short path never answers from a read model missing entries: the full command
    # catches it up, after which the short path answers again, with the new section.
    full("player", A, "--store", store)
    ledger = Ledger(RatingsLedger(store))
    ledger.submit(round_robin("FEB", [A, B], "2024-02-03"))
    ledger.app.close()
    assert not answer(["player", A, "--store", store])
    assert capsys.readouterr().out == ""
    expected = full("player", A, "--store", store, "--json")
    capsys.readouterr()
    assert answer(["player", A, "--store", store, "--json"])
    assert capsys.readouterr().out == expected
    assert '"games": 3' in expected


@pytest.mark.parametrize(
    "args",
    [
        ["player", A, "--as-known-at", "2024-01-01"],
        ["player", A, "--help"],
        ["player", "99999999"],
        ["player", A, "--rules-family", "fide"],
        ["history", A, "--system", "OTBR"],
    ],
)
def test_anything_but_a_plain_answerable_query_is_left_to_the_full_command(store, args):
    # Options the short path does not read, an unknown player and another family's read
    # model (not built) are the full command's: it says what to say.
    full("player", A, "--store", store)
    assert not answer([*args, "--store", store])


def test_a_read_model_of_another_ledger_is_left_to_the_full_command(store, tmp_path):
    # binding.check refuses a read model built from another chain; so does the short path.
    full("player", A, "--store", store)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    ledger = Ledger(RatingsLedger(other))
    ledger.register(A, B, C, adult=True)
    ledger.submit(round_robin("JAN", [A, C, B], "2024-01-06"))
    ledger.app.close()
    view = str(tmp_path / "ledger.view.db")
    assert not answer(["player", A, "--store", other, "--view", view])
