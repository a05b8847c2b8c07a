"""The fast read path: a `player` query answered from a read model that already holds every
entry, before the command line (typer and pydantic), the ledger application or the rules are
imported (issue 21: `player` within 1.5× of `sqlite-utils --help`).

`answer(argv)` answers only `player ID [--json] [--store URL] [--view FILE] [--rules-family
NAME]` on a SQLite store, and only when the read model is at the ledger's last position and was
built from the same chain link there: what `projections.binding.check` and a catch-up would
find (nothing to do). Anything else (another option, a read model behind or ahead, another
store, an unknown player, an error) returns False, and the full command answers it. Both print
through `player_text.player_lines`, so the answer is the same either way.

Without `--rules-family` it answers in the ledger's federation (issue 30), which it cannot
check without the ledger's keys: the last family its log names (`LedgerInitialized`,
`FederationChanged`: one indexed read) only says which read model to open, and that model
answers only if its meta records that family as the ledger's at the chain link it was built to
(`projections.binding.record`, read verified by the catch-up): the trust it already gives the
model's `built_to`, no more. A model without that record, or with another family, leaves the
answer to the full command.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ledger.entrypoints.player_text import player_lines
from ledger.rules.families import DEFAULT, NAMES
from ledger.store import (
    CHAIN_TABLE,
    DEFAULT_STORE,
    SQLITE_EVENTS_TABLE,
    STORE_VARIABLE,
    view_path,
)
from projections import SCHEMA_VERSION

OPTIONS = {"--store": "store", "--view": "view", "--rules-family": "family"}
VIEW_VARIABLE = "RATINGS_LEDGER_VIEW"
FAMILY_TOPICS = ("ratings-ledger:LedgerInitialized", "ratings-ledger:FederationChanged")


class _ReadModel:
    """What `queries.player` needs of a read model (`projections.schema.SqlModel`): its
    connection and its family."""

    def __init__(self, db: sqlite3.Connection, family: str) -> None:
        self.db, self.family = db, family


def answer(argv: list[str]) -> bool:
    """Print the answer to `argv` if it is a plain `player` query that an up-to-date read
    model answers; False (nothing printed) otherwise."""
    asked = _parsed(argv)
    if asked is None:
        return False
    try:
        out = _player(*asked[:4])
    except (sqlite3.Error, OSError, ValueError):
        return False
    if out is None:
        return False
    as_json = asked[4]
    print("\n".join(player_lines(out, as_json)))
    return True


def _parsed(argv: list[str]) -> tuple[str, str, Path | None, str | None, bool] | None:
    """(player, store, view, family (None: not given), --json) of a plain `player` query;
    None otherwise."""
    if not argv or argv[0] != "player":
        return None
    found: dict[str, str | None] = {
        "store": _env(STORE_VARIABLE, DEFAULT_STORE),
        "view": _env(VIEW_VARIABLE, None),
    }
    as_json, ids = False, []
    rest = iter(argv[1:])
    for arg in rest:
        name, eq, value = arg.partition("=")
        if arg == "--json":
            as_json = True
        elif name in OPTIONS:
            given = value if eq else next(rest, None)
            if not given:
                return None
            found[OPTIONS[name]] = given
        elif arg.startswith("-"):
            return None  # --help, --as-known-at, --position…: the full command
        else:
            ids.append(arg)
    store, view, family = found["store"], found["view"], found.get("family")
    if len(ids) != 1 or store is None or not store.startswith("sqlite:///"):
        return None
    return ids[0], store, None if view is None else Path(view), family, as_json


def _env(name: str, default: str | None) -> str | None:
    value = os.environ.get(name)
    if value == "":
        return None  # left to the full command's own reading of it
    return default if value is None else value


def _player(
    player_id: str, store: str, view: Path | None, given: str | None
) -> dict[str, Any] | None:
    """`queries.player` on the read model if it holds the ledger up to its last entry."""
    ledger = Path(store[len("sqlite:///") :])
    if not ledger.is_file():
        return None
    with _connect(f"file:{quote(str(ledger.resolve()))}?mode=ro") as db:
        db.execute("begin")
        head = db.execute(f"select max(rowid) from {SQLITE_EVENTS_TABLE}").fetchone()[0]
        link = db.execute(f"select hash from {CHAIN_TABLE} where position = ?", [head])
        found = link.fetchone()
        family = given if given is not None else _named(db)
    if head is None or found is None or family is None:
        return None
    model = view_path(store, view, family)
    if not model.is_file():
        return None
    with _connect(f"file:{quote(str(model.resolve()))}") as db:
        db.execute("begin")
        meta = dict(db.execute("select key, value from meta"))
        if (
            meta.get("rules_family") != family
            or "what_if" in meta
            or meta.get("last_position") != str(head)
            or meta.get("built_to") != f"{found[0]}@{head}"
            or meta.get("schema") != SCHEMA_VERSION
            or (given is None and meta.get("ledger_family") != family)
        ):
            return None
        from projections import queries

        # `player` and `player_card` use only the connection's `execute` (`SqlModel`), which
        # sqlite3's has as sqlite_utils' Database does (importing it would cost the fast path
        # its speed)
        read = _ReadModel(db, family)
        out = queries.player(read, player_id)
        if out is not None:  # as the full command adds them (cli/reads.py `player`)
            out["card"], out["family"] = queries.player_card(read, player_id), family
        return out


def _named(db: sqlite3.Connection) -> str | None:
    """The family the ledger's last `LedgerInitialized` or `FederationChanged` names (DEFAULT:
    none; None: not a family's name), unverified: which read model to ask, never what to
    trust."""
    marks = ", ".join("?" * len(FAMILY_TOPICS))
    rows = db.execute(
        f"select state from {SQLITE_EVENTS_TABLE} where topic in ({marks}) order by rowid",
        FAMILY_TOPICS,
    )
    said = [json.loads(state) for (state,) in rows]  # ValueError: not JSON (the full command)
    named = [x["family"] for x in said if isinstance(x, dict) and isinstance(x.get("family"), str)]
    name = named[-1] if named else DEFAULT
    return name if name in NAMES else None


class _connect:
    """A connection closed on leaving (sqlite3's own context manager only commits)."""

    def __init__(self, uri: str) -> None:
        self.db = sqlite3.connect(uri, uri=True, isolation_level=None)

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def silence_stdout() -> None:
    """The reader went away: send what is still buffered nowhere, so exit stays quiet."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main() -> None:
    """The `ratings-ledger` command: the fast read path when it answers, else the full one.
    A reader that goes away (`player ID | head -1`) ends it quietly, exit 0, on either path
    (the full one inside its commands, `cli.OneLineErrors.invoke`)."""
    try:
        try:
            if not answer(sys.argv[1:]):
                from ledger.entrypoints.cli import app

                app()
        finally:
            sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        sys.exit(0)
