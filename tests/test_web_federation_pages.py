"""Issue 20, "pages as the federations publish them", on the tests' real FIDE tournament file
(tests/fixtures/lakeside-fide-open-2024.trf, rated under the FIDE rules, summed on the list
2024-10): the player card, the crosstable in place order with performance, the lists, each
family's own words, human timestamps and the JSON twin of every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FEDERATION
from test_web import get
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.chart import TICK_SIZE, chart, label_width
from ledger.rules.fide.tables import performance
from projections.list_filters import in_age_group

LAKESIDE = Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf"
SECTION = "2024-09-14-lakeside-fide-open-2024"
SOKOLOV, PARK, ORTIZ, CHEN, NOVAK, KIM = (
    *("14700011", "5500012", "2000002", "2000006", "300001", "2000007"),
)
MULLER = list(FEDERATION)[0]


@pytest.fixture(scope="module")
def fide(tmp_path_factory):
    """The file imported as delivered, the FIDE list of 1 October 2024 published after it."""
    store = f"sqlite:///{tmp_path_factory.mktemp('lakeside') / 'ledger.db'}"
    runner = CliRunner()
    for args in (
        ["init", "--actor", "director"],
        ["import", "trf", str(LAKESIDE), "--register-players", "--actor", "director"],
        ["publish-list", "--family", "fide", "--name", "2024-10", "--as-of", "2024-10-01"],
    ):
        actor = ["--actor", "director"] if args[0] == "publish-list" else []
        result = runner.invoke(app, [*args, *actor, "--store", store])
        assert result.exit_code == 0, result.output
    return Site(store, family="fide")


@pytest.fixture(scope="module")
def uschess(federation_store):
    return Site(federation_store)


def test_the_player_page_and_its_json_carry_the_player_card(fide):
    # Issue 20: "a player card (name, title, federation, FIDE id, birth year ...) on the page
    # and in its JSON"; TRF 001: "g" GM, BIH, FIDE id 14700011, born 1965/06/13.
    card = get(fide, f"/api/players/{SOKOLOV}").json()["card"]
    assert card == {
        "name": "Sokolov, Ivan",
        "title": "GM",
        "federation": "BIH",
        "fide_id": "14700011",
        "sex": "m",
        "birth_year": 1965,
        "club": None,  # a TRF names no club
    }
    page = get(fide, f"/players/{SOKOLOV}").text
    assert "<h1>GM Sokolov, Ivan</h1>" in page
    assert "<dt>Federation</dt><dd>BIH</dd>" in page and "<dt>Born</dt><dd>1965</dd>" in page


def test_the_crosstable_is_in_place_order_and_equal_scores_share_a_place(fide):
    # Issue 20: "crosstables in place order"; totals 2.5, 2, 2, 1.5, 1, 0.5 (the file's
    # points column); Park (pair 2) and Novak (pair 5) share 2nd–3rd, in pair order.
    out = get(fide, f"/api/sections/{SECTION}").json()
    assert [(s["place"], s["player"], s["total"]) for s in out["standings"]] == [
        ("1", SOKOLOV, 2.5),
        ("2–3", PARK, 2.0),
        ("2–3", NOVAK, 2.0),
        ("4", CHEN, 1.5),
        ("5", KIM, 1.0),
        ("6", ORTIZ, 0.5),
    ]
    assert [r["player"] for r in out["rows"]][:2] == [SOKOLOV, PARK]  # rows keep pair order


def test_the_performance_is_the_rated_opponents_average_plus_dp(fide):
    # FIDE 8.1.1 table: p .75 → dp 193, p .33 → dp −125. Sokolov beat Chen (Ro 1890), drew
    # Park (Ro 2310); his win over the unrated Kim does not count (8.3.1): 2100 + 193.
    # Kim, unrated: 1/3 against Ortiz 2215, Sokolov 2615, Novak 2050: 6880/3 − 125.
    standings = {
        s["player"]: s["performance"]
        for s in get(fide, f"/api/sections/{SECTION}").json()["standings"]
    }
    assert standings[SOKOLOV] == {"FIDE": 2293.0}
    assert standings[KIM]["FIDE"] == pytest.approx(6880 / 3 - 125)
    assert performance([1890.0, 2310.0], 1.5) == 2293.0
    page = get(fide, f"/sections/{SECTION}").text
    assert "<td>2293</td>" in page and "<td>2168</td>" in page  # shown as whole numbers


def test_each_crosstable_cell_links_the_opponent_and_each_row_its_player(fide):
    # Issue 20: "linked opponents". Round 1: Sokolov (white) beat pair 4, Chen.
    page = get(fide, f"/sections/{SECTION}").text
    assert f"<a href='/players/{CHEN}' title='Chen, Fay'>W4</a>" in page
    assert f"<a href='/players/{SOKOLOV}'>{SOKOLOV}</a>" in page
    assert "<abbr class='title'>GM</abbr>" in page and "<span class='fed'>BIH</span>" in page


def test_a_us_chess_crosstable_shows_no_performance_its_texts_do_not_define(uschess):
    # Decision (docs/decisions.md): the US Chess texts define no tournament performance.
    out = get(uschess, "/api/sections/JAN").json()
    assert all(s["performance"] == {} for s in out["standings"])
    assert "Perf." not in get(uschess, "/sections/JAN").text


@pytest.mark.parametrize(
    "path", [f"/players/{SOKOLOV}", f"/players/{SOKOLOV}/history", f"/sections/{SECTION}"]
)
def test_fide_pages_speak_fides_words_not_us_chess_words(fide, path):
    # Issue 20: "each family's own words" — no "OLM" or "floor" on a FIDE page.
    text = get(fide, path).text
    assert "OLM" not in text and "floor" not in text.lower() and "Bonus" not in text


def test_a_fide_player_shows_k_and_games_in_fides_terms(fide):
    # FIDE 8.3.3: K; Sokolov's is 10 (rated 2400 and over).
    page = get(fide, f"/players/{SOKOLOV}").text
    assert (
        "<th>K</th>" in page and "<td data-label='K'>10</td>" in page and "<th>Games</th>" in page
    )
    assert "<th>Ro</th>" in get(fide, f"/players/{SOKOLOV}/history").text


def test_us_chess_floors_are_named_in_the_texts_words(uschess):
    # §5: "a player's absolute floor"; the read model's identifier is not shown.
    page = get(uschess, f"/players/{MULLER}").text
    assert "personal_absolute" not in page
    assert "personal absolute floor" in page


def test_the_list_index_links_every_published_list(fide):
    # Issue 20: "a rating-list index (/lists, 404 today)".
    out = get(fide, "/api/lists").json()
    assert [x["name"] for x in out["lists"]] == ["2024-10"]
    assert "<a href='/lists/2024-10'>2024-10</a>" in get(fide, "/lists").text


def test_a_list_page_ranks_its_players_and_links_each(fide):
    # 7.1.4: Kim, 3 games against rated opponents, gets no rating on the list; Sokolov's
    # 2615 − 2.80 → 2612 (8.3.4), the rest by their period's changes.
    out = get(fide, "/api/lists/2024-10").json()
    assert out["system"] == "FIDE"
    assert [r["id"] for r in out["rows"]] == [SOKOLOV, PARK, ORTIZ, NOVAK, CHEN]
    assert out["rows"][0]["rating"] == 2612
    page = get(fide, "/lists/2024-10").text
    for r in out["rows"]:
        assert f"<a href='/players/{r['id']}'>" in page


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        ("federation=USA", [ORTIZ, CHEN]),
        ("sex=w", [PARK, CHEN]),
        ("age=U16", [CHEN]),  # born 2009: 15 in 2024
        ("age=U14", []),
        ("age=50%2B", [SOKOLOV]),  # born 1965: 59 in 2024; Novak's year was not stored
        ("federation=USA&sex=w", [CHEN]),
    ],
)
def test_a_list_filters_by_federation_sex_and_age_group(fide, query, ids):
    # Issue 20: "list pages filterable by federation, sex, age group".
    out = get(fide, "/api/lists/2024-10", query).json()
    assert [r["id"] for r in out["rows"]] == ids
    assert out["total"] == 5


def test_an_unknown_list_or_filter_value_is_a_clear_error(fide):
    assert get(fide, "/api/lists/1999-01").status == 404
    assert get(fide, "/api/lists/2024-10", "age=U7").status == 400
    assert get(fide, "/api/lists/2024-10", "sex=x").status == 400


@pytest.mark.parametrize(
    ("born", "group", "inside"),
    [(2004, "U20", True), (2003, "U20", False), (1974, "50+", True), (1975, "50+", False)],
)
def test_an_age_group_is_the_age_reached_in_the_lists_year(born, group, inside):
    # Decision: U20 on a 2024 list holds those who reach at most 20 in 2024 (born 2004 or
    # later), 50+ those who reach at least 50 (born 1974 or earlier).
    assert in_age_group(born, 2024, group) is inside
    assert in_age_group(None, 2024, group) is False


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/", ""),
        (f"/players/{SOKOLOV}", "as_of=2024-12-31"),
        (f"/sections/{SECTION}", ""),
        ("/lists/2024-10", "sex=w"),
        ("/log", "type=SectionSubmitted"),
    ],
)
def test_every_page_links_its_json_twin(fide, path, query):
    # Issue 20: "every page links its JSON twin".
    page = get(fide, path, query).text
    twin = re.search(r"<a href='([^']*)' type='application/json'", page).group(1)
    assert twin == "/api/v1" + path + ("?" + query if query else "")  # issue 32: versioned
    assert get(fide, path, query).status == 200


def test_the_log_shows_human_times_and_keeps_the_exact_one_in_the_markup(fide):
    # Issue 20: "human timestamps"; the JSON twin keeps the stored ISO time.
    stamp = get(fide, "/api/log").json()["entries"][0]["recorded_at"]
    page = get(fide, "/log").text
    shown = re.search(rf"<time datetime='{re.escape(stamp)}'>([^<]*)</time>", page).group(1)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", shown)
    assert shown.replace(" UTC", "").replace(" ", "T") == stamp[:19]


@pytest.mark.parametrize(
    ("first", "last"),
    [("2024-01-06", "2024-05-01"), ("2023-11-30", "2024-04-30"), ("2021-02-27", "2024-01-01")],
)
def test_no_date_label_of_the_narrow_chart_crosses_its_edge(first, last):
    # Issue 20: "no clipped chart label at 390 px": each label, centred or anchored, lies
    # within the 360-unit drawing (a label on the last day sits on the right edge).
    svg = chart({"OTBR": [(first, 1500.0), (last, 1600.0)]}, 360, 240, "narrow", 4)
    for x, anchor, label in re.findall(
        r"<text x='([\d.]+)' y='[\d.]+' class='tick' text-anchor='(\w+)'>([^<]+)</text>", svg
    ):
        wide = label_width(label, TICK_SIZE)
        left = {"start": 0, "middle": wide / 2, "end": wide}[anchor]
        assert float(x) - left >= 0 and float(x) - left + wide <= 360, (label, anchor)


def test_the_log_says_which_list_a_publication_is_about(fide):
    # The ListPublished entry's subject: its family and name.
    assert "<td data-label='About'>fide list 2024-10</td>" in get(fide, "/log").text


def test_a_fide_players_tournament_waiting_for_its_list_shows_ro_and_delta_r(fide):
    # Issue 19: "the player's tournaments show '2558 -> 2558' for every player". 10.65 / 8.3.2:
    # a section of a period is rated from Ro and its ΔR goes onto the next list; Sokolov's
    # ΣΔR × K = −.28 × 10 = −2.80 from Ro 2615 (8.3.1's D 400 → PD .92, D 305 → PD .86).
    data = get(fide, f"/api/players/{SOKOLOV}").json()
    (section,) = data["sections"]
    fide_rating = section["ratings"]["FIDE"]
    assert fide_rating["before"] == 2615.0
    assert fide_rating["pending_change"] == pytest.approx(-2.8)
    page = get(fide, f"/players/{SOKOLOV}").text
    assert "FIDE Ro 2615, ΔR -2.80 (next list)" in page
    assert "2615 → 2615" not in page


def test_the_section_page_is_headed_by_its_event_and_labels_its_facts(fide):
    # Screenshots (issue 20, session 6): the page was headed by the section id, with dates,
    # time control and status unlabeled in one line, and no key to the crosstable's codes.
    page = get(fide, f"/sections/{SECTION}").text
    assert "<h1>Lakeside FIDE Open 2024</h1>" in page
    assert f"<dt>Section id</dt><dd>{SECTION}</dd>" in page
    assert "<dt>Dates</dt><dd>2024-09-14 – 2024-09-15</dd>" in page
    # TRF 122 `90'/40+30'+30''`: the ledger's `40/90, SD/30;+30`, said in words.
    words = "40 moves in 90 min, then 30 min; 30 s added a move (40/90, SD/30;+30)"
    assert f"<dt>Time control</dt><dd>{words}; FIDE standard</dd>" in page  # issue 30
    assert "<dt>Players</dt><dd>6</dd>" in page and "<dt>Rounds</dt><dd>3</dd>" in page
    # Chen's `0000 - U` (a full-point bye) and Ortiz's `0000 - H`; no forfeit in the file.
    assert "<b>B</b> full-point bye" in page and "<b>H</b> half-point bye" in page
    assert "forfeit" not in page


def test_the_fide_explain_page_shows_each_game_s_delta_r(fide):
    # FIDE 8.3.1-8.3.2: ΔR per game; Sokolov beat Chen (Ropp 1890, ΔR +0.08) and drew Park
    # (Ropp 2310, ΔR −0.36): ΣΔR −0.28, K 10, ΔR −2.8 on the list 2024-10 (Rn 2612). The
    # page showed only the ledger positions; its JSON twin had the games.
    query = f"system=FIDE&section={SECTION}"
    page = get(fide, f"/players/{SOKOLOV}/explain", query).text
    assert "<th>Opponent&#39;s rating</th><th>D</th><th>PD</th><th>Score</th><th>ΔR</th>" in page
    assert "<td>1890.00</td><td>400</td><td>0.92</td><td>1</td><td>0.08</td>" in page
    assert "<td>0.86</td><td>0.5</td><td>-0.36</td>" in page
    assert "<dt>ΣΔR</dt><dd>-0.2800</dd>" in page and "<dt>Rn</dt><dd>2612.0000</dd>" in page


def test_a_player_s_list_row_links_the_ledger_position_it_counts_up_to(fide):
    page = get(fide, f"/players/{SOKOLOV}").text
    assert "<th>Ledger entries up to</th>" in page
    assert "<a href='/log?after=8'>position 9</a>" in page
