"""Store URLs (`sqlite:///path.db`, `postgresql://user@host:port/db`, a server's
`https://host:port`) → application settings."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from ledger.errors import StoreError
from ledger.rules.families import DEFAULT
from ledger.rules.families import known as known_family

DEFAULT_STORE = "sqlite:///ratings-ledger.db"
APP_NAME = "RatingsLedger"  # its settings' prefix and, on PostgreSQL, its tables' (ratingsledger_…)
STORE_VARIABLE = "RATINGS_LEDGER_STORE"
SQLITE_LOCK_TIMEOUT_SECONDS = 30
CHAIN_TABLE = "ratingsledger_chain"  # each position's link (ledger/evidence/chain.py)
SQLITE_EVENTS_TABLE = "stored_events"  # eventsourcing's SQLite table (rowid: the position)
POSTGRES_CONNECT_TIMEOUT_SECONDS = 5  # how long a command waits for a pooled connection
# How long opening a PostgreSQL store waits for the server to answer before it says which one
# did not (libpq's smallest timeout: a live server answers in milliseconds, and a refusal or a
# missing database comes at once)
POSTGRES_REACH_TIMEOUT_SECONDS = 2


def store_url(url: str | None = None) -> str:
    """The store to use: `url`, else $RATINGS_LEDGER_STORE, else the SQLite file in the cwd."""
    return url or os.environ.get(STORE_VARIABLE) or DEFAULT_STORE


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def store_env(url: str, app_name: str, read_only: bool = False) -> dict[str, str]:
    """The environment of application `app_name` for the store at `url`: its recorder seals
    every write (`ledger.evidence.chain`); `read_only` creates nothing and, on SQLite, opens the
    file read-only (a missing file is a StoreError).

    Every key carries the application's prefix (`RATINGSLEDGER_PERSISTENCE_MODULE`, …).
    """
    prefix = app_name.upper() + "_"
    settings = _settings(url, read_only)
    if read_only:
        settings["CREATE_TABLE"] = "no"
    return {prefix + key: value for key, value in settings.items()}


def _settings(url: str, read_only: bool) -> dict[str, str]:
    scheme = url.partition(":")[0]
    if scheme == "sqlite":
        settings = _sqlite_settings(url)
        settings["APPLICATION_RECORDER_TOPIC"] = "ledger.evidence.sealing:SealingSQLiteRecorder"
        if read_only:
            path = Path(settings["SQLITE_DBNAME"])
            if not path.is_file():
                raise StoreError(f"store {url!r}: no ledger at {path} (run init to create one)")
            settings["SQLITE_DBNAME"] = f"file:{quote(str(path.resolve()))}?mode=ro"
        return settings
    if scheme in ("postgresql", "postgres"):
        require_postgres()
        return _postgres_settings(url) | {
            "APPLICATION_RECORDER_TOPIC": "ledger.evidence.postgres:SealingPostgresRecorder"
        }
    if scheme in ("https", "http"):
        return _remote_settings(url)
    raise StoreError(
        f"store {redacted(url)!r}: use sqlite:///PATH.db, postgresql://USER@HOST:PORT/DB "
        "or https://HOST[:PORT] (a server's write door)"
    )


PLAIN_HTTP_VARIABLE = "RATINGS_LEDGER_PLAIN_HTTP"  # "yes": http:// to a host not this machine
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _remote_settings(url: str) -> dict[str, str]:
    """A server's write door (issue 32): https://HOST[:PORT]; http:// only to this machine
    (a test, or a proxy beside it) unless $RATINGS_LEDGER_PLAIN_HTTP is `yes`, since a write
    over plain HTTP shows its entries to the network (its signature still binds them)."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - a port that is not a number is refused here
    except ValueError:
        raise StoreError(f"store {redacted(url)!r}: the port is not a number") from None
    if not parts.hostname or parts.path.strip("/") or parts.query or parts.username:
        raise StoreError(f"store {redacted(url)!r}: a server is https://HOST[:PORT]")
    plain = parts.scheme == "http" and parts.hostname not in LOOPBACK
    if plain and os.environ.get(PLAIN_HTTP_VARIABLE) != "yes":
        raise StoreError(
            f"store {url!r}: plain http:// only to this machine; use https:// (or set "
            f"{PLAIN_HTTP_VARIABLE}=yes)"
        )
    return {
        "PERSISTENCE_MODULE": "ledger.evidence.remote:RemoteFactory",
        "REMOTE_URL": f"{parts.scheme}://{parts.netloc}",
    }


POSTGRES_EXTRA = "pip install 'ratings-ledger[postgres]'"


def require_postgres() -> None:
    """A PostgreSQL store needs the `postgres` extra (psycopg): StoreError in one line saying
    what to install when it is missing."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise StoreError(
            f"a PostgreSQL store needs the postgres extra, not installed here: {POSTGRES_EXTRA}"
        ) from None


_REACHED: set[str] = set()  # the PostgreSQL stores this process has reached


def reach(url: str, again: bool = False) -> None:
    """Connect once to a PostgreSQL store's server (nothing for SQLite; once a process unless
    `again`: a site's later requests pay no second connection): a server that is down,
    refuses, or holds no such database is a StoreError in one line naming the store, its host,
    port and database, within `POSTGRES_REACH_TIMEOUT_SECONDS`, rather than the pool's wait
    for a connection that never comes."""
    if url.partition(":")[0] not in ("postgresql", "postgres") or (url in _REACHED and not again):
        return
    settings = _postgres_settings(url)
    require_postgres()
    import psycopg

    try:
        psycopg.connect(
            dbname=settings["POSTGRES_DBNAME"],
            host=settings["POSTGRES_HOST"],
            port=settings["POSTGRES_PORT"],
            user=settings["POSTGRES_USER"],
            password=settings["POSTGRES_PASSWORD"],
            connect_timeout=POSTGRES_REACH_TIMEOUT_SECONDS,
        ).close()
    except psycopg.Error as exc:
        raise StoreError(f"cannot open store {redacted(url)}: {one_line(exc)}") from None
    _REACHED.add(url)


def one_line(exc: BaseException) -> str:
    """A driver's message on one line (libpq's spans several, its hint on a tabbed line: kept
    in brackets), without its `connection failed: ` preamble; its type's name if it is empty."""
    lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    hints = "".join(f" ({line[:1].lower()}{line[1:]})" for line in lines[1:])
    return lines[0].removeprefix("connection failed: ") + hints


def open_failure(url: str, exc: BaseException) -> StoreError:
    """Why the store at `url` could not be opened, in one line: on PostgreSQL the server's own
    reason (asked again: the pool's is only that it waited), else the error's."""
    try:
        reach(url, again=True)
    except StoreError as reason:
        return reason
    return StoreError(f"cannot open store {redacted(url)}: {one_line(exc)}")


def _sqlite_settings(url: str) -> dict[str, str]:
    prefix = "sqlite:///"
    path = url[len(prefix) :] if url.startswith(prefix) else ""
    if not path:
        raise StoreError(
            f"store {url!r}: a SQLite store is sqlite:///relative.db or sqlite:////abs.db"
        )
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": path,
        "SQLITE_LOCK_TIMEOUT": str(SQLITE_LOCK_TIMEOUT_SECONDS),
    }


def _postgres_settings(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    shown = redacted(url)
    dbname = unquote(parts.path.lstrip("/"))
    if not parts.hostname or not parts.username or not dbname:
        raise StoreError(f"store {shown!r}: a PostgreSQL store is postgresql://USER@HOST:PORT/DB")
    try:
        port = parts.port or 5432
    except ValueError:
        raise StoreError(f"store {shown!r}: the port is not a number") from None
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - {"schema"})
    if unknown:
        raise StoreError(f"store {shown!r}: unknown option {unknown[0]!r} (known: schema)")
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(port),
        "POSTGRES_USER": unquote(parts.username),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_SCHEMA": query.get("schema", [""])[-1],
        "POSTGRES_CONNECT_TIMEOUT": str(POSTGRES_CONNECT_TIMEOUT_SECONDS),
        "POSTGRES_POOL_SIZE": "1",
        "POSTGRES_MAX_OVERFLOW": "9",
    }


def view_path(store: str, view: Path | None, family: str = DEFAULT) -> Path:
    """`ledger.db` → `ledger.view.db` (`ledger.fide.view.db`…) beside it; a PostgreSQL store →
    `./ratings-ledger.HOST-PORT-DB-SCHEMA.view.db`, one file per ledger."""
    if view is not None:
        return view
    known = known_family(family)  # an unknown one is refused where its read model opens
    suffix = known.view_suffix if known else f".{family}.view.db"
    parts = urlsplit(store)
    if parts.scheme == "sqlite":
        db = Path(store[len("sqlite:///") :])
        return db.with_name(db.stem + suffix)
    schema = parse_qs(parts.query).get("schema", [""])[-1] or "public"
    try:
        port = parts.port or 5432
    except ValueError:
        port = 0
    where = f"{parts.hostname}-{port}-{unquote(parts.path.lstrip('/'))}-{schema}"
    return Path("ratings-ledger." + re.sub(r"[^A-Za-z0-9_.-]+", "_", where) + suffix)
