"""Issue 20: "`keys` cannot show a public key again; an auditor (who writes nothing) must be
given a key" — `keys show NAME` prints the key `keys new NAME` printed, and a director grants
the auditor role without --public-key; the auditor then reads and verifies with no key at
all, and still cannot write."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.evidence.signing import KEYRING_VARIABLE

READER = "reader@audit"  # in no keyring


@pytest.fixture
def run(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()

    def invoke(*args: str, keyring=None):
        env = {KEYRING_VARIABLE: str(keyring)} if keyring else None
        return runner.invoke(app, [*args, "--store", store] if args[0] != "keys" else args, env=env)

    assert invoke("init", "--actor", "director").exit_code == 0
    return invoke


def test_keys_show_prints_the_public_key_keys_new_printed(tmp_path):
    runner = CliRunner()
    env = {KEYRING_VARIABLE: str(tmp_path / "ring")}
    made = runner.invoke(app, ["keys", "new", "td@club"], env=env)
    shown = runner.invoke(app, ["keys", "show", "td@club"], env=env)
    assert made.exit_code == shown.exit_code == 0
    assert shown.stdout == made.stdout and len(shown.stdout.strip()) == 64  # Ed25519: 32 bytes


def test_keys_show_of_an_actor_without_a_key_is_one_line_and_exit_1(tmp_path):
    out = CliRunner().invoke(
        app, ["keys", "show", "nobody"], env={KEYRING_VARIABLE: str(tmp_path / "ring")}
    )
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr.startswith("error: no key for 'nobody'") and out.stderr.count("\n") == 1


def test_an_auditor_is_granted_without_a_key(run):
    out = run("grant-role", READER, "auditor", "--actor", "director", "--json")
    assert out.exit_code == 0, out.output
    assert [e["type"] for e in json.loads(out.stdout)["entries"]] == ["RoleGranted"]
    entry = json.loads(run("log", "--json", "--type", "RoleGranted").stdout)[-1]
    assert entry["payload"]["holder"] == READER and entry["payload"]["public_key"] is None


def test_any_other_role_still_needs_a_key(run):
    out = run("grant-role", READER, "ratings_admin", "--actor", "director")
    assert out.exit_code == 2 and "no public key for 'reader@audit'" in out.stderr


def test_a_keyless_auditor_reads_and_verifies_and_cannot_write(run, tmp_path):
    assert run("grant-role", READER, "auditor", "--actor", "director").exit_code == 0
    empty = tmp_path / "auditor-keys"  # the auditor's own machine: an empty keyring
    for args in (("verify",), ("log",), ("sections",), ("lists",), ("checkpoint",)):
        out = run(*args, keyring=empty)
        assert out.exit_code == 0, (args, out.output)
    publish = ("publish-list", "--family", "uschess", "--name", "L", "--as-of", "2024-01-01")
    refused = run(*publish, "--actor", READER, keyring=empty)
    assert refused.exit_code == 4
    assert run("log", "--json").stdout.count('"type"') == 3  # init's two entries and the grant
