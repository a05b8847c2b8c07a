"""Issue 28, "Checkpoints that mean something offline": "Witnesses are stateful as in the
transparency-log witness protocols: a witness's key is granted in the ledger (an auditor or
witness role with a key), it records what it cosigned per ledger, and it cosigns a new
checkpoint only with a consistency proof from the last one; two cosigned checkpoints of one
ledger that do not extend each other are reported as a split view by a command anyone can
run." The break: "Two copies of the ledger, each given a different section, produce two
checkpoints of the same size with different roots; the auditor `cosign`s both. The auditor's
cosigning key is never recorded, so nobody can check a cosignature."

The attack is mounted as an insider with the store would: the ledger's SQLite file copied, each
copy given a different section by its tournament director, and each copy's checkpoint taken to
the same auditor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SECTION_PLAYERS, section_data
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli import app
from ledger.evidence.checkpoints import Checkpoint
from ledger.evidence.signing import Keyring, public_text

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(code: int, *args: str) -> str:
    """The command exits `code` with one `error:` line and prints nothing on stdout."""
    result = run(*args)
    assert result.exit_code == code, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert result.stdout == ""
    return result.stderr


def url(path: Path) -> str:
    return f"sqlite:///{path}"


def write(ledger_file: Path, section: str | None = None, player: str | None = None) -> None:
    """One write by the tournament director: a section, or a new player."""
    ledger = RatingsLedger(url(ledger_file))
    try:
        if section is not None:
            ledger.sections.submit(parse(SubmitSection, section_data(section)), actor="td")
        if player is not None:
            ledger.players.register(parse(RegisterPlayer, {"id": player}), actor="td")
    finally:
        ledger.close()


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, Path]:
    """One ledger (director, td, two auditors granted their keys, the section's players),
    copied file for file; then each copy given a different section."""
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    ledger = RatingsLedger(url(a))
    try:
        ledger.roles.initialize(actor="director")
        ledger.roles.grant("td", "tournament_director", actor="director")
        for witness in ("auditor", "W0"):
            ledger.roles.grant(witness, "auditor", actor="director")  # key: the keyring's
        ledger.players.register(
            *(parse(RegisterPlayer, {"id": p}) for p in SECTION_PLAYERS), actor="td"
        )
    finally:
        ledger.close()
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{a}{suffix}").exists():
            shutil.copy(f"{a}{suffix}", f"{b}{suffix}")
    write(a, section="2024-05-GP-OPEN")
    write(b, section="2024-05-GP-RAPID")
    return a, b


def checkpoint(store: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    target.write_text(ok("checkpoint", "--store", url(store)))
    return target


def cosign(store: Path, held: Path, state: Path, actor: str = "auditor") -> list[str]:
    return ["cosign", str(held), "--actor", actor, "--store", url(store), "--state", str(state)]


def test_the_second_of_two_copies_given_different_sections_is_refused_as_a_split_view(
    copies, tmp_path
):
    """The break: "the auditor `cosign`s both"; now the second is "refused with one line
    saying split view", nothing cosigned and the witness's memory unchanged."""
    a, b = copies
    held_a, held_b = checkpoint(a, tmp_path, "a.txt"), checkpoint(b, tmp_path, "b.txt")
    first, second = Checkpoint.parse(held_a.read_text()), Checkpoint.parse(held_b.read_text())
    assert first.size == second.size and first.root != second.root  # the fork, as reported
    state = tmp_path / "auditor.witness.json"
    ok(*cosign(a, held_a, state))
    kept = state.read_text()
    said = refused(1, *cosign(b, held_b, state))
    assert "split view" in said and f"checkpoint of {second.size} entries" in said
    assert state.read_text() == kept


def test_a_bigger_checkpoint_of_the_other_copy_fails_its_consistency_proof_as_a_split_view(
    copies, tmp_path
):
    """ "it cosigns a new checkpoint only with a consistency proof from the last one": the
    other copy, one write further, does not extend what the witness cosigned."""
    a, b = copies
    state = tmp_path / "w.json"
    ok(*cosign(a, checkpoint(a, tmp_path, "a.txt"), state))
    write(b, player="39999999")
    said = refused(1, *cosign(b, checkpoint(b, tmp_path, "b.txt"), state))
    assert "split view" in said and "does not extend" in said


def test_a_witness_cosigns_a_ledger_that_grows_and_refuses_to_go_back(copies, tmp_path):
    """An honest ledger's next checkpoint extends the last cosigned (consistency proof from the
    store, or given with --proof); an older one is a rollback."""
    a, _ = copies
    state = tmp_path / "w.json"
    old = checkpoint(a, tmp_path, "old.txt")
    ok(*cosign(a, old, state))
    write(a, player="39999998")
    middle = checkpoint(a, tmp_path, "middle.txt")
    ok(*cosign(a, middle, state))
    write(a, player="39999997")
    new = checkpoint(a, tmp_path, "new.txt")
    sizes = [Checkpoint.parse(p.read_text()).size for p in (middle, new)]
    proof = tmp_path / "c.json"
    proof.write_text(ok("prove-consistency", *map(str, sizes), "--store", url(a)))
    ok(*cosign(a, new, state), "--proof", str(proof))
    remembered = json.loads(state.read_text())["ledgers"]
    assert [v["size"] for v in remembered.values()] == [sizes[1]]
    assert "rollback" in refused(1, *cosign(a, old, state))


def test_a_proof_given_for_other_sizes_is_refused_saying_what_does_not_match(copies, tmp_path):
    """ "mismatched proofs say what does not match", here in a witness's --proof."""
    a, _ = copies
    state = tmp_path / "w.json"
    ok(*cosign(a, checkpoint(a, tmp_path, "old.txt"), state))
    write(a, player="39999996")
    write(a, player="39999995")
    new = checkpoint(a, tmp_path, "new.txt")
    proof = tmp_path / "c.json"
    proof.write_text(ok("prove-consistency", "2", "--store", url(a)))
    said = refused(1, *cosign(a, new, state), "--proof", str(proof))
    assert "the proof is from a tree of 2 entries" in said and "rewritten" not in said


def test_the_split_view_command_reports_two_cosigned_checkpoints_that_do_not_extend(
    copies, tmp_path
):
    """ "two cosigned checkpoints of one ledger that do not extend each other are reported as
    a split view by a command anyone can run": two witnesses, each cosigning one copy, and
    anyone holding both cosigned checkpoints and the keys they trust."""
    a, b = copies
    trusted = tmp_path / "trusted.txt"
    trusted.write_text(ok("trusted-keys", "--store", url(a)))
    one = tmp_path / "one.txt"
    one.write_text(ok(*cosign(a, checkpoint(a, tmp_path, "a.txt"), tmp_path / "1.json")))
    two = tmp_path / "two.txt"
    two.write_text(ok(*cosign(b, checkpoint(b, tmp_path, "b.txt"), tmp_path / "2.json", "W0")))
    result = run("split-view", str(one), str(two), "--trusted", str(trusted))
    assert result.exit_code == 1 and result.stderr.startswith("error: split view: 1 pair")
    assert "cosigned by 'auditor'" in result.stdout and "cosigned by 'W0'" in result.stdout
    assert f"split view: {one} and {two} both hold" in result.stdout
    write(b, player="39999994")
    bigger = checkpoint(b, tmp_path, "bigger.txt")
    args = ("split-view", str(one), str(bigger), "--trusted", str(trusted))
    result = run(*args, "--store", url(b))
    assert result.exit_code == 1 and f"split view: {bigger} does not extend {one}" in result.stdout
    assert "give --proof or --store" in refused(2, *args)


def test_the_split_view_command_says_ok_for_checkpoints_that_extend_each_other(copies, tmp_path):
    """The same command on an honest ledger's checkpoints (a proof given, or from a store)."""
    a, _ = copies
    trusted = tmp_path / "trusted.txt"
    trusted.write_text(ok("trusted-keys", "--store", url(a)))
    old = checkpoint(a, tmp_path, "old.txt")
    write(a, player="39999993")
    new = checkpoint(a, tmp_path, "new.txt")
    sizes = [str(Checkpoint.parse(p.read_text()).size) for p in (old, new)]
    proof = tmp_path / "c.json"
    proof.write_text(ok("prove-consistency", *sizes, "--store", url(a)))
    for source in (("--proof", str(proof)), ("--store", url(a))):
        said = ok("split-view", str(old), str(new), "--trusted", str(trusted), *source)
        assert said.endswith("ok: the 2 checkpoints extend each other\n")


def test_a_cosignature_checks_against_the_key_the_ledger_granted_the_witness(copies, tmp_path):
    """ "The auditor's cosigning key is never recorded, so nobody can check a cosignature":
    the witness's key is in its grant, and a trust file from the verified ledger carries it."""
    a, _ = copies
    cosigned = Checkpoint.parse(ok(*cosign(a, checkpoint(a, tmp_path, "a.txt"), tmp_path / "s")))
    grants = json.loads(ok("log", "--json", "--type", "RoleGranted", "--store", url(a)))
    granted = next(
        e["payload"]["public_key"] for e in grants if e["payload"]["holder"] == "auditor"
    )
    cosigned.check("auditor", granted)
    assert f"witness auditor {granted}\n" in ok("trusted-keys", "--store", url(a))


def test_only_a_witness_the_ledger_grants_this_key_cosigns(copies, tmp_path):
    """ "a witness's key is granted in the ledger (an auditor or witness role with a key)": an
    actor with a key but no auditor role, and an auditor whose keyring key is not the one
    granted, are refused (exit 4), nothing cosigned."""
    a, _ = copies
    held = checkpoint(a, tmp_path, "a.txt")
    assert "not an auditor" in refused(4, *cosign(a, held, tmp_path / "s", actor="W1"))
    other = public_text(Keyring(tmp_path / "elsewhere").ensure("W0"))
    ok(
        "grant-role",
        "W0",
        "auditor",
        "--public-key",
        other,
        "--actor",
        "director",
        "--store",
        url(a),
    )
    held = checkpoint(a, tmp_path, "after.txt")
    said = refused(4, *cosign(a, held, tmp_path / "s", actor="W0"))
    assert "the ledger holds no key or another key for 'W0'" in said
    assert not (tmp_path / "s").exists()


def test_a_witness_whose_state_cannot_be_read_cosigns_nothing(copies, tmp_path):
    """A witness that forgot what it cosigned would cosign a split view: an unreadable state
    is refused in one line, never started afresh."""
    a, _ = copies
    state = tmp_path / "w.json"
    state.write_text("{not json")
    assert "cannot read the witness state" in refused(
        1, *cosign(a, checkpoint(a, tmp_path, "a"), state)
    )
    assert state.read_text() == "{not json"


def test_a_witness_without_a_key_is_told_how_to_get_one(copies, tmp_path, monkeypatch):
    """Issue 31: "`cosign --actor auditor` needs a key the README grants auditors without": an
    auditor granted without a key, on a keyring that holds none, is refused as a keyless write
    is (exit 4), in one line naming the two steps that make them a witness."""
    a, _ = copies
    ok("grant-role", "reader", "auditor", "--actor", "director", "--store", url(a))
    monkeypatch.setenv("RATINGS_LEDGER_KEYRING", str(tmp_path / "auditors-machine"))
    held = checkpoint(a, tmp_path, "a.txt")
    said = refused(4, *cosign(a, held, tmp_path / "s", actor="reader"))
    assert "`ratings-ledger keys new reader`" in said
    assert "`grant-role reader auditor --public-key KEY`" in said
    assert not (tmp_path / "s").exists()
