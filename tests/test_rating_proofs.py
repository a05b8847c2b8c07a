"""A rating anyone can verify (issue 18): "a published list also commits its ratings (a Merkle
root over the list's rows, in its checkpoint); `prove PLAYER --list NAME` emits a proof bundle
... and `verify-rating BUNDLE --checkpoint FILE` recomputes the player's change offline, with
no database"; "a tampered bundle fails `verify-rating`"."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from projection_helpers import Ledger
from test_rating_lists import G_F_MATCH, entered, match, the_1068_round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.checkpoints import Checkpoint
from ledger.entrypoints.cli import app
from projections.proofs import BundleError, MemoryTree, verify_bundle

runner = CliRunner()


def cli(store: str, *args: str) -> str:
    result = runner.invoke(app, [*args, "--store", store])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def ledger_with_lists(tmp_path_factory: pytest.TempPathFactory) -> str:
    """10.68's round robin and the G–F match in the first period (list 2003-04), then a
    Swiss-like match A–B and an unrated player's games in the second (list 2003-07)."""
    store = f"sqlite:///{tmp_path_factory.mktemp('proofs') / 'ledger.db'}"
    led: Ledger = entered(RatingsLedger(store))
    led.register("U", "V", adult=True)
    led.submit(the_1068_round_robin(), G_F_MATCH)
    led.submit(match("U1", "J", "U", ["1-0"] * 5 + ["1/2-1/2"], "2003-02-01"))
    led.app.close()
    publish = ["publish-list", "--family", "fide", "--actor", "director"]
    cli(store, *publish, "--name", "2003-04", "--as-of", "2003-04-01")
    led = Ledger(RatingsLedger(store))
    led.submit(match("AB", "A", "B", ["1/2-1/2", "0-1"], "2003-05-01"))
    led.submit(match("U2", "U", "A", ["1/2-1/2", "1/2-1/2", "1-0", "0-1"], "2003-05-02"))
    led.submit(match("GJ", "G", "J", ["1-0"], "2003-05-03"))
    led.submit(match("VJ", "V", "J", ["1/2-1/2"], "2003-05-04"))  # V: unrated, not yet on a list
    led.app.close()
    cli(store, *publish, "--name", "2003-07", "--as-of", "2003-07-01")
    return store


def bundle_of(store: str, player: str, name: str) -> dict:
    return json.loads(cli(store, "prove", player, "--list", name, "--rules-family", "fide"))


def held(store: str) -> Checkpoint:
    return Checkpoint.parse(cli(store, "checkpoint"))


def test_publishing_a_list_commits_the_merkle_root_of_its_rows(ledger_with_lists):
    log = json.loads(cli(ledger_with_lists, "log", "--json", "--type", "ListRatingsCommitted"))
    assert [e["payload"]["list_name"] for e in log] == ["2003-04", "2003-07"]
    assert all(len(e["payload"]["ratings_root"]) == 64 for e in log)


@pytest.mark.parametrize("player", ["A", "B", "G", "J", "U", "V"])
def test_a_players_list_rating_is_recomputed_offline_from_the_bundle(
    ledger_with_lists, tmp_path: Path, player: str
):
    bundle = bundle_of(ledger_with_lists, player, "2003-07")
    (tmp_path / "b.json").write_text(json.dumps(bundle))
    (tmp_path / "c.txt").write_text(held(ledger_with_lists).text())
    result = runner.invoke(
        app, ["verify-rating", str(tmp_path / "b.json"), "--checkpoint", str(tmp_path / "c.txt")]
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: ") and "recomputed from" in result.output
    said = json.loads(bundle["row"]["leaf"])["official_rating"]
    assert (f"is {said}:" if said is not None else "publishes no rating yet") in result.output


def test_the_bundle_holds_only_the_players_games_and_their_opponents_rows(ledger_with_lists):
    # "in work proportional to the player's games": G's items are GJ (one game vs J)
    bundle = bundle_of(ledger_with_lists, "G", "2003-07")
    assert len(bundle["items"]) == 1
    assert sorted(bundle["previous"]["rows"]) == ["G", "J"]


def test_a_row_on_the_first_list_is_proved_but_not_recomputed(ledger_with_lists):
    bundle = bundle_of(ledger_with_lists, "A", "2003-04")
    said = verify_bundle(bundle, held(ledger_with_lists))
    assert said["recomputed"] is False and said["official_rating"] == 2609  # 10.68: A 2609


def tampered(bundle: dict, how: str) -> dict:
    out = copy.deepcopy(bundle)
    if how == "row":  # the list said another rating
        row = json.loads(out["row"]["leaf"])
        row["official_rating"] += 1
        out["row"]["leaf"] = json.dumps(row, sort_keys=True, separators=(",", ":"))
    elif how == "item dropped":  # one of the period's items left out
        out["items"] = out["items"][1:]
    elif how == "opponent's rating":  # the previous list said another rating for J
        leaf = json.loads(out["previous"]["rows"]["J"]["leaf"])
        leaf["state"][0] += 50
        out["previous"]["rows"]["J"]["leaf"] = json.dumps(
            leaf, sort_keys=True, separators=(",", ":")
        )
    elif how == "opponent hidden":  # J said to be absent from the previous list
        out["previous"]["rows"]["J"] = {"absent": []}
    elif how == "game result":  # an entry's data edited
        position = str(out["items"][0][1])
        out["entries"][position]["leaf"] = out["entries"][position]["leaf"].replace(
            '"result":"1-0"', '"result":"0-1"'
        )
    return out


@pytest.mark.parametrize(
    "how", ["row", "item dropped", "opponent's rating", "opponent hidden", "game result"]
)
def test_a_tampered_bundle_fails_verify_rating(ledger_with_lists, how):
    bundle = bundle_of(ledger_with_lists, "G", "2003-07")
    verify_bundle(bundle, held(ledger_with_lists))  # the real one holds
    with pytest.raises(BundleError):
        verify_bundle(tampered(bundle, how), held(ledger_with_lists))


def test_a_bundle_for_another_checkpoint_is_refused(ledger_with_lists):
    bundle = bundle_of(ledger_with_lists, "G", "2003-07")
    real = held(ledger_with_lists)
    other = Checkpoint(real.ledger, real.size - 1, real.root)
    with pytest.raises(BundleError, match="not the one you hold"):
        verify_bundle(bundle, other)


def test_a_bundle_from_a_forked_ledger_is_refused_as_rewritten_not_as_another_size(
    ledger_with_lists,
):
    # red team, "rolling the store back to a backup, then appending (fork)": the checkpoint a
    # verifier holds from the other branch has the bundle's size and another root
    bundle = bundle_of(ledger_with_lists, "G", "2003-07")
    real = held(ledger_with_lists)
    fork = Checkpoint(real.ledger, real.size, "0" * 64, (), real.position)
    with pytest.raises(BundleError, match="has another root than the one you hold: the ledger"):
        verify_bundle(bundle, fork)
    other = Checkpoint("f" * 32, real.size, real.root, (), real.position)
    with pytest.raises(BundleError, match="another ledger's checkpoint"):
        verify_bundle(bundle, other)


@pytest.mark.parametrize("size", range(1, 12))
def test_every_row_of_a_list_tree_is_proved_and_an_absent_key_shown_absent(size):
    leaves = [
        json.dumps({"system": "FIDE", "player": f"P{i:02d}", "official_rating": i, "state": []})
        .replace(" ", "")
        .encode()
        for i in range(0, 2 * size, 2)
    ]
    tree = MemoryTree(leaves)
    from ledger import merkle

    for i in range(size):
        proof = tree.proof(i)
        path = [bytes.fromhex(p) for p in proof["proof"]]
        assert merkle.verify_inclusion(
            merkle.leaf_hash(leaves[i]), i, size, path, bytes.fromhex(tree.root())
        )


def test_the_players_list_page_links_the_bundle_and_serves_it(ledger_with_lists):
    # Issue 18: "The player's page links the bundle."
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(ledger_with_lists, family="fide")
    page = get(site, "/players/G/lists/2003-07")
    assert page.status == 200
    assert "/api/players/G/lists/2003-07/proof?system=FIDE" in page.text
    served = get(site, "/api/players/G/lists/2003-07/proof", "system=FIDE")
    assert served.status == 200
    said = verify_bundle(served.json(), held(ledger_with_lists))
    row = json.loads(bundle_of(ledger_with_lists, "G", "2003-07")["row"]["leaf"])
    assert said["recomputed"] and said["official_rating"] == row["official_rating"]
