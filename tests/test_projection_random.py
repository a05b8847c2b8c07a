"""Random ledgers — sections submitted late, corrected to other dates and players, withdrawn,
voided, amended rules, changed profiles — give the same read model whether caught up entry by
entry, in chunks, or rebuilt at once (the cascade against the replay)."""

from __future__ import annotations

import itertools
from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.log import LedgerEntry
from projections import queries
from projections.projector import View

PLAYERS = [f"2000000{i}" for i in range(6)]
RESULTS = ("1-0", "0-1", "1/2-1/2")


def entry(at: int, type_: str, **payload: object) -> LedgerEntry:
    return LedgerEntry(at, type_, "2025-01-01T00:00:00+00:00", "test", "x", payload)


def section(section_id: str, players: list[str], day: date, results: list[str]) -> dict:
    pairs = list(itertools.combinations(players, 2))
    return {
        "section_id": section_id,
        "tournament_id": None,
        "event_name": section_id,
        "online": False,
        "time_control": "G/90;d30",
        "start_date": day.isoformat(),
        "end_date": day.isoformat(),
        "system": None,
        "rules": None,
        "players": [{"id": p} for p in players],
        "games": [
            {"round": r, "white": a, "black": b, "result": results[r % len(results)]}
            for r, (a, b) in enumerate(pairs, start=1)
        ],
        "byes": [],
    }


def profile(member_id: str, born: int | None) -> dict:
    return {
        "member_id": member_id,
        "name": member_id,
        "birth_date": None if born is None else f"{born}-06-01",
        "adult": born is None,
        "fide": None,
        "cfc": None,
        "fide_adjustment_opt_in": None,
        "membership_expires": None,
        "playing_since": None,
    }


operation = st.one_of(
    st.tuples(
        st.just("submit"),
        st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4, unique=True),
        st.integers(0, 120),
        st.lists(st.sampled_from(RESULTS), min_size=1, max_size=3),
    ),
    st.tuples(
        st.just("correct"),
        st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4, unique=True),
        st.integers(0, 120),
        st.lists(st.sampled_from(RESULTS), min_size=1, max_size=3),
    ),
    st.tuples(st.just("withdraw"), st.integers(0, 10)),
    st.tuples(st.just("void"), st.integers(0, 40)),
    st.tuples(st.just("amend"), st.sampled_from([6.0, 10.0, 20.0]), st.integers(0, 120)),
    st.tuples(st.just("profile"), st.sampled_from(PLAYERS), st.sampled_from([None, 2012, 1990])),
    st.tuples(st.just("opening"), st.sampled_from(PLAYERS), st.integers(0, 120)),
    st.tuples(
        st.just("override"),
        st.sampled_from(PLAYERS),
        st.sampled_from(["adjust_rating", "set_floor", "impose_ceiling", "lift_ceiling"]),
        st.integers(0, 120),
    ),
    st.tuples(st.just("poison"), st.sampled_from(PLAYERS), st.integers(0, 10)),
)


def ledger(ops: list[tuple]) -> list[LedgerEntry]:
    entries = [entry(i + 1, "PlayerRegistered", **profile(p, None)) for i, p in enumerate(PLAYERS)]
    sections: list[str] = []
    withdrawn: set[str] = set()
    openings: set[tuple[str, str]] = set()
    start = date(2024, 1, 1)
    for op in ops:
        position = len(entries) + 1
        kind = op[0]
        if kind == "submit":
            sid = f"S{len(sections)}"
            sections.append(sid)
            day = start + timedelta(days=op[2])
            entries.append(entry(position, "SectionSubmitted", **section(sid, op[1], day, op[3])))
        elif kind == "correct" and sections:
            sid = sections[op[2] % len(sections)]
            if sid in withdrawn:
                continue
            day = start + timedelta(days=op[2])
            data = {**section(sid, op[1], day, op[3]), "reason": "correction"}
            entries.append(entry(position, "SectionCorrected", **data))
        elif kind == "withdraw" and sections:
            sid = sections[op[1] % len(sections)]
            if sid in withdrawn:
                continue
            withdrawn.add(sid)
            entries.append(entry(position, "SectionWithdrawn", section_id=sid, reason="no"))
        elif kind == "void":
            target = 1 + op[1] % len(entries)
            entries.append(entry(position, "EntryVoided", position=target, reason="mistake"))
        elif kind == "amend":
            day = (start + timedelta(days=op[2])).isoformat()
            entries.append(
                entry(
                    position,
                    "RulesAmended",
                    parameter="bonus_multiplier",
                    value=op[1],
                    effective=day,
                    until=None,
                    reason="test",
                )
            )
        elif kind == "profile":
            entries.append(entry(position, "PlayerProfileUpdated", **profile(op[1], op[2])))
        elif kind == "opening":
            if (op[1], "OTBR") in openings:
                continue
            openings.add((op[1], "OTBR"))
            entries.append(
                entry(
                    position,
                    "OpeningBalanceRecorded",
                    member_id=op[1],
                    system="OTBR",
                    as_of=(start + timedelta(days=op[2])).isoformat(),
                    rating=1400.0 + op[2],
                    games=30,
                    history="mixed",
                )
            )
        elif kind == "override":
            value = None if op[2] == "lift_ceiling" else 1500.0
            entries.append(
                entry(
                    position,
                    "DirectorOverride",
                    member_id=op[1],
                    action=op[2],
                    system="OTBR",
                    value=value,
                    effective=(start + timedelta(days=op[3])).isoformat(),
                    reason="decision",
                )
            )
        elif kind == "poison":  # a stored section the read side cannot use
            sid = f"S{len(sections)}"
            sections.append(sid)
            data = section(sid, [op[1], PLAYERS[(PLAYERS.index(op[1]) + 1) % 6]], start, ["1-0"])
            data["start_date"] = data["end_date"] = f"2024-02-{30 + op[2] % 2}"
            entries.append(entry(position, "SectionSubmitted", **data))
    return entries


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(operation, min_size=1, max_size=14), chunk=st.sampled_from([1, 2, 5]))
def test_any_chunking_of_a_random_ledger_equals_its_rebuild(tmp_path_factory, ops, chunk):
    tmp = tmp_path_factory.mktemp("random")
    entries = ledger(ops)
    full = View(tmp / "full.db")
    full.rebuild(entries)
    incremental = View(tmp / "incremental.db")
    for start in range(0, len(entries), chunk):
        incremental.catch_up(entries[start : start + chunk])
    assert incremental.digest() == full.digest()
    assert all(p["item_key"].startswith("section:") for p in queries.problems(full))
    full.close()
    incremental.close()
