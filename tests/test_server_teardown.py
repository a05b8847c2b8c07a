"""A flake seen once (issue 32's door tests): waitress' "Bad file descriptor" as the door's
test server was set up or torn down. The cause: `shutdown` (the test's thread) sets the stop
flag, then pulls waitress' trigger to wake the loop; the serving thread, woken by its one-second
poll in between, sees the flag and closes everything, the trigger too, before the pull, which
then writes to a closed descriptor (or to a file that took its number since)."""

from __future__ import annotations

import threading
from pathlib import Path

from ledger.entrypoints.cli.serve import server
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.writes import Door
from tests.door_helpers import set_up


def test_a_shutdown_after_the_server_closed_writes_to_no_descriptor(tmp_path: Path) -> None:
    """`shutdown` once `serve_forever` has closed everything (the race a tear-down can lose)
    raises nothing and writes nowhere."""
    store = set_up(tmp_path / "server")
    door = Door(store)
    httpd = server(Site(store, door=door), port=0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpd.shutdown()
    thread.join(30)
    httpd.shutdown()  # the trigger is closed: not pulled
    httpd.server_close()
    door.close()
    assert not thread.is_alive()
