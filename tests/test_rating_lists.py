"""Published rating lists in the read model: FIDE rating periods (10.65, 10.3), late items, and
what each list said (`rating --list`, `list --list`, `lists`)."""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.entrypoints.cli import app
from ledger.evidence import read_verified_entries
from ledger.log import read_entries
from ledger.rules.fide.periods import first_rating
from ledger.rules.fide.unrated import Performance
from projections import queries
from projections.projector import View
from projections.timetravel import list_view

# 10.68's round robin (tests/test_fide_round_robin_example.py): list ratings, 100 games each.
ENTRANTS = [
    ("A", 2600),
    ("B", 2500),
    ("C", None),
    ("D", 2400),
    ("E", None),
    ("F", 2150),
    ("G", 2300),
    ("H", None),
    ("I", None),
    ("J", 2300),
]
IDS = [x for x, _ in ENTRANTS]
UPSETS = {("A", "J"), ("B", "E")}


def entered(app: RatingsLedger) -> Ledger:
    led = Ledger(app)
    for x, rating in ENTRANTS:
        fide = {"rating": rating, "date": "2002-10-01", "games": 100}
        led.register(x, adult=True, **({"fide": fide} if rating else {}))
    return led


def the_1068_round_robin(end: str = "2003-01-09") -> dict:
    return round_robin("RR", IDS, "2003-01-01", end, results={g: "0-1" for g in UPSETS})


def match(section_id: str, white: str, black: str, results: list[str], end: str) -> dict:
    """A two-player section (a Swiss under FIDE: fewer than three players)."""
    section = round_robin(section_id, [white, black], end)
    section["games"] = [
        {"round": r, "white": white, "black": black, "result": result}
        for r, result in enumerate(results, start=1)
    ]
    return section


# 10.68's example: a match G–F in the same period, G scores 1½ (tests/test_fide_periods.py).
G_F_MATCH = match("GF", "G", "F", ["1-0", "1/2-1/2"], "2003-02-01")


def publish(app: RatingsLedger, name: str, as_of: str, family: str = "fide") -> None:
    data = {"family": family, "name": name, "as_of": as_of}
    app.lists.publish(parse(PublishList, data), actor="director")


def fide_view(led: Ledger, path: Path, family: str = "fide") -> View:
    view = View(path, family)
    led.catch_up(view)
    return view


def list_rows(view: View, name: str) -> dict[str, tuple]:
    """Every player's (rating, official) on a list, from the read model as the list saw it."""
    rows = queries.list_supplement(view, "FIDE", name)
    return {p: (r["rating"], r["official_rating"]) for p, r, _ in rows}


def said(app: RatingsLedger, view: View, name: str) -> dict[str, tuple]:
    view.catch_up(read_verified_entries(app, view.last_position))
    with list_view(app, view, name) as past:
        return list_rows(past, name)


@pytest.fixture
def led(ledger):
    return entered(ledger)


@pytest.mark.parametrize(
    ("x", "official"),
    [
        ("A", 2609),  # 10.68: 2600 + 8.9 (rules' value; the table prints the same ΔR)
        ("F", 2179),  # 10.68: "Player F ... +28.95"
        ("G", 2287),  # 10.68: "DR = (3-3.87) x 15 = -13.05"
        ("J", 2257),  # 10.68: J −43.05
        ("C", 2415),  # 10.32: Rn 2413.66 "rounded to the nearest 5"
        ("H", 2140),  # 10.32: Rn 2138.89 → 2140
    ],
)
def test_the_1068_example_goes_on_the_next_list(led, tmp_path, x, official):
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    view = fide_view(led, tmp_path / "fide.db")
    assert list_rows(view, "2003-04")[x][1] == official
    # 10.65: the section's own row keeps the list rating; the change shows in its detail.
    section = queries.history(view, x, "FIDE")[0]
    assert section["post_rating"] == section["pre_rating"]
    assert section["detail"]["list"] == "2003-04"


def test_an_unrated_player_below_2005_is_not_on_the_list(led, tmp_path):
    # 10.68: I's Ru 1989.27; 10.32 "Only Rn>= 2005 are considered".
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    view = fide_view(led, tmp_path / "fide.db")
    assert "I" not in list_rows(view, "2003-04")


@pytest.mark.parametrize("reverse", [False, True])
def test_two_tournaments_in_one_period_give_the_same_list_in_either_order(led, tmp_path, reverse):
    # 10.65: both rated from the list rating, Rn = Ro + ΣΔR: G 2300 − 13.05 + 1.5 = 2288.45,
    # F 2150 + 28.95 − 1.5 = 2177.45 (tests/test_fide_periods.py), whatever the order.
    sections = [the_1068_round_robin(), G_F_MATCH]
    led.submit(*(sections[::-1] if reverse else sections))
    publish(led.app, "2003-04", "2003-04-01")
    on_list = list_rows(fide_view(led, tmp_path / "fide.db"), "2003-04")
    assert on_list["G"] == (pytest.approx(2288.45), 2288)
    assert on_list["F"] == (pytest.approx(2177.45), 2177)


@settings(max_examples=4, deadline=None)
@given(order=st.permutations(range(3)))
def test_permuting_the_tournaments_of_a_period_never_changes_the_list(order):
    # Done means: "permuting the tournaments inside a period never changes the list". All end
    # the same day, so the submission order is the rating order.
    sections = [
        the_1068_round_robin("2003-02-01"),
        G_F_MATCH,
        match("AB", "A", "B", ["0-1", "1/2-1/2"], "2003-02-01"),
    ]
    lists = []
    for permutation in (range(3), order):
        with tempfile.TemporaryDirectory() as tmp:
            app = RatingsLedger(f"sqlite:///{tmp}/ledger.db")
            try:
                led = entered(app)
                led.submit(*(sections[i] for i in permutation))
                publish(app, "2003-04", "2003-04-01")
                view = fide_view(led, Path(tmp) / "fide.db")
                lists.append(list_rows(view, "2003-04"))
                view.close()
            finally:
                app.close()
    assert lists[0] == lists[1]


def test_a_late_section_shows_up_on_the_next_list_and_the_old_list_stands(led, tmp_path):
    # Issue: "An item that arrives after a list was published shows up in the next list, and
    # the old list still says what it said"; FIDE rates late reports in the next period.
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    view = fide_view(led, tmp_path / "fide.db")
    first = said(led.app, view, "2003-04")
    led.submit(G_F_MATCH)  # ended 2003-02-01, before the list; submitted after it
    publish(led.app, "2003-07", "2003-07-01")
    assert said(led.app, view, "2003-04") == first
    second = said(led.app, view, "2003-07")
    # The match is rated from the 2003-04 list: G 2286.95 against F 2178.95, D = 108 → PD .65,
    # ΔR = 15 × (1.5 − 1.3) = +3.0 (tests/test_fide_periods.py's chained case).
    assert second["G"] == (pytest.approx(2289.95), 2290)
    assert second["A"] == first["A"]
    full = View(tmp_path / "full.db", "fide")
    full.rebuild(read_entries(led.app))
    assert full.digest() == view.digest()


def test_an_unrated_players_results_accumulate_across_periods(led, tmp_path):
    # 10.3: Rn from all his results since his first; published on the first list where
    # Rn >= 2005 (10.32). In the first period U draws F (Ru 2150) and scores ½ in 6 against J
    # (Ru 1848 after the 350-point rule): Rn 1891.14, not published; 2/4 against A in the
    # second period (Ru 2600) brings Rn to 2148.91 over 11 games, on the list as 2150.
    led.register("U", adult=True)
    led.submit(match("U1", "J", "U", ["1-0"] * 5 + ["1/2-1/2"], "2003-02-01"))
    led.submit(match("U0", "U", "F", ["1/2-1/2"], "2003-01-20"))
    publish(led.app, "2003-04", "2003-04-01")
    led.submit(match("U2", "U", "A", ["1/2-1/2", "1/2-1/2", "1-0", "0-1"], "2003-05-01"))
    publish(led.app, "2003-07", "2003-07-01")
    view = fide_view(led, tmp_path / "fide.db")
    sections = [r for r in queries.history(view, "U", "FIDE") if r["kind"] == "section"]
    results = [Performance(r["detail"]["performance"], r["m"]) for r in sections]
    first, both = first_rating(results[:2]), first_rating(results)
    assert first.published is None and both.published == 2150
    assert "U" not in list_rows(view, "2003-04")
    assert list_rows(view, "2003-07")["U"][1] == both.published


def test_without_a_list_each_section_is_applied_at_once(led, tmp_path):
    # Issue: "Where no list has been published, keep today's behaviour and say so".
    led.submit(the_1068_round_robin())
    view = fide_view(led, tmp_path / "fide.db")
    assert queries.history(view, "G", "FIDE")[0]["post_rating"] == pytest.approx(2286.95)
    assert not queries.rates_by_lists(view)


def test_a_us_chess_list_says_the_rating_as_of_its_date_as_known_at_its_cutoff(ledger, tmp_path):
    led = Ledger(ledger)
    led.register("P", "Q", adult=True)
    led.opening("P", "OTBR", 1500, 30)
    led.opening("Q", "OTBR", 1500, 30)
    led.submit(match("PQ1", "P", "Q", ["1-0"], "2024-01-10"))
    publish(ledger, "2024-02", "2024-02-01", "uschess")
    led.submit(match("PQ2", "P", "Q", ["1-0"], "2024-01-20"))  # after the cutoff
    view = View(tmp_path / "uschess.db")
    led.catch_up(view)
    with list_view(ledger, view, "2024-02") as past:
        on_list = queries.list_rating(past, "P", "OTBR", "2024-02")
    now = queries.rating_as_of(view, "P", "OTBR", "2024-02-01")
    assert on_list["from"] == "section:PQ1" and now["from"] == "section:PQ2"
    assert on_list["rating"] < now["rating"]


def run(store: str, tmp_path: Path, *args: str):
    view = str(tmp_path / "cli-fide.db")
    return CliRunner().invoke(
        app, [*args, "--store", store, "--view", view, "--rules-family", "fide"]
    )


def test_rating_shows_the_published_rating_and_the_pending_change(led, store_url, tmp_path):
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    led.submit(G_F_MATCH)
    out = run(store_url, tmp_path, "rating", "G", "--system", "FIDE", "--as-of", "2003-05-01")
    assert out.exit_code == 0, out.output
    assert out.output.strip() == (
        "G FIDE standard on 2003-05-01: published 2287 (2286.95, list 2003-04); "
        "pending +3.0 from 1 section (next list)"
    )
    out = run(store_url, tmp_path, "rating", "G", "--system", "FIDE", "--list", "2003-04")
    said = "G FIDE standard on the list 2003-04 (as of 2003-04-01): 2287 (2286.95)"
    assert out.output.strip() == said


def test_rating_says_when_no_list_has_been_published(led, store_url, tmp_path):
    led.submit(the_1068_round_robin())
    out = run(store_url, tmp_path, "rating", "G", "--system", "FIDE", "--as-of", "2003-05-01")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [
        "G FIDE standard on 2003-05-01: 2287 (2286.95)",
        "no list published; each section applied at once",
    ]


def test_the_list_export_and_the_lists_command_read_published_lists(led, store_url, tmp_path):
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    out = run(store_url, tmp_path, "list", "--system", "FIDE", "--list", "2003-04", "--json")
    assert out.exit_code == 0, out.output
    assert {r["id"]: r["official_rating"] for r in json.loads(out.output)}["C"] == 2415
    out = run(store_url, tmp_path, "lists", "--family", "fide", "--json")
    assert [(x["name"], x["number"]) for x in json.loads(out.output)] == [("2003-04", 1)]
    out = run(store_url, tmp_path, "rating", "G", "--system", "FIDE", "--list", "nope")
    assert out.exit_code == 1
    assert "no fide list named 'nope'" in out.output


def test_the_supplement_of_a_published_list_says_what_the_list_said(led, store_url, tmp_path):
    # 10.65: the round robin's changes appear on the next list; a section after the list does
    # not change what the list said.
    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    led.submit(match("M", "G", "F", ["1-0", "1-0"], "2003-05-10"))
    args = ("supplement", "--list", "2003-04", "--json", "--system", "FIDE")
    out = run(store_url, tmp_path, *args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["list"] == "2003-04" and data["as_of"] == "2003-04-01"
    ratings = {p["id"]: p["ratings"]["FIDE"]["official_rating"] for p in data["players"]}
    assert ratings["G"] == 2287 and ratings["C"] == 2415
    both = run(store_url, tmp_path, "supplement", "--list", "2003-04", "--as-of", "2003-04-01")
    assert both.exit_code == 2


def test_the_icu_rates_a_late_tournament_after_the_list_it_missed(ledger, tmp_path):
    # docs/decisions.md: the ICU's pre-2012 system put a late tournament "in the earliest
    # available slot after the published list" (the ICU family's late_items = "next_period").
    led = Ledger(ledger)
    led.register("P", "Q", adult=True)
    led.opening("P", "ICU", 1800, 50)
    led.opening("Q", "ICU", 1700, 50)
    led.submit(match("ON-TIME", "P", "Q", ["1-0", "0-1"], "2021-02-01"))
    publish(ledger, "2021-04", "2021-04-01", "icu")
    view = fide_view(led, tmp_path / "icu.db", "icu")
    with list_view(ledger, view, "2021-04") as past:
        first = queries.list_rating(past, "P", "ICU", "2021-04")
    led.submit(match("LATE", "P", "Q", ["1-0", "1-0"], "2021-01-15"))
    led.catch_up(view)
    rated = [r["item_key"] for r in queries.history(view, "P", "ICU")]
    assert rated == ["opening:P:ICU", "section:ON-TIME", "section:LATE"]
    with list_view(ledger, view, "2021-04") as past:
        assert queries.list_rating(past, "P", "ICU", "2021-04") == first


def test_the_player_page_links_each_list_to_what_it_said(led, store_url, tmp_path):
    # Issue 12: "the web page's player page show[s] what each list said"; a section submitted
    # after the list does not change what the list said (10.65: it is rated in the next period).
    from test_web import get

    from ledger.entrypoints.web.app import Site

    led.submit(the_1068_round_robin())
    publish(led.app, "2003-04", "2003-04-01")
    led.submit(match("M", "G", "F", ["1-0", "1-0"], "2003-03-10"))  # late for the 2003-04 list
    site = Site(store_url, tmp_path / "web-fide.db", "fide")
    page = get(site, "/players/G")
    assert page.status == 200 and "/players/G/lists/2003-04" in page.text
    said = get(site, "/api/players/G/lists/2003-04").json()
    assert said["ratings"]["FIDE"]["official_rating"] == 2287  # 10.68: G's new rating
    assert get(site, "/players/G/lists/nope").status == 404


@pytest.mark.patches
@pytest.mark.parametrize("incremental", [False, True])
def test_a_section_that_cannot_be_rated_in_a_period_is_a_problem_row_and_the_rest_is_rated(
    led, tmp_path, monkeypatch, incremental
):
    # Issue 10: "A projection that cannot rate an item records a visible 'not rated: reason'
    # row ... and goes on" — under FIDE periods too; the round robin still gives 10.68's list.
    from ledger.rules.fide.rater import FideRater

    rate_games = FideRater.rate_games

    def failing(self, item, games, pre, *version):
        if item.key == "section:GF":
            raise ValueError("cannot rate this one")
        return rate_games(self, item, games, pre, *version)

    monkeypatch.setattr(FideRater, "rate_games", failing)
    led.submit(the_1068_round_robin())
    view = View(tmp_path / "fide.db", "fide")
    if incremental:
        led.catch_up(view)
    led.submit(G_F_MATCH)
    publish(led.app, "2003-04", "2003-04-01")
    led.catch_up(view)
    (problem,) = queries.problems(view)
    assert (problem["item_key"], problem["reason"]) == (
        "section:GF",
        "not rated: ValueError: cannot rate this one",
    )
    assert list_rows(view, "2003-04")["G"][1] == 2287  # 10.68: G without the match
