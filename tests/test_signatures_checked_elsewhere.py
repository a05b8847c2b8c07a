"""A replay from the start whose signatures another process checks (issue 33: "work that does
not depend on earlier ratings (decoding, checking signatures, the writer) overlaps with
rating"): the model it keeps is the one a read checked in its own process gives, a break
included (ledger/elsewhere.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger import elsewhere
from ledger.application import RatingsLedger
from ledger.log import ReadBreak, breaks_reported
from projections.session import ReadSession
from tests.tamper_helpers import edit


def replayed(store_url: str, path: Path, large: int, how: str) -> tuple[str, list[ReadBreak]]:
    """The digest of a model rebuilt (or caught up from empty) with checks elsewhere from
    `large` entries, and the breaks reported."""
    elsewhere.LARGE, found = large, []
    with breaks_reported(found.append), ReadSession.open(store_url, path) as session:
        session.rebuild() if how == "rebuild" else session.catch_up()
        return session.view.digest(), found


def spied(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the checks elsewhere answered: "kept" or the reason they refused."""
    answers: list[str] = []
    settle = elsewhere.CheckedElsewhere.settle

    def spy(self: elsewhere.CheckedElsewhere) -> None:
        try:
            settle(self)
        except elsewhere.UnverifiedRead as exc:
            answers.append(str(exc))
            raise
        answers.append("kept")

    monkeypatch.setattr(elsewhere.CheckedElsewhere, "settle", spy)
    monkeypatch.setattr(elsewhere, "LARGE", elsewhere.LARGE)  # restored after the test
    return answers


@pytest.mark.parametrize("how", ["rebuild", "catch up from empty"])
def test_a_replay_checked_elsewhere_keeps_the_model_a_read_checked_here_builds(
    ledger: RatingsLedger,
    section_ready: Callable[..., object],
    store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    # "checking signatures … overlaps with rating": the same model, checked by the other process
    ledger.sections.submit(section_ready(), actor="td")
    answers = spied(monkeypatch)
    here = replayed(store_url, tmp_path / "here.db", 10**9, how)
    there = replayed(store_url, tmp_path / "there.db", 1, how)
    expected = ["kept"] if store_url.startswith("sqlite") else []  # SQLite files only
    assert answers == expected
    assert there == here and here[1] == []


def test_a_write_that_does_not_verify_is_read_again_here_and_reported_once(
    ledger: RatingsLedger,
    section_ready: Callable[..., object],
    store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 28: a checked read stops at the first write that does not verify and reports it;
    # read elsewhere, the other process finds it, and the read is done again here
    [submitted] = ledger.sections.submit(section_ready(), actor="td")
    edit(store_url, submitted.position, '"1/2-1/2"', '"1-0"')
    answers = spied(monkeypatch)
    here = replayed(store_url, tmp_path / "here.db", 10**9, "rebuild")
    there = replayed(store_url, tmp_path / "there.db", 1, "rebuild")
    if store_url.startswith("sqlite"):
        assert answers == [f"entry {submitted.position} does not verify"]
    assert there == here
    assert [b.position for b in here[1]] == [submitted.position]


@pytest.mark.parametrize("ended", [False, True], ids=["ending", "ended before it is told"])
def test_a_check_elsewhere_that_ends_without_an_answer_is_read_again_here(
    ledger: RatingsLedger,
    section_ready: Callable[..., object],
    store_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    ended: bool,
) -> None:
    # a process that fails (here: one that exits at once, maybe before the store's URL is
    # written to it, which closes the pipe) keeps nothing read unchecked and breaks no read
    if not store_url.startswith("sqlite"):
        pytest.skip("checked elsewhere on SQLite files only")
    ledger.sections.submit(section_ready(), actor="td")
    answers = spied(monkeypatch)
    here = replayed(store_url, tmp_path / "here.db", 10**9, "rebuild")
    monkeypatch.setattr(elsewhere.sys, "executable", "/bin/false")
    if ended:
        started = subprocess.Popen

        def finished(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
            process = started(*args, **kwargs)
            process.wait()
            return process

        monkeypatch.setattr(elsewhere.subprocess, "Popen", finished)
    there = replayed(store_url, tmp_path / "there.db", 1, "rebuild")
    assert answers == ["the check ended without an answer"] and there == here
