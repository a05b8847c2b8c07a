"""Issue 30, cause 5: "one site serves every family the ledger rates, each at its own address,
with a family switch; the list index names every family's lists" (today a FIDE site needs a
second `serve`, the ICU a third, and the default site's list index names no FIDE list).

The ledger: the tests' real FIDE tournament file (tests/fixtures/lakeside-fide-open-2024.trf)
imported as delivered, its six players given ICU opening balances (2000, 2050, … 2250 in the
file's order, 40 games), then the FIDE list 2024-10 and a US Chess list 2024-11 published."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest
from test_web import get
from test_web_browser import browser  # noqa: F401  (the fixture)
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.cli.serve import every_family, follow, server
from ledger.entrypoints.web.app import Site
from ledger.reading import open_ledger
from ledger.rules.icu.expectancy import expected_score
from ledger.store import view_path
from projections.projector import View

LAKESIDE = Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf"
SECTION = "2024-09-14-lakeside-fide-open-2024"
SOKOLOV, PARK, ORTIZ, CHEN, NOVAK, KIM = (
    *("14700011", "5500012", "2000002", "2000006", "300001", "2000007"),
)
PATIENCE_SECONDS = 60  # a loaded test machine; the property is "eventually, unasked"
ICU_OPENING = {p: 2000 + 50 * i for i, p in enumerate((SOKOLOV, PARK, ORTIZ, CHEN, NOVAK, KIM))}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return _ledger(tmp_path_factory.mktemp("sites"))


def _ledger(tmp: Path) -> str:
    """The ledger of this file's docstring, in `tmp`."""
    store = f"sqlite:///{tmp / 'ledger.db'}"
    balances = tmp / "icu.json"
    rows = [
        {"player": p, "system": "ICU", "as_of": "2024-01-01", "rating": r, "games": 40}
        for p, r in ICU_OPENING.items()
    ]
    balances.write_text(json.dumps(rows))
    runner = CliRunner()
    for args in (
        ["init"],
        ["import", "trf", str(LAKESIDE), "--register-players"],
        ["opening-balance", str(balances)],
        ["publish-list", "--family", "fide", "--name", "2024-10", "--as-of", "2024-10-01"],
        ["publish-list", "--family", "uschess", "--name", "2024-11", "--as-of", "2024-11-01"],
    ):
        result = runner.invoke(app, [*args, "--actor", "director", "--store", store])
        assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="module")
def site(store):
    """One site: US Chess (the default) at `/`, every family under `/<family>/`."""
    return Site(store)


def _switch(page: str) -> list[tuple[str, str, bool]]:
    """The family switch of a page: (link, federation, current) each."""
    nav = re.search(r"<nav class='families' aria-label='Rules family'>(.*?)</nav>", page)
    assert nav is not None
    return [
        (link, words, current == " aria-current='page'")
        for link, current, words in re.findall(
            r"<a href='([^']*)'( aria-current='page')?>([^<]*)</a>", nav[1]
        )
    ]


def test_one_site_answers_each_familys_rating_at_its_own_address(site):
    # Issue 30: "one site serves every family the ledger rates, each at its own address".
    # FIDE (8.3.4, the list 2024-10): Sokolov's 2615 − 2.80 → 2612. ICU: "Rn = Ro + K(W − We)"
    # from his opening 2000, 2.5 of 3 against Chen 2150, Park 2050 and Kim 2250 (K 24).
    default = get(site, f"/api/players/{SOKOLOV}").json()["ratings"]
    fide = get(site, f"/api/fide/players/{SOKOLOV}").json()["ratings"]
    icu = get(site, f"/api/icu/players/{SOKOLOV}").json()["ratings"]
    assert list(default) == ["OTBR"] and list(fide) == ["FIDE"] and list(icu) == ["ICU"]
    assert fide["FIDE"]["official_rating"] == 2612
    we = expected_score(2000, [ICU_OPENING[CHEN], ICU_OPENING[PARK], ICU_OPENING[KIM]])
    assert icu["ICU"]["k"] == 24
    assert icu["ICU"]["official_rating"] == round(2000 + 24 * (2.5 - we)) == 2038


@pytest.mark.parametrize("family", ["uschess", "fide", "icu"])
def test_each_familys_address_answers_as_a_site_of_that_family_alone(store, site, family):
    # Issue 30: the family's pages are what a `serve --rules-family FAMILY` answered before.
    alone = Site(store, family=family)
    for path in (f"/players/{SOKOLOV}", f"/sections/{SECTION}", "/problems"):
        assert get(site, f"/api/{family}{path}").json() == get(alone, f"/api{path}").json()


def test_the_default_family_keeps_every_address_it_had(store, site):
    # Brief: "the default family at `/` as today (so every existing URL keeps working)".
    uschess = get(site, "/api/uschess/players/" + SOKOLOV).json()
    assert get(site, "/api/players/" + SOKOLOV).json() == uschess
    fide_at_root = Site(store, family="fide")
    assert get(fide_at_root, "/api/lists/2024-10").json()["rows"][0]["rating"] == 2612


def test_a_familys_pages_link_within_its_address_and_say_which_family(site):
    # Issue 30: each family "at its own address"; its pages say which family they show.
    page = get(site, f"/fide/players/{SOKOLOV}").text
    assert "<title>GM Sokolov, Ivan · FIDE · ratings-ledger</title>" in page
    assert "<span class='family'>FIDE rules</span>" in page
    assert f"<a href='/fide/players/{SOKOLOV}/history?system=FIDE'>FIDE standard</a>" in page
    assert "<a href='/fide/lists'>Lists</a>" in page
    assert "action='/fide/players'" in get(site, "/fide/players", "q=Sokolov").text
    assert f"href='/players/{SOKOLOV}/" not in page  # no link strays to the default family
    crosstable = get(site, f"/icu/sections/{SECTION}").text
    assert f"<a href='/icu/players/{CHEN}' title='Chen, Fay'>W4</a>" in crosstable


def test_the_list_index_names_every_familys_published_lists(site):
    # Issue 30: "the list index names every family's lists", linked to its family's pages.
    for prefix in ("", "/fide", "/icu"):
        page = get(site, prefix + "/lists").text
        assert "<a href='/fide/lists/2024-10'>2024-10</a>" in page
        assert "<a href='/lists/2024-11'>2024-11</a>" in page
    out = get(site, "/api/fide/lists").json()
    assert [x["name"] for x in out["lists"]] == ["2024-10"]  # the page's family's, as before
    named = {f["family"]: [x["name"] for x in f["lists"]] for f in out["families"]}
    assert named == {"fide": ["2024-10"], "uschess": ["2024-11"]}
    assert [f["address"] for f in out["families"]] == ["/fide", ""]


def test_a_family_the_site_does_not_serve_is_named_on_the_list_index_unlinked(store):
    site = Site(store, family="fide", families=["fide"])
    page = get(site, "/lists").text
    assert "<h2 id='uschess'>US Chess lists</h2>" in page and "<td>2024-11</td>" in page
    assert "/lists/2024-11" not in page
    assert "class='families'" not in page  # one family: no switch


def test_the_switch_links_the_same_page_in_each_family(site):
    # Brief: "a family switch on every page ... linking to the same page in the other family
    # where it exists"; the history keeps the system only where the family keeps it.
    page = get(site, f"/fide/players/{SOKOLOV}/history", "system=FIDE&as_of=2024-12-31").text
    assert _switch(page) == [
        (f"/players/{SOKOLOV}/history?as_of=2024-12-31", "US Chess", False),
        (f"/fide/players/{SOKOLOV}/history?system=FIDE&amp;as_of=2024-12-31", "FIDE", True),
        (f"/icu/players/{SOKOLOV}/history?as_of=2024-12-31", "ICU", False),
    ]
    assert [x[0] for x in _switch(get(site, f"/sections/{SECTION}").text)] == [
        f"/sections/{SECTION}",
        f"/fide/sections/{SECTION}",
        f"/icu/sections/{SECTION}",
    ]


def test_the_switch_leads_to_the_familys_index_where_it_has_no_such_page(site):
    # Brief: "... else that family's index": FIDE's list 2024-10 is no US Chess or ICU list;
    # an explanation in FIDE's system is no other family's.
    assert [x[0] for x in _switch(get(site, "/fide/lists/2024-10").text)] == [
        "/lists",
        "/fide/lists/2024-10",
        "/icu/lists",
    ]
    explain = f"/fide/players/{SOKOLOV}/explain"
    page = get(site, explain, f"system=FIDE&section={SECTION}").text
    assert [x[0] for x in _switch(page)] == [
        f"/players/{SOKOLOV}",
        f"{explain}?system=FIDE&amp;section={SECTION}",
        f"/icu/players/{SOKOLOV}",
    ]
    for link, _, _ in _switch(page):
        path, _, query = link.replace("&amp;", "&").partition("?")
        assert get(site, path, query).status == 200


def test_each_family_page_has_its_json_twin_under_api_family(site):
    # Brief: "its JSON twins under /api/<family>/...".
    page = get(site, f"/icu/players/{SOKOLOV}", "as_of=2024-12-31").text
    twin = f"/api/v1/icu/players/{SOKOLOV}?as_of=2024-12-31"  # issue 32: the versioned API
    assert f"<a href='{twin}' type='application/json' rel='alternate'>" in page
    assert get(site, "/api/icu/players/" + SOKOLOV, "as_of=2024-12-31").json()["as_of"] == (
        "2024-12-31"
    )
    assert get(site, "/api/fide").json() == get(site, "/api/fide/").json()


def test_a_family_address_reads_the_ledger_as_it_stood_and_its_switch_keeps_the_moment(site):
    # Brief: "as_of/as_known_at" on every page. README: "with no fide list yet it applies
    # each section at once": before the list 2024-10, Sokolov's FIDE rating is 2615 − 2.80
    # unrounded and dated by the section; after it, the list's 2612 dated 1 October.
    entries = get(site, "/api/fide/log", "type=ListPublished").json()["entries"]
    listed = next(e["position"] for e in entries if e["payload"]["family"] == "fide")
    before = f"position={listed - 1}"
    fide = get(site, f"/api/fide/players/{SOKOLOV}", before).json()["ratings"]["FIDE"]
    assert (fide["rating"], fide["rated_on"]) == (pytest.approx(2615 - 2.80), "2024-09-15")
    now = get(site, f"/api/fide/players/{SOKOLOV}").json()["ratings"]["FIDE"]
    assert (now["rating"], now["rated_on"]) == (2612, "2024-10-01")
    page = get(site, f"/fide/players/{SOKOLOV}", before).text
    assert f"as the ledger stood at position {listed - 1}" in page
    assert [x[0] for x in _switch(page)] == [
        f"{prefix}/players/{SOKOLOV}?{before}" for prefix in ("", "/fide", "/icu")
    ]


@pytest.mark.parametrize("api", ["", "/api"])
def test_an_unknown_family_prefix_is_404_in_one_line(site, api):
    # Brief: "an unknown family prefix is 404 in one line".
    answer = get(site, api + f"/ecf/players/{SOKOLOV}")
    assert answer.status == 404
    shown = re.search(r"<p class='error'>(.*)</p>", answer.text)
    message = answer.json()["detail"] if api else shown and shown[1]
    assert "\n" not in message
    assert "no rules family this site serves (uschess, fide, icu)" in message


def test_a_family_left_out_by_families_is_404_naming_those_served(store):
    site = Site(store, families=["uschess", "fide"])
    answer = get(site, f"/api/icu/players/{SOKOLOV}")
    assert answer.status == 404
    assert answer.json()["detail"] == (
        f"no page at /icu/players/{SOKOLOV}: this site does not serve the icu rules "
        "(it serves uschess, fide; serve --families)"
    )
    assert get(site, f"/api/fide/players/{SOKOLOV}").status == 200


def test_a_family_address_is_read_only_and_keeps_the_security_headers(site):
    # Issue 10 and the brief: "the security headers, HEAD/GET only".
    head = get(site, f"/fide/players/{SOKOLOV}", method="HEAD")
    assert head.status == 200 and head.text == ""
    assert "frame-ancestors 'none'" in head.headers["Content-Security-Policy"]
    posted = get(site, f"/fide/players/{SOKOLOV}", method="POST")
    assert posted.status == 405 and posted.headers["Allow"] == "GET, HEAD"


def test_serve_refuses_a_families_option_naming_no_family_in_one_line(store):
    out = CliRunner().invoke(app, ["serve", "--families", "fide,ecf", "--store", store])
    assert out.exit_code == 2
    assert out.output == "error: --families 'fide,ecf': name one or more of uschess, fide, icu\n"


def test_serve_families_chooses_the_families_and_the_one_at_the_root(store):
    # Brief: "A `serve --families uschess,fide` option may restrict it"; decision (docs/
    # decisions.md): a default family left out gives `/` to the first family named.
    site = every_family(store, None, "uschess", "fide, uschess")
    assert (site.family, site.served.families) == ("uschess", ("uschess", "fide"))
    site = every_family(store, None, "uschess", "fide")
    assert (site.family, site.served.families) == ("fide", ("fide",))
    assert get(site, f"/api/players/{SOKOLOV}").json()["ratings"]["FIDE"]["rating"] == 2612
    assert (
        get(site, f"/api/players/{SOKOLOV}").json()
        == get(site, f"/api/fide/players/{SOKOLOV}").json()
    )
    assert every_family(store, None, "fide", None).served.families == ("uschess", "fide", "icu")


def test_serve_keeps_each_served_familys_read_model_caught_up_unasked(tmp_path):
    # Brief: "each with its own read model and follower" (issue 21: a follower keeps the
    # served read model warm before any page is asked for).
    store = _ledger(tmp_path)
    site = every_family(store, None, "uschess", "uschess,icu")
    followers = follow(site)
    try:
        reader = open_ledger(store)
        head = reader.recorder.max_notification_id()
        reader.close()
        for family in ("uschess", "icu"):
            assert _reaches(site.views[family], family, head)
        assert not view_path(store, None, "fide").exists()  # not served, never built
    finally:
        for follower in followers:
            follower.stop()


def _reaches(path: Path, family: str, head: int) -> bool:
    """Whether `family`'s read model at `path` reaches the ledger's position `head`, unasked."""
    deadline = time.monotonic() + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        if path.exists():
            view = View(path, family)
            try:
                if view.last_position == head:
                    return True
            finally:
                view.close()
        time.sleep(0.01)
    return False


@pytest.fixture(scope="module")
def served(store):
    httpd = server(Site(store), port=0, quiet=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_switch_is_usable_in_a_browser_at_1280_and_390_px(browser, served, width):  # noqa: F811
    # Brief: "accessible (a nav with aria-current) and usable at 390 px".
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{served}/players/{SOKOLOV}")
        switch = page.get_by_role("navigation", name="Rules family")
        assert switch.get_by_role("link").all_text_contents() == ["US Chess", "FIDE", "ICU"]
        switch.get_by_role("link", name="FIDE").click()
        assert page.url == f"{served}/fide/players/{SOKOLOV}"
        assert switch.locator("[aria-current=page]").text_content() == "FIDE"
        assert page.locator("table.ratings th[scope=row]").all_text_contents() == ["FIDE standard"]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        box = switch.get_by_role("link", name="ICU").bounding_box()
        assert box is not None and box["x"] + box["width"] <= width and box["height"] >= 18
    finally:
        context.close()
