"""Issue 20: "`publish-list`, `void`, `grant-role` and `init` lack the `--dry-run` the README
promises" ("Every write takes `--dry-run`"): each write takes it, appends nothing (and `init`
creates nothing: no store file, no key) and says what it would record."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.evidence.signing import KEYRING_VARIABLE

WRITES = [
    ["init"],
    ["register"],
    ["opening-balance"],
    ["submit"],
    ["correct"],
    ["withdraw"],
    ["reinstate"],
    ["fide-adjust"],
    ["award-money-floor"],
    ["fide-uplift"],
    ["match"],
    ["override"],
    ["revoke-override"],
    ["amend-rules"],
    ["publish-list"],
    ["void"],
    ["merge-players"],
    ["grant-role"],
    ["revoke-role"],
    ["set-family"],  # issue 30
    ["commit-list"],
    ["import", "trf"],
    ["import", "uschess-dbf"],
]


@pytest.mark.parametrize("command", WRITES, ids=" ".join)
def test_every_write_takes_dry_run(command):
    out = CliRunner().invoke(app, [*command, "--help"])
    assert out.exit_code == 0 and "--dry-run" in out.stdout


@pytest.fixture
def run(tmp_path):
    """A ledger of four entries: init's two, an auditor's grant, a player registered."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    players = tmp_path / "players.json"
    players.write_text('[{"id": "12345678", "name": "Ann Lee"}]')
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, [*args, "--store", store])

    assert invoke("init", "--actor", "director").exit_code == 0
    assert invoke("grant-role", "auditor", "auditor", "--actor", "director").exit_code == 0
    assert invoke("register", str(players), "--actor", "director").exit_code == 0
    return invoke


def entries(run) -> int:
    return len(json.loads(run("log", "--json").stdout))


@pytest.mark.parametrize(
    ("args", "would"),
    [
        (
            ("grant-role", "office", "ratings_admin", "--actor", "director"),
            ["would record RoleGranted at position 5: holder=office role=ratings_admin"],
        ),
        (
            ("revoke-role", "auditor", "auditor", "--actor", "director"),
            ["would record RoleRevoked at position 5: holder=auditor role=auditor"],
        ),
        (
            ("set-family", "fide", "--actor", "director"),  # issue 30
            ["would record FederationChanged at position 5: family=fide"],
        ),
        (
            ("void", "4", "--reason", "registered in error", "--actor", "director"),
            ["would record EntryVoided at position 5: position=4"],
        ),
        (
            ("publish-list", "--family", "uschess", "--name", "2024-06", "--as-of", "2024-06-01")
            + ("--actor", "director"),
            [
                "would record ListPublished at position 5: family=uschess list_name=2024-06",
                "would then commit its ratings (ListRatingsCommitted)",
            ],
        ),
    ],
    ids=lambda a: a[0] if isinstance(a, tuple) else "",
)
def test_a_dry_run_says_what_it_would_record_and_appends_nothing(run, args, would):
    before = entries(run)
    out = run(*args, "--dry-run")
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines() == would
    assert entries(run) == before
    preview = json.loads(run(*args, "--dry-run", "--json").stdout)
    assert preview["dry_run"] is True and len(preview["entries"]) == 1
    assert entries(run) == before
    assert run(*args).exit_code == 0  # and the write itself then records it
    assert entries(run) > before


def test_a_refused_write_is_refused_in_a_dry_run_too(run):
    out = run("revoke-role", "director", "director", "--actor", "director", "--dry-run")
    assert out.exit_code == 2 and "last director" in out.stderr


def test_init_dry_run_creates_no_store_and_no_key(tmp_path):
    store = tmp_path / "new.db"
    ring = tmp_path / "ring"
    out = CliRunner().invoke(
        app,
        ["init", "--actor", "ed", "--dry-run", "--store", f"sqlite:///{store}"],
        env={KEYRING_VARIABLE: str(ring)},
    )
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines() == [
        "would record LedgerInitialized at position 1: family=uschess",
        "would record RoleGranted at position 2: holder=ed role=director",
    ]
    assert not store.exists() and not ring.exists()


def test_init_dry_run_on_a_ledger_set_up_is_refused_as_init_is(run):
    out = run("init", "--actor", "someone", "--dry-run")
    assert out.exit_code == 2 and "already initialized" in out.stderr
