"""Shared fixtures: a fresh ledger on SQLite (in tmp_path) and on PostgreSQL (own schema)."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ledger import compiled
from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, SubmitSection, parse
from ledger.evidence.signing import KEYRING_VARIABLE, Keyring
from ledger.roles import Role
from ledger.store import view_path

POSTGRES_URL = os.environ.get(
    "RATINGS_LEDGER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("RATINGS_LEDGER_REQUIRE_POSTGRES") == "1"
DIRECTOR = "director"
CAST = {"office": Role.RATINGS_ADMIN, "td": Role.TOURNAMENT_DIRECTOR}
USUAL_ACTORS = (
    *(DIRECTOR, *CAST, "admin", "auditor", "ann", "bea", "bob", "ed", "me", "newcomer", "ola"),
    *("rival", "tom", "membership", "migration", "ratings-office"),
    *(f"{kind}{n}" for kind in "PTW" for n in range(6)),
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that patches a compiled module's internals (a method, a module constant) cannot
    while the compiled modules run (compiled code calls them directly): skipped then;
    scripts/test runs those tests again from source (ledger/compiled.py)."""
    if not compiled.running():
        return
    skip = pytest.mark.skip(reason="patches a compiled module: scripts/test runs it from source")
    for item in items:
        if item.get_closest_marker("patches"):
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def shared_keyring(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keyring]:
    """Every test writes with one keyring made for the session ($RATINGS_LEDGER_KEYRING, never
    ~), holding keys for the actors the tests write as (USUAL_ACTORS)."""
    ring = Keyring(tmp_path_factory.mktemp("keys"))
    for actor in USUAL_ACTORS:
        ring.create(actor)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEYRING_VARIABLE, str(ring.path))
        yield ring


@pytest.fixture
def keyring(shared_keyring: Keyring) -> Keyring:
    """The session's keyring."""
    return shared_keyring


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL; skips (or fails, when required) if it does not answer."""
    import psycopg

    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=3).close()
    except psycopg.Error as exc:
        reason = (
            f"PostgreSQL not reachable at {POSTGRES_URL.split('@')[-1]} — start it or set "
            f"RATINGS_LEDGER_TEST_POSTGRES ({str(exc).strip().splitlines()[0]})"
        )
        if REQUIRE_POSTGRES:
            pytest.fail(reason + "; RATINGS_LEDGER_REQUIRE_POSTGRES=1 forbids skipping")
        pytest.skip(reason)
    return POSTGRES_URL


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store URL of an empty ledger: a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    import psycopg

    base = request.getfixturevalue("postgres_url")
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{base}?schema={schema}"
    try:
        yield url
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        for family in ("uschess", "fide", "icu"):  # read models made in the current folder
            view = str(view_path(url, None, family))
            for leftover in (view, view + "-wal", view + "-shm", view + ".lock"):
                Path(leftover).unlink(missing_ok=True)
            for build in Path(view).parent.glob(Path(view).name + ".build-*"):
                build.unlink(missing_ok=True)  # the builds behind its link (modelfile)
            shutil.rmtree(view + ".checkpoints", ignore_errors=True)


@pytest.fixture
def ledger(store_url: str) -> Iterator[RatingsLedger]:
    """A fresh ledger on each store, set up by `director`; `office` is a ratings admin and `td`
    a tournament director (CAST)."""
    app = RatingsLedger(store_url)
    try:
        app.roles.initialize(actor=DIRECTOR)
        for actor, role in CAST.items():
            app.roles.grant(actor, role, actor=DIRECTOR)
        yield app
    finally:
        app.close()


@pytest.fixture
def register_players(ledger: RatingsLedger) -> Callable[..., None]:
    """Register players by member id."""

    def run(*member_ids: str) -> None:
        ledger.players.register(*(parse(RegisterPlayer, {"id": m}) for m in member_ids), actor="td")

    return run


def section_data(section_id: str = "2024-05-GP-OPEN", **changes: Any) -> dict[str, Any]:
    """A valid section file's content: four players, two rounds."""
    data: dict[str, Any] = {
        "section_id": section_id,
        "event_name": "Grand Prix",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-05",
        "players": [{"id": p} for p in ("12345678", "30000001", "30000002", "30000003")],
        "games": [
            {"round": 1, "white": "12345678", "black": "30000001", "result": "1-0"},
            {"round": 1, "white": "30000002", "black": "30000003", "result": "1/2-1/2"},
            {"round": 2, "white": "30000001", "black": "30000002", "result": "0-1"},
            {"round": 2, "white": "30000003", "black": "12345678", "result": "0F-1F"},
        ],
    }
    data.update(changes)
    return data


SECTION_PLAYERS = ("12345678", "30000001", "30000002", "30000003")


@pytest.fixture
def section_ready(register_players: Callable[..., None]) -> Callable[..., SubmitSection]:
    """Register the section's players and return a parser of section data."""
    register_players(*SECTION_PLAYERS)

    def make(section_id: str = "2024-05-GP-OPEN", **changes: Any) -> SubmitSection:
        return parse(SubmitSection, section_data(section_id, **changes))

    return make


FEDERATION = {
    "20000001": "Hans Müller",
    "20000002": "Ada Lovelace",
    "20000003": "Zoë Ó Briain",
    "20000004": "José García-Márquez",
}


@pytest.fixture(scope="module")
def federation_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A small SQLite ledger with accented names (FEDERATION) and a fifth player without a
    name: sections JAN (all four, 2024-01-06), MAR (three, 2024-03-02, Lovelace beats Müller)
    and MAY (2024-05-04, withdrawn by `admin`: "not rateable")."""
    from projection_helpers import Ledger, round_robin

    store = f"sqlite:///{tmp_path_factory.mktemp('federation') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    try:
        for member, name in FEDERATION.items():
            ledger.register(member, name=name, adult=True)
        ledger.register("20000005", adult=True)
        a, b, c, d = FEDERATION
        ledger.submit(round_robin("JAN", [a, b, c, d], "2024-01-06"))
        ledger.submit(round_robin("MAR", [a, b, c], "2024-03-02", results={(a, b): "0-1"}))
        ledger.submit(round_robin("MAY", [b, c, d], "2024-05-04"))
        ledger.withdraw("MAY")
    finally:
        ledger.app.close()
    return store
