"""Screenshots of every audit-site page at 1280 px and 390 px, for a person to look at.

Builds a small demo ledger (accented names with titles, federations and birth years,
sections over two years, a withdrawal, a published list), serves it, and a second ledger with
the real FIDE tournament file of the tests (tests/fixtures/lakeside-fide-open-2024.trf, rated
under the FIDE rules and summed on a list) served as one site of every family (its FIDE
pages under /fide/, its list index naming the FIDE list at /), and saves one full-page PNG
per page and width into OUT (default /tmp/shots), with each page's sideways overflow, and
the README's picture of the player page (audit-page.png). Needs Debian's /usr/bin/chromium
and playwright.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from ledger.application import RatingsLedger
from ledger.commands import PublishList, RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli.serve import server
from ledger.entrypoints.web.app import Site
from ledger.evidence import Keyring
from ledger.roles import Role
from ledger.rules.families import DEFAULT

NAMES = {
    "12000001": "Hans Müller",
    "12000002": "Ada Lovelace",
    "12000003": "Zoë Ó Briain",
    "12000004": "José García-Márquez",
    "12000005": "Li Wei",
    "12000006": "Ingrid Sørensen",
}
PROFILES = {
    "12000001": {"title": "FM", "fide": {"rating": 2310, "federation": "GER"}, "sex": "m"},
    "12000002": {"birth_date": "1985-12-10", "sex": "w", "fide_id": "2000123"},
    "12000003": {"title": "WIM", "fide": {"rating": 2150, "federation": "IRL"}, "sex": "w"},
    "12000004": {"birth_date": "2010-05-02", "fide": {"rating": 1650, "federation": "ESP"}},
    "12000005": {"birth_date": "1970-03-03", "sex": "m"},
}
WIDTHS = (1280, 390)
LAKESIDE = Path(__file__).parents[1] / "tests" / "fixtures" / "lakeside-fide-open-2024.trf"


def section(
    sid: str, name: str, day: str, players: list[str], flip: int, time_control: str
) -> SubmitSection:
    games = [
        {"round": r, "white": a, "black": b, "result": ("1-0", "0-1", "1/2-1/2")[(r + flip) % 3]}
        for r, (a, b) in enumerate(itertools.combinations(players, 2), start=1)
    ]
    data = {
        "section_id": sid,
        "event_name": name,
        "online": False,
        "time_control": time_control,
        "start_date": day,
        "end_date": day,
        "players": [{"id": p} for p in players],
        "games": games,
    }
    return parse(SubmitSection, data)


def demo(store: str) -> None:
    keyring = Keyring(Path(store.removeprefix("sqlite:///")).parent / "keys")
    for actor in ("director", "td", "office"):
        keyring.ensure(actor)
    app = RatingsLedger(store, keyring=keyring)
    app.roles.initialize(actor="director")
    app.roles.grant("td", Role.TOURNAMENT_DIRECTOR, actor="director")
    app.roles.grant("office", Role.RATINGS_ADMIN, actor="director")
    app.players.register(
        *(
            parse(RegisterPlayer, {"id": i, "name": n, "adult": True, **PROFILES.get(i, {})})
            for i, n in NAMES.items()
        ),
        actor="td",
    )
    ids = list(NAMES)
    months = ["2023-01-14", "2023-04-08", "2023-09-16", "2024-02-10", "2024-06-22", "2024-11-30"]
    for n, day in enumerate(months):
        players = ids[n % 2 :] if n % 3 else ids
        app.sections.submit(
            section(
                f"{day[:7]}-OPEN",
                f"Dublin Open {day[:4]} ({day[5:7]})",
                day,
                players,
                n,
                "G/45" if n >= 4 else "G/90;d30",  # the last two dual-rated: OTBR and OTBQ
            ),
            actor="td",
        )
    app.sections.withdraw("2023-09-OPEN", reason="the arbiter was not certified", actor="office")
    for name, day in (("2024-01", "2024-01-01"), ("2025-01", "2025-01-01")):
        publication = {"family": DEFAULT, "name": name, "as_of": day}
        app.lists.publish(parse(PublishList, publication), actor="office")
    app.close()


def fide_demo(store: str) -> None:
    """The tests' FIDE tournament file imported as delivered, and the list after it."""
    import os

    from typer.testing import CliRunner

    from ledger.entrypoints.cli import app

    os.environ["RATINGS_LEDGER_KEYRING"] = str(Path(store.removeprefix("sqlite:///")).parent)
    runner = CliRunner()
    for args in (
        ["init", "--actor", "director"],
        ["import", "trf", str(LAKESIDE), "--register-players", "--actor", "director"],
        ["publish-list", "--family", "fide", "--name", "2024-10", "--as-of", "2024-10-01"],
    ):
        if args[0] == "publish-list":
            args += ["--actor", "director"]
        result = runner.invoke(app, [*args, "--store", store])
        assert result.exit_code == 0, result.output


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:///{tmp}/ledger.db"
        demo(store)
        Path(f"{tmp}/fide").mkdir()
        fide_store = f"sqlite:///{tmp}/fide/ledger.db"
        fide_demo(fide_store)
        httpd = server(Site(store), port=0)
        fide = server(Site(fide_store), port=0)  # every family: FIDE's pages under /fide/
        for s in (httpd, fide):
            threading.Thread(target=s.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_port}"
        every = f"http://127.0.0.1:{fide.server_port}"
        fide_base = every + "/fide"
        lakeside = "2024-09-14-lakeside-fide-open-2024"
        pages = {
            "home": "/",
            "search": "/players?q=muller",
            "search-last-first": "/players?q=Garcia,+Jose",
            "player": "/players/12000001",
            "history": "/players/12000001/history?system=OTBR",
            "explain": "/players/12000001/explain?system=OTBR&section=2024-06-OPEN",
            "sections": "/sections",
            "section": "/sections/2024-11-OPEN",
            "withdrawn": "/sections/2023-09-OPEN",
            "log": "/log",
            "bad": "/log?after=99999999999999999999999",
            "lists": "/lists",
            "list": "/lists/2025-01",
            "list-women": "/lists/2025-01?sex=w",
            "fide-player": fide_base + "/players/14700011",
            "fide-history": fide_base + "/players/14700011/history",
            "fide-section": fide_base + f"/sections/{lakeside}",
            "fide-explain": fide_base + f"/players/14700011/explain?system=FIDE&section={lakeside}",
            "fide-lists": fide_base + "/lists",
            "fide-list": fide_base + "/lists/2024-10",
            "fide-player-us-chess": every + "/players/14700011",
            "every-familys-lists": every + "/lists",
        }
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 800})
                for name, path in pages.items():
                    page.goto(path if path.startswith("http") else base + path)
                    overflow = page.evaluate("document.documentElement.scrollWidth")
                    page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)
                    print(f"{name}-{width}.png scrollWidth={overflow}")
                page.close()
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + pages["player"])
            page.screenshot(path=str(out / "audit-page.png"))
            browser.close()
        for s in (httpd, fide):
            s.shutdown()
            s.server_close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots"))
