"""Screenshots of every audit-site page at 1280 px and 390 px, for a person to look at.

Builds a small demo ledger (accented names, sections over two years, a correction, a
withdrawal), serves it and saves one full-page PNG per page and width into OUT (default
/tmp/shots), and the README's picture of the player page (audit-page.png).
Needs Debian's /usr/bin/chromium and playwright.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.entrypoints.cli.serve import server
from ledger.entrypoints.web.app import Site
from ledger.roles import Role
from ledger.signing import Keyring

NAMES = {
    "12000001": "Hans Müller",
    "12000002": "Ada Lovelace",
    "12000003": "Zoë Ó Briain",
    "12000004": "José García-Márquez",
    "12000005": "Li Wei",
    "12000006": "Ingrid Sørensen",
}
WIDTHS = (1280, 390)


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
    app.initialize(actor="director")
    app.grant_role("td", Role.TOURNAMENT_DIRECTOR, actor="director")
    app.grant_role("office", Role.RATINGS_ADMIN, actor="director")
    app.register_player(
        *(parse(RegisterPlayer, {"id": i, "name": n, "adult": True}) for i, n in NAMES.items()),
        actor="td",
    )
    ids = list(NAMES)
    months = ["2023-01-14", "2023-04-08", "2023-09-16", "2024-02-10", "2024-06-22", "2024-11-30"]
    for n, day in enumerate(months):
        players = ids[n % 2 :] if n % 3 else ids
        app.submit_section(
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
    app.withdraw_section("2023-09-OPEN", reason="the arbiter was not certified", actor="office")
    app.close()


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = f"sqlite:///{tmp}/ledger.db"
        demo(store)
        httpd = server(Site(store), port=0)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_port}"
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
        }
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 800})
                for name, path in pages.items():
                    page.goto(base + path)
                    overflow = page.evaluate("document.documentElement.scrollWidth")
                    page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)
                    print(f"{name}-{width}.png scrollWidth={overflow}")
                page.close()
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + pages["player"])
            page.screenshot(path=str(out / "audit-page.png"))
            browser.close()
        httpd.shutdown()
        httpd.server_close()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots"))
