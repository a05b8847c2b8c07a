"""A ledger served with its write door on loopback, and laptops that write to it (issue 32)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.entrypoints.cli.serve import REQUEST_DEADLINE_SECONDS, server
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.writes import Door, Limiter
from ledger.evidence.signing import Keyring
from ledger.roles import Role

EXAMPLES = Path(__file__).parent.parent / "examples"
COMMAND = Path(sys.executable).with_name("ratings-ledger")
CAST = {"office": Role.RATINGS_ADMIN, "td": Role.TOURNAMENT_DIRECTOR}
# Run in the laptop's Python before anything else: opening anything under the server's folder
# (the store's SQLite file, its read model) fails the command.
# A SQLite URI (`file:PATH?mode=ro`, how a store is opened read-only) is read as its path.
GUARD = """import os, sys, urllib.parse
FORBIDDEN = {forbidden!r}
def _guard(event, args):
    if event in ("open", "sqlite3.connect") and args and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        if path.startswith("file:"):
            path = urllib.parse.unquote(path[len("file:"):].partition("?")[0])
        if os.path.abspath(path).startswith(FORBIDDEN):
            raise PermissionError(f"the laptop opened the server's {{path}}")
sys.addaudithook(_guard)
"""


@dataclass(frozen=True)
class Served:
    """A ledger behind its door: its store (the server's alone) and the door's URL."""

    store: str
    folder: Path
    url: str

    def count(self) -> int:
        with closing(RatingsLedger(self.store, read_only=True)) as app:
            return app.recorder.max_notification_id() or 0


def set_up(folder: Path, *revoked: str, store: str | None = None) -> str:
    """A ledger (SQLite in `folder`, else the empty `store`): `director`, `office` (ratings
    admin) and `td`; each of `revoked` granted a TD's role, then revoked."""
    folder.mkdir(parents=True, exist_ok=True)
    store = store or f"sqlite:///{folder / 'ledger.db'}"
    with closing(RatingsLedger(store)) as app:
        app.roles.initialize(actor="director")
        for actor, role in CAST.items():
            app.roles.grant(actor, role, actor="director")
        for actor in revoked:
            app.roles.grant(actor, Role.TOURNAMENT_DIRECTOR, actor="director")
            app.roles.revoke(actor, Role.TOURNAMENT_DIRECTOR, actor="director")
    return store


@contextmanager
def serving(
    store: str, limiter: Limiter | None = None, deadline: float = REQUEST_DEADLINE_SECONDS
) -> Iterator[Served]:
    """`serve --writes` on loopback, port 0, in a thread."""
    door = Door(store, limiter)
    httpd = server(Site(store, door=door), port=0, deadline=deadline)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        folder = Path(store[len("sqlite:///") :]).parent if store.startswith("sqlite") else Path()
        yield Served(store, folder, f"http://127.0.0.1:{httpd.server_port}")
    finally:
        httpd.shutdown()
        thread.join(30)
        httpd.server_close()
        door.close()


@dataclass(frozen=True)
class Laptop:
    """A writer's machine: a keyring holding its own keys alone, the server's address, and a
    guard that fails any opening of the server's files."""

    home: Path
    url: str

    def run(self, *args: str, guarded: bool = True) -> subprocess.CompletedProcess[str]:
        """The command on this machine (`guarded`: any opening of the server's files fails
        it; not: the same keys and files, run where the store is)."""
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.home),
            "RATINGS_LEDGER_KEYRING": str(self.home / "keys"),
            "RATINGS_LEDGER_STORE": self.url,
        } | ({"PYTHONPATH": str(self.home / "guard")} if guarded else {})
        return subprocess.run(
            [str(COMMAND), *args], env=env, cwd=self.home, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip


def laptop(home: Path, served: Served, *actors: str) -> Laptop:
    """A laptop in `home` holding the keys of `actors` (copied from the tests' keyring)."""
    (home / "keys").mkdir(parents=True)
    (home / "guard").mkdir()
    ring = Keyring()
    for actor in actors:
        shutil.copy(ring.file(actor), home / "keys" / ring.file(actor).name)
    forbidden = str(served.folder.resolve())
    (home / "guard" / "sitecustomize.py").write_text(GUARD.format(forbidden=forbidden))
    for name in ("may-open.trf", "may-open-revised.trf", "players.json", "section-submit.json"):
        shutil.copy(EXAMPLES / name, home / name)
    return Laptop(home, served.url)
