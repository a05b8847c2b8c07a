"""Issue 30, "one family vocabulary in every command": the pages and the crosstable name
FIDE's lists as FIDE does (standard, rapid, blitz: B.02 1.1 and the Rapid and Blitz Rating
Regulations), and read a section's time control as FIDE writes it (`90/40+30`: 90 minutes for
40 moves), from the family (`Family.words`, `Family.notation`), never US Chess's reading."""

import pytest
import test_fide_list_pages
from test_fide_list_pages import SECTION

from ledger.entrypoints.web.render import rate
from ledger.rules.families import family

cli = test_fide_list_pages.cli  # the fixture: the Lakeside file on a ledger with a FIDE list


@pytest.mark.parametrize(
    ("written", "said"),
    [
        # 1.1: 90 + 30 = 120 minutes for 60 moves: the standard list
        ("90/40+30", "40 moves in 90 min, then 30 min (90/40+30); FIDE standard"),
        # rapid 1.2: "more than 10 minutes but less than 60": 15 + 10 = 25 for 60 moves
        ("G/15+10", "15 min for the game; 10 s added a move (G/15+10); FIDE rapid"),
        # blitz 1.2: "10 minutes or less": 3 + 2 = 5 for 60 moves
        ("G/3+2", "3 min for the game; 2 s added a move (G/3+2); FIDE blitz"),
    ],
)
def test_a_fide_section_page_says_its_time_control_and_list_in_fides_words(written, said):
    assert rate(written, "fide", "2024-09-14") == said


def test_us_chess_keeps_its_own_reading_and_names_no_list():
    # US Chess's notation `moves/minutes`: its page is unchanged (no FIDE list words).
    said = rate("90/40+30", "uschess", "2024-09-14")
    assert said == "90 moves in 40 min; 30 s added a move (90/40+30)"
    assert "FIDE" not in said and "Regular" not in said


def test_fide_words_name_each_of_its_lists():
    words = family("fide").words
    assert [words.system(s) for s in family("fide").systems] == [
        "FIDE standard",
        "FIDE rapid",
        "FIDE blitz",
    ]
    assert family("uschess").words.system("OTBR") == "OTBR"  # its own codes, as before


def test_the_crosstable_and_the_section_page_head_the_rating_column_with_the_list(
    cli, store_url, tmp_path
):
    assert "Total  FIDE standard" in cli("crosstable", SECTION)
    from test_web import get

    from ledger.entrypoints.web.app import Site

    page = get(Site(store_url, tmp_path / "web-fide.db", "fide"), f"/sections/{SECTION}").text
    assert "<th>FIDE standard Ro, ΔR, K</th>" in page
    assert "(40/90, SD/30;+30); FIDE standard</dd>" in page
