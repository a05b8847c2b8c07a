"""The audit site in a real browser: Debian's headless Chromium driven by Playwright.

Skipped when /usr/bin/chromium (or playwright) is missing, unless
RATINGS_LEDGER_REQUIRE_BROWSER=1 (CI), which makes that a failure.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.entrypoints.cli.serve import server
from ledger.entrypoints.web.app import Site

CHROMIUM = Path("/usr/bin/chromium")
REQUIRE_BROWSER = os.environ.get("RATINGS_LEDGER_REQUIRE_BROWSER") == "1"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
A, B, C, D = "20000001", "20000002", "20000003", "20000004"
SCRIPT = "<script>alert(1)</script>"


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    return None


@pytest.fixture(scope="module")
def browser():
    """Chromium from the system, never a downloaded browser."""
    reason = _missing()
    if reason is not None:
        if REQUIRE_BROWSER:
            pytest.fail(reason + "; RATINGS_LEDGER_REQUIRE_BROWSER=1 forbids skipping")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """The site over a small ledger, served on a free port of 127.0.0.1."""
    store = f"sqlite:///{tmp_path_factory.mktemp('browser') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(A, name=SCRIPT, adult=True)
    ledger.register(B, name="Ada Lovelace", adult=True)
    ledger.register(C, adult=True)
    ledger.register(D, name="Zoë Ó Briain", adult=True)
    ledger.submit(round_robin("JAN", [A, B, C, D], "2024-01-06"))
    ledger.submit(round_robin("MAR", [A, B, C], "2024-03-02", results={(A, B): "0-1"}))
    ledger.submit(round_robin("APR", [C, D], "2024-04-06", time_control="G/45"))  # dual-rated
    ledger.submit(round_robin("MAY", [C, D], "2024-05-04"))
    ledger.withdraw("MAY")
    ledger.app.close()
    httpd = server(Site(store), port=0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


PAGES = [
    "/",
    "/players?q=briain",
    f"/players/{A}",
    f"/players/{C}",
    f"/players/{A}/history?system=OTBR",
    f"/players/{A}/explain?system=OTBR&section=JAN",
    "/sections",
    "/sections/JAN",
    "/sections/MAY",
    "/log",
    "/lists",
]


@pytest.fixture
def page(browser):
    """A fresh page that records every dialog (an `alert` would be one)."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    tab = context.new_page()
    tab.dialogs = []
    tab.on("dialog", lambda d: (tab.dialogs.append(d.message), d.dismiss()))
    yield tab
    context.close()


def test_searching_a_player_leads_to_the_player_page(page, base_url):
    # Issue: "Tests load pages, search a player".
    page.goto(base_url + "/")
    page.fill("input[name=q]", "Lovelace")
    page.click("form.search button")
    page.click(f"a[href='/players/{B}']")
    assert page.url == f"{base_url}/players/{B}"
    assert page.text_content("h1") == "Ada Lovelace"
    assert page.locator("table.ratings th[scope=row]").all_text_contents() == ["OTBR"]
    assert page.locator("svg.chart.wide circle").count() == 2


def test_explain_opens_from_the_history_table(page, base_url):
    # Issue: "open explain".
    page.goto(f"{base_url}/players/{A}/history?system=OTBR")
    page.click("a.explain >> nth=0")
    assert "/explain?" in page.url
    assert "equals the stored rating" in page.text_content("p.recomputed")


def test_an_html_shaped_name_shows_verbatim_and_no_alert_fires(page, base_url):
    # Security issue: "a player registered with such a name shows it verbatim, no alert
    # dialog fires".
    for path in (f"/players/{A}", f"/players/{A}/history", "/sections/JAN", "/players?q=2000"):
        page.goto(base_url + path)
        assert SCRIPT in page.text_content("main")
    assert page.dialogs == []


def test_a_screenshot_of_the_player_page_is_a_non_empty_png(page, base_url):
    # Issue: "take a screenshot that the test checks is non-empty".
    page.goto(f"{base_url}/players/{B}")
    shot = page.screenshot(full_page=True)
    assert shot.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(shot) > 5_000


@pytest.fixture
def phone(browser):
    """A page 390 px wide, as on a phone."""
    context = browser.new_context(viewport={"width": 390, "height": 800})
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("path", PAGES)
def test_no_page_scrolls_sideways_on_a_390_px_phone(phone, base_url, path):
    # Issue 11: "Tables fit 390 px (responsive, no sideways overflow)".
    phone.goto(base_url + path)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_legend_shows_each_system_in_its_own_colour(page, base_url):
    page.goto(f"{base_url}/players/{C}")
    legend = page.locator("svg.chart.wide text.legend")
    assert legend.all_text_contents() == ["OTBR", "OTBQ"]
    fills = [t.evaluate("e => getComputedStyle(e).fill") for t in legend.all()]
    lines = [
        p.evaluate("e => getComputedStyle(e).stroke")
        for p in page.locator("svg.chart.wide polyline").all()
    ]
    assert fills[0] != fills[1]
    assert fills == lines


def test_the_phone_sees_the_narrow_chart_and_the_desk_the_wide_one(page, phone, base_url):
    page.goto(f"{base_url}/players/{C}")
    phone.goto(f"{base_url}/players/{C}")
    assert page.locator("svg.chart.wide").is_visible()
    assert not page.locator("svg.chart.narrow").is_visible()
    assert phone.locator("svg.chart.narrow").is_visible()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_screen_reader_meets_the_chart_once(browser, base_url, width):
    # Issue 31: "the rating chart's text appears twice to a screen reader: accessible once":
    # one image, named by its description, and none of the drawings' own text.
    context = browser.new_context(viewport={"width": width, "height": 800})
    tab = context.new_page()
    try:
        tab.goto(f"{base_url}/players/{C}")
        images = tab.get_by_role("img")
        assert images.count() == 1
        tree = tab.locator("main").aria_snapshot()
        assert tree.count("Rating history") == 1
        assert "OTBR" in images.first.get_attribute("aria-label")
        assert "OTBQ" in images.first.get_attribute("aria-label")
        # without the stylesheet that hides one drawing (a reader mode, a text browser)
        tab.evaluate("document.querySelectorAll('link[rel=stylesheet]').forEach(x => x.remove())")
        assert tab.locator("svg.chart.narrow").is_visible()
        assert tab.get_by_role("img").count() == 1
        assert tab.locator("main").aria_snapshot().count("Rating history") == 1
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_log_reads_as_entries_at_desk_and_phone_width(browser, base_url, width):
    # Issue 31: "the log page shows raw data{…} blobs": each entry's fields as labelled
    # values, within the page's width.
    context = browser.new_context(viewport={"width": width, "height": 800})
    tab = context.new_page()
    try:
        tab.goto(f"{base_url}/log")
        submitted = tab.locator("table.log tbody tr", has_text="Section submitted").first
        assert submitted.locator("dl.entry dt").all_text_contents()[:2] == [
            "section id",
            "event name",
        ]
        assert submitted.locator("dl.entry dd a").first.is_visible()
        assert tab.locator("pre").count() == 0
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


def test_a_search_without_accents_finds_the_accented_name(page, base_url):
    page.goto(base_url + "/")
    page.fill("input[name=q]", "Briain, Zoe O")
    page.click("form.search button")
    result = page.locator("ul.results li")
    assert result.count() == 1
    assert "Zoë Ó Briain" in result.text_content()
    assert "OTBR" in result.text_content()


def test_the_home_page_leads_through_the_latest_sections_to_a_crosstable(page, base_url):
    page.goto(base_url + "/")
    assert page.locator("table.sections a").all_text_contents()[:2] == ["MAY", "APR"]
    page.click("text=All 4 sections")
    assert page.url == base_url + "/sections"
    page.click("table.sections a >> text=JAN")
    assert page.url == base_url + "/sections/JAN"
    assert page.locator("table.crosstable tbody tr").count() == 4


def test_the_player_page_lists_tournaments_linked_to_their_crosstables(page, base_url):
    page.goto(f"{base_url}/players/{B}")
    rows = page.locator("table.played tbody tr")
    assert rows.count() == 2
    assert "MAR" in rows.nth(0).text_content() and "2/2" in rows.nth(0).text_content()
    assert "→" in rows.nth(0).text_content()
    rows.nth(1).locator("a").click()
    assert page.url == base_url + "/sections/JAN"


def test_explain_shows_one_row_per_game_with_the_opponents_name(page, base_url):
    page.goto(f"{base_url}/players/{A}/explain?system=OTBR&section=JAN")
    rows = page.locator("table.games tbody tr")
    assert rows.count() == 3
    assert "Ada Lovelace" in rows.nth(0).text_content()
    assert page.locator("dd:empty").count() == 0


def test_a_withdrawn_section_says_who_withdrew_it_and_why(page, base_url):
    page.goto(f"{base_url}/sections/MAY")
    text = page.text_content("p.withdrawn")
    assert "Withdrawn from rating by admin" in text
    assert "not rateable" in text


def test_the_log_opens_on_the_newest_entry_and_filters_by_type(page, base_url):
    page.goto(f"{base_url}/log")
    first = page.locator("table.log tbody tr").first
    assert "Section withdrawn" in first.text_content()  # issue 31: the kind in words
    first.locator("a >> text=Section withdrawn").click()
    assert page.locator("table.log tbody tr").count() == 1
    assert "Only entries of type SectionWithdrawn" in page.text_content("p.filter")


def test_no_label_of_the_phones_chart_is_clipped(phone, base_url):
    # Issue 20: "no ... clipped chart label at 390 px": every text of the narrow chart lies
    # inside its drawing, as Chromium lays it out.
    phone.goto(f"{base_url}/players/{C}")
    boxes = phone.evaluate(
        """() => [...document.querySelectorAll('svg.chart.narrow text')].map(t => {
            const b = t.getBBox(), v = t.ownerSVGElement.viewBox.baseVal;
            return [t.textContent, b.x, b.x + b.width, v.width];
        })"""
    )
    assert boxes
    for label, left, right, width in boxes:
        assert left >= 0 and right <= width, label
