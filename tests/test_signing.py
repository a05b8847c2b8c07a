"""Writers prove who they are: Ed25519 keys in a keyring, every entry signed, every signature
checked against the key its actor held at that position (verify, catch-up, rebuild)."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.domain import player_key
from ledger.entrypoints.cli import app
from ledger.evidence import read_verified_entries
from ledger.evidence.chain import verify
from ledger.evidence.reads import verifier_at
from ledger.evidence.signing import KEYRING_VARIABLE, Keyring, public_text
from ledger.log import read_entries
from ledger.roles import Role
from tests.tamper_helpers import checked_read, edit, insert, raw_store, reseal, resign

runner = CliRunner()


def player(member: str) -> RegisterPlayer:
    return parse(RegisterPlayer, {"id": member})


@pytest.fixture
def run(store_url: str) -> Callable[..., Result]:
    def invoke(*args: str, keyring: Path | None = None) -> Result:
        env = {KEYRING_VARIABLE: str(keyring)} if keyring else None
        return runner.invoke(app, [*args, "--store", store_url], env=env)

    return invoke


def positions(store_url: str) -> list[int]:
    with closing(RatingsLedger(store_url, read_only=True)) as reader:
        return [e.position for e in read_entries(reader)]


def test_keys_new_makes_a_private_key_only_its_owner_reads_and_prints_the_public_key(
    tmp_path: Path,
) -> None:
    # Issue: "a keyring folder ... private key files mode 0600 (folder 0700)"; "`keys new NAME`
    # makes a key and prints its public key".
    ring = tmp_path / "ring"
    made = runner.invoke(app, ["keys", "new", "ed@federation"], env={KEYRING_VARIABLE: str(ring)})
    assert made.exit_code == 0, made.output
    key = Keyring(ring).private_key("ed@federation")
    assert key is not None and made.stdout == public_text(key) + "\n"
    assert stat.S_IMODE(ring.stat().st_mode) == 0o700
    assert [stat.S_IMODE(f.stat().st_mode) for f in ring.iterdir()] == [0o600]
    again = runner.invoke(app, ["keys", "new", "ed@federation"], env={KEYRING_VARIABLE: str(ring)})
    assert (again.exit_code, again.stderr.count("\n")) == (2, 1)
    assert Keyring(ring).private_key("ed@federation") is not None


def test_init_makes_the_directors_key_when_the_keyring_has_none_and_records_it(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    # Issue: "`init --actor NAME` creates NAME's key if the keyring has none and records NAME's
    # public key in the ledger (in the LedgerInitialized event)".
    ring = tmp_path / "ring"
    assert run("init", "--actor", "ed", keyring=ring).exit_code == 0
    logged = json.loads(run("log", "--json").stdout)
    assert logged[0]["payload"]["public_key"] == Keyring(ring).public_key("ed")


def test_anyone_typing_a_directors_name_without_the_directors_key_is_refused(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    # Found on main: "`grant-role mallory director --actor ed@federation` succeeds for whoever
    # types it."
    assert run("init", "--actor", "ed@federation", keyring=tmp_path / "ed").exit_code == 0
    mallory = tmp_path / "mallory"
    assert runner.invoke(app, ["keys", "new", "mallory"], env={KEYRING_VARIABLE: str(mallory)})
    before = positions_of(run)
    result = run("grant-role", "mallory", "director", "--actor", "ed@federation", keyring=mallory)
    assert (result.exit_code, result.stderr.count("\n")) == (4, 1)
    assert "'ed@federation' has no key in the keyring" in result.stderr
    Keyring(mallory).create("ed@federation")  # a key of her own under ed's name
    forged = run("grant-role", "mallory", "director", "--actor", "ed@federation", keyring=mallory)
    assert (forged.exit_code, forged.stderr) == (
        4,
        f"error: the key for 'ed@federation' in {mallory} is not the one the ledger holds for "
        "'ed@federation'; nothing was appended\n",
    )
    assert positions_of(run) == before


def positions_of(run: Callable[..., Result]) -> list[int]:
    return [e["position"] for e in json.loads(run("log", "--json").stdout)]


def test_a_grant_records_the_holders_public_key_from_the_flag_or_the_keyring(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    # Issue: "`grant-role HOLDER ROLE [--public-key KEY]` records HOLDER's public key (from the
    # flag, or from the granting director's keyring when it holds HOLDER's key; refuse a grant
    # with no key to be found, one line)".
    director, td = tmp_path / "director", tmp_path / "td"
    assert run("init", "--actor", "ed", keyring=director).exit_code == 0
    td_key = runner.invoke(app, ["keys", "new", "tom"], env={KEYRING_VARIABLE: str(td)}).stdout
    missing = run("grant-role", "tom", "tournament_director", "--actor", "ed", keyring=director)
    assert (missing.exit_code, missing.stderr.count("\n")) == (2, 1)
    assert "no public key for 'tom'" in missing.stderr
    given = run(
        "grant-role", "tom", "tournament_director", "--actor", "ed", "--public-key", td_key,
        keyring=director,
    )  # fmt: skip
    assert given.exit_code == 0, given.output
    Keyring(director).create("ola")
    from_ring = run("grant-role", "ola", "ratings_admin", "--actor", "ed", keyring=director)
    assert from_ring.exit_code == 0, from_ring.output
    granted = [e for e in json.loads(run("log", "--json").stdout) if e["type"] == "RoleGranted"]
    assert [(e["payload"]["holder"], e["payload"]["public_key"]) for e in granted[1:]] == [
        ("tom", td_key.strip()),
        ("ola", Keyring(director).public_key("ola")),
    ]
    players = tmp_path / "p.json"
    players.write_text(json.dumps([{"id": "30000001"}]))
    wrote = run("register", str(players), "--actor", "tom", keyring=td)
    assert wrote.exit_code == 0, wrote.output


@pytest.mark.parametrize("bad", ["xyz", "00" * 31, "zz" * 32])
def test_a_public_key_that_is_not_ed25519_is_bad_input(
    ledger: RatingsLedger, run: Callable[..., Result], bad: str
) -> None:
    result = run("grant-role", "ann", "auditor", "--actor", "director", "--public-key", bad)
    assert (result.exit_code, result.stderr.count("\n")) == (2, 1)
    assert "is not an Ed25519 public key" in result.stderr


def test_every_entry_is_signed_by_its_actors_key(ledger: RatingsLedger, keyring: Keyring) -> None:
    # Issue: "Every write is signed by the actor's private key over a canonical encoding of
    # what it appends"; "`verify` checks every signature".
    ledger.players.register(player("30000001"), actor="td")
    found = verify(ledger, keys_at=5)
    assert (found.broken, found.entries) == (None, 5)
    assert found.keys == {a: keyring.public_key(a) for a in ("director", "office", "td")}


def test_key_rotation_keeps_old_entries_valid_and_refuses_the_old_key_after_it(
    ledger: RatingsLedger, tmp_path: Path
) -> None:
    # Issue: "Key rotation (a new grant with a new key) and revocation work."
    ledger.players.register(player("30000001"), actor="td")
    new_ring = Keyring(tmp_path / "new")
    new_key = public_text(new_ring.create("td"))
    [rotated] = ledger.roles.grant(
        "td", Role.TOURNAMENT_DIRECTOR, actor="director", public_key=new_key
    )
    assert rotated.payload["public_key"] == new_key
    with pytest.raises(Exception, match="is not the one the ledger holds"):
        ledger.players.register(player("30000002"), actor="td")
    with closing(RatingsLedger(ledger.store, keyring=new_ring)) as rotated_ledger:
        rotated_ledger.players.register(player("30000002"), actor="td")
    found = verify(ledger)
    assert (found.broken, found.entries) == (None, 7)


def test_a_revoked_holder_loses_their_key_but_their_earlier_entries_still_check(
    ledger: RatingsLedger, store_url: str
) -> None:
    # Issue: "revocation work[s]"; "checks every signature against the public key the ledger
    # held for that actor AT THAT POSITION".
    ledger.players.register(player("30000001"), actor="td")
    ledger.roles.revoke("td", Role.TOURNAMENT_DIRECTOR, actor="director")
    assert verify(ledger).broken is None
    # A stolen td key is worth nothing after the revocation: a forged entry by td fails.
    stolen = ledger.keyring.private_key("td")
    state = json.dumps({"actor": "td", "timestamp": {"_type_": "datetime_iso", "_data_": "x"}})
    at = insert(
        store_url, player_key("30000002"), 1, "ratings-ledger:PlayerRegistered", state.encode(),
        key=stolen, seal=True,
    )  # fmt: skip
    found = verify(ledger)
    assert found.broken is not None
    assert (found.broken.position, found.broken.reason) == (
        at,
        "the ledger held no key for 'td' there",
    )


@pytest.mark.parametrize(
    ("signer", "reason"),
    [
        ("other", "the signature is not 'td''s (forged or altered)"),
        ("unsigned", "the entry is not signed (its write has no signature)"),
        ("td", None),
    ],
)
def test_an_appended_forgery_signed_with_another_key_or_unsigned_is_caught(
    ledger: RatingsLedger, store_url: str, signer: str, reason: str | None
) -> None:
    # Issue: "append forged (a correctly-shaped row signed with another key or unsigned)".
    key = {"other": Ed25519PrivateKey.generate(), "unsigned": None}.get(
        signer, ledger.keyring.private_key("td")
    )
    state = json.dumps(
        {"actor": "td", "member_id": "30000002", "timestamp": {"_type_": "x", "_data_": "y"}}
    )
    at = insert(
        store_url, player_key("30000002"), 1, "ratings-ledger:PlayerRegistered", state.encode(),
        key=key, seal=True,
    )  # fmt: skip
    found = verify(ledger)
    if reason is None:  # the actor's own key: a stolen key can append (see decisions)
        assert found.broken is None
        return
    assert found.broken is not None
    assert (found.broken.position, found.broken.reason) == (at, reason)


def test_an_edited_entry_resealed_is_still_caught_by_its_signature(
    ledger: RatingsLedger, store_url: str
) -> None:
    # An attacker with database access but no key edits a payload and recomputes the chain.
    ledger.players.register(parse(RegisterPlayer, {"id": "30000001", "name": "Ann"}), actor="td")
    edit(store_url, 5, "Ann", "Bob")
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is not None
    assert found.broken.position == 5 and "forged or altered" in found.broken.reason


def test_a_stolen_key_and_a_resealed_chain_pass_verify_but_not_the_receipt(
    ledger: RatingsLedger, store_url: str
) -> None:
    # What a stolen key can do (docs/decisions.md "Signed writes"): rewrite its holder's
    # entries undetected inside the database, but not past an auditor's receipt or anchor.
    ledger.players.register(parse(RegisterPlayer, {"id": "30000001", "name": "Ann"}), actor="td")
    receipt = ledger.receipt
    edit(store_url, 5, "Ann", "Bob")
    resign(store_url, 5, ledger.keyring.private_key("td"))
    reseal(store_url)
    found = verify(ledger)
    assert found.broken is None
    assert found.head != receipt


def test_catch_up_and_rebuild_stop_before_an_entry_whose_signature_fails_naming_its_position(
    ledger: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    # Issue: "catch-up and rebuild refuse to rate an entry whose signature fails, stopping with
    # one line naming the position"; issue 28: they rate up to it, and the line is a warning.
    ledger.players.register(player("30000001"), actor="td")
    view = tmp_path / "v.db"
    assert (
        runner.invoke(app, ["catch-up", "--store", store_url, "--view", str(view)]).exit_code == 0
    )
    ledger.players.register(player("30000002"), actor="td")
    ledger.players.register(player("30000003"), actor="td")
    resign(store_url, 7, Ed25519PrivateKey.generate())
    reseal(store_url)
    for command in ("catch-up", "rebuild"):
        result = runner.invoke(app, [command, "--store", store_url, "--view", str(view)])
        assert (result.exit_code, result.stderr) == (
            0,
            "warning: entry 7 fails verification (the signature is not 'td''s (forged or "
            "altered)): reads answer from the ledger as verified up to position 6; a director "
            "may set it aside (`ratings-ledger set-aside 7 --reason R --actor A`)\n",
        ), result.output


@pytest.mark.parametrize("after", [0, 4, 6])
def test_verified_reading_checks_in_bulk_from_any_position_with_the_keys_held_there(
    ledger: RatingsLedger, store_url: str, after: int
) -> None:
    # Issue: "a function ... that checks a batch of entries in bulk with cached keys, which the
    # read side's catch-up/rebuild will call".
    for member in ("30000001", "30000002", "30000003", "30000004"):
        ledger.players.register(player(member), actor="td")
    assert [e.position for e in read_verified_entries(ledger, after, batch=2)] == list(
        range(after + 1, 9)
    )
    resign(store_url, 8, Ed25519PrivateKey.generate())
    read, stopped = checked_read(ledger, after, batch=2)  # issue 28: stops, naming it
    assert (read, stopped.position) == (list(range(after + 1, 8)), 8)


def test_a_forged_grant_before_the_catch_up_position_is_caught_when_keys_are_loaded(
    ledger: RatingsLedger, store_url: str
) -> None:
    # The keys for a catch-up starting mid-ledger come from the key events before it, which are
    # checked too: a forged grant there cannot plant a key (issue 28: it is ignored, granting
    # nothing, and a full read stops at it).
    resign(store_url, 3, Ed25519PrivateKey.generate())  # office's grant
    reseal(store_url)
    keys = verifier_at(ledger, 4)
    assert "office" not in keys.keys and [e.position for e in keys.ignored] == [3]
    assert checked_read(ledger)[1].position == 3


@pytest.mark.parametrize("after", [4, 5, 6])
def test_a_write_of_several_entries_carries_one_signature_checked_whole_from_any_position(
    ledger: RatingsLedger, store_url: str, after: int
) -> None:
    # One signature per write (stored with its last entry): a read starting inside a write
    # checks the whole write first, then yields only the entries after its start.
    ledger.players.register(*(player(f"3000000{k}") for k in range(3)), actor="td")
    with raw_store(store_url) as (conn, _, _, _, chain):
        signed = conn.execute(f"SELECT position FROM {chain} WHERE signature <> ''").fetchall()
    assert [row[0] for row in signed] == [2, 3, 4, 7]
    assert [e.position for e in read_verified_entries(ledger, after)] == list(range(after + 1, 8))
    edit(store_url, 6, "30000001", "30000009")
    reseal(store_url)
    stopped = checked_read(ledger, after)[1]  # issue 28: the read stops there, naming it
    assert (stopped.position, stopped.reason) == (
        5,
        "the write at positions 5–7: its signature is not 'td''s (forged or altered)",
    )


@pytest.mark.parametrize("sealed", [False, True])
@pytest.mark.parametrize("state", [b"{}", b"[1]", b"not json"])
def test_a_malformed_row_inserted_behind_the_ledgers_back_stops_a_catch_up_in_one_line(
    ledger: RatingsLedger, store_url: str, tmp_path: Path, state: bytes, sealed: bool
) -> None:
    # "Readers never crash": an unsigned row of any shape, with or without a chain row, is
    # refused, naming its position.
    topic = "ratings-ledger:PlayerRegistered"
    insert(store_url, player_key("30000009"), 1, topic, state, seal=sealed)
    result = runner.invoke(app, ["catch-up", "--store", store_url, "--view", str(tmp_path / "v")])
    assert (result.exit_code, result.stderr.startswith("warning: entry 5 fails")) == (0, True)
    assert result.stderr.count("\n") == 1
