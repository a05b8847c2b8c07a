"""The ledger as a transparency log: signed checkpoints on every write, inclusion proofs for
every entry and consistency proofs between every pair of checkpoints of a test ledger, checked
offline; anyone holding an older checkpoint detects a rewritten past (RFC 9162 §2.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app
from ledger.evidence import merkle, transparency
from ledger.evidence.checkpoints import Checkpoint, CheckpointError
from tests.tamper_helpers import edit, reseal

runner = CliRunner()


def grow(ledger: RatingsLedger, count: int, first: int = 0) -> list[Checkpoint]:
    """`count` one-player writes; the signed checkpoint of each write's receipt."""
    found = []
    for k in range(first, first + count):
        ledger.players.register(parse(RegisterPlayer, {"id": f"3{k:07d}"}), actor="td")
        found.append(ledger.receipt.checkpoint)
    return found


def test_every_write_receipt_carries_the_checkpoint_its_writer_signed(
    ledger: RatingsLedger,
) -> None:
    # "signed checkpoints (ledger, size, root) on every write receipt"
    checkpoints = grow(ledger, 3)
    public = ledger.keyring.public_key("td")
    for checkpoint in checkpoints:
        checkpoint.check("td", public)
        assert checkpoint.size == ledger.recorder.max_notification_id() - (
            checkpoints[-1].size - checkpoint.size
        )
    assert Checkpoint.parse(checkpoints[-1].text()) == checkpoints[-1]
    assert transparency.latest(ledger) == checkpoints[-1]


def test_inclusion_and_consistency_proofs_verify_for_every_size_of_a_test_ledger(
    ledger: RatingsLedger,
) -> None:
    # "inclusion and consistency proofs verified for every size 1..N of a test ledger"
    checkpoints = grow(ledger, 12)
    size = checkpoints[-1].size
    for position in range(1, size + 1):
        for checkpoint in checkpoints:
            if position <= checkpoint.size:
                proof = transparency.inclusion(ledger, position, checkpoint.size)
                transparency.verify_inclusion(proof, checkpoint)
    for old in checkpoints:
        for new in checkpoints:
            if old.size <= new.size:
                proof = transparency.consistency(ledger, old.size, new.size)
                transparency.verify_consistency(old, new, proof)
    with pytest.raises(CheckpointError):
        transparency.verify_consistency(checkpoints[-1], checkpoints[0], {"proof": []})


def test_a_tampered_proof_or_leaf_fails_offline(ledger: RatingsLedger) -> None:
    checkpoints = grow(ledger, 4)
    proof = transparency.inclusion(ledger, 5, checkpoints[-1].size)
    forged = {**proof, "leaf": proof["leaf"].replace("30000000", "30000099")}
    with pytest.raises(CheckpointError):
        transparency.verify_inclusion(forged, checkpoints[-1])
    bent = {**proof, "proof": [("0" * 64), *proof["proof"][1:]]}
    with pytest.raises(CheckpointError):
        transparency.verify_inclusion(bent, checkpoints[-1])


def test_whoever_holds_an_old_checkpoint_detects_a_past_rewritten_with_the_writers_own_key(
    ledger: RatingsLedger, store_url: str
) -> None:
    # "anyone holding an older checkpoint detects a rewritten past": an entry edited, every
    # later signature re-made with the stolen key, chain and tree recomputed
    held = grow(ledger, 3)[0]
    edit(store_url, 5, "30000000", "30000077")
    reseal(store_url)
    with pytest.raises(CheckpointError, match="its past was rewritten"):
        proof = transparency.consistency(ledger, held.size)
        now = Checkpoint(held.ledger, proof["new_size"], proof["new_root"])
        transparency.verify_consistency(held, now, proof)


def test_the_commands_prove_and_check_offline_and_a_witness_cosigns(
    ledger: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    ledger.roles.grant("auditor", "auditor", actor="director")  # a witness's key is granted
    grow(ledger, 2)
    old = runner.invoke(app, ["checkpoint", "--store", store_url])
    assert old.exit_code == 0, old.output
    trusted = runner.invoke(app, ["trusted-keys", "--store", store_url])
    (tmp_path / "trusted.txt").write_text(trusted.output)
    trust = ["--trusted", str(tmp_path / "trusted.txt")]
    (tmp_path / "old.txt").write_text(old.output)
    grow(ledger, 2, first=2)
    new = runner.invoke(app, ["checkpoint", "--store", store_url])
    (tmp_path / "new.txt").write_text(new.output)
    size = Checkpoint.parse(old.output).size
    proof = runner.invoke(app, ["prove-consistency", str(size), "--store", store_url])
    (tmp_path / "c.json").write_text(proof.output)
    checked = runner.invoke(
        app,
        [
            "verify-proof",
            str(tmp_path / "c.json"),
            "--checkpoint",
            str(tmp_path / "old.txt"),
            "--new",
            str(tmp_path / "new.txt"),
            *trust,
        ],
    )
    assert checked.exit_code == 0 and checked.output.startswith("ok: "), checked.output
    inclusion = runner.invoke(app, ["prove-inclusion", "3", "--store", store_url])
    assert json.loads(inclusion.output)["inclusion"]["position"] == 3
    (tmp_path / "i.json").write_text(inclusion.output)
    checked = runner.invoke(
        app,
        [
            "verify-proof",
            str(tmp_path / "i.json"),
            "--checkpoint",
            str(tmp_path / "new.txt"),
            *trust,
        ],
    )
    assert checked.exit_code == 0, checked.output
    cosigned = runner.invoke(
        app,
        ["cosign", str(tmp_path / "old.txt"), "--actor", "auditor", "--store", store_url]
        + ["--state", str(tmp_path / "witness.json")],
    )
    assert cosigned.exit_code == 0, cosigned.output
    Checkpoint.parse(cosigned.output).check("auditor", ledger.keyring.public_key("auditor"))
    wrong = runner.invoke(
        app,
        [
            "verify-proof",
            str(tmp_path / "i.json"),
            "--checkpoint",
            str(tmp_path / "old.txt"),
            *trust,
        ],
    )
    assert wrong.exit_code != 0 and len(wrong.output.strip().splitlines()) == 1


def test_a_witness_refuses_a_checkpoint_its_writer_did_not_sign(
    ledger: RatingsLedger, store_url: str, tmp_path: Path
) -> None:
    """Issue 18: "an auditor's key can cosign (witness) a checkpoint": only one the ledger's
    writer signed, checked against the key the verified log gave the writer."""
    ledger.roles.grant("auditor", "auditor", actor="director")  # a witness's key is granted
    grow(ledger, 2)
    real = Checkpoint.parse(runner.invoke(app, ["checkpoint", "--store", store_url]).output)
    writer = real.signatures[0][0]
    forged = Checkpoint(real.ledger, real.size, real.root).signed(
        writer, ledger.keyring.private_key("auditor")
    )
    (tmp_path / "forged.txt").write_text(forged.text())
    (tmp_path / "bare.txt").write_text(Checkpoint(real.ledger, real.size, real.root).text())
    for name in ("forged.txt", "bare.txt"):
        refused = runner.invoke(
            app,
            ["cosign", str(tmp_path / name), "--actor", "auditor", "--store", store_url]
            + ["--state", str(tmp_path / "witness.json")],
        )
        assert refused.exit_code == 1, refused.output
        assert "does not carry its writer" in refused.output


def test_a_proof_costs_a_logarithmic_number_of_nodes() -> None:
    # O(log n): the path of any leaf in a tree of n leaves has at most ceil(log2 n) nodes
    nodes = lambda level, index: b"\0" * 32  # noqa: E731 - any stored subtree
    for n in (1, 2, 3, 1000, 1_000_000):
        for m in (0, n // 2, n - 1):
            assert len(merkle.inclusion_proof(nodes, m, n)) <= max(1, (n - 1).bit_length())
