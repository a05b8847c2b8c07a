"""Issue 28, item 1: "Read-model checkpoint files decide what a list commits", and "Nothing
derived is trusted" on the read side. Each test mounts the attack as the issue tells it: a
model built from the log minus one section, or a checkpoint with one rating edited, dropped
into the read model's checkpoint folder (write access to the server's folder, no key), or a
doctored `--view` given to `publish-list` by a ratings_admin."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from projection_helpers import Ledger
from test_rating_lists import G_F_MATCH, entered, match, the_1068_round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.entrypoints.cli import app
from ledger.evidence.signing import KEYRING_VARIABLE
from ledger.log import read_entries
from ledger.reading import open_ledger
from projections import proofs, queries, timetravel
from projections.projector import View
from projections.seals import SECRET, Seals
from projections.session import ReadSession

runner = CliRunner()
LIST = ("publish-list", "--family", "fide", "--actor", "director")


def run(store: str | None, *args: str, view: Path | None = None):
    """The CLI's result (stdout and stderr apart); exit 0 asserted."""
    extra = ["--view", str(view)] if view is not None else []
    extra += ["--store", store] if store is not None else []
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def ledger(store_url: str, tmp_path: Path) -> tuple[str, Path, int]:
    """10.68's round robin and the G–F match, the list 2003-04, then A–B's match (the section
    an attacker leaves out) and G–J's, on SQLite and PostgreSQL; its store, its read model
    (caught up) and A–B's position."""
    store = store_url
    led: Ledger = entered(RatingsLedger(store))
    led.submit(the_1068_round_robin(), G_F_MATCH)
    led.app.close()
    run(store, *LIST, "--name", "2003-04", "--as-of", "2003-04-01")
    led = Ledger(RatingsLedger(store))
    led.submit(match("AB", "A", "B", ["1-0", "1-0", "1/2-1/2"], "2003-05-01"))
    section = led.app.recorder.max_notification_id()
    led.submit(match("GJ", "G", "J", ["1-0"], "2003-05-03"))
    led.app.close()
    view = tmp_path / "ledger.fide.view.db"
    run(store, "player", "A", "--rules-family", "fide", view=view)
    return store, view, section


def committed_root(store: str, name: str) -> str:
    log = json.loads(run(store, "log", "--json", "--type", "ListRatingsCommitted").stdout)
    return next(e["payload"]["ratings_root"] for e in log if e["payload"]["list_name"] == name)


def rebuilt(store: str, tmp_path: Path, name: str) -> tuple[str, int]:
    """The root of list `name` from a rebuild of a new read model (no checkpoint), and A's
    official rating on it."""
    with closing(ReadSession.open(store, tmp_path / "rebuilt.db", "fide")) as session:
        session.rebuild()
        with session.at(list=name) as past:
            found = queries.published_list(past.view, name)
            root = proofs.commitment(past.view, found).root()
            rating = queries.list_rating(past.view, "A", "FIDE", name)["official_rating"]
    return root, rating


def minus_one_section(store: str, view: Path, section: int, folder: Path) -> Path:
    """The attacker's model: the log without the entry at `section`, named as a checkpoint
    at the ledger's head, dropped into `view`'s checkpoint folder."""
    with closing(open_ledger(store)) as ledger:
        entries = [e for e in read_entries(ledger) if e.position != section]
    forged = View(folder / "forged.db", "fide", checkpoint_every=0)
    forged.catch_up(entries)
    forged.close()
    target = Path(str(view) + ".checkpoints") / f"{entries[-1].position:012d}.db"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(os.path.realpath(folder / "forged.db"), target)
    return target


def honest_checkpoint(store: str, view: Path) -> tuple[Path, int]:
    """The read model at `view` caught up by a session whose model checkpoints at every
    position (a sealed checkpoint at the head); the file and its position."""
    with closing(open_ledger(store)) as ledger:
        session = ReadSession(ledger, View(view, "fide", checkpoint_every=1), owns_ledger=False)
        with closing(session):
            session.rebuild()
            head = session.view.last_position
    found = Path(str(view) + ".checkpoints") / f"{head:012d}.db"
    assert found.exists() and Path(str(found) + ".seal").exists()
    return found, head


def test_a_planted_model_minus_one_section_is_not_what_publish_list_commits(ledger, tmp_path):
    """'A model built from the log minus one section, dropped into VIEW.db.checkpoints/…, is
    what the office's honest publish-list commits': a list commitment is computed from the
    verified log, never from a file a folder holds."""
    store, view, section = ledger
    minus_one_section(store, view, section, tmp_path)
    published = run(store, *LIST, "--name", "2003-07", "--as-of", "2003-07-01", view=view)
    assert "ListRatingsCommitted" in published.stdout
    root, rating = rebuilt(store, tmp_path, "2003-07")
    assert committed_root(store, "2003-07") == root  # what a rebuild gives, then and later
    proved = run(store, "prove", "A", "--list", "2003-07", "--rules-family", "fide", view=view)
    assert "not used" in proved.stderr  # the planted file, refused for the bundle's read
    (tmp_path / "b.json").write_text(proved.stdout)
    (tmp_path / "c.txt").write_text(run(store, "checkpoint").stdout)
    (tmp_path / "trusted.txt").write_text(run(store, "trusted-keys").stdout)
    checked = run(
        None,
        "verify-rating",
        str(tmp_path / "b.json"),
        "--checkpoint",
        str(tmp_path / "c.txt"),
        "--trusted",
        str(tmp_path / "trusted.txt"),
    )
    assert f"is {rating}:" in checked.stdout  # the log's value, recomputed offline


def test_a_doctored_view_given_to_publish_list_does_not_change_the_commitment(ledger, tmp_path):
    """'A ratings_admin reaches the same with publish-list --view FILE': the FILE is not read."""
    store, view, section = ledger
    doctored = tmp_path / "doctored.db"
    forged = minus_one_section(store, view, section, tmp_path)
    forged.rename(doctored)
    published = run(store, *LIST, "--name", "2003-07", "--as-of", "2003-07-01", view=doctored)
    assert published.stderr.splitlines() == [
        f"warning: --view {doctored} is not read: a list's rows are replayed from the verified log"
    ]
    assert committed_root(store, "2003-07") == rebuilt(store, tmp_path, "2003-07")[0]


def test_commit_list_with_a_planted_checkpoint_commits_the_rebuilds_rows(ledger, tmp_path):
    """'A list commitment is computed from the verified log' (commit-list, for a list whose
    commitment failed): the planted checkpoint and the folder's model are not read."""
    store, view, section = ledger
    with closing(RatingsLedger(store)) as app_:
        publication = {"family": "fide", "name": "2003-07", "as_of": "2003-07-01"}
        app_.lists.publish(parse(PublishList, publication), actor="director")
    minus_one_section(store, view, section, tmp_path)
    run(store, "commit-list", "--list", "2003-07", "--rules-family", "fide", "--actor", "director")
    assert committed_root(store, "2003-07") == rebuilt(store, tmp_path, "2003-07")[0]


@pytest.mark.parametrize("read", ["--position", "--as-known-at"])
def test_an_edited_checkpoint_is_refused_in_one_line_and_the_read_answers_the_truth(
    ledger, tmp_path, read
):
    """'A copy of the model with one rating edited (UPDATE ratings SET rating=2799) is what
    player ID --position 18 and --as-known-at answer': a checkpoint file that does not match
    is refused in one line naming it, and the read falls back to the verified path."""
    store, view, _ = ledger
    checkpoint, head = honest_checkpoint(store, view)
    at = str(head) if read == "--position" else "2999-01-01"
    args = ("player", "A", "--json", "--rules-family", "fide", read, at)
    honest = run(store, *args, view=view)
    assert honest.stderr == ""  # the sealed checkpoint is used as it is
    with closing(sqlite3.connect(checkpoint)) as db:
        db.execute("update ratings set rating = 2799")
        db.commit()
    edited = run(store, *args, view=view)
    assert edited.stderr.splitlines() == [
        f"warning: checkpoint file {checkpoint} does not match its seal: not used"
    ]
    assert edited.stdout == honest.stdout and "2799" not in edited.stdout


def test_an_honest_sealed_checkpoint_is_still_the_start_of_a_past_read(ledger, tmp_path):
    """'The read falls back to the verified path' only for a file that does not match: a
    sealed checkpoint is where a read at a later position starts (not a replay from 0)."""
    store, view, _ = ledger
    checkpoint, head = honest_checkpoint(store, view)
    starts: list[int] = []
    with closing(open_ledger(store)) as ledger_, closing(View(view, "fide")) as now:

        def entries_after(after: int):
            starts.append(after)
            return read_entries(ledger_, after)

        warned: list[str] = []
        past = timetravel.at_position(
            now, entries_after, head, tmp_path / "past.db", Seals(ledger_, report=warned.append)
        )
        with closing(past):
            assert starts == [head] and warned == []
            fresh = View(tmp_path / "fresh.db", "fide")
            fresh.catch_up(read_entries(ledger_))
            assert past.digest() == fresh.digest()


def test_a_checkpoint_file_named_in_other_digits_is_passed_over(ledger, tmp_path):
    """'A checkpoint file that does not match is refused ... and the read falls back to the
    verified path': a file an attacker names `².db` in the checkpoint folder is not one of its
    checkpoints (it ended every as-known-at read in "unexpected ValueError")."""
    store, view, _ = ledger
    checkpoint, head = honest_checkpoint(store, view)
    (checkpoint.parent / "\u00b2.db").write_bytes(checkpoint.read_bytes())
    with closing(View(view, "fide")) as now:
        assert timetravel.checkpoints(now, head) == [(head, checkpoint)]
    args = ("player", "A", "--json", "--rules-family", "fide", "--position", str(head))
    assert run(store, *args, view=view).stderr == ""


def test_a_checkpoint_renamed_to_another_position_or_read_without_the_secret_is_not_used(
    ledger, tmp_path, monkeypatch
):
    """'Checked against something an attacker with write access to the server's folder (and
    no key) cannot forge': a sealed file moved to another position fails its seal; a reader
    whose keyring holds no secret cannot check it and reads the log."""
    store, view, _ = ledger
    checkpoint, head = honest_checkpoint(store, view)
    moved = checkpoint.with_name(f"{head - 2:012d}.db")
    checkpoint.rename(moved)
    Path(str(checkpoint) + ".seal").rename(Path(str(moved) + ".seal"))
    with closing(open_ledger(store)) as ledger_, closing(View(view, "fide")) as now:
        warned: list[str] = []
        seals = Seals(ledger_, report=warned.append)
        past = timetravel.at_position(
            now, lambda a: read_entries(ledger_, a), head - 2, tmp_path / "p.db", seals
        )
        past.close()
        assert warned == [f"checkpoint file {moved} does not match its seal: not used"]
        monkeypatch.setenv(KEYRING_VARIABLE, str(tmp_path / "auditor-keys"))
        warned.clear()
        past = timetravel.at_position(
            now,
            lambda a: read_entries(ledger_, a),
            head - 2,
            tmp_path / "p.db",
            Seals(ledger_, report=warned.append),
        )
        past.close()
        assert len(warned) == 1 and str(moved) in warned[0] and "no checkpoint seal" in warned[0]


def test_the_seal_secret_is_made_once_in_the_readers_keyring_readable_only_by_its_owner(
    ledger, tmp_path, monkeypatch
):
    """'A secret kept in the reader's keyring folder (outside the server's folder; created on
    first use, mode 0600)'."""
    store, view, _ = ledger
    keys = tmp_path / "reader-keys"
    monkeypatch.setenv(KEYRING_VARIABLE, str(keys))
    honest_checkpoint(store, view)
    secret = keys / SECRET
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    first = secret.read_bytes()
    honest_checkpoint(store, view)
    assert secret.read_bytes() == first


def test_verify_view_names_a_planted_checkpoint_file(ledger, tmp_path):
    """'verify, verify --view and verify-rating all say ok' with a planted checkpoint: verify
    --view now names the file that does not match its seal (exit 1, one line)."""
    store, view, section = ledger
    honest_checkpoint(store, view)
    args = ("verify", "--view", "--view-file", str(view), "--rules-family", "fide")
    assert run(store, *args).stdout.startswith(f"read model {view} matches its rebuild")
    planted = minus_one_section(store, view, section, tmp_path)
    result = runner.invoke(app, [*args, "--store", store])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"error: checkpoint file {planted} does not match its seal: no read uses it; remove "
        "it, or rebuild the read model"
    ]


def test_a_sealed_checkpoint_of_another_familys_model_is_not_used(ledger, tmp_path):
    """'Each is ... checked against something signed before anything reads it': a file sealed
    honestly for the US Chess model, dropped into the FIDE model's folder at the same position,
    fails its seal (the seal names the model's kind)."""
    store, view, _ = ledger
    checkpoint, head = honest_checkpoint(store, view)
    with closing(open_ledger(store)) as ledger_:
        other = View(tmp_path / "us.db", "uschess", checkpoint_every=1)
        with closing(ReadSession(ledger_, other, owns_ledger=False)) as session:
            session.rebuild()
        theirs = other.checkpoints_dir / checkpoint.name
        for suffix in ("", ".seal"):
            shutil.copyfile(str(theirs) + suffix, str(checkpoint) + suffix)
        with closing(View(view, "fide")) as now:
            warned: list[str] = []
            past = timetravel.at_position(
                now,
                lambda a: read_entries(ledger_, a),
                head,
                tmp_path / "p.db",
                Seals(ledger_, report=warned.append),
            )
            with closing(past):
                assert past.family == "fide"
            assert warned == [f"checkpoint file {checkpoint} does not match its seal: not used"]
