"""Issue 28, "Checkpoints that mean something offline": "Every offline check (`verify-rating`,
`verify-proof`, consistency proofs) verifies the checkpoint's signature against a key the
verifier already trusts (given on the command line or from an anchor they hold), never a key
read from the same file." The break: "`verify-rating` and `verify-proof` accept a checkpoint
with its signature lines removed, or signed by a key that is no one's." With the smaller ones:
"an actor named "Ed Smith" cannot checkpoint, cosign or verify a proof"; "`verify-proof` with a
proof for another size says "its past was rewritten" (it was not)"; "a cosign size `1²` ends
in "unexpected ValueError"".

Each attack is mounted as the attacker would: a checkpoint over a forged tree (one entry's
leaf changed) with an inclusion proof that fits it, unsigned or signed with a fresh key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_rating_proofs import bundle_of, cli, ledger_with_lists  # noqa: F401 - a fixture
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app
from ledger.evidence import transparency
from ledger.evidence.checkpoints import Checkpoint
from projections.proofs import MemoryTree

runner = CliRunner()


def refused(code: int, *args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert result.stdout == ""
    return result.stderr


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def held(ledger: RatingsLedger, store_url: str, tmp_path: Path) -> Checkpoint:
    """Six players registered by the TD; the trust file of the verified ledger (trusted.txt),
    its checkpoint (c.txt) and the inclusion proof of the entry at position 5 (i.json)."""
    for k in range(6):
        ledger.players.register(parse(RegisterPlayer, {"id": f"3{k:07d}"}), actor="td")
    (tmp_path / "trusted.txt").write_text(ok("trusted-keys", "--store", store_url))
    (tmp_path / "c.txt").write_text(ok("checkpoint", "--store", store_url))
    (tmp_path / "i.json").write_text(ok("prove-inclusion", "5", "--store", store_url))
    return Checkpoint.parse((tmp_path / "c.txt").read_text())


def forged(ledger: RatingsLedger, real: Checkpoint, tmp_path: Path) -> Checkpoint:
    """A tree of the real size with entry 5's leaf changed (player 30000000 made 30000099),
    its inclusion proof in f.json: the checkpoint over it, unsigned."""
    leaves = [transparency.inclusion(ledger, p, real.size)["leaf"] for p in range(1, real.size + 1)]
    proof = transparency.inclusion(ledger, 5, real.size)
    leaves[proof["leaf_index"]] = leaves[proof["leaf_index"]].replace("30000000", "30000099")
    tree = MemoryTree([x.encode() for x in leaves])
    path = tree.proof(proof["leaf_index"])
    fake = {**proof, "leaf": path["leaf"], "root": tree.root(), "proof": path["proof"]}
    (tmp_path / "f.json").write_text(json.dumps({"inclusion": fake}))
    return Checkpoint(real.ledger, real.size, tree.root(), (), real.position)


def verify_proof(tmp_path: Path, checkpoint: str, proof: str = "f.json") -> list[str]:
    return [
        "verify-proof",
        str(tmp_path / proof),
        "--checkpoint",
        str(tmp_path / checkpoint),
        "--trusted",
        str(tmp_path / "trusted.txt"),
    ]


def test_the_honest_checkpoint_and_proof_verify_against_the_trusted_keys(held, tmp_path):
    """The honest case still says ok, naming the trusted writer who signed."""
    said = ok(*verify_proof(tmp_path, "c.txt", "i.json"))
    assert said == f"ok: entry 5 is in the checkpoint of {held.size} (signed by 'td')\n"


def test_a_forged_tree_in_a_checkpoint_without_signature_lines_is_refused(ledger, held, tmp_path):
    """ "accept a checkpoint with its signature lines removed": a forged entry's proof fits
    the unsigned checkpoint over the forged tree, and is refused."""
    (tmp_path / "bare.txt").write_text(forged(ledger, held, tmp_path).text())
    said = refused(1, *verify_proof(tmp_path, "bare.txt"))
    assert "is not signed (no signature lines)" in said


def test_a_forged_tree_signed_by_a_key_that_is_no_ones_is_refused(ledger, held, tmp_path):
    """ "or signed by a key that is no one's": a fresh key, under the writer's name or another,
    or the writer's real signature line copied onto the forged checkpoint."""
    fake = forged(ledger, held, tmp_path)
    fresh = Ed25519PrivateKey.generate()
    cases = {
        "as-td.txt": (fake.signed("td", fresh), "'td''s signature on the checkpoint"),
        "as-mallory.txt": (fake.signed("mallory", fresh), "whose key you do not trust"),
        "copied.txt": (fake.with_signature("td", bytes.fromhex(held.signatures[0][1])), "'td''"),
    }
    for name, (checkpoint, expected) in cases.items():
        (tmp_path / name).write_text(checkpoint.text())
        assert expected in refused(1, *verify_proof(tmp_path, name)), name


def test_an_offline_check_without_a_trusted_key_is_refused_not_trusted_from_the_file(
    held, tmp_path
):
    """ "never a key read from the same file": no --trusted and no --key is a usage error."""
    args = ["verify-proof", str(tmp_path / "i.json"), "--checkpoint", str(tmp_path / "c.txt")]
    assert "give the writer keys you trust" in refused(2, *args)
    writer = (tmp_path / "trusted.txt").read_text().split("writer td ")[1].split()[0]
    assert "ok: entry 5" in ok(*args, "--key", f"td={writer}")


def test_a_checkpoint_of_another_ledger_signed_by_the_same_key_is_refused(held, tmp_path, keyring):
    """A trust file names its ledger: the same director and TD keys signing another ledger's
    checkpoint do not vouch for this one's proofs."""
    other = f"sqlite:///{tmp_path / 'other.db'}"
    ok("init", "--actor", "td", "--store", other)
    (tmp_path / "other.txt").write_text(ok("checkpoint", "--store", other))
    said = refused(1, *verify_proof(tmp_path, "other.txt", "i.json"))
    assert "not of the ledger your trusted keys are for" in said


def test_a_consistency_proof_between_unsigned_checkpoints_is_refused(
    held, store_url, ledger, tmp_path
):
    """Consistency proofs too: the newer checkpoint with its signature lines removed."""
    ledger.players.register(parse(RegisterPlayer, {"id": "39999999"}), actor="td")
    new = Checkpoint.parse(ok("checkpoint", "--store", store_url))
    (tmp_path / "new.txt").write_text(new.text())
    (tmp_path / "bare.txt").write_text(Checkpoint(new.ledger, new.size, new.root).text())
    (tmp_path / "p.json").write_text(ok("prove-consistency", str(held.size), "--store", store_url))
    args = verify_proof(tmp_path, "c.txt", "p.json")
    assert ok(*args, "--new", str(tmp_path / "new.txt")).startswith("ok: the checkpoint of")
    assert "not signed" in refused(1, *args, "--new", str(tmp_path / "bare.txt"))


def test_a_proof_for_another_size_says_what_does_not_match(held, store_url, tmp_path):
    """ "`verify-proof` with a proof for another size says "its past was rewritten" (it was
    not) — mismatched proofs say what does not match"."""
    (tmp_path / "i4.json").write_text(
        ok("prove-inclusion", "3", "--size", "4", "--store", store_url)
    )
    said = refused(1, *verify_proof(tmp_path, "c.txt", "i4.json"))
    assert f"the proof is for a tree of 4 entries; the checkpoint holds {held.size}" in said
    (tmp_path / "p.json").write_text(ok("prove-consistency", "2", "4", "--store", store_url))
    (tmp_path / "old.txt").write_text(
        Checkpoint.parse(ok("checkpoint", "--store", store_url)).text()
    )
    said = refused(1, *verify_proof(tmp_path, "c.txt", "p.json"), "--new", str(tmp_path / "c.txt"))
    assert "the proof is from a tree of 2 entries to one of 4" in said
    assert "rewritten" not in said


def test_a_size_in_other_digits_is_refused_in_one_line(held, store_url, tmp_path):
    """ "a cosign size `1²` ends in "unexpected ValueError"": one-line refusal instead."""
    text = held.text().split("\n")
    text[2] = "1²"
    (tmp_path / "odd.txt").write_text("\n".join(text))
    cosign = ["cosign", str(tmp_path / "odd.txt"), "--actor", "auditor", "--store", store_url]
    assert "not a checkpoint" in refused(1, *cosign)
    assert "not a checkpoint" in refused(1, *verify_proof(tmp_path, "odd.txt", "i.json"))


def test_a_size_of_five_thousand_digits_is_refused_in_one_line(held, tmp_path):
    """'Every "unexpected" error above becomes a one-line refusal': a size `int` cannot read
    (past 4,300 digits) is not a checkpoint, as `1²` is not."""
    text = held.text().split("\n")
    text[2] = "1" * 5000
    (tmp_path / "long.txt").write_text("\n".join(text))
    assert "not a checkpoint" in refused(1, *verify_proof(tmp_path, "long.txt", "i.json"))


def test_a_rating_bundle_is_refused_against_an_unsigned_or_bogus_checkpoint(
    ledger_with_lists,  # noqa: F811 - the fixture imported above
    tmp_path,
):
    """ "`verify-rating` ... accept a checkpoint with its signature lines removed, or signed by
    a key that is no one's": the honest bundle, its checkpoint stripped or re-signed."""
    store = ledger_with_lists
    (tmp_path / "b.json").write_text(json.dumps(bundle_of(store, "A", "2003-07")))
    (tmp_path / "trusted.txt").write_text(cli(store, "trusted-keys"))
    real = Checkpoint.parse(cli(store, "checkpoint"))
    bare = Checkpoint(real.ledger, real.size, real.root, (), real.position)
    files = {
        "c.txt": real,
        "bare.txt": bare,
        "fresh.txt": bare.signed(real.signatures[0][0], Ed25519PrivateKey.generate()),
    }
    for name, checkpoint in files.items():
        (tmp_path / name).write_text(checkpoint.text())
    args = ["verify-rating", str(tmp_path / "b.json"), "--trusted", str(tmp_path / "trusted.txt")]
    assert "recomputed from" in ok(*args, "--checkpoint", str(tmp_path / "c.txt"))
    assert "not signed" in refused(1, *args, "--checkpoint", str(tmp_path / "bare.txt"))
    said = refused(1, *args, "--checkpoint", str(tmp_path / "fresh.txt"))
    assert "does not check against the key you trust" in said
    assert "give the writer keys" in refused(2, *args[:2], "--checkpoint", str(tmp_path / "c.txt"))


def test_an_actor_named_ed_smith_checkpoints_cosigns_and_verifies_everywhere(
    ledger_with_lists,  # noqa: F811 - the fixture imported above
    tmp_path,
    keyring,
):
    """ "an actor named "Ed Smith" cannot checkpoint, cosign or verify a proof ("not a
    checkpoint signature line")" — any actor name works everywhere: Ed Smith writes (so signs
    the checkpoint), cosigns it as a granted auditor, and both signatures verify offline."""
    store, ed = ledger_with_lists, "Ed Smith"
    keyring.ensure(ed)
    for role in ("ratings_admin", "auditor"):
        cli(store, "grant-role", ed, role, "--actor", "director")
    (tmp_path / "p.json").write_text(json.dumps({"id": "40000001"}))
    cli(store, "register", str(tmp_path / "p.json"), "--actor", ed)
    held = Checkpoint.parse(cli(store, "checkpoint"))
    assert held.signatures[0][0] == ed
    (tmp_path / "c.txt").write_text(held.text())
    state = str(tmp_path / "ed.witness.json")
    cosigned = cli(store, "cosign", str(tmp_path / "c.txt"), "--actor", ed, "--state", state)
    assert Checkpoint.parse(cosigned).signatures == (*held.signatures, (ed, cosigned[-129:-1]))
    (tmp_path / "cs.txt").write_text(cosigned)
    (tmp_path / "trusted.txt").write_text(cli(store, "trusted-keys"))
    (tmp_path / "i.json").write_text(cli(store, "prove-inclusion", "2"))
    trusted = ["--trusted", str(tmp_path / "trusted.txt"), "--cosigned-by", ed]
    checked = ok(
        "verify-proof", str(tmp_path / "i.json"), "--checkpoint", str(tmp_path / "cs.txt"), *trusted
    )
    assert "(signed by 'Ed Smith', cosigned by 'Ed Smith')" in checked
    (tmp_path / "b.json").write_text(json.dumps(bundle_of(store, "A", "2003-07")))
    rated = ok(
        "verify-rating",
        str(tmp_path / "b.json"),
        "--checkpoint",
        str(tmp_path / "cs.txt"),
        *trusted,
    )
    assert "signed by 'Ed Smith', cosigned by 'Ed Smith'" in rated


def test_a_consistency_proof_is_asked_from_the_checkpoint_file_held(
    held, store_url, ledger, tmp_path
):
    """Issue 31, "every command block in [the README] runs as written": its `prove-consistency
    120` named a size the reader had to look up; the checkpoint file held gives it, and the
    proof is the one for that file's size."""
    ledger.players.register(parse(RegisterPlayer, {"id": "39999999"}), actor="td")
    from_file = ok("prove-consistency", str(tmp_path / "c.txt"), "--store", store_url)
    assert from_file == ok("prove-consistency", str(held.size), "--store", store_url)
    assert json.loads(from_file)["consistency"]["old_size"] == held.size
    said = refused(1, "prove-consistency", str(tmp_path / "none.txt"), "--store", store_url)
    assert said.count("\n") == 1 and "none.txt: no such file" in said  # one line, named
