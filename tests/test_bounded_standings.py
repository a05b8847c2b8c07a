"""A rebuild's standings bounded in memory (projections/live_standings.py, issue 33: "memory
stays flat in the number of games and players"), its read model unchanged ("read-model digests
unchanged by all of it")."""

from __future__ import annotations

import importlib.util
import sys
from datetime import date
from pathlib import Path

import pytest
from projection_helpers import counting

from ledger.application import RatingsLedger
from ledger.evidence.signing import Keyring
from ledger.log import read_entries
from projections import live_standings
from projections.projector import View
from projections.standing import UNRATED

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "generate.py"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, shared_keyring: Keyring) -> str:
    """A generated ledger: floors, matches, overrides, corrections, opening balances."""
    spec = importlib.util.spec_from_file_location("generate_for_standings", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    url = f"sqlite:///{tmp_path_factory.mktemp('standings') / 'ledger.db'}"
    module.generate(url, 300, 3000, 5, date(2023, 1, 1), 3, keyring=shared_keyring)
    return url


def _rebuilt(url: str, path: Path) -> tuple[str, int]:
    with RatingsLedger(url) as app:
        view = View(path)
        stats = view.rebuild(read_entries(app))
        digest = view.digest()
        view.close()
    return digest, stats.items_rated


@pytest.mark.patches
def test_a_replay_whose_standings_are_packed_has_the_unpacked_replays_digest(
    generated: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: memory flat in the players, "read-model digests unchanged": with at most 7
    # standings kept as objects (every other one packed into the spool file and read back
    # from its history row's values, the spool written anew whenever it holds three times its
    # latest strings) the replay stores the same model as with all of them kept.
    whole = _rebuilt(generated, tmp_path / "whole.db")
    packs: list[int] = []
    pack = live_standings.LiveStandings._pack

    def counted(self: live_standings.LiveStandings) -> None:
        assert self.count == 7  # never more than the bound
        packs.append(len(self.cold))
        pack(self)

    monkeypatch.setattr(live_standings, "HOT_STANDINGS", 7)
    monkeypatch.setattr(live_standings, "COMPACT_OVER", 0)
    monkeypatch.setattr(live_standings.LiveStandings, "_pack", counted)
    compactions = counting(monkeypatch, live_standings.LiveStandings, "compact")
    assert _rebuilt(generated, tmp_path / "packed.db") == whole
    assert len(packs) > 100  # packed again and again, not once at the end
    assert len(compactions) > 1  # the spool written anew again and again


def test_a_packed_standing_reads_back_equal_and_a_missing_one_is_unrated() -> None:
    # The packing is exact: a standing read back equals the one put (its wins and draws are
    # its floor record's, as a rater makes them; tuples compare their floats exactly).
    from ledger.rules.uschess.floors import FloorState
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import UNRATED, Standing

    state = UsChessState(
        "mixed",
        "2024-03-02",
        FloorState(20, 5, 2, 2213.4567, 9, 1800),
        (("2024-02-01", -12.25),),
        (1900, 1887.125),
    )
    standing = Standing(2201.123456789, 44, 20, 5, 19, "2024-03-02", state)
    live = live_standings.LiveStandings(columns, standing_of, hot_limit=1)
    live.put("A", "OTBR", standing)
    live.put("B", "OTBR", Standing(1500.0, 4, 1, 0, 3, "2024-03-02", UsChessState()))
    assert live.cold and "A" not in live.hot  # A packed when B came
    assert live.lookup("A", "OTBR") == standing
    assert live.lookup("C", "OTBR") is UNRATED
    assert dict(live)[("A", "OTBR")] == standing and len(live) == 2


def test_a_standing_set_again_after_its_player_was_packed_reads_back_as_the_latest() -> None:
    # Issue 33, memory flat in the players: a player's packed standings share one string; one
    # set again since is read (and iterated) as the new one, once, and the next pack keeps it.
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    def standing(rating: float) -> Standing[object]:
        return Standing(rating, 4, 0, 0, 0, "2024-03-02", UsChessState())  # its record: none

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=2)
    live.put("A", "OTBR", standing(1500.0))
    live.put("A", "OTBQ", standing(1400.0))
    live.put("B", "OTBR", standing(1300.0))  # A's two packed into one string
    assert list(live.cold) == ["A"]
    live.put("A", "OTBR", standing(1550.0))
    expected = {
        ("A", "OTBR"): standing(1550.0),
        ("A", "OTBQ"): standing(1400.0),
        ("B", "OTBR"): standing(1300.0),
    }
    assert dict(live.items()) == expected and len(live) == 3
    assert {k: live[k] for k in live} == expected
    live.put("C", "OTBR", standing(1200.0))  # packs again: A's string holds the new OTBR
    assert live.lookup("A", "OTBR") == standing(1550.0) and len(live) == 4


def test_a_players_string_is_unpacked_once_for_his_systems_and_again_once_packed_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 33, a replay's cost a game flat in the players: a rater asks for one player's
    # systems one after another (his background, the ratings rows in key order), his string
    # unpacked once for them; a pack that changed it is read again, never the old values.
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    def standing(rating: float) -> Standing[object]:
        return Standing(rating, 4, 0, 0, 0, "2024-03-02", UsChessState())

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=2, kept=0)
    live.put("A", "OTBR", standing(1500.0))
    live.put("A", "OTBQ", standing(1400.0))
    live.put("B", "OTBR", standing(1300.0))  # A's two packed into one string
    loads = counting(monkeypatch, live_standings.marshal, "loads")
    assert [live.lookup("A", s) for s in ("OTBR", "OTBQ", "OTBB")] == [
        standing(1500.0),
        standing(1400.0),
        UNRATED,
    ]
    assert len(loads) == 1
    live.put("A", "OTBQ", standing(1450.0))
    live.put("C", "OTBR", standing(1200.0))  # packs: A's string holds the new OTBQ
    assert "OTBQ" not in live.hot.get("A", {})
    assert live.lookup("A", "OTBQ") == standing(1450.0) and len(loads) > 1


@pytest.mark.patches
def test_a_pack_holds_at_most_a_quarter_more_than_the_standings_it_packs() -> None:
    # Issue 33, "peak memory at most 400 MB": each standing is let go as it is packed, each
    # player's values as his string is made; copied whole before any was let go, a pack had
    # been a rebuild's peak (docs/benchmarks/rebuild-memory.md, "Session 13").
    import tracemalloc

    from ledger.rules.uschess.floors import FloorState
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=40_001, kept=0)
    tracemalloc.start()
    try:
        empty = tracemalloc.get_traced_memory()[0]
        for n in range(20_000):
            for system in ("OTBR", "OTBQ"):  # each standing with a state of its own
                floor = FloorState(n % 30, n % 7, 1, 1800.0 + n, 9, 1700)
                state = UsChessState("mixed", "2024-03-02", floor, (("2024-02", -1.5),), (1.0, n))
                live.put(f"{n:08d}", system, Standing(1500.0 + n, 9, 3, 2, 4, "2024-03-02", state))
        held = tracemalloc.get_traced_memory()[0] - empty
        tracemalloc.reset_peak()
        live._pack()
        peak = tracemalloc.get_traced_memory()[1] - empty
    finally:
        tracemalloc.stop()
    assert len(live.cold) == 20_000 and not live.hot
    assert peak < 1.25 * held


def test_a_pack_leaves_the_standings_set_last_kept_and_packs_the_older_first() -> None:
    # Issue 33, the 10M replay's wall: a pack packs the players in the order their standings
    # were first set since the pack before, until `kept` standings are left as objects (those
    # set last, looked up again soonest: at 10M games for 200,000 players a pack of all of them
    # had left some 80 % of the lookups to unpack), each read back the latest.
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    def standing(rating: float) -> Standing[object]:
        return Standing(rating, 4, 0, 0, 0, "2024-03-02", UsChessState())

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=4, kept=2)
    for n, player in enumerate("ABCD"):
        live.put(player, "OTBR", standing(1000.0 + n))
    live.put("A", "OTBQ", standing(900.0))  # the fifth: A and B packed, C and D kept
    assert set(live.cold) == {"A", "B"} and set(live.hot) == {"C", "D", "A"}
    assert live.count == 3
    live.put("E", "OTBR", standing(1500.0))
    live.put("F", "OTBR", standing(1600.0))  # the limit again: C and D packed (set first)
    assert set(live.cold) == {"A", "B", "C", "D"} and set(live.hot) == {"A", "E", "F"}
    assert live.lookup("A", "OTBR") == standing(1000.0)
    assert live.lookup("A", "OTBQ") == standing(900.0)
    ratings = [live.lookup(p, "OTBR").rating for p in "BCDEF"]
    assert ratings == [1001.0, 1002.0, 1003.0, 1500.0, 1600.0] and len(live) == 7
    live.close()
    bounded = live_standings.LiveStandings(columns, standing_of, hot_limit=2, kept=5)
    for player in "XYZ":  # `kept` at most one under the bound: a pack still packs
        bounded.put(player, "OTBR", standing(1000.0))
    assert bounded.count <= 2 and list(bounded.cold) == ["X"]
    bounded.close()


def test_the_standings_in_key_order_are_the_sorted_items_the_latest_kept() -> None:
    # Issue 33, "peak memory at most 400 MB": the `ratings` rows are made from the standings in
    # key order as they are read (`ordered`), not from a sorted list of every key, which had
    # been a rebuild's peak; the same pairs as sorting them, a standing set again the latest.
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    def standing(rating: float) -> Standing[object]:
        return Standing(rating, 4, 0, 0, 0, "2024-03-02", UsChessState())

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=3)
    for n, (player, system) in enumerate(
        [("C", "OTBR"), ("A", "OTBR"), ("B", "OTBQ"), ("A", "OTBQ"), ("C", "OTBB"), ("C", "OTBR")]
    ):
        live.put(player, system, standing(1000.0 + n))
    assert live.cold and live.hot  # some packed, some kept as objects
    ordered = list(live.ordered())
    assert ordered == sorted(dict(live.items()).items()) and len(ordered) == 5
    assert dict(ordered)[("C", "OTBR")] == standing(1005.0)


def test_packed_standings_read_back_the_same_from_a_spool_written_anew() -> None:
    # Issue 33, "peak memory at most 400 MB": the packed strings lie in a spool file, only
    # where each lies kept in memory; the spool, written anew with each player's latest string
    # once it holds COMPACT_FACTOR times their bytes, reads back every standing the latest.
    from ledger.rules.uschess.state import UsChessState, columns, standing_of
    from projections.standing import Standing

    def standing(rating: float) -> Standing[object]:
        return Standing(rating, 4, 0, 0, 0, "2024-03-02", UsChessState())

    live = live_standings.LiveStandings(columns, standing_of, hot_limit=5, compact_over=0)
    latest: dict[tuple[str, str], Standing[object]] = {}
    for n in range(400):  # 40 players in 3 systems, set again and again
        key = (f"P{n * 7 % 40:02d}", ("OTBR", "OTBQ", "OTBB")[n % 3])
        latest[key] = standing(1000.0 + n)
        live.put(*key, latest[key])
    assert live.compactions > 0 and all(isinstance(at, int) for at in live.cold.values())
    assert live.spooled <= live_standings.COMPACT_FACTOR * live.live
    assert dict(live.items()) == latest and list(live.ordered()) == sorted(latest.items())
    assert all(live.lookup(*key) == s for key, s in latest.items())
    live.close()
    assert live.spool is None and not live.cold
