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
from ledger.entrypoints.cli import app
from ledger.evidence import transparency
from ledger.evidence.checkpoints import Checkpoint
from projections.proof_check import verify_bundle
from projections.proofs import BundleError, MemoryTree

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


def offline(store: str, tmp_path: Path) -> list[str]:
    """`verify-rating b.json --checkpoint c.txt`, trusting the keys of the verified ledger
    (issue 28: an offline check trusts a key the verifier holds, never the checkpoint's)."""
    (tmp_path / "trusted.txt").write_text(cli(store, "trusted-keys"))
    (tmp_path / "c.txt").write_text(held(store).text())
    return ["verify-rating", str(tmp_path / "b.json"), "--checkpoint", str(tmp_path / "c.txt")] + [
        "--trusted",
        str(tmp_path / "trusted.txt"),
    ]


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
    result = runner.invoke(app, offline(ledger_with_lists, tmp_path))
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
    from ledger.evidence import merkle

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
    assert "/api/v1/players/G/lists/2003-07/proof?system=FIDE" in page.text
    served = get(site, "/api/players/G/lists/2003-07/proof", "system=FIDE")
    assert served.status == 200
    said = verify_bundle(served.json(), held(ledger_with_lists))
    row = json.loads(bundle_of(ledger_with_lists, "G", "2003-07")["row"]["leaf"])
    assert said["recomputed"] and said["official_rating"] == row["official_rating"]


# The facts a list's rating depends on besides its items: FIDE's uplift and merged records


def publish(store: str, name: str, as_of: str) -> None:
    cli(
        store,
        *("publish-list", "--family", "fide", "--actor", "director"),
        *("--name", name, "--as-of", as_of),
    )


def verified(store: str, bundle: dict, tmp_path: Path):
    """`verify-rating` on the bundle, with the ledger's checkpoint: the CLI's result."""
    (tmp_path / "b.json").write_text(json.dumps(bundle))
    return runner.invoke(app, offline(store, tmp_path))


W, X, Y, Z = "50000004", "50000001", "50000002", "50000003"


@pytest.fixture(scope="module")
def uplifted(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An empty February list; four FIDE players rated in February 2024, the list of 1 March
    2024, FIDE's uplift of that date recorded after it, March games (W plays none) and the
    April list, then April games and the May list."""
    from projection_helpers import round_robin

    from ledger.commands import RecordFideUplift, parse

    store = f"sqlite:///{tmp_path_factory.mktemp('uplift') / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    for pid, rating in ((W, 1700), (X, 1500), (Y, 1900), (Z, 2100)):
        fide = {"rating": rating, "date": "2024-01-01", "games": 100, "federation": "USA"}
        born = {"birth_date": "2010-06-01"} if pid == X else {}  # X: a junior (FIDE 8.3.3)
        led.register(pid, adult=True, fide=fide, **born)
    led.app.close()
    publish(store, "2024-02", "2024-02-01")
    led = Ledger(RatingsLedger(store))
    led.submit(round_robin("FEB", [W, X, Y, Z], "2024-02-10", "2024-02-11"))
    led.app.close()
    publish(store, "2024-03", "2024-03-01")
    led = Ledger(RatingsLedger(store))
    uplift = {"effective": "2024-03-01", "reason": "FIDE Council, 15 December 2023"}
    led.app.decisions.record_fide_uplift(parse(RecordFideUplift, uplift), actor="director")
    led.submit(round_robin("MAR", [X, Y, Z], "2024-03-10", "2024-03-11"))
    led.app.close()
    publish(store, "2024-04", "2024-04-01")
    led = Ledger(RatingsLedger(store))
    led.submit(round_robin("APR", [W, X, Y], "2024-04-10", "2024-04-11"))
    led.app.close()
    publish(store, "2024-05", "2024-05-01")
    return store


def official(bundle: dict) -> int:
    return json.loads(bundle["row"]["leaf"])["official_rating"]


@pytest.mark.parametrize("player", [W, X, Y, Z])
def test_a_list_after_the_fide_uplift_is_recomputed_with_the_uplift_the_bundle_carries(
    uplifted, tmp_path, player
):
    # Issue 18 + the uplift: "a proof for a list whose previous row was uplifted must carry the
    # uplift entry with its inclusion proof and the recomputation must apply it".
    bundle = bundle_of(uplifted, player, "2024-04")
    log = json.loads(cli(uplifted, "log", "--json", "--type", "FideUpliftRecorded"))
    assert bundle["uplifts"] == [log[0]["position"]]
    assert str(log[0]["position"]) in bundle["entries"]
    result = verified(uplifted, bundle, tmp_path)
    assert result.exit_code == 0, result.output
    assert f"is {official(bundle)}: recomputed from" in result.output


def test_a_juniors_row_is_recomputed_with_the_k_his_birth_date_gives(uplifted):
    # FIDE 8.3.3: K = 40 "for all players until the end of the year of their 18th birthday";
    # the birth date is a fact his list rating depends on, so his bundle carries his profile.
    bundle = bundle_of(uplifted, X, "2024-04")
    assert list(bundle["profiles"]) == [X]
    said = verify_bundle(bundle, held(uplifted))
    assert said["recomputed"] and said["items"] == 1
    grown = copy.deepcopy(bundle)
    del grown["profiles"][X]  # rated as an adult (K 20 below 2400 after 30 games) instead
    with pytest.raises(BundleError, match="recomputed from the bundle"):
        verify_bundle(grown, held(uplifted))


def test_a_player_without_games_after_the_uplift_keeps_his_uplifted_rating(uplifted):
    # FIDE, 1 March 2024: R' = R + 0.4 × (2000 − R) below 2000; W plays no March game, so the
    # April list shows his March rating raised, and the bundle recomputes exactly that.
    march = official(bundle_of(uplifted, W, "2024-03"))
    april = bundle_of(uplifted, W, "2024-04")
    assert march < 2000
    assert official(april) == int(march + 0.4 * (2000 - march) + 0.5)
    said = verify_bundle(april, held(uplifted))
    assert said["recomputed"] and said["items"] == 0


def test_a_bundle_without_its_uplift_fails_verify_rating(uplifted):
    # "the recomputation must apply it": without the uplift, X's April row is not recomputed.
    bundle = bundle_of(uplifted, X, "2024-04")
    bundle["uplifts"] = []
    with pytest.raises(BundleError, match="not the .* the list committed"):
        verify_bundle(bundle, held(uplifted))


@pytest.mark.parametrize("player", [W, X, Y, Z])
def test_a_later_list_takes_the_uplift_as_in_force_not_applied_again(uplifted, player):
    # "the one-time 2024 uplift applied at a list": the May list is rated from the April rows,
    # which hold it already; its bundle carries it (a profile rating dated before it is
    # raised) with the list before April, which shows it was applied at March, not April.
    bundle = bundle_of(uplifted, player, "2024-05")
    assert len(bundle["uplifts"]) == 1 and bundle["previous"]["earlier"] is not None
    assert verify_bundle(bundle, held(uplifted))["recomputed"]


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("another entry", "is not a FIDE uplift"),
        ("its proof dropped", "lists an uplift at .* without its entry's proof"),
        ("the earlier list dropped", "carries an uplift but not the list before '2024-03'"),
        ("another earlier list", "is not the list before '2024-03'"),
    ],
)
def test_a_bundle_with_its_uplift_tampered_fails_verify_rating(uplifted, how, said):
    # "Tampered bundles must still fail": the uplift entry is checked as the bundle files it.
    bundle = bundle_of(uplifted, X, "2024-04")
    position = bundle["uplifts"][0]
    if how == "another entry":
        bundle["uplifts"] = [bundle["list"]["published"]]
    elif how == "its proof dropped":
        del bundle["entries"][str(position)]
    elif how == "the earlier list dropped":  # it tells whether the uplift applies at March
        bundle["previous"]["earlier"] = None
    else:
        bundle["previous"]["earlier"] = bundle["previous"]["published"]
    with pytest.raises(BundleError, match=said):
        verify_bundle(bundle, held(uplifted))


S, M, B, C = "S", "M", "B", "C"


def merged_ledger(store: str, late: bool = False, void: bool = False) -> list[int]:
    """S, B and C rated by FIDE; M a second record of S's. S–B in the first period (list
    2003-04), then M–B and S–C, M merged into S (`void`: merged, voided, merged again) and
    the list 2003-07; `late`: M also played C before the first list. The merge entries'
    and voids' positions."""
    from ledger.commands import MergePlayers, VoidEntry, parse

    led = Ledger(RatingsLedger(store))
    for pid, rating in ((S, 1800), (B, 1900), (C, 2000)):
        led.register(pid, adult=True, fide={"rating": rating, "date": "2003-01-01", "games": 100})
    led.register(M, adult=True)
    led.submit(match("SB", S, B, ["1-0", "0-1"], "2003-02-01"))
    if late:
        led.submit(match("MC", M, C, ["1-0", "1-0"], "2003-02-02"))
    led.app.close()
    publish(store, "2003-04", "2003-04-01")
    led = Ledger(RatingsLedger(store))
    led.submit(match("MB", M, B, ["1-0", "1/2-1/2"], "2003-05-01"))
    led.submit(match("SC", S, C, ["1/2-1/2"], "2003-05-02"))
    merge = {"player": M, "into": S, "reason": "one person, two records"}
    positions = [led.app.players.merge(parse(MergePlayers, merge), actor="admin")[0].position]
    if void:
        back = {"position": positions[0], "reason": "two people after all"}
        positions.append(
            led.app.decisions.void(parse(VoidEntry, back), actor="director")[0].position
        )
        positions.append(
            led.app.players.merge(parse(MergePlayers, merge), actor="admin")[0].position
        )
    led.app.close()
    publish(store, "2003-07", "2003-07-01")
    return positions


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    store = f"sqlite:///{tmp_path_factory.mktemp('merged') / 'ledger.db'}"
    return store, merged_ledger(store)[0]


@pytest.mark.parametrize("player", [S, B, C])
def test_a_survivors_and_his_opponents_rows_are_recomputed_with_the_merge(merged, tmp_path, player):
    # "a proof for a survivor whose period holds games of a record merged into him (or whose
    # opponent was merged) must carry the merge entries with inclusion proofs, and
    # verify-rating must rename as the read model does": S played M–B as M, B played M.
    store, position = merged
    bundle = bundle_of(store, player, "2003-07")
    assert bundle["merges"] == ([] if player == C else [position])
    assert str(position) in bundle["entries"] or player == C
    result = verified(store, bundle, tmp_path)
    assert result.exit_code == 0, result.output
    assert f"is {official(bundle)}: recomputed from" in result.output


@pytest.mark.parametrize(
    ("player", "missing"),
    [
        (
            S,
            "the item at {item} does not name S: the bundle lacks the merge that joins one of "
            "its records (M) to him",
        ),
        (
            B,
            "the bundle holds no previous-list row for M, B's opponent in the item at {item}, "
            "nor the merge that joins that record to another",
        ),
    ],
)
def test_a_bundle_with_the_merge_entry_dropped_fails_saying_what_is_missing(
    merged, tmp_path, player, missing
):
    # "the bundle with the merge entry dropped fails with one line saying what is missing"
    store, position = merged
    bundle = bundle_of(store, player, "2003-07")
    item = next(i for _, i in bundle["items"] if "MB" in bundle["entries"][str(i)]["leaf"])
    bundle["merges"] = []
    del bundle["entries"][str(position)]
    result = verified(store, bundle, tmp_path)
    assert result.exit_code != 0
    assert result.output.strip() == "error: " + missing.format(item=item)


def test_a_merge_voided_and_made_again_is_carried_with_its_void(tmp_path):
    # "(and any void of them)": the verifier folds merges and voids as the read model does;
    # dropping the second merge leaves the first, voided: no merge in force, S's item unnamed.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    first, void, second = merged_ledger(store, void=True)
    bundle = bundle_of(store, S, "2003-07")
    assert (bundle["merges"], bundle["voids"]) == ([first, second], [void])
    assert verify_bundle(bundle, held(store))["recomputed"]
    bundle["merges"] = [first]
    with pytest.raises(BundleError, match="does not name S"):
        verify_bundle(bundle, held(store))


def test_a_merge_recorded_after_the_previous_list_is_named_when_the_row_cannot_be_recomputed(
    tmp_path,
):
    # docs/decisions.md, "Rating proofs with uplifts and merges": M played C before the first
    # list and was merged after it, so the second list was rated from history re-rated since
    # the first committed its rows; prove warns, verify-rating fails naming the merge.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    (position,) = merged_ledger(store, late=True)
    result = runner.invoke(
        app, ["prove", S, "--list", "2003-07", "--rules-family", "fide", "--store", store]
    )
    assert result.exit_code == 0
    assert "was rated from history re-rated after '2003-04'" in result.stderr
    with pytest.raises(BundleError, match=f"the merge at {position} was recorded after"):
        verify_bundle(json.loads(result.stdout), held(store))


def test_a_list_rows_leaf_keeps_the_format_its_commitments_were_made_in(ledger_with_lists):
    # "Structure first, behaviour unchanged" (issue 29): a FIDE read model no longer stores US
    # Chess's state columns, but a committed row's leaf keeps issue 28's format (rating, N and
    # the sixteen state columns of then), so a list committed before still proves.
    bundle = bundle_of(ledger_with_lists, "A", "2003-07")
    state = json.loads(bundle["row"]["leaf"])["state"]
    assert len(state) == 2 + 16
    assert (state[2 + 3], state[2 + 5], state[2 + 6]) == ("mixed", 0, None)  # history, S3, peak


def test_a_bundle_item_filed_at_an_entry_the_read_side_ignores_is_a_one_line_bundle_error(
    ledger_with_lists,
):
    # issue 29, "Where mypy finds a real bug, fix it": an item filed at an entry of a kind the
    # read side does not decode (the ledger's founding entry, proved included) reached
    # `fact_item` as None: a KeyError on `NoneType`, not what is wrong with the bundle
    bundle, checkpoint = bundle_of(ledger_with_lists, "G", "2003-07"), held(ledger_with_lists)
    led = RatingsLedger(ledger_with_lists)
    try:
        bundle["entries"]["1"] = transparency.inclusion(led, 1, checkpoint.size)
    finally:
        led.close()
    bundle["items"][0][1] = 1
    with pytest.raises(BundleError, match="^the entry at 1 is not a rated item$"):
        verify_bundle(bundle, checkpoint)
