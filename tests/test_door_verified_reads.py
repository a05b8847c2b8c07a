"""Issue 32, "One front door", for the writes that read the verified log (`set-aside`,
`commit-list`) and for an auditor's `verify`: through the door the laptop copies the log as
the server stores it (`GET /api/v1/writes/log`) and verifies it itself (trust is verified,
never assumed): a server whose entry was changed is caught on the laptop as `verify` on the
server's own machine catches it, with the same line and exit code."""

from __future__ import annotations

import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from ledger.application import RatingsLedger
from ledger.commands import PublishList, RegisterPlayer, parse
from ledger.entrypoints.cli.proofs import commit
from ledger.log import read_entries
from tests.door_helpers import Laptop, Served, laptop, serving, set_up
from tests.tamper_helpers import edit

PLAYERS = [{"id": "30000001", "name": "Ben Ortiz"}, {"id": "30000002", "name": "Chloe Park"}]


@pytest.fixture
def served(tmp_path: Path):
    """A ledger (the cast, two players, a list published and not committed) behind its door."""
    store = set_up(tmp_path / "server")
    with closing(RatingsLedger(store)) as ledger:
        ledger.players.register(*(parse(RegisterPlayer, p) for p in PLAYERS), actor="office")
        publication = {"family": "uschess", "name": "2024-06", "as_of": "2024-06-01"}
        ledger.lists.publish(parse(PublishList, publication), actor="office")
    with serving(store) as found:
        yield found


@pytest.fixture
def auditor(tmp_path: Path, served: Served) -> Laptop:
    return laptop(tmp_path / "auditor", served, "office", "director")


class OnTheServer(Laptop):
    """The same keys and commands, run where the store is (its own URL, no guard)."""

    def run(self, *args: str, guarded: bool = False) -> subprocess.CompletedProcess[str]:
        return super().run(*args, guarded=False)


def on_the_server(served: Served, auditor: Laptop) -> Laptop:
    return OnTheServer(auditor.home, served.store)


def test_verify_through_the_door_says_what_verify_says_on_the_servers_machine(
    served: Served, auditor: Laptop
) -> None:
    """`verify` against a server: an auditor checks the server's log with the door's reads."""
    remote = auditor.run("verify")
    here = on_the_server(served, auditor).run("verify")
    assert (remote.returncode, remote.stdout) == (0, here.stdout)
    assert "chain intact, every signature checks: 7 entries" in remote.stdout


def test_an_entry_the_server_changed_breaks_verify_on_the_laptop_at_its_position(
    served: Served, auditor: Laptop
) -> None:
    """A server that changes an entry cannot make the laptop take it: the copy it serves
    fails verification on the laptop, at the position and for the reason the server's own
    `verify` gives."""
    edit(served.store, 6)  # the second player's registration: 30000002 → 30000009
    remote = auditor.run("verify")
    here = on_the_server(served, auditor).run("verify")
    assert remote.returncode == here.returncode == 1
    assert remote.stderr == here.stderr
    assert remote.stderr.startswith("error: chain broken at position 6")


def test_a_list_is_committed_through_the_door_only_from_a_log_that_verifies(
    served: Served, auditor: Laptop
) -> None:
    """The office's `commit-list` replays the list from the log verified on the laptop: on a
    changed log it refuses as on the server's machine, nothing appended; on the intact log
    it commits, the root the server's own replay gives."""
    before = served.count()
    ours = on_the_server(served, auditor)
    edit(served.store, 6)
    refused = auditor.run("commit-list", "--list", "2024-06", "--actor", "office")
    here = ours.run("commit-list", "--list", "2024-06", "--actor", "office", "--dry-run")
    assert refused.returncode == here.returncode != 0
    assert refused.stderr == here.stderr and refused.stderr.count("error: ") == 1
    assert served.count() == before
    edit(served.store, 6, "30000009", "30000002")  # put back as it was signed
    with closing(RatingsLedger(served.store, preview=True)) as ledger:
        (expected,) = commit(ledger, "uschess", "2024-06", "office")
    done = auditor.run("commit-list", "--list", "2024-06", "--actor", "office")
    assert done.returncode == 0, done.stderr
    assert served.count() == before + 1
    with closing(RatingsLedger(served.store, read_only=True)) as ledger:
        committed = list(read_entries(ledger))[-1]
    assert (committed.type, committed.payload) == (expected.type, expected.payload)
