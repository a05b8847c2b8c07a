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
from ledger.cli.serve import server
from ledger.web.app import Site

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
    ledger.register(C, D, adult=True)
    ledger.submit(round_robin("JAN", [A, B, C, D], "2024-01-06"))
    ledger.submit(round_robin("MAR", [A, B, C], "2024-03-02", results={(A, B): "0-1"}))
    ledger.app.close()
    httpd = server(Site(store), port=0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


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
    assert page.text_content("p.name") == "Ada Lovelace"
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
