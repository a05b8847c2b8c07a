"""Issue 32, "A write door on the server": a TD's laptop with only a key and the server's
address registers, imports a TRF, submits and (refused, exit 4) corrects against `serve
--writes` on loopback, with the output of the same writes on a local store; the office's
correction is appended. The laptop never opens the store (a guard fails any opening of the
server's files, `door_helpers.GUARD`)."""

from __future__ import annotations

import json
import re
from contextlib import closing
from pathlib import Path

import pytest

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.errors import StoreError
from ledger.evidence.remote import READ_PAGE, RemoteRecorder, is_remote
from ledger.evidence.signing import Keyring
from ledger.store import store_env
from tests.door_helpers import Laptop, Served, laptop, serving, set_up

SECTION = "2025-05-03-may-open-2025"  # examples/may-open.trf: its start date and name
HASHES = re.compile(r"\b[0-9a-f]{64}\b")
# hashes, signatures, a ledger's identity
IDS = re.compile(r"(?<![0-9a-f])[0-9a-f]{32,}(?![0-9a-f])")
WRITES = (
    ("register", "players.json", "--actor", "td"),
    ("submit", "section-submit.json", "--actor", "td"),
    ("import", "trf", "may-open.trf", "--actor", "td", "--register-players"),
)


def recorded(output: str) -> list[str]:
    """What a write says it recorded, its hashes masked (a receipt's link names the time)."""
    keep = ("recorded ", "receipt ", "checkpoint ", "read ")
    return [HASHES.sub("H", line) for line in output.splitlines() if line.startswith(keep)]


@pytest.fixture
def served(tmp_path: Path):
    with serving(set_up(tmp_path / "server")) as found:
        yield found


@pytest.fixture
def td(tmp_path: Path, served: Served) -> Laptop:
    return laptop(tmp_path / "td-laptop", served, "td")


def test_a_tds_laptop_writes_through_the_door_with_the_output_of_a_local_store(
    tmp_path: Path, served: Served, td: Laptop
) -> None:
    """Issue 32: "`register`, `import trf`, `submit` ... against `serve` on loopback, with the
    same output as the local store; nothing on the laptop can open the store"."""
    local_store = set_up(tmp_path / "local")
    local = Laptop(td.home, local_store)  # the same commands, on a local store
    for command in WRITES:
        remote = td.run(*command)
        assert remote.returncode == 0, remote.stderr
        here = local.run(*command)
        assert here.returncode == 0, here.stderr
        assert recorded(remote.stdout) == recorded(here.stdout)
        assert any(line.startswith("recorded ") for line in recorded(remote.stdout))
    assert served.count() == 4 + 6 + 1 + 7 + 1  # set-up, players, section, the TRF's 7 and it


def test_the_laptops_guard_fails_a_command_that_opens_the_servers_store(
    served: Served, td: Laptop
) -> None:
    """The guard the tests above rely on is a real one: given the store's own URL, the laptop's
    command fails opening it, and nothing is appended."""
    own = Laptop(td.home, served.store)
    refused = own.run(*WRITES[0])
    assert refused.returncode != 0
    assert "the laptop opened the server's" in refused.stderr
    assert served.count() == 4


def test_a_correction_through_the_door_is_refused_for_the_td_and_appended_for_the_office(
    tmp_path: Path, served: Served, td: Laptop
) -> None:
    """Issue 32: "`correct` (refused for the TD, allowed for the office)"; a refused write
    exits 4 with one line and appends nothing (README's exit codes)."""
    assert td.run(*WRITES[2]).returncode == 0
    before = served.count()
    revised = ("import", "trf", "may-open-revised.trf", "--correct", "--reason", "typo")
    refused = td.run(*revised, "--actor", "td")
    assert refused.returncode == 4
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: ")
    assert served.count() == before
    office = laptop(tmp_path / "office-laptop", served, "office")
    done = office.run(*revised, "--actor", "office")
    assert done.returncode == 0, done.stderr
    assert "recorded SectionCorrected at position" in done.stdout
    assert served.count() == before + 1


def test_a_write_refused_by_the_ledger_says_so_in_the_same_line_as_locally(
    tmp_path: Path, served: Served, td: Laptop
) -> None:
    """Issue 32: "the same output, exit codes and one-line errors": a section submitted twice."""
    assert td.run(*WRITES[0]).returncode == 0
    assert td.run(*WRITES[1]).returncode == 0
    again = td.run(*WRITES[1])
    local_store = set_up(tmp_path / "local")
    local = Laptop(td.home, local_store)
    assert local.run(*WRITES[0]).returncode == 0 and local.run(*WRITES[1]).returncode == 0
    here = local.run(*WRITES[1])
    assert (again.returncode, again.stderr) == (here.returncode, here.stderr) == (2, again.stderr)


def test_plain_http_is_refused_to_another_host_and_https_is_a_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 32: "TLS is the deployment's": http:// only to this machine (or by choice)."""
    with pytest.raises(StoreError, match="plain http:// only to this machine"):
        store_env("http://ratings.example.org", "RatingsLedger")
    assert is_remote("https://ratings.example.org:8443")
    store_env("https://ratings.example.org:8443", "RatingsLedger")
    store_env("http://127.0.0.1:8000", "RatingsLedger")
    monkeypatch.setenv("RATINGS_LEDGER_PLAIN_HTTP", "yes")
    store_env("http://ratings.example.org", "RatingsLedger")


def test_a_write_whose_head_moved_before_it_arrived_is_decided_again_and_appended_once(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Brief: "the head is still the one signed (else 409 ...) — or the CLI retries the
    decide on its own": another writer appends between this write's head and its post; the
    server refuses the first post (the checkpoint signed is not the head's), the client
    decides again at the new head, and the write is appended once."""
    call, raced = RemoteRecorder._call, []

    def racing(self: RemoteRecorder, path: str, body: object = None) -> object:
        if body is not None and not raced:
            raced.append(True)
            with closing(RatingsLedger(served.store)) as other:
                other.players.register(parse(RegisterPlayer, {"id": "60000002"}), actor="office")
        return call(self, path, body)

    monkeypatch.setattr(RemoteRecorder, "_call", racing)
    with closing(RatingsLedger(served.url)) as app:
        entries = app.players.register(parse(RegisterPlayer, {"id": "60000001"}), actor="td")
    assert raced and [e.position for e in entries] == [6]  # after the other writer's, at 5
    assert served.count() == 6


def test_a_laptop_reads_every_entry_it_asks_for_a_page_of_the_door_at_a_time(
    tmp_path: Path,
) -> None:
    """`import trf` reads every registered player (5,000 a batch): through the door, which
    answers at most READ_PAGE entries a read, the laptop still reads them all."""
    store = set_up(tmp_path / "server")
    with closing(RatingsLedger(store)) as app:
        many = [parse(RegisterPlayer, {"id": f"7{n:07d}"}) for n in range(READ_PAGE + 200)]
        app.players.register(*many, actor="td")
    with serving(store) as served, closing(RatingsLedger(served.url)) as remote:
        found = remote.recorder.select_notifications(0, 5000, inclusive_of_start=False)
        assert [n.id for n in found] == list(range(1, served.count() + 1))
        assert len(found) == 4 + READ_PAGE + 200


def test_the_office_withdraws_and_the_director_grants_through_the_door(
    tmp_path: Path, served: Served, td: Laptop
) -> None:
    """Brief: every write command works against a server ("withdraw, grant-role..."): the
    director's laptop grants a role, the office's withdraws the TD's section."""
    assert td.run(*WRITES[0]).returncode == 0 and td.run(*WRITES[1]).returncode == 0
    director = laptop(tmp_path / "director-laptop", served, "director")
    key = Keyring().public_key("tom")  # sent by tom from his machine
    assert key is not None
    granted = director.run(
        "grant-role", "tom", "tournament_director", "--public-key", key, "--actor", "director"
    )
    assert granted.returncode == 0, granted.stderr
    assert "recorded RoleGranted at position 12: holder=tom" in granted.stdout
    office = laptop(tmp_path / "office-laptop", served, "office")
    section = "2024-05-GRANDPRIX-OPEN"
    done = office.run("withdraw", section, "--reason", "not rateable", "--actor", "office")
    assert done.returncode == 0, done.stderr
    assert f"recorded SectionWithdrawn at position 13: section_id={section}" in done.stdout
    assert served.count() == 13


def test_a_laptop_prints_the_ratings_report_of_a_local_store_line_for_line(
    tmp_path: Path, served: Served, td: Laptop
) -> None:
    """Issue 32: "with the same output as the local store": `import trf` (a TD's upload), and
    the office's `correct` and `import trf --correct` with the ratings report the server's read
    model gives (projections/consequences.py), line for line as on a local store; `--json`
    the same object. Hashes, keys and the ledger ids are masked (two ledgers)."""
    local_store = set_up(tmp_path / "local")
    office = laptop(tmp_path / "office-laptop", served, "office")
    here_td, here_office = Laptop(td.home, local_store), Laptop(office.home, local_store)
    upload = ("import", "trf", "may-open.trf", "--actor", "td", "--register-players")
    remote, here = td.run(*upload), here_td.run(*upload)
    assert remote.returncode == here.returncode == 0, remote.stderr + here.stderr
    # a plain import prints its import report and receipt locally, no ratings: nor does the laptop
    assert IDS.sub("H", remote.stdout).splitlines() == IDS.sub("H", here.stdout).splitlines()
    section = json.loads(here_office.run("section", SECTION, "--json").stdout)
    section["event_name"] = "May Open 2025 (renamed)"
    (office.home / "fixed.json").write_text(json.dumps(section))
    fix = ("correct", SECTION, "fixed.json", "--reason", "the name", "--actor", "office")
    remote, here = office.run(*fix, "--json"), here_office.run(*fix, "--json")
    assert remote.returncode == here.returncode == 0, remote.stderr + here.stderr
    assert "changed" in json.loads(here.stdout)
    assert json.loads(IDS.sub("H", remote.stdout)) == json.loads(IDS.sub("H", here.stdout))
    revised = ("import", "trf", "may-open-revised.trf", "--correct", "--reason", "a draw")
    remote, here = (
        office.run(*revised, "--actor", "office"),
        here_office.run(*revised, "--actor", "office"),
    )
    assert remote.returncode == here.returncode == 0, remote.stderr + here.stderr
    assert "ratings changed" in here.stdout and "→" in here.stdout
    assert IDS.sub("H", remote.stdout).splitlines() == IDS.sub("H", here.stdout).splitlines()
