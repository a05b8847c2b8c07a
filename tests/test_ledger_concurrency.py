"""Concurrent writers: every accepted write is in the log exactly once, none is lost."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import closing
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.errors import ConflictError, InvalidCommand
from ledger.log import read_entries
from ledger.roles import Role

PLAYERS = [f"5000000{i}" for i in range(6)]
WRITERS = [*(f"{kind}{w}" for kind in "PT" for w in range(6)), "rival", "me"]
Outcome = tuple[str, str, int | None]


def section(section_id: str, event_name: str = "Club night") -> SubmitSection:
    """A six-player, three-round section (nine games)."""
    games = [
        {
            "round": r,
            "white": PLAYERS[(b + r) % 6],
            "black": PLAYERS[(5 - b + r) % 6],
            "result": "1-0",
        }
        for r in (1, 2, 3)
        for b in range(3)
    ]
    return parse(
        SubmitSection,
        {
            "section_id": section_id,
            "event_name": event_name,
            "online": False,
            "time_control": "G/30;d5",
            "start_date": "2024-05-04",
            "end_date": "2024-05-04",
            "players": [{"id": p} for p in PLAYERS],
            "games": games,
        },
    )


def write_concurrently(
    ledger: RatingsLedger, writer: str, own: int, start_at: float
) -> list[Outcome]:
    """Submit `own` sections, race for SHARED, then correct SHARED twice."""
    while time.time() < start_at:
        time.sleep(0.001)
    outcomes: list[Outcome] = []
    for k in range(own):
        [entry] = ledger.sections.submit(section(f"{writer}-{k}"), actor=writer)
        outcomes.append(("SectionSubmitted", f"{writer}-{k}", entry.position))
    try:
        [entry] = ledger.sections.submit(section("SHARED", writer), actor=writer)
        outcomes.append(("SectionSubmitted", "SHARED", entry.position))
    except InvalidCommand as exc:
        outcomes.append(("refused", str(exc), None))
    for k in range(2):
        try:
            [entry] = ledger.sections.correct(
                section("SHARED", f"{writer}-fix-{k}"), reason="fix", actor=writer
            )
            outcomes.append(("SectionCorrected", f"{writer}-fix-{k}", entry.position))
        except ConflictError as exc:
            outcomes.append(("conflict", str(exc), None))
    return outcomes


def process_writer(store: str, writer: str, own: int, start_at: float) -> list[Outcome]:
    """One writer process with its own connection to the store."""
    with closing(RatingsLedger(store)) as ledger:
        return write_concurrently(ledger, writer, own, start_at)


def check_every_accepted_write_is_logged_once(
    ledger: RatingsLedger, outcomes: list[Outcome], writers: int
) -> None:
    log = [e for e in read_entries(ledger) if e.type.startswith("Section")]
    accepted = [o for o in outcomes if o[2] is not None]
    key = {"SectionSubmitted": "section_id", "SectionCorrected": "event_name"}
    logged = Counter((e.type, e.payload[key[e.type]], e.position) for e in log)
    assert logged == Counter(accepted)
    assert max(logged.values()) == 1
    shared = [
        e for e in log if e.type == "SectionSubmitted" and e.payload["section_id"] == "SHARED"
    ]
    assert len(shared) == 1
    refusals = [o[1] for o in outcomes if o[0] == "refused"]
    assert refusals == ["section_id: section 'SHARED' already exists"] * (writers - 1)
    conflicts = [o[1] for o in outcomes if o[0] == "conflict"]
    assert all(c.startswith("other writers kept changing the same records") for c in conflicts)


@pytest.fixture
def players_registered(ledger: RatingsLedger) -> RatingsLedger:
    """The players registered; each of WRITERS may submit (tournament director) and correct
    (ratings admin) sections."""
    for writer in WRITERS:
        for role in (Role.TOURNAMENT_DIRECTOR, Role.RATINGS_ADMIN):
            ledger.roles.grant(writer, role, actor="director")
    ledger.players.register(*(parse(RegisterPlayer, {"id": p}) for p in PLAYERS), actor="office")
    return ledger


def test_writer_processes_appending_at_once_lose_no_event_and_duplicate_none(
    players_registered: RatingsLedger, store_url: str
) -> None:
    # Brief: "Two writers appending at the same time must both succeed or get a clear conflict
    # error — never a lost event: test it with two (or more) processes ..., then check every
    # accepted write is in the log exactly once."
    writers = 4
    start_at = time.time() + 2.0
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(writers, mp_context=spawn) as pool:
        futures = [
            pool.submit(process_writer, store_url, f"P{w}", 8, start_at) for w in range(writers)
        ]
        outcomes = [o for f in futures for o in f.result(timeout=120)]
    check_every_accepted_write_is_logged_once(players_registered, outcomes, writers)


def test_writer_threads_sharing_one_ledger_lose_no_event_and_duplicate_none(
    players_registered: RatingsLedger,
) -> None:
    # Brief: "... two (or more) processes or threads appending concurrently ...".
    writers = 6
    start_at = time.time() + 0.5
    with ThreadPoolExecutor(writers) as pool:
        futures = [
            pool.submit(write_concurrently, players_registered, f"T{w}", 5, start_at)
            for w in range(writers)
        ]
        outcomes = [o for f in futures for o in f.result(timeout=120)]
    check_every_accepted_write_is_logged_once(players_registered, outcomes, writers)


def test_a_writer_that_lost_a_race_decides_again_on_the_new_state(
    players_registered: RatingsLedger, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Brief: "both succeed or get a clear conflict error": a correction that lost the race for
    # the next version is re-checked against the winner's revision, then appended after it.
    ledger = players_registered
    ledger.sections.submit(section("S"), actor="td")
    save = RatingsLedger.save
    raced: list[bool] = []

    def save_after_a_rival(self: RatingsLedger, *objs: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            with closing(RatingsLedger(store_url)) as rival:
                rival.sections.correct(section("S", "rival"), reason="r", actor="rival")
        return save(self, *objs, **kwargs)

    monkeypatch.setattr(RatingsLedger, "save", save_after_a_rival)
    [entry] = ledger.sections.correct(section("S", "mine"), reason="m", actor="me")
    corrections = [e for e in read_entries(ledger) if e.type == "SectionCorrected"]
    assert [(e.actor, e.payload["event_name"]) for e in corrections] == [
        ("rival", "rival"),
        ("me", "mine"),
    ]
    assert entry.position == corrections[-1].position


def test_a_writer_that_keeps_losing_gets_a_clear_conflict_error_and_appends_nothing(
    players_registered: RatingsLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Brief: "... or get a clear conflict error — never a lost event".
    ledger = players_registered
    before = list(read_entries(ledger))

    def always_lose(self: RatingsLedger, *objs: Any, **kwargs: Any) -> Callable[..., Any]:
        raise IntegrityError("duplicate key")

    monkeypatch.setattr(RatingsLedger, "save", always_lose)
    with pytest.raises(ConflictError, match="other writers kept changing the same records"):
        ledger.sections.submit(section("S"), actor="td")
    assert list(read_entries(ledger)) == before
