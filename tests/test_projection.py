"""The read model: every kind of entry replayed through the rules, incrementally or in full."""

import pytest
from projection_helpers import Ledger, round_robin

from ledger.rules.expectancy import winning_expectancy
from projections import queries
from projections.projector import View

A, B, C, D, E, F = ("10000001", "10000002", "10000003", "10000004", "10000005", "10000006")


@pytest.fixture
def led(ledger):
    return Ledger(ledger)


@pytest.fixture
def view(tmp_path):
    v = View(tmp_path / "view.db")
    yield v
    v.close()


def test_a_dual_rated_section_rates_every_player_in_both_systems(led, view):
    # Footnote 1: "The OTBQ ratings also apply to time controls through mm + ss ≤ 65, which
    # overlaps with the OTBR range ("dual rating")"; G/45;d5 is mm + ss = 50.
    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("S1", [A, B, C, D], "2024-05-04", time_control="G/45;d5"))
    led.catch_up(view)
    for p in (A, B, C, D):
        ratings = queries.player(view, p)["ratings"]
        assert set(ratings) == {"OTBR", "OTBQ"}
        assert ratings["OTBR"]["games"] == 3  # §7: "N is incremented by m"
    assert queries.player(view, A)["ratings"]["OTBR"]["wins"] == 3
    assert queries.player(view, D)["ratings"]["OTBR"]["losses"] == 3


def test_history_rows_carry_every_value_behind_a_change(led, view):
    led.register(A, B, C, D, adult=True)
    led.opening(A, "OTBR", 1800.0, 40, wins=20, draws=5, losses=15)
    led.opening(B, "OTBR", 1700.0, 60, wins=30, draws=10, losses=20)
    led.submit(round_robin("S1", [A, B], "2024-05-04"))
    led.catch_up(view)
    row = queries.history(view, A, "OTBR")[-1]
    assert row["pre_rating"] == 1800.0
    assert row["formula"] == "standard"
    assert row["rules"] == "uschess-2024"
    # §4.2: R_s = R0 + K(S − E) with K = 800/(N' + m), E from the Step 5 opponent rating.
    k = 800 / (row["n_eff"] + 1)
    assert row["k"] == pytest.approx(k)
    assert row["post_rating"] == pytest.approx(1800 + k * (1 - row["expected"]))
    assert row["games_before"], row["games_after"] == (40, 41)
    assert row["position"] > 0
    assert queries.player(view, A)["ratings"]["OTBR"]["wins"] == 21


def test_rebuild_gives_a_byte_identical_read_model(led, view, tmp_path):
    led.register(A, B, C, D, E, F, adult=True)
    led.submit(round_robin("S1", [A, B, C, D], "2024-01-06"))
    led.catch_up(view)
    led.submit(round_robin("S2", [C, D, E, F], "2024-02-03", results={(C, D): "0-1"}))
    led.catch_up(view)
    led.submit(round_robin("S3", [A, F, B, E], "2024-03-02", time_control="G/15;d5"))
    led.catch_up(view)
    rebuilt = led.rebuilt(tmp_path / "rebuilt.db")
    assert rebuilt.digest() == view.digest()


def test_a_correction_re_rates_the_cascade_and_equals_a_full_replay(led, view, tmp_path):
    led.register(A, B, C, D, E, F, adult=True)
    s1 = round_robin("S1", [A, B, C], "2024-01-06")
    led.submit(s1)
    led.submit(round_robin("S2", [C, D], "2024-02-03"))
    led.submit(round_robin("S3", [E, F], "2024-03-02"))
    led.catch_up(view)
    before_e = queries.history(view, E, "OTBR")
    before_a = queries.history(view, A, "OTBR")
    corrected = round_robin("S1", [A, B, C], "2024-01-06", results={(B, C): "0-1"})
    led.correct(corrected)
    stats = led.catch_up(view)
    # B's and C's S1 results changed, so C's S2 row (and D's) are re-rated; A's S1 rating is
    # the same (still 400 above the knot), so the cascade does not follow A; E and F untouched.
    assert stats.players == {B, C, D}
    assert [r["post_rating"] for r in queries.history(view, A, "OTBR")] == [
        r["post_rating"] for r in before_a
    ]
    assert queries.history(view, E, "OTBR") == before_e
    assert (
        queries.history(view, C, "OTBR")[0]["revision"]
        > queries.history(view, C, "OTBR")[0]["position"]
    )
    assert led.rebuilt(tmp_path / "full.db").digest() == view.digest()


def test_a_withdrawn_section_leaves_no_rows_and_its_players_go_back(led, view, tmp_path):
    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("S1", [A, B], "2024-01-06"))
    led.submit(round_robin("S2", [A, C], "2024-02-03"))
    led.catch_up(view)
    led.withdraw("S1")
    led.catch_up(view)
    assert queries.player(view, B)["ratings"] == {}
    assert [r["item_key"] for r in queries.history(view, A, "OTBR")] == ["section:S2"]
    assert queries.history(view, A, "OTBR")[0]["pre_rating"] is None
    assert led.rebuilt(tmp_path / "full.db").digest() == view.digest()


def test_a_late_section_is_rated_in_date_order(led, view, tmp_path):
    # Issue contract: "sections ... by end date, then start date, then ledger position".
    led.register(A, B, C, adult=True)
    led.submit(round_robin("FEB", [A, C], "2024-02-03"))
    led.catch_up(view)
    led.submit(round_robin("JAN", [A, B], "2024-01-06"))
    led.catch_up(view)
    jan, feb = queries.history(view, A, "OTBR")
    assert (jan["item_key"], feb["item_key"]) == ("section:JAN", "section:FEB")
    assert feb["pre_rating"] == jan["post_rating"]
    assert led.rebuilt(tmp_path / "full.db").digest() == view.digest()


def test_a_retroactive_bonus_multiplier_re_rates_only_sections_in_its_range(led, view, tmp_path):
    # Real history: US Chess rated 2025 sections with B = 10 retroactively; §4.2 bonus
    # max(0, K(S − E) − B√m') with m' = max(m, 4).
    players = [A, B, C, D, E]
    led.register(*players, adult=True)
    for p, r in zip(players, (1500.0, 1900.0, 1950.0, 2000.0, 2050.0), strict=True):
        led.opening(p, "OTBR", r, 50, wins=20, draws=10, losses=20)
    led.submit(round_robin("Y24", players, "2024-06-01"))
    led.submit(round_robin("Y25", players, "2025-06-07"))
    led.catch_up(view)
    before = {r["item_key"]: r for r in queries.history(view, A, "OTBR")}
    led.amend("bonus_multiplier", 10, "2025-01-01", "2026-01-01")
    led.catch_up(view)
    after = {r["item_key"]: r for r in queries.history(view, A, "OTBR")}
    assert after["section:Y24"] == before["section:Y24"]
    assert after["section:Y25"]["bonus_multiplier"] == 10.0
    y25 = after["section:Y25"]
    assert y25["bonus"] == pytest.approx(y25["k"] * (y25["score"] - y25["expected"]) - 10 * 2)
    assert y25["bonus"] > before["section:Y25"]["bonus"] > 0
    assert led.rebuilt(tmp_path / "full.db").digest() == view.digest()


def test_a_money_floor_raises_the_floor_and_the_rating(led, view):
    # 2020+ §5: "If a player wins $4,000 or more in an under-2000 context, the rating floor is
    # set at the first 100-point level (up to 2000) which would make the player no longer
    # eligible": under-1800 → 1800.
    led.register(A, adult=True)
    led.opening(A, "OTBR", 1750.0, 40)
    led.money_floor(A, 4000, 1800, "2024-03-01")
    led.catch_up(view)
    r = queries.player(view, A)["ratings"]["OTBR"]
    assert r["floor_money"] == 1800
    assert r["floor"] == 1800
    assert r["rating"] == 1800.0


def test_a_ceiling_holds_a_later_section_and_an_adjustment_sets_the_rating(led, view):
    # §7: a ceiling is "a level above which a player's rating may not rise".
    led.register(A, B, adult=True)
    led.opening(A, "OTBR", 1500.0, 40)
    led.opening(B, "OTBR", 2000.0, 40)
    led.override(A, "impose_ceiling", 1510.0, "2024-01-01")
    led.submit(round_robin("S1", [A, B], "2024-02-03"))
    led.override(B, "adjust_rating", 1990.0, "2024-03-01")
    led.catch_up(view)
    assert queries.player(view, A)["ratings"]["OTBR"]["rating"] == 1510.0
    assert queries.player(view, A)["ratings"]["OTBR"]["ceiling"] == 1510.0
    assert queries.player(view, B)["ratings"]["OTBR"]["rating"] == 1990.0


def test_a_match_changes_each_rating_by_at_most_50(led, view):
    # §7: "The maximum rating change in a match is 50 points"; "The bonus formula does not
    # apply to matches".
    led.register(A, B, adult=True)
    led.opening(A, "OTBR", 1800.0, 30)
    led.opening(B, "OTBR", 2100.0, 30)
    led.match("M1", A, B, ["1-0"] * 6, "2024-04-06")
    led.catch_up(view)
    row = queries.history(view, A, "OTBR")[-1]
    assert row["formula"] == "match"
    assert row["post_rating"] - row["pre_rating"] == pytest.approx(50.0)
    assert queries.history(view, B, "OTBR")[-1]["post_rating"] == pytest.approx(2050.0)


def test_a_fide_adjustment_applies_the_standard_formula_once(led, view):
    # §6: "Members with a FIDE rating of at least 2200 with a USA flag will automatically have
    # their US Chess rating updated"; opponents converted (2024 §2.1: 20 + 1.02 × FIDE above
    # 2000); "The standard formula is applied only once".
    led.register(A, adult=True, fide={"rating": 2250, "date": "2024-01-01", "federation": "USA"})
    led.opening(A, "OTBR", 2300.0, 200)
    led.fide(A, "2024-06-01", [(2300, 1.0), (2200, 0.5)])
    led.catch_up(view)
    row = queries.history(view, A, "OTBR")[-1]
    assert row["formula"] == "fide_adjustment"
    opponents = [20 + 1.02 * 2300, 20 + 1.02 * 2200]
    e = sum(winning_expectancy(2300.0, r) for r in opponents)
    assert row["expected"] == pytest.approx(e)
    assert row["post_rating"] == pytest.approx(2300 + row["k"] * (1.5 - e))
    assert row["games_after"] == 202


def test_the_rating_as_of_a_date_is_the_one_in_effect_then(led, view):
    led.register(A, B, adult=True)
    led.submit(round_robin("JAN", [A, B], "2024-01-06"))
    led.submit(round_robin("MAR", [A, B], "2024-03-02", results={(A, B): "0-1"}))
    led.catch_up(view)
    jan, mar = queries.history(view, A, "OTBR")
    assert queries.rating_as_of(view, A, "OTBR", "2024-01-05") is None
    assert queries.rating_as_of(view, A, "OTBR", "2024-01-06")["rating"] == jan["post_rating"]
    assert queries.rating_as_of(view, A, "OTBR", "2024-02-28")["rating"] == jan["post_rating"]
    assert queries.rating_as_of(view, A, "OTBR", "2024-03-02")["rating"] == mar["post_rating"]


def test_forfeits_and_byes_are_recorded_but_not_rated(led, view):
    # §7: "Games in which one player makes no move are not rated."
    led.register(A, B, C, adult=True)
    section = round_robin("S1", [A, B, C], "2024-05-04")
    section["games"][0]["result"] = "1F-0F"
    section["byes"] = [{"round": 1, "player": C, "bye": "half"}]
    led.submit(section)
    led.catch_up(view)
    assert queries.player(view, A)["ratings"]["OTBR"]["games"] == 1
    assert queries.player(view, B)["ratings"]["OTBR"]["games"] == 1


def test_a_correction_that_moves_a_section_and_drops_a_player(led, view, tmp_path):
    # The corrected report has other dates (the section moves in the rating order) and one
    # player fewer: the old rows go, the rows at the new place come, both sides re-rate.
    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("S1", [A, B, C], "2024-01-06"))
    led.submit(round_robin("S2", [A, D], "2024-02-03"))
    led.submit(round_robin("S3", [B, D], "2024-04-06"))
    led.catch_up(view)
    led.correct(round_robin("S1", [A, B], "2024-03-02"))
    led.catch_up(view)
    assert [r["item_key"] for r in queries.history(view, A, "OTBR")] == [
        "section:S2",
        "section:S1",
    ]
    assert queries.history(view, C, "OTBR") == []
    assert led.rebuilt(tmp_path / "full.db").digest() == view.digest()


def test_a_read_model_of_an_older_layout_is_rebuilt(led, tmp_path):
    import sqlite3

    led.register(A, B, adult=True)
    led.submit(round_robin("S1", [A, B], "2024-01-06"))
    view = View(tmp_path / "old.db")
    led.catch_up(view)
    view.close()
    with sqlite3.connect(tmp_path / "old.db") as conn:  # as an earlier version left it
        conn.execute("update meta set value = '1' where key = 'schema'")
    again = View(tmp_path / "old.db")
    assert again.last_position == 0
    led.catch_up(again)
    assert again.digest() == led.rebuilt(tmp_path / "full.db").digest()


def test_a_catch_up_writes_and_notes_only_the_ratings_rows_that_differ(led, view):
    # Issue 21: "only changed rows rewritten by a catch-up". Standings equal to the stored
    # ones (each player's last row) write nothing and are noted as no change; a changed one
    # is written and noted before → after.
    from projections.catchup import CatchUp
    from projections.ratings_writer import RatingsWriter
    from projections.schema import ratings_table

    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("S1", [A, B, C, D], "2024-01-06"))
    led.catch_up(view)
    last = {p: queries.standing_before(view, p, "OTBR", "\uffff") for p in (A, B, C, D)}
    conn = view.db.conn
    written = conn.total_changes
    stats = CatchUp()
    ratings = RatingsWriter(view.family)
    with conn:
        ratings.write_changes({(p, "OTBR"): s for p, s in last.items()}, stats, conn)
    assert stats.changes == {}
    assert conn.total_changes == written
    before = queries.player(view, A)["ratings"]["OTBR"]["rating"]
    with conn:
        ratings.write_changes({(A, "OTBR"): last[A]._replace(rating=1234.5)}, stats, conn)
    assert set(stats.changes) == {(A, "OTBR")}
    old, new = stats.changes[(A, "OTBR")]  # the row's values, in the table's column order
    names = ratings_table(view.family).names
    rating = names.index("rating")
    assert (old[rating], new[rating]) == (before, 1234.5)
    stored = f"select {', '.join(names)} from ratings where player = ? and system = 'OTBR'"
    assert new == conn.execute(stored, [A]).fetchone()  # as the row now stored
    assert conn.total_changes == written + 1


def test_a_rebuilds_ratings_rows_read_each_standing_once_in_key_order(led, view):
    # Issue 33: "find and cut what costs more per game when there are 200,000 players": a
    # rebuild's packed standings are unpacked when read, so `write_all` reads each standing
    # once (4 rated, 1 unrated: 5 reads), and writes the 4 rated ones' rows in key order.
    from collections.abc import Mapping

    from projections.ratings_writer import RatingsWriter
    from projections.standing import UNRATED

    class Counted(Mapping):
        def __init__(self, standings):
            self.standings, self.reads = standings, []

        def __getitem__(self, key):
            self.reads.append(key)
            return self.standings[key]

        def __iter__(self):
            return iter(self.standings)

        def __len__(self):
            return len(self.standings)

    class Rows:
        def __init__(self):
            self.rows = []

        def executemany(self, sql, rows):
            self.rows.extend(rows)

    led.register(A, B, C, D, adult=True)
    led.submit(round_robin("S1", [A, B, C, D], "2024-01-06"))
    led.catch_up(view)
    found = {(p, "OTBR"): queries.standing_before(view, p, "OTBR", "\uffff") for p in (D, C, B, A)}
    live = Counted({**found, ("nobody", "OTBR"): UNRATED})
    conn = Rows()
    RatingsWriter(view.family).write_all(live, conn)
    assert len(live.reads) == 5 and len(set(live.reads)) == 5
    assert [r[:2] for r in conn.rows] == sorted(found)
