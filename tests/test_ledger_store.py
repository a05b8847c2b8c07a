"""Store URLs: SQLite by default with zero set-up, PostgreSQL by URL, never an ambient store."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.application import RatingsLedger
from ledger.errors import StoreError
from ledger.store import DEFAULT_STORE, redacted, store_env, store_url

P = "RATINGSLEDGER_"


@pytest.mark.parametrize(
    ("url", "dbname"),
    [
        ("sqlite:///ratings-ledger.db", "ratings-ledger.db"),
        ("sqlite:///data/ledger.db", "data/ledger.db"),
        ("sqlite:////var/lib/ledger.db", "/var/lib/ledger.db"),
    ],
)
def test_a_sqlite_url_names_a_file_relative_or_absolute(url: str, dbname: str) -> None:
    # Brief: "sqlite:///path.db default sqlite:///ratings-ledger.db".
    env = store_env(url, "RatingsLedger")
    assert env[P + "PERSISTENCE_MODULE"] == "eventsourcing.sqlite"
    assert env[P + "SQLITE_DBNAME"] == dbname


def test_a_postgresql_url_gives_user_host_port_database_password_and_schema() -> None:
    # Brief: "or postgresql://user@host:port/db".
    url = "postgresql://ann:s%40cret@db.example:6543/ratings?schema=usc"
    env = {k.removeprefix(P): v for k, v in store_env(url, "RatingsLedger").items()}
    expected = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": "ratings",
        "POSTGRES_HOST": "db.example",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "ann",
        "POSTGRES_PASSWORD": "s@cret",
        "POSTGRES_SCHEMA": "usc",
    }
    assert {k: env[k] for k in expected} == expected


def test_every_setting_carries_the_application_prefix() -> None:
    # Brief: "give the application prefixed environment keys (e.g.
    # RATINGSLEDGER_PERSISTENCE_MODULE, via Application.name)".
    for url in (DEFAULT_STORE, "postgres://u@h/d"):
        assert all(key.startswith(P) for key in store_env(url, RatingsLedger.name))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/d", "use sqlite:///PATH.db, postgresql://USER@HOST:PORT/DB or https://HOST"),
        ("https://h/ledger", "a server is https://HOST"),  # issue 32: a server's write door
        ("https://u@h", "a server is https://HOST"),
        ("https://h:port", "the port is not a number"),
        ("sqlite://ledger.db", "a SQLite store is sqlite:///relative.db"),
        ("sqlite:///", "a SQLite store is sqlite:///relative.db"),
        ("postgresql://h/d", "a PostgreSQL store is postgresql://USER@HOST:PORT/DB"),
        ("postgresql://u@h:port/d", "the port is not a number"),
        ("postgresql://u@h/d?sslmode=off", "unknown option 'sslmode' (known: schema)"),
    ],
)
def test_an_unusable_store_url_is_a_clear_store_error(url: str, message: str) -> None:
    # Brief: "bad input ... → ... ONE clear line on stderr ..., never a traceback".
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        store_env(url, "RatingsLedger")


def test_a_password_never_appears_in_messages() -> None:
    # A store URL may carry a password; messages show the URL without it.
    assert redacted("postgresql://ann:hunter2@h:5432/d") == "postgresql://ann:***@h:5432/d"
    with pytest.raises(StoreError) as e:
        store_env("postgresql://ann:hunter2@h:5432/d?x=1", "RatingsLedger")
    assert "hunter2" not in str(e.value)


def test_the_store_comes_from_the_option_then_the_variable_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Brief: "--store (default from RATINGS_LEDGER_STORE, else sqlite:///ratings-ledger.db)".
    monkeypatch.delenv("RATINGS_LEDGER_STORE", raising=False)
    assert store_url(None) == "sqlite:///ratings-ledger.db"
    monkeypatch.setenv("RATINGS_LEDGER_STORE", "sqlite:///from-env.db")
    assert store_url(None) == "sqlite:///from-env.db"
    assert store_url("sqlite:///given.db") == "sqlite:///given.db"


def test_sqlite_needs_no_set_up_and_ambient_settings_never_redirect_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Brief: "SQLite is the default and must work with zero set-up"; prefixed keys "so it never
    # shares a database with anything else by accident".
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RATINGS_LEDGER_STORE", raising=False)
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.popo")
    monkeypatch.setenv("RATINGSLEDGER_SQLITE_DBNAME", str(tmp_path / "elsewhere.db"))
    with RatingsLedger() as ledger:
        assert ledger.recorder.max_notification_id() is None
        assert (tmp_path / "ratings-ledger.db").exists()  # the default, in the current folder
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_store_that_cannot_be_opened_is_a_store_error(tmp_path: Path) -> None:
    # Brief: errors are one clear line, never a traceback.
    with pytest.raises(StoreError, match="cannot open store sqlite:///.*missing/ledger.db"):
        RatingsLedger(f"sqlite:///{tmp_path / 'missing' / 'ledger.db'}")


def test_a_postgresql_server_that_does_not_answer_is_a_store_error() -> None:
    # Brief: a store problem is one clear line, never a traceback (after a 5 s connect timeout).
    with pytest.raises(StoreError, match="cannot open store postgresql://u@127.0.0.1:1/d: "):
        RatingsLedger("postgresql://u@127.0.0.1:1/d")
