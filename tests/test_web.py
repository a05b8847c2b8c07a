"""The audit site over HTTP (a WSGI test client): every page, its JSON twin, the times, and the
security promises (read-only, localhost by default, only its static files, escaping)."""

from __future__ import annotations

import inspect
import json
import re
import threading
import urllib.request
from urllib.error import HTTPError
from urllib.parse import urlencode
from wsgiref.util import setup_testing_defaults

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.entrypoints.cli.serve import serve, server
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.sessions import Kept
from ledger.log import read_entries

A, B, C = "20000001", "20000002", "20000003"
SCRIPT = "<script>alert(1)</script>"
EVENT = "<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A small ledger: A named like an HTML script, two sections, one corrected later."""
    store = f"sqlite:///{tmp_path_factory.mktemp('web') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(A, name=SCRIPT, adult=True)
    ledger.register(B, name="Ada Lovelace", adult=True)
    ledger.register(C, adult=True)
    jan = round_robin("JAN", [A, B, C], "2024-01-06")
    jan["event_name"] = EVENT
    ledger.submit(jan)
    ledger.submit(round_robin("MAR", [A, B], "2024-03-02", results={(A, B): "0-1"}))
    ledger.correct(round_robin("MAR", [A, B], "2024-03-02", results={(A, B): "1/2-1/2"}))
    ledger.app.close()
    return Site(store)


@pytest.fixture(autouse=True)
def answers_made_afresh(site, monkeypatch):
    """Each test's answers are made, not served from those an earlier test's requests kept
    (their making is what most tests here watch; test_kept_answers.py checks the keeping)."""
    monkeypatch.setattr(site, "kept", Kept())


class Response:
    def __init__(self, status: str, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = int(status.split()[0])
        self.headers = dict(headers)
        self.text = body.decode()

    def json(self):
        return json.loads(self.text)


def get(site, path: str, query: str = "", method: str = "GET") -> Response:
    environ: dict = {}
    setup_testing_defaults(environ)
    environ.update(PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=method)
    started = {}

    def start_response(status, headers):
        started.update(status=status, headers=headers)

    body = b"".join(site(environ, start_response))
    return Response(started["status"], started["headers"], body)


def entries(site):
    with RatingsLedger(site.store) as ledger:
        return list(read_entries(ledger))


PAGES = [
    ("/players", "q=2000"),
    (f"/players/{A}", ""),
    (f"/players/{A}/history", "system=OTBR"),
    (f"/players/{A}/explain", "system=OTBR&item=section:JAN"),
    ("/sections/JAN", ""),
    ("/log", ""),
]


@pytest.mark.parametrize(("path", "query"), PAGES)
def test_every_page_has_a_json_twin_under_api(site, path, query):
    # Issue: "`/api/...` JSON twins of each page".
    page = get(site, path, query)
    twin = get(site, "/api" + path, query)
    assert page.status == twin.status == 200
    assert page.headers["Content-Type"].startswith("text/html")
    assert twin.headers["Content-Type"] == "application/json"
    assert twin.json()


@pytest.mark.parametrize(("path", "query"), PAGES)
def test_a_json_twin_renders_no_html_and_its_page_renders_one_template(
    site, path, query, monkeypatch
):
    # Issue 21: "append → visible on the page ≤ 50 ms"; a twin asked for builds only its
    # data (no template rendered), the page renders its own template once.
    from ledger.entrypoints.web import render

    rendered: list[str] = []
    real = render.render

    def counted(template, **context):
        rendered.append(template)
        return real(template, **context)

    monkeypatch.setattr(render, "render", counted)
    assert get(site, "/api" + path, query).status == 200
    assert rendered == []
    assert get(site, path, query).status == 200
    assert len(rendered) == 1


@pytest.mark.parametrize(("path", "query"), PAGES)
def test_a_twin_is_written_as_the_standard_library_writes_it_indented(
    site, path, query, monkeypatch
):
    # The twin's encoder changed for speed (issue 21; issue 32: its model writes it), not what
    # it shows: byte for byte what json.dumps(indent=2, ensure_ascii=False) wrote before.
    from ledger.entrypoints.web import app

    given = []
    real = app._indented

    def kept(raw):
        given.append(raw)
        return real(raw)

    monkeypatch.setattr(app, "_indented", kept)
    body = get(site, "/api" + path, query).text
    assert body == json.dumps(json.loads(given[0]), indent=2, ensure_ascii=False)


def test_search_finds_a_player_by_member_id_prefix_and_by_part_of_the_name(site):
    # Issue: "player search".
    by_id = get(site, "/api/players", "q=2000000").json()["players"]
    assert [p["id"] for p in by_id] == [A, B, C]
    by_name = get(site, "/api/players", "q=lovel").json()["players"]
    assert [(p["id"], p["name"]) for p in by_name] == [(B, "Ada Lovelace")]
    assert f"href='/players/{B}'" in get(site, "/players", "q=lovel").text


def test_search_treats_percent_and_underscore_as_plain_characters(site):
    # A search for "%" is a search for that character, not for everyone.
    assert get(site, "/api/players", "q=%25").json()["players"] == []
    assert get(site, "/api/players", "q=_").json()["players"] == []


def test_the_player_page_shows_each_system_with_its_floor_and_olm_progress(site):
    # Issue: "a player's ratings in all systems with floors and OLM progress"; §5: an OLM has
    # "an established rating above 2200 for 300 ... rated games".
    data = get(site, f"/api/players/{A}").json()
    otbr = data["ratings"]["OTBR"]
    assert otbr["games"] == 3
    assert otbr["olm_progress"] == "0/300"
    assert "floor" in otbr and "floor_bound" in otbr
    page = get(site, f"/players/{A}").text
    assert f">{otbr['official_rating']}<" in page
    assert "OLM games" in page and "0/300" in page


def test_the_history_page_lists_changes_in_rating_order_with_an_explain_link_each(site):
    # Issue: "the history table, the `explain` view of any change".
    rows = get(site, f"/api/players/{A}/history", "system=OTBR").json()["history"]
    assert [r["item_key"] for r in rows] == ["section:JAN", "section:MAR"]
    assert rows[1]["pre_rating"] == rows[0]["post_rating"]
    page = get(site, f"/players/{A}/history", "system=OTBR").text
    links = re.findall(r"href='(/players/\d+/explain[^']*)'", page)
    assert links == [
        f"/players/{A}/explain?system=OTBR&amp;section=JAN",
        f"/players/{A}/explain?system=OTBR&amp;section=MAR",
    ]


def test_the_rating_chart_is_server_rendered_svg_with_one_point_per_change(site):
    # Issue: "a rating-history chart (server-rendered SVG ...)".
    page = get(site, f"/players/{A}/history", "system=OTBR").text
    svg = re.search(r"<svg class='chart wide'.*?</svg>", page).group(0)
    assert svg.count("<circle") == 2
    assert "<script" not in svg


def test_explain_recomputes_the_stored_rating_and_names_the_positions_that_fed_it(site):
    # Issue: "the `explain` view of any change"; explain reports "whether the recomputed
    # rating equals the stored one" (docs/decisions.md).
    out = get(site, f"/api/players/{A}/explain", "system=OTBR&item=section:JAN").json()
    assert out["result"]["recomputes"] is True
    page = get(site, f"/players/{A}/explain", "system=OTBR&item=section:JAN").text
    assert "equals the stored rating" in page
    for fed in out["fed_by"]:
        assert f"/log?after={fed['position'] - 1}" in page


def test_the_section_page_is_the_crosstable(site):
    # Issue: "a section's crosstable": A beat B and C, B beat C in a round robin.
    out = get(site, "/api/sections/JAN").json()
    assert [(r["player"], r["cells"], r["total"]) for r in out["rows"]] == [
        (A, ["W2", "W3", "U--"], 2.0),
        (B, ["L1", "U--", "W3"], 1.0),
        (C, ["U--", "L1", "L2"], 0.0),
    ]


def test_the_log_shows_every_entry_with_its_position(site):
    # Issue: "the ledger log with positions".
    out = get(site, "/api/log").json()
    assert [x["position"] for x in out["entries"]] == [e.position for e in entries(site)][::-1]
    assert "<td data-label='Position'>1</td>" in get(site, "/log").text


def test_the_log_names_a_role_in_words(site):
    # Issue 20: the log as a person reads it: "td: tournament director", not a raw enum value.
    page = get(site, "/log").text
    assert "td: tournament director" in page and "tournament_director<" not in page


def test_the_log_pages_forward_after_a_position(site):
    out = get(site, "/api/log", "after=5").json()
    assert out["entries"][-1]["position"] == 6


def test_as_of_shows_the_rating_in_effect_on_that_day(site):
    # Issue: "`?as_of=` ... on every page": the rating after every item ended by that day.
    history = get(site, f"/api/players/{A}/history", "system=OTBR").json()["history"]
    then = get(site, f"/api/players/{A}", "as_of=2024-02-01").json()["ratings"]["OTBR"]
    assert then["rating"] == history[0]["post_rating"]
    assert then["games"] == history[0]["games_after"]
    rows = get(site, f"/api/players/{A}/history", "system=OTBR&as_of=2024-02-01").json()
    assert [r["item_key"] for r in rows["history"]] == ["section:JAN"]


def test_as_known_at_shows_the_ledger_before_a_later_correction(site):
    # Issue: "`?as_known_at=` ... on every page": what the ledger said before MAR's correction.
    log = entries(site)
    corrected = next(e for e in log if e.type == "SectionCorrected")
    before = log[log.index(corrected) - 1]
    known = urlencode({"as_known_at": before.recorded_at})
    now = get(site, "/api/sections/MAR").json()
    then = get(site, "/api/sections/MAR", known).json()
    assert [r["cells"] for r in now["rows"]] == [["D2"], ["D1"]]
    assert [r["cells"] for r in then["rows"]] == [["L2"], ["W1"]]
    past_log = get(site, "/api/log", known).json()
    assert past_log["entries"][0]["position"] == before.position
    page = get(site, "/sections/MAR", known).text
    assert f"position {before.position}" in page


def test_links_keep_the_page_times(site):
    page = get(site, f"/players/{A}", "as_of=2024-02-01").text
    assert f"/players/{A}/history?system=OTBR&amp;as_of=2024-02-01" in page


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        (f"/players/{A}", "as_of=Feb+1", 400),
        (f"/players/{A}", "as_known_at=yesterday", 400),
        ("/log", "as_known_at=2000-01-01", 404),
        ("/players/99999999", "", 404),
        (f"/players/{A}/explain", "system=OTBR&item=section:NOPE", 404),
        (f"/players/{A}/explain", "item=section:JAN", 400),
        ("/sections/NOPE", "", 404),
        ("/nowhere", "", 404),
    ],
)
def test_bad_requests_get_a_clear_status_on_the_page_and_its_twin(site, path, query, status):
    assert get(site, path, query).status == status
    twin = get(site, "/api" + path, query)
    assert twin.status == status
    assert twin.json()["detail"]  # problem details (RFC 9457, issue 32)


@pytest.mark.parametrize(("path", "query"), [*PAGES, ("/sections/MAR", "")])
def test_html_shaped_names_are_shown_escaped_on_every_page(site, path, query):
    # Security issue: "every page escapes identifiers/names shaped like HTML".
    text = get(site, path, query).text
    assert "<script>alert" not in text
    assert "<img src=x" not in text
    assert "<script" not in text.lower()


def test_the_name_is_there_verbatim_once_unescaped(site):
    import html

    page = get(site, f"/players/{A}").text
    assert html.escape(SCRIPT) in page
    assert html.escape(EVENT) in get(site, "/sections/JAN").text


def test_pages_forbid_scripts_by_content_security_policy(site):
    policy = get(site, f"/players/{A}").headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy
    assert "script-src" not in policy  # so default-src 'none' forbids every script


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_the_site_is_read_only(site, method):
    # Security issue: "`serve` is read-only".
    before = len(entries(site))
    response = get(site, "/log", method=method)
    assert response.status == 405
    assert response.headers["Allow"] == "GET, HEAD"
    assert len(entries(site)) == before


def test_visiting_every_page_appends_nothing_to_the_ledger(site):
    before = entries(site)
    for path, query in PAGES:
        get(site, path, query)
        get(site, "/api" + path, query)
    assert entries(site) == before


def test_head_answers_headers_without_a_body(site):
    response = get(site, "/log", method="HEAD")
    assert response.status == 200
    assert response.text == ""
    assert int(response.headers["Content-Length"]) > 0


@pytest.mark.parametrize(
    "path",
    [
        "/static/../app.py",
        "/static/../../store.py",
        "/static//etc/passwd",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/",
        "/static/missing.css",
    ],
)
def test_no_file_outside_the_static_folder_is_served(site, path):
    # Security issue: "serves no file outside its own static folder".
    assert get(site, path).status == 404


def test_the_stylesheet_is_served_locally(site):
    # Issue: "no CDN: everything served locally".
    response = get(site, "/static/style.css")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/css")
    page = get(site, f"/players/{A}").text
    assert re.findall(r"(?:href|src)='(https?:)", page) == []


def test_serve_binds_to_localhost_by_default():
    # Security issue: "binds to 127.0.0.1 by default".
    assert inspect.signature(serve).parameters["host"].default == "127.0.0.1"


def test_the_server_answers_real_http_requests(site):
    httpd = server(site, port=0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_port}"
        with urllib.request.urlopen(f"{base}/api/players/{A}") as answer:
            assert json.load(answer)["id"] == A
        with pytest.raises(HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(f"{base}/log", data=b"x"))
        assert refused.value.code == 405
    finally:
        httpd.shutdown()
        httpd.server_close()
