"""What the readers say after an insider's change (issue 18, red team): a founding entry edited
in place, a list's ratings committed a second time by someone who may publish lists. Each read
answers in one line naming what is wrong (docs/decisions.md, "Positions are signed, …")."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.evidence.chain import verify
from ledger.reading import ledger_id, open_ledger
from tests.tamper_helpers import checked_read, edit, insert, raw_store

runner = CliRunner()


def invoke(store_url: str, *command: str):
    return runner.invoke(app, [*command, "--store", store_url])


def one_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "unexpected" not in result.stderr
    return result.stderr


def test_a_founding_entry_edited_in_place_is_listed_by_log_and_refused_by_reads_in_one_line(
    ledger: RatingsLedger, store_url: str, keyring, register_players
) -> None:
    # "forging a LedgerInitialized": its key replaced by the attacker's in the stored bytes
    # (SQLite's replace() leaves the row as text); "reading the log never fails on one row",
    # and every checked read says where the ledger is broken, in one line.
    register_players("30000001")
    director, attacker = keyring.public_key("director"), keyring.public_key("bob")
    edit(store_url, 1, director, attacker)
    with closing(open_ledger(store_url)) as reader:
        assert ledger_id(reader) is not None  # the identity of the edited first entry
    listed = invoke(store_url, "log")
    assert listed.exit_code == 0 and listed.stdout.split()[:1] == ["1"]
    assert "LedgerInitialized" in listed.stdout.splitlines()[0]
    assert "position" in one_line(invoke(store_url, "verify"))
    # issue 28: the read answers from the ledger as verified (here: nothing), naming the break
    read = invoke(store_url, "player", "30000001")
    assert read.stderr.splitlines()[0].startswith("warning: entry 1 fails verification")
    assert read.stderr.splitlines()[1:] == ["error: player '30000001' is not in the ledger"]


def commitment(store_url: str) -> tuple[int, object, int, str, dict]:
    """(position, aggregate id, version, topic, payload) of the ledger's list commitment."""
    with raw_store(store_url) as (conn, table, pos, mark, _):
        found = conn.execute(
            f"SELECT {pos}, originator_id, originator_version, topic, state FROM {table} "
            f"WHERE topic = {mark}",
            ("ratings-ledger:ListRatingsCommitted",),
        ).fetchone()
    position, aggregate, version, topic, state = found
    from uuid import UUID

    aggregate = aggregate if not isinstance(aggregate, str) else UUID(aggregate)
    state = state.encode() if isinstance(state, str) else bytes(state)
    return position, aggregate, version, topic, json.loads(state)


def test_a_second_commitment_of_a_list_signed_by_a_ratings_admin_is_refused_by_every_read(
    ledger: RatingsLedger, store_url: str, register_players, tmp_path
) -> None:
    # "modifying a ListRatingsCommitted root": the office, who may publish lists, signs with
    # its own key a second commitment of the same list with another root; `commit-list`
    # commits a list once, so `verify`, a catch-up from after the first and `prove` refuse it.
    register_players("30000001")
    view = str(tmp_path / "ledger.view.db")
    published = runner.invoke(
        app,
        [
            *("publish-list", "--family", "uschess", "--name", "L1", "--as-of", "2024-06-30"),
            *("--actor", "office", "--store", store_url, "--view", view),
        ],
    )
    assert published.exit_code == 0, published.output
    first, aggregate, version, topic, payload = commitment(store_url)
    forged = json.dumps(payload | {"ratings_root": "ab" * 32}).encode()
    key = ledger.keyring.private_key("office")
    second = insert(store_url, aggregate, version + 1, topic, forged, key, seal=True)
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == second
    assert found.broken.reason == (
        f"a second commitment of the uschess list 'L1' (the first is at position {first})"
    )
    for after in (0, first):  # a full read, and a catch-up from after the first commitment
        assert checked_read(ledger, after)[1].position == second  # issue 28: stops there
    proved = runner.invoke(
        app,
        [
            *("prove", "30000001", "--list", "L1", "--rules-family", "uschess"),
            *("--system", "OTBR", "--store", store_url, "--view", view),
        ],
    )
    assert proved.exit_code == 1  # issue 28: the read goes on from the verified state, and warns
    assert proved.stderr.startswith(f"warning: entry {second} fails verification (a second ")


def test_a_section_submitted_again_by_its_td_with_other_results_is_a_problem_not_a_correction(
    ledger: RatingsLedger, store_url: str, section_ready
) -> None:
    # a TD may submit but not correct (ledger/roles.py); the write side accepts a section id
    # once. A second SectionSubmitted of the section, signed with the TD's own key, read as a
    # new revision (Dev Rao 590 → 2024 in the red team's run); now `verify` names it and the
    # read model keeps the first report, listing the second under `problems`.
    ledger.sections.submit(section_ready(), actor="td")
    before = invoke(store_url, "player", "30000003")
    assert before.exit_code == 0, before.output
    with raw_store(store_url) as (conn, table, pos, mark, _):
        first, aggregate, version, topic, state = conn.execute(
            f"SELECT {pos}, originator_id, originator_version, topic, state FROM {table} "
            f"WHERE topic = {mark}",
            ("ratings-ledger:SectionSubmitted",),
        ).fetchone()
    from uuid import UUID

    aggregate = aggregate if not isinstance(aggregate, str) else UUID(aggregate)
    payload = json.loads(state.encode() if isinstance(state, str) else bytes(state))
    flip = {"1-0": "0-1", "0-1": "1-0"}
    for game in payload["games"]:
        game["result"] = flip.get(game["result"], game["result"])
    key = ledger.keyring.private_key("td")
    second = insert(
        store_url, aggregate, version + 1, topic, json.dumps(payload).encode(), key, True
    )
    found = verify(ledger)
    assert found.broken is not None and found.broken.position == second
    assert found.broken.reason == (
        f"a second submission of section:2024-05-GP-OPEN (the first is at position {first}): "
        "a change of it is a correction"
    )
    assert invoke(store_url, "rebuild").exit_code == 0
    assert invoke(store_url, "player", "30000003").stdout == before.stdout
    problems = invoke(store_url, "problems")
    assert problems.exit_code == 0 and f"{second}" in problems.stdout
    assert "was submitted before" in problems.stdout


def published_list(store_url: str) -> tuple[object, str, dict]:
    """(aggregate id, topic, payload) of the ledger's ListPublished entry."""
    with raw_store(store_url) as (conn, table, pos, mark, _):
        aggregate, topic, state = conn.execute(
            f"SELECT originator_id, topic, state FROM {table} WHERE topic = {mark}",
            ("ratings-ledger:ListPublished",),
        ).fetchone()
    from uuid import UUID

    aggregate = aggregate if not isinstance(aggregate, str) else UUID(aggregate)
    return aggregate, topic, json.loads(state.encode() if isinstance(state, str) else bytes(state))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"as_of": "2024-05-01"}, "the uschess list 'L1' was published before (list 1)"),
        ({"number": 3, "list_name": "L3"}, "the uschess list 'L3' is numbered 3, not 2 (the next)"),
    ],
    ids=["name-again", "number-skipped"],
)
def test_a_list_published_again_or_out_of_order_by_the_office_breaks_no_read(
    ledger: RatingsLedger, store_url: str, register_players, tmp_path, change, why
) -> None:
    # "no stored entry breaks a read": a second ListPublished of list 1 (the office's own key,
    # a role that may publish lists) made every read fail on the lists table's unique key
    # (`player`, `rebuild`, the web page: an IntegrityError); now it is a problem row, and
    # `verify` names it
    from uuid import uuid4

    register_players("30000001")
    view = str(tmp_path / "ledger.view.db")
    published = runner.invoke(
        app,
        [
            *("publish-list", "--family", "uschess", "--name", "L1", "--as-of", "2024-06-30"),
            *("--actor", "office", "--store", store_url, "--view", view),
        ],
    )
    assert published.exit_code == 0, published.output
    _, topic, payload = published_list(store_url)
    state = json.dumps(payload | change).encode()
    key = ledger.keyring.private_key("office")
    again = insert(store_url, uuid4(), 1, topic, state, key, seal=True)
    found = verify(ledger)
    assert found.broken is not None and (found.broken.position, found.broken.reason) == (
        again,
        why,
    )
    caught_up = runner.invoke(app, ["player", "30000001", "--store", store_url, "--view", view])
    assert caught_up.exit_code == 0, caught_up.output  # a catch-up over it
    rebuilt = runner.invoke(app, ["rebuild", "--store", store_url, "--view", view])
    assert rebuilt.exit_code == 0, rebuilt.output
    shown = runner.invoke(app, ["player", "30000001", "--store", store_url, "--view", view])
    assert shown.exit_code == 0, shown.output
    problems = runner.invoke(app, ["problems", "--store", store_url, "--view", view])
    assert f"not applied: {why}" in problems.stdout


@pytest.mark.parametrize(
    ("raised", "status", "said"),
    [
        (
            sqlite3.IntegrityError("UNIQUE constraint failed: lists.family, lists.number"),
            "503 Service Unavailable",
            "UNIQUE constraint failed: lists.family, lists.number",
        ),
        (
            TypeError("Strings must be encoded before hashing"),
            "500 Internal Server Error",
            "unexpected TypeError: Strings must be encoded before hashing",
        ),
    ],
    ids=["store", "bug"],
)
def test_a_page_that_meets_an_unexpected_error_answers_it_in_one_line(
    monkeypatch, tmp_path, raised, status, said
) -> None:
    # "every error stays one line": the two errors the red team's stored entries raised out
    # of the web application (before their fixes) answer a page and its JSON twin, not a
    # traceback
    from wsgiref.util import setup_testing_defaults

    from ledger.entrypoints.web import app as web
    from projections.session import ReadSession

    def fail(*_: object, **__: object) -> None:
        raise raised

    monkeypatch.setattr(ReadSession, "open", fail)
    site = web.Site(f"sqlite:///{tmp_path / 'ledger.db'}")
    answered: list[str] = []
    for path in ("/players/30000001", "/api/players/30000001"):
        environ: dict = {}
        setup_testing_defaults(environ)
        environ.update(PATH_INFO=path, QUERY_STRING="", REQUEST_METHOD="GET")
        answered.clear()
        body = b"".join(site(environ, lambda s, h: answered.append(s))).decode()
        assert answered == [status]
        assert said in body and "Traceback" not in body
