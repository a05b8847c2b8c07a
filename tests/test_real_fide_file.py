"""Issue 30, "how we will check it": a real FIDE tournament file with two published lists —
"the crosstable, explain and player pages show the file's FIDE ratings and numbers that add
up". The file is tests/fixtures/real/karl-mala-2005.trf (the 9. Karl-Mala-Gedenkturnier,
Frankfurt, 28–31 July 2005: 284 players, 146 with a FIDE id and rating; source in
tests/fixtures/real/README.md), imported with `import trf --register-players`, between the FIDE
lists of 1 July and 1 October 2005 (fide-2003: 10.6 ΔR = K(W − We) per tournament, 10.65 the
October list sums the period)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.results import RATED_RESULTS

KARL_MALA = Path(__file__).parent / "fixtures" / "real" / "karl-mala-2005.trf"
SECTION = "2005-07-28-9-karl-mala-gedenkturnier"
VASQUEZ = "3400042"


def file_ratings() -> dict[str, int]:
    """Each FIDE id's rating as the file's 001 lines give it (TRF16: columns 49–52, 58–68)."""
    out = {}
    for line in KARL_MALA.read_text(encoding="latin-1").splitlines():
        if line.startswith("001") and line[57:68].strip() and line[48:52].strip():
            out[line[57:68].strip()] = int(line[48:52])
    return out


@pytest.fixture(scope="module")
def cli(tmp_path_factory, shared_keyring):
    where = tmp_path_factory.mktemp("karl-mala")
    store = f"sqlite:///{where / 'ledger.db'}"

    def run(*args: str) -> str:
        result = CliRunner().invoke(app, [*args, "--store", store])
        assert result.exit_code == 0, result.output
        return result.output

    run("init", "--actor", "director")
    run("import", "trf", str(KARL_MALA), "--register-players", "--actor", "director")
    publish = ("publish-list", "--family", "fide", "--actor", "director")
    run(*publish, "--name", "2005-07", "--as-of", "2005-07-01")
    run(*publish, "--name", "2005-10", "--as-of", "2005-10-01")
    cli = lambda *args: run(*args, "--rules-family", "fide")  # noqa: E731
    cli.store, cli.where = store, where  # type: ignore[attr-defined]
    return cli


@pytest.fixture(scope="module")
def table(cli):
    return json.loads(cli("crosstable", SECTION, "--json"))


def test_the_crosstable_rates_every_rated_player_from_the_files_fide_rating(table):
    # Issue 30: "the file's FIDE ratings appear nowhere"; 10.6: Ro is his published rating.
    given = file_ratings()
    rated = {r["player"]: r["ratings"]["FIDE"] for r in table["rows"] if "FIDE" in r["ratings"]}
    ro = {pid: x["pre"] for pid, x in rated.items() if x["pre"] is not None}
    assert len(given) == 146 and len(ro) >= 140
    assert all(ro[pid] == given[pid] for pid in ro)
    assert rated[VASQUEZ]["pre"] == 2558 and rated[VASQUEZ]["k"] == 10  # 10.641: 2400 reached


def test_each_delta_r_is_k_times_w_minus_we_and_the_list_adds_it_to_ro(cli, table):
    # 10.6 ΔR = K(W − We); 10.65 Rn = Ro + ΣΔR on the October list (one tournament: ΣΔR = ΔR).
    listed = {
        r["id"]: r
        for r in json.loads(cli("list", "--system", "FIDE", "--list", "2005-10", "--json"))
    }
    checked = 0
    for r in table["rows"]:
        x = r["ratings"].get("FIDE")
        if x is None or x["pre"] is None:
            continue
        on_list = listed[r["player"]]
        assert on_list["rating"] == pytest.approx(x["pre"] + x["change"]), r["player"]
        checked += 1
    assert checked >= 140
    out = json.loads(cli("explain", VASQUEZ, "--system", "FIDE", "--section", SECTION, "--json"))
    fide = out["fide"]
    assert fide["ΔR"] == pytest.approx(fide["K"] * (fide["W"] - fide["We"]))  # 10 × (6 − 6.02)
    assert fide["period"]["Rn"] == pytest.approx(fide["Ro"] + fide["ΔR"]) == 2557.8
    assert fide["period"]["published"] == 2558


def test_w_d_l_are_the_results_of_every_game_the_file_gives(cli, table):
    # Issue 30: "W/D/L are the results" (3/7 showed as 0/0/1): each player's wins, draws and
    # losses are his rated games in the file, whoever the opponent.
    report = json.loads(cli("section", SECTION, "--json"))
    results: dict[str, list[float]] = {}
    for g in report["games"]:
        white = RATED_RESULTS.get(g["result"])
        if white is not None:
            results.setdefault(g["white"], []).append(white)
            results.setdefault(g["black"], []).append(1 - white)
    player = json.loads(cli("player", VASQUEZ, "--json"))["ratings"]["FIDE"]
    mine = results[VASQUEZ]
    assert (
        (player["wins"], player["draws"], player["losses"])
        == (
            mine.count(1),
            mine.count(0.5),
            mine.count(0),
        )
        == (5, 2, 0)
    )


def test_explain_names_the_rating_the_tournament_is_rated_from_and_n_counts_games_rated(cli):
    # Issue 30: "the page shows Ro, ... K and the list row the tournament is rated from";
    # "N and Games count games rated". No list before July held him: his Ro is the file's.
    text = cli("explain", VASQUEZ, "--system", "FIDE", "--section", SECTION)
    assert "Ro 2558.0000, ΔR -0.20 (K 10.0), on list 2005-10: 2558" in text
    assert "N 0 → 7 (earlier games not known)" in text
    assert 'Ro_from: "the FIDE rating his profile publishes"' in text
    assert "not counted" not in text  # his 7 games are in the sums (10.0's Rc of 7)


def test_the_site_shows_the_lists_the_crosstable_and_the_player(cli, table):
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(cli.store, cli.where / "web-fide.db", "fide")
    lists = get(site, "/lists").text
    assert "2005-07" in lists and "2005-10" in lists
    section = get(site, f"/sections/{SECTION}").text
    assert "<th>FIDE standard Ro, ΔR, K</th>" in section
    assert "Ro 2558 ΔR -0.20 K 10" in section
    assert "40 moves in 120 min, then 60 min (40/120, SD/60); FIDE standard" in section
    page = get(site, f"/players/{VASQUEZ}").text
    assert "2558" in page and "not known" in page
    assert ">FIDE standard</a></th>" in page  # the list's name in FIDE's words
