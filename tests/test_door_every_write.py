"""Issue 32, "One front door": "Every write the CLI can make locally it can make against a
server (`--store https://…`), with the same output, exit codes and one-line errors". Each
command that appends runs on a local store and, from a laptop holding only keys, through the
door on a twin of that store (a copy of the same file): the same stdout (hashes masked: a
receipt names the time of its write), the same exit code, the same entries appended. The
laptop never opens the server's files (`door_helpers.GUARD`)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ledger.application import RatingsLedger
from ledger.commands import DirectorOverride, PublishList, RegisterPlayer, SubmitSection, parse
from ledger.domain import player_key
from ledger.entrypoints.cli import app
from ledger.evidence.signing import Keyring, public_text
from ledger.log import read_entries
from tests.door_helpers import EXAMPLES, Laptop, laptop, serving, set_up
from tests.tamper_helpers import insert

FIXTURES = Path(__file__).parent / "fixtures"
SECTION = "2024-05-GRANDPRIX-OPEN"  # examples/section-submit.json, submitted by the TD
BASE = 4 + 6 + 1  # set-up, the example players, the TD's section
HEX = re.compile(r"(?<![0-9a-f])[0-9a-f]{32,}(?![0-9a-f])")
# The commands that never append to the ledger: reads, proofs checked offline, the local
# keyring (`keys`), a witness's own state file (`cosign`) and the read model's file
# (`catch-up`, `rebuild`, `replay`). Any other registered command must be in WRITES below.
READ_ONLY = {
    *("log", "catch-up", "rebuild", "player", "history", "rating", "lists", "explain"),
    *("replay", "diff", "problems", "list", "export-history", "export-trf", "crosstable"),
    *("section", "requests", "supplement", "serve", "openapi", "verify", "anchor"),
    *("checkpoint", "prove-inclusion", "prove-consistency", "verify-proof", "trusted-keys"),
    *("cosign", "split-view", "prove", "verify-rating", "estimate", "search", "sections"),
    *("keys new", "keys show"),
}
SECTION_FILE = json.loads((EXAMPLES / "section-submit.json").read_text())
FILES: dict[str, Any] = {
    "new-player.json": [{"id": "40000001", "name": "Gus Ito", "adult": True}],
    "balance.json": {"player": "30000001", "system": "OTBR", "as_of": "2024-01-01",
                     "rating": 2050, "games": 300, "peak": 2120},
    "new-section.json": SECTION_FILE | {"section_id": "NEW-SECTION"},
    "corrected.json": SECTION_FILE | {"games": [SECTION_FILE["games"][0] | {"result": "0-1"},
                                                *SECTION_FILE["games"][1:]]},
    "fide.json": [{"player": "30000002", "rating_list": "2024-06-01",
                   "games": [{"opponent_rating": 2200, "score": 0.5}]}],
    "match.json": {"match_id": "M-2024-1", "online": True, "time_control": "G/15+10",
                   "start_date": "2024-06-02", "end_date": "2024-06-02",
                   "players": [{"id": "30000001"}, {"id": "30000002"}],
                   "games": [{"round": 1, "white": "30000001", "black": "30000002",
                              "result": "1-0"}]},
}  # fmt: skip


def withdrawn(ledger: RatingsLedger) -> None:
    ledger.sections.withdraw(SECTION, reason="late report", actor="office")


def overridden(ledger: RatingsLedger) -> None:
    decision = {"player": "30000001", "action": "impose_ceiling", "value": 2100,
                "effective": "2024-06-01", "reason": "review", "system": "OTBQ"}  # fmt: skip
    ledger.decisions.override(parse(DirectorOverride, decision), actor="director")  # BASE + 1


def published(ledger: RatingsLedger) -> None:
    """A list published, its ratings not committed yet (`publish-list` commits at once)."""
    publication = parse(
        PublishList, {"family": "uschess", "name": "2024-06", "as_of": "2024-06-01"}
    )
    ledger.lists.publish(publication, actor="office")


def second_record(ledger: RatingsLedger) -> None:
    ledger.players.register(parse(RegisterPlayer, {"id": "X0000000A"}), actor="office")


def forged(ledger: RatingsLedger) -> None:
    """An entry the TD's key signed without authority (position BASE + 1): a re-rating."""
    registered = next(e for e in read_entries(ledger) if e.payload.get("member_id") == "30000001")
    payload = json.loads(registered.state) | {"fide": {"rating": 2533, "date": "2019-01-01"}}
    payload.pop("originator_topic", None)
    key = ledger.keyring.private_key("td")
    topic = "ratings-ledger:PlayerProfileUpdated"
    insert(ledger.store, player_key("30000001"), 2, topic, json.dumps(payload).encode(), key, True)


@dataclass(frozen=True)
class Write:
    """An appending command: an example invocation, and what the ledger holds before it."""

    args: tuple[str, ...]
    before: Callable[[RatingsLedger], None] | None = None

    @property
    def name(self) -> str:
        return " ".join(self.args[:2]) if self.args[0] == "import" else self.args[0]


WRITES = [
    Write(("register", "new-player.json", "--actor", "office")),
    Write(("opening-balance", "balance.json", "--actor", "office")),
    Write(("submit", "new-section.json", "--actor", "td")),
    Write(("correct", SECTION, "corrected.json", "--reason", "result reversed",
           "--actor", "office")),
    Write(("withdraw", SECTION, "--reason", "irregular pairings", "--actor", "office")),
    Write(("reinstate", SECTION, "--reason", "report arrived", "--actor", "office"), withdrawn),
    Write(("review", SECTION, "--note", "checked", "--actor", "office")),
    Write(("fide-adjust", "fide.json", "--actor", "office")),
    Write(("award-money-floor", "--player", "30000005", "--amount", "4000", "--limit", "1800",
           "--date", "2024-05-05", "--actor", "director")),
    Write(("fide-uplift", "--effective", "2024-03-01", "--reason", "FIDE Council",
           "--actor", "director")),
    Write(("match", "match.json", "--actor", "director")),
    Write(("override", "--player", "30000001", "--action", "impose_ceiling", "--value", "2100",
           "--effective", "2024-06-01", "--reason", "review", "--system", "OTBQ",
           "--actor", "director")),
    Write(("revoke-override", str(BASE + 1), "--reason", "appeal", "--actor", "director"),
          overridden),
    Write(("amend-rules", "--parameter", "bonus_multiplier", "--value", "10", "--effective",
           "2025-01-01", "--reason", "vote", "--actor", "director")),
    Write(("publish-list", "--name", "2024-06", "--as-of", "2024-06-01", "--actor", "office")),
    Write(("commit-list", "--list", "2024-06", "--actor", "office"), published),
    Write(("void", str(BASE + 1), "--reason", "registered in error", "--actor", "director"),
          second_record),
    Write(("set-aside", str(BASE + 1), "--reason", "forged", "--actor", "director"), forged),
    Write(("merge-players", "X0000000A", "30000001", "--reason", "one person", "--force",
           "--actor", "director"), second_record),
    Write(("grant-role", "auditor", "auditor", "--public-key", "AUDITOR", "--actor", "director")),
    Write(("revoke-role", "td", "tournament_director", "--actor", "director")),
    Write(("set-family", "fide", "--actor", "director")),
    Write(("import", "trf", "may-open.trf", "--register-players", "--actor", "td")),
    Write(("import", "uschess-dbf", str(FIXTURES / "uschess-dbf"), "--register-players",
           "--actor", "td")),
    Write(("import", "fide-list", str(FIXTURES / "fide_list" / "players_list_foa.txt"),
           "--as-of", "2026-08-01", "--register-players", "--actor", "office")),
]  # fmt: skip
SERVER_ONLY = {"init"}  # the federation is set up where its store is (docs/decisions.md)


def registered_commands() -> set[str]:
    """Every command the CLI registers, a group's as `GROUP COMMAND`."""
    names = {c.name or "" for c in app.registered_commands}
    for group in app.registered_groups:
        if group.typer_instance is not None:
            names |= {f"{group.name} {c.name}" for c in group.typer_instance.registered_commands}
    return names


def test_every_command_that_appends_is_in_the_table() -> None:
    """A command registered later is either read-only (READ_ONLY) or in WRITES: the test
    fails until it is listed, so no write is left without its run through the door."""
    listed = {w.name for w in WRITES} | SERVER_ONLY
    assert registered_commands() - READ_ONLY == listed
    assert not listed & READ_ONLY


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ledger every write starts from: the cast, the example players (the director's)
    and the TD's section."""
    folder = tmp_path_factory.mktemp("base")
    store = set_up(folder)
    with closing(RatingsLedger(store)) as ledger:
        players = json.loads((EXAMPLES / "players.json").read_text())
        ledger.players.register(*(parse(RegisterPlayer, p) for p in players), actor="director")
        ledger.sections.submit(parse(SubmitSection, SECTION_FILE), actor="td")
        assert ledger.recorder.max_notification_id() == BASE
    return folder / "ledger.db"


def twin(base: Path, folder: Path, before: Callable[[RatingsLedger], None] | None) -> str:
    folder.mkdir(parents=True)
    shutil.copy(base, folder / "ledger.db")
    store = f"sqlite:///{folder / 'ledger.db'}"
    if before is not None:
        with closing(RatingsLedger(store)) as ledger:
            before(ledger)
    return store


def appended(store: str, after: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The entries after position `after`: kind, actor and payload."""
    with closing(RatingsLedger(store, read_only=True)) as ledger:
        found = [e for e in read_entries(ledger) if e.position > after]
    return [(e.type, e.actor, e.payload) for e in found]


def masked(text: str) -> str:
    return HEX.sub("H", text)


@pytest.mark.parametrize("write", WRITES, ids=lambda w: w.name)
def test_a_write_through_the_door_prints_exits_and_appends_as_on_a_local_store(
    tmp_path: Path, base: Path, write: Write
) -> None:
    """Issue 32: "Every write the CLI can make locally it can make against a server ..., with
    the same output, exit codes and one-line errors"."""
    local_store = twin(base, tmp_path / "local", write.before)
    served_store = f"sqlite:///{tmp_path / 'server' / 'ledger.db'}"
    (tmp_path / "server").mkdir()
    shutil.copy(tmp_path / "local" / "ledger.db", tmp_path / "server" / "ledger.db")
    start = _count(local_store)
    auditor = public_text(Keyring().private_key("auditor") or _missing("auditor"))
    args = tuple(auditor if a == "AUDITOR" else a for a in write.args)
    with serving(served_store) as served:
        door = laptop(tmp_path / "laptop", served, "director", "office", "td")
        for name, content in FILES.items():
            (door.home / name).write_text(json.dumps(content))
        remote = door.run(*args)
        here = Laptop(door.home, local_store).run(*args)
    assert here.returncode == 0, here.stderr
    assert remote.returncode == here.returncode, remote.stderr
    assert masked(remote.stdout) == masked(here.stdout)
    assert masked(remote.stderr) == masked(here.stderr)
    made = appended(local_store, start)
    assert made and appended(served_store, start) == made


def _count(store: str) -> int:
    with closing(RatingsLedger(store, read_only=True)) as ledger:
        return ledger.recorder.max_notification_id() or 0


def _missing(actor: str) -> Any:
    raise AssertionError(f"the tests' keyring has no key for {actor}")


def test_init_runs_where_the_store_is_and_through_the_door_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    """`init` stays on the server (docs/decisions.md): through the door it is refused in one
    line and appends nothing."""
    with serving(set_up(tmp_path / "server")) as served:
        door = laptop(tmp_path / "laptop", served, "director")
        refused = door.run("init", "--actor", "director")
        assert refused.returncode != 0
        assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: ")
        assert "run it on the server's machine" in refused.stderr
        assert served.count() == 4
