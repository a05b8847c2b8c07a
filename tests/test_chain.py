"""Tamper evidence: a SHA-256 chain over the signed entries, sealed in the append's own
transaction; `verify` only reads and finds the first broken position; receipts and anchors."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app
from ledger.errors import StoreError
from ledger.evidence.chain import GENESIS, link, parse_expected, verify
from ledger.evidence.reads import signed_entries
from ledger.log import read_entries
from ledger.store import CHAIN_TABLE
from tests.tamper_helpers import delete, drop_chain, edit, insert, raw_store, swap, truncate

runner = CliRunner()


@pytest.fixture
def sealed_ledger(ledger: RatingsLedger) -> RatingsLedger:
    """Five more entries after the setup's four: one registration each."""
    for member in ("30000001", "30000002", "30000003", "30000004", "30000005"):
        ledger.players.register(parse(RegisterPlayer, {"id": member, "name": member}), actor="td")
    return ledger


def positions(ledger: RatingsLedger) -> list[int]:
    return [e.position for e in read_entries(ledger)]


def chain_rows(url: str) -> int:
    with raw_store(url) as (conn, _, _, _, chain):
        return int(conn.execute(f"SELECT count(*) FROM {chain}").fetchone()[0])


def test_every_entry_is_sealed_in_the_transaction_that_appends_it(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Issue: "Sealing happens in the same transaction as the append".
    found = verify(sealed_ledger)
    assert found.broken is None
    assert found.entries == len(positions(sealed_ledger)) == found.head.position == 9
    assert chain_rows(store_url) == 9
    assert sealed_ledger.receipt == found.head  # the last write's receipt is the head


def test_the_head_chains_every_entry_and_its_signature_from_genesis(
    sealed_ledger: RatingsLedger,
) -> None:
    # Issue: "the head digest must cover every entry"; "the hash chain must cover" signatures.
    previous = GENESIS
    for batch in signed_entries(sealed_ledger):
        for notification, signed in batch:
            assert signed.signature is not None
            previous = link(previous, notification, signed.signature)
    assert verify(sealed_ledger).head.digest == previous


@pytest.mark.parametrize(
    ("tamper", "expected_at", "reason"),
    [
        (lambda url: edit(url, 6), 6, "edited"),
        (lambda url: delete(url, 5), 5, "missing"),
        (lambda url: delete(url, 9), 9, "missing"),
        (lambda url: swap(url, 4, 7), 4, "edited"),
        (
            lambda url: insert(url, uuid.uuid4(), 1, "ratings-ledger:PlayerRegistered", b"{}"),
            10,
            "not sealed",
        ),
        (lambda url: drop_chain(url, empty_only=True), 1, "not sealed"),
    ],
    ids=["edit", "delete", "delete-last", "reorder", "insert", "empty-chain"],
)
def test_a_row_changed_behind_the_ledgers_back_breaks_the_chain_at_its_position(
    sealed_ledger: RatingsLedger,
    store_url: str,
    tamper: Callable[[str], None],
    expected_at: int,
    reason: str,
) -> None:
    # Issue: "Tests edit a stored event row directly in SQLite and in PostgreSQL, delete one,
    # and reorder two"; found on main: "A row inserted straight into stored_events is sealed
    # and reported 'chain intact'"; "with ratingsledger_chain ... truncated, verify re-seals".
    assert positions(sealed_ledger) == list(range(1, 10))
    tamper(store_url)
    found = verify(sealed_ledger)
    assert found.broken is not None
    assert (found.broken.position, reason in found.broken.reason) == (expected_at, True)


def test_verify_never_writes_so_a_tampered_ledger_stays_broken(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Found on main: verify sealed whatever it found past the last link, blessing a forgery.
    insert(store_url, uuid.uuid4(), 1, "ratings-ledger:PlayerRegistered", b"{}")
    for _ in range(2):
        result = runner.invoke(app, ["verify", "--store", store_url])
        assert (result.exit_code, result.stderr) == (
            1,
            "error: chain broken at position 10: the entry is not sealed (inserted or unchained)\n",
        )
    assert chain_rows(store_url) == 9


def test_a_dropped_chain_table_fails_verify_in_one_line_and_is_not_recreated(
    sealed_ledger: RatingsLedger, store_url: str
) -> None:
    # Found on main: "With ratingsledger_chain dropped ..., verify re-seals silently."
    drop_chain(store_url)
    result = runner.invoke(app, ["verify", "--store", store_url])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: the chain table {CHAIN_TABLE} is missing: the ledger's seals were dropped\n"
    )
    with pytest.raises(StoreError, match="missing"):
        verify(sealed_ledger)


def test_verify_of_a_missing_sqlite_store_fails_and_creates_nothing(tmp_path: Path) -> None:
    # Found on main: "`verify --store sqlite:///typo.db` creates the file and says 'chain
    # intact: 0 entries', exit 0."
    typo = tmp_path / "typo.db"
    for command in (["verify"], ["log"], ["anchor", "--actor", "director"]):
        result = runner.invoke(app, [*command, "--store", f"sqlite:///{typo}"])
        assert (result.exit_code, result.stderr.count("\n")) == (1, 1), result.output
        assert f"no ledger at sqlite:///{typo}" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_write_whose_seal_fails_is_refused_in_one_line_and_appends_nothing(
    sealed_ledger: RatingsLedger, store_url: str, tmp_path: Path, backend: str
) -> None:
    # Found on main: "A trigger that makes sealing fail leaves writes unsealed with exit 0."
    if not store_url.startswith(backend):
        pytest.skip(f"{backend} only")
    with raw_store(store_url) as (conn, _, _, _, chain):
        if backend == "sqlite":
            conn.execute(
                f"CREATE TRIGGER no_seal BEFORE INSERT ON {chain} "
                "BEGIN SELECT RAISE(ABORT, 'sealing refused'); END"
            )
        else:
            schema = chain.split(".")[0]
            conn.execute(
                f"CREATE FUNCTION {schema}.no_seal() RETURNS trigger LANGUAGE plpgsql AS "
                "$$BEGIN RAISE EXCEPTION 'sealing refused'; END$$"
            )
            conn.execute(
                f"CREATE TRIGGER no_seal BEFORE INSERT ON {chain} "
                f"FOR EACH ROW EXECUTE FUNCTION {schema}.no_seal()"
            )
    players = tmp_path / "p.json"
    players.write_text(json.dumps([{"id": "30000099"}]))
    result = runner.invoke(app, ["register", str(players), "--actor", "td", "--store", store_url])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert "could not be sealed, nothing was appended" in result.stderr
    assert positions(sealed_ledger) == list(range(1, 10))
    assert verify(sealed_ledger).broken is None


def test_every_write_prints_its_receipt_and_verify_expect_checks_it_later(
    sealed_ledger: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    # Issue: "Every write prints its receipt DIGEST@POSITION. `verify --expect` checks one."
    players = tmp_path / "p.json"
    players.write_text(json.dumps([{"id": "30000010"}]))
    written = runner.invoke(app, ["register", str(players), "--actor", "td", "--store", store_url])
    assert written.exit_code == 0, written.output
    receipt = next(x for x in written.stdout.splitlines() if x.startswith("receipt "))[8:]
    assert parse_expected(receipt).position == 10
    sealed_ledger.players.register(parse(RegisterPlayer, {"id": "30000011"}), actor="td")
    later = runner.invoke(app, ["verify", "--expect", receipt, "--store", store_url])
    assert (later.exit_code, later.stdout.rstrip().endswith(f"matches {receipt}")) == (0, True)
    forged = receipt.replace(receipt[0], "f" if receipt[0] != "f" else "e", 1)
    rewritten = runner.invoke(app, ["verify", "--expect", forged, "--store", store_url])
    assert rewritten.exit_code == 1
    assert "the ledger was rewritten" in rewritten.stderr


@pytest.mark.parametrize("text", ["abc@3", "0" * 64, "0" * 64 + "@x", "g" * 64 + "@1"])
def test_a_malformed_expected_digest_is_bad_input(sealed_ledger: RatingsLedger, text: str) -> None:
    # Issue: the auditor gives "DIGEST@POS"; anything else is refused as bad input (exit 2).
    result = runner.invoke(app, ["verify", "--expect", text, "--store", sealed_ledger.store])
    assert (result.exit_code, result.stderr.count("\n")) == (2, 1)


@pytest.fixture
def anchored(sealed_ledger: RatingsLedger, tmp_path: Path) -> Iterator[Path]:
    """An anchor signed by the director at position 9, kept outside the database."""
    result = runner.invoke(app, ["anchor", "--actor", "director", "--store", sealed_ledger.store])
    assert result.exit_code == 0, result.output
    path = tmp_path / "anchor.json"
    path.write_text(result.stdout)
    yield path


def test_an_anchor_is_a_head_signed_by_a_director_that_verify_checks(
    sealed_ledger: RatingsLedger, anchored: Path
) -> None:
    # Issue: "`anchor` prints a head digest signed by the director (a small JSON document)".
    document = json.loads(anchored.read_text())
    assert (document["position"], document["actor"]) == (9, "director")
    assert document["digest"] == verify(sealed_ledger).head.digest
    sealed_ledger.players.register(parse(RegisterPlayer, {"id": "30000012"}), actor="td")
    result = runner.invoke(
        app, ["verify", "--anchor", str(anchored), "--store", sealed_ledger.store]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith("holds the anchor at 9")


@pytest.mark.parametrize("with_anchor", [False, True])
def test_a_deleted_tail_is_caught_only_by_the_anchor(
    sealed_ledger: RatingsLedger, anchored: Path, with_anchor: bool
) -> None:
    # Issue: "`verify --anchor FILE` checks the ledger against it, catching a deleted tail."
    truncate(sealed_ledger.store, 7)
    extra = ["--anchor", str(anchored)] if with_anchor else []
    result = runner.invoke(app, ["verify", *extra, "--store", sealed_ledger.store])
    if not with_anchor:
        assert result.exit_code == 0  # a shorter, consistent ledger: nothing inside shows it
        return
    assert (result.exit_code, result.stderr) == (
        1,
        "error: the ledger ends at position 7 but the anchor holds position 9: entries were "
        "deleted from its tail\n",
    )


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        ({"position": 8}, 1, "its signature does not check"),
        ({"digest": "0" * 64}, 1, "its signature does not check"),
        ({"anchor": "something else"}, 2, "not an anchor"),
        ({"signature": "zz"}, 2, "--anchor"),
    ],
    ids=["moved", "other-digest", "not-an-anchor", "garbled"],
)
def test_an_altered_anchor_is_refused_in_one_line(
    sealed_ledger: RatingsLedger, anchored: Path, change: dict, code: int, message: str
) -> None:
    document = json.loads(anchored.read_text()) | change
    anchored.write_text(json.dumps(document))
    result = runner.invoke(
        app, ["verify", "--anchor", str(anchored), "--store", sealed_ledger.store]
    )
    assert (result.exit_code, result.stderr.count("\n"), message in result.stderr) == (
        code,
        1,
        True,
    )


def test_only_a_director_with_the_ledgers_key_may_anchor(sealed_ledger: RatingsLedger) -> None:
    result = runner.invoke(app, ["anchor", "--actor", "td", "--store", sealed_ledger.store])
    assert (result.exit_code, result.stderr) == (
        4,
        "error: 'td' is not a director of this ledger; a director anchors\n",
    )


def test_reads_open_sqlite_read_only_so_they_cannot_write(sealed_ledger: RatingsLedger) -> None:
    # Issue: "on SQLite open the file read-only with mode=ro URI".
    if not sealed_ledger.store.startswith("sqlite"):
        pytest.skip("SQLite files only (PostgreSQL: the next test's read-only role)")
    with closing(RatingsLedger(sealed_ledger.store, read_only=True)) as reader:
        assert [e.position for e in read_entries(reader)] == list(range(1, 10))
        with pytest.raises(StoreError, match="readonly|read-only"):
            reader.players.register(parse(RegisterPlayer, {"id": "30000013"}), actor="td")
    assert positions(sealed_ledger) == list(range(1, 10))


@pytest.fixture
def select_only_url(sealed_ledger: RatingsLedger, store_url: str) -> Iterator[str]:
    """The store's URL for a new PostgreSQL role that may only SELECT in its schema."""
    if not store_url.startswith("postgres"):
        pytest.skip("PostgreSQL roles only")
    import psycopg

    base, _, query = store_url.partition("?")
    schema = query.removeprefix("schema=")
    role = f"reader_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {role}')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {role}')
    try:
        yield store_url.replace("postgres@", f"{role}@", 1)
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_log_verify_and_catch_up_work_with_select_only_postgres_credentials(
    select_only_url: str, tmp_path: Path
) -> None:
    # Found on main: "`verify` and `log` cannot run with read-only PostgreSQL credentials,
    # because opening the store runs CREATE TABLE."
    logged = runner.invoke(app, ["log", "--json", "--store", select_only_url])
    assert (logged.exit_code, len(json.loads(logged.stdout))) == (0, 9), logged.output
    verified = runner.invoke(app, ["verify", "--store", select_only_url])
    assert (verified.exit_code, verified.stdout.startswith("chain intact")) == (0, True)
    view = tmp_path / "v.db"
    caught = runner.invoke(app, ["catch-up", "--store", select_only_url, "--view", str(view)])
    assert caught.exit_code == 0, caught.output
    refused = runner.invoke(
        app, ["grant-role", "ann", "auditor", "--actor", "director", "--store", select_only_url]
    )
    assert (refused.exit_code, refused.stderr.count("\n")) == (1, 1)


def test_reading_a_postgres_schema_without_a_ledger_fails_in_one_line_and_creates_nothing(
    store_url: str,
) -> None:
    # Issue: "Opening a missing store for reading must not create it."
    if not store_url.startswith("postgres"):
        pytest.skip("PostgreSQL schemas only (SQLite: the missing-file test)")
    for command in (["verify"], ["log"]):
        result = runner.invoke(app, [*command, "--store", store_url])
        assert (result.exit_code, result.stderr.count("\n")) == (1, 1), result.output
        assert result.stderr.startswith("error: no ledger at ")
    with raw_store(store_url) as (conn, table, _, _, _):
        schema = table.split(".")[0].strip('"')
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s", (schema,)
        ).fetchone()[0]
    assert tables == 0


@pytest.mark.parametrize("position", ["1²", "١", "9" * 5000])
def test_an_expected_position_in_other_digits_is_refused_as_no_number(position: str) -> None:
    """Issue 28: "`1²` end[s] in 'unexpected ValueError'" → a one-line refusal saying what."""
    with pytest.raises(ValueError, match=r"the position is not a number \(expected DIGEST@POS\)"):
        parse_expected("0" * 64 + "@" + position)
