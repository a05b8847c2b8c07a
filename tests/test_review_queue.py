"""Issue 32, "Uploads as TDs make them ... and the office's review queue (`requests`) fed by
it": a section a tournament director submits is rated on arrival and waits in `requests` until
the office records its `review` (or corrects or withdraws it); the office's own submissions
never wait. Locally and through the write door."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.door_helpers import Laptop, Served, laptop, serving, set_up

QUEUED = "upload_awaiting_review"


def queue(machine: Laptop) -> list[dict[str, object]]:
    """The uploads awaiting review in `requests --json`, read on `machine`'s store."""
    found = machine.run("requests", "--json")
    assert found.returncode == 0, found.stderr
    return [r for r in json.loads(found.stdout) if r["kind"] == QUEUED]


@pytest.fixture
def local(tmp_path: Path) -> Laptop:
    """The office's machine beside a local SQLite store, holding `td`'s and `office`'s keys."""
    store = set_up(tmp_path / "ledger")
    return laptop(tmp_path / "home", Served(store, tmp_path / "elsewhere", store), "td", "office")


def imported(machine: Laptop, actor: str) -> str:
    """`import trf` of the example TRF by `actor`; the section id it records."""
    done = machine.run("import", "trf", "may-open.trf", "--actor", actor, "--register-players")
    assert done.returncode == 0, done.stderr
    return "2025-05-03-may-open-2025"  # examples/may-open.trf: its start date and name


def submitted(machine: Laptop, actor: str) -> None:
    """`register` and `submit` of the example files by `actor`."""
    for command in ("register", "players.json"), ("submit", "section-submit.json"):
        done = machine.run(*command, "--actor", actor)
        assert done.returncode == 0, done.stderr


def count(machine: Laptop) -> int:
    return len(machine.run("log", "--json").stdout.strip().splitlines())


def test_a_tds_import_waits_in_requests_until_the_office_reviews_it(local: Laptop) -> None:
    """Issue 32: the office's review queue (`requests`) fed by the TDs' uploads; the office's
    `review` takes the section out of it."""
    section = imported(local, "td")
    [row] = queue(local)
    assert (row["section"], row["uploaded_by"]) == (section, "td")
    table = local.run("requests").stdout
    assert "uploaded by td, awaiting the office's review" in table
    csv = local.run("requests", "--csv").stdout.splitlines()
    assert csv[0].endswith("section,uploaded_by") and csv[1].endswith(f"{section},td")
    done = local.run("review", section, "--note", "pairings checked", "--actor", "office")
    assert done.returncode == 0, done.stderr
    assert queue(local) == []


def test_a_td_cannot_review_and_nothing_is_appended(local: Laptop) -> None:
    """Issue 32 (w3 brief): `review` is the office's (ledger/roles.py): a TD is refused with
    exit 4 (README: roles) and the log is unchanged; the upload still waits."""
    section = imported(local, "td")
    before = count(local)
    refused = local.run("review", section, "--actor", "td")
    assert refused.returncode == 4
    assert refused.stderr.startswith("error: ") and len(refused.stderr.splitlines()) == 1
    assert count(local) == before
    assert [r["section"] for r in queue(local)] == [section]


def test_the_offices_own_submissions_never_wait_for_review(local: Laptop) -> None:
    """Issue 32: the queue holds "a TD's upload", an actor without the office's roles there."""
    imported(local, "office")
    submitted(local, "office")
    assert queue(local) == []


def test_a_withdrawn_upload_leaves_the_queue_and_a_rebuild_gives_the_same_queue(
    local: Laptop,
) -> None:
    """Issue 32 (w3 brief): the queue ends when the office withdraws the section; a rebuild
    of the read model from the log gives the queue a catch-up gave."""
    first = imported(local, "td")
    submitted(local, "td")
    caught_up = queue(local)
    assert len(caught_up) == 2
    done = local.run("withdraw", first, "--reason", "a duplicate", "--actor", "office")
    assert done.returncode == 0, done.stderr
    after = queue(local)
    assert after == [r for r in caught_up if r["section"] != first]
    rebuilt = local.run("rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert queue(local) == after


def test_an_upload_through_the_door_waits_until_the_office_reviews_it_through_the_door(
    tmp_path: Path,
) -> None:
    """Issue 32: "a TRF ... posted to the door (by the CLI) ... the office's review queue
    (`requests`) fed by it"; the office reviews from its own laptop."""
    store = set_up(tmp_path / "server")
    server_side = laptop(tmp_path / "srv", Served(store, tmp_path / "elsewhere", store))
    with serving(store) as served:
        td = laptop(tmp_path / "td", served, "td")
        office = laptop(tmp_path / "office", served, "office")
        section = imported(td, "td")
        assert [r["section"] for r in queue(server_side)] == [section]
        refused = td.run("review", section, "--actor", "td")
        assert refused.returncode == 4
        done = office.run("review", section, "--actor", "office")
        assert done.returncode == 0, done.stderr
    assert queue(server_side) == []
