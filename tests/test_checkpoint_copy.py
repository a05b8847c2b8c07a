"""Issue 33: "10M games: full replay at most 90 s": a catch-up's checkpoint (the read model's
copy for as-known-at reads) is copied beside the model while it goes on, and, as issue 28 asks
of every derived file, "checked against something signed before anything reads it": no read
lists a checkpoint before its copy is complete and sealed."""

import os

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.log import read_entries
from projections import seals as seals_module
from projections import timetravel
from projections.projector import View
from projections.seals import Seals, temporary_name

A, B, C = "70000001", "70000002", "70000003"


def ledger(tmp_path):
    led = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    led.register(A, B, C, adult=True)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    led.submit(round_robin("FEB", [A, B], "2024-02-03"))
    return led


def test_a_checkpoint_is_listed_only_once_its_copy_is_complete_and_sealed(tmp_path, monkeypatch):
    """The seal is made from the whole copy, before the copy takes its name: a read at the
    moment of sealing lists no file at that position, and afterwards the file it lists matches
    its seal (a seal made before the copy finished would not: the read would refuse it)."""
    led = ledger(tmp_path)
    view = View(tmp_path / "view.db", checkpoint_every=1)
    view.seals = seals = Seals(led.app, report=pytest.fail)
    sealed: list[int] = []
    make = Seals.sealer

    def sealer(self, position, model):
        seal = make(self, position, model)

        def watched(written, checkpoint):
            assert timetravel.checkpoints(view, position)[:1] != [(position, checkpoint)]
            assert not checkpoint.exists()
            seal(written, checkpoint)
            sealed.append(position)

        return watched

    monkeypatch.setattr(Seals, "sealer", sealer)
    view.catch_up(read_entries(led.app))
    view.wait_for_checkpoint()
    head = view.last_position
    assert sealed == [head]
    found = timetravel.checkpoints(view, head)
    assert found == [(head, view.checkpoints_dir / f"{head:012d}.db")]
    assert seals.restore(found, tmp_path / "restored.db", view.kind) == head
    view.close()


def test_a_copy_a_killed_process_left_is_never_listed_and_the_next_copy_removes_it(tmp_path):
    """A process killed mid-copy leaves only its temporary file: no read lists it, and the next
    checkpoint removes it (its process is gone)."""
    led = ledger(tmp_path)
    view = View(tmp_path / "view.db", checkpoint_every=1)
    view.seals = Seals(led.app, report=pytest.fail)
    view.catch_up(read_entries(led.app, 0))
    view.wait_for_checkpoint()
    head = view.last_position
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    name = temporary_name(f"{head + 1:012d}.db").replace(f".{os.getpid()}.", f".{gone}.")
    left = view.checkpoints_dir / name
    left.write_bytes(b"half a copy")
    assert timetravel.checkpoints(view, head + 1) == [
        (head, view.checkpoints_dir / f"{head:012d}.db")
    ]
    led.submit(round_robin("MAR", [A, C], "2024-03-02"))
    view.catch_up(read_entries(led.app, head))
    view.wait_for_checkpoint()
    assert not left.exists()
    assert [p for p, _ in timetravel.checkpoints(view, 10**9)][0] == view.last_position
    view.close()


def test_a_copy_that_fails_leaves_no_file_under_a_checkpoints_name(tmp_path, monkeypatch):
    """A copy whose seal fails part-way (here: the disk refuses the file) leaves no checkpoint
    and no temporary file, with one warning line."""
    led = ledger(tmp_path)
    view = View(tmp_path / "view.db", checkpoint_every=1)
    view.seals = Seals(led.app, report=pytest.fail)
    warned: list[str] = []
    monkeypatch.setattr("projections.projector.warn", warned.append)

    def refused(path, target=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(seals_module, "_digest", refused)
    view.catch_up(read_entries(led.app))
    view.wait_for_checkpoint()
    assert list(view.checkpoints_dir.iterdir()) == []
    target = view.checkpoints_dir / f"{view.last_position:012d}.db"
    why = "not made (No space left on device): no read uses one"
    assert warned == [f"checkpoint file {target} {why}"]
    view.close()
