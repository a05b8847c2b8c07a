"""A rebuild's profiles kept in its spool file, each decoded when a rater asks for it
(projections/batch.py `SpooledProfiles`, issue 33: "memory stays flat in the number of games
and players"), its read model unchanged ("read-model digests unchanged by all of it")."""

from __future__ import annotations

import importlib.util
import sys
from contextlib import closing
from datetime import date
from pathlib import Path

import pytest

from ledger import events
from ledger.application import RatingsLedger
from ledger.evidence.signing import Keyring
from ledger.log import read_entries
from projections import batch
from projections.projector import View

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "generate.py"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, shared_keyring: Keyring) -> str:
    """A generated ledger: 300 players, some profiles updated, merges and corrections."""
    spec = importlib.util.spec_from_file_location("generate_for_profiles", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    url = f"sqlite:///{tmp_path_factory.mktemp('profiles') / 'ledger.db'}"
    module.generate(url, 300, 3000, 5, date(2023, 1, 1), 3, keyring=shared_keyring)
    return url


def _digest(url: str, path: Path) -> str:
    with RatingsLedger(url) as app:
        view = View(path)
        view.rebuild(read_entries(app))
        digest = view.digest()
        view.close()
    return digest


@pytest.mark.patches
def test_a_replay_that_keeps_few_profiles_decoded_has_the_replays_digest(
    generated: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 33: memory flat in the players, "read-model digests unchanged": with at most 5
    # profiles kept decoded (every other one read back from the spool when asked for again)
    # the replay stores the same model as with all of them kept.
    whole = _digest(generated, tmp_path / "whole.db")
    reads: list[str] = []
    read = batch.Fresh._profile

    def counted(self: batch.Fresh, member_id: str, packed: int) -> object:
        assert len(self.facts.hot) <= 5  # never more than the bound
        reads.append(member_id)
        return read(self, member_id, packed)

    monkeypatch.setattr(batch, "HOT_PROFILES", 5)
    monkeypatch.setattr(batch.Fresh, "_profile", counted)
    assert _digest(generated, tmp_path / "few.db") == whole
    assert len(reads) > 2 * len(set(reads))  # players read back again and again


@pytest.mark.parametrize(
    ("fact", "text", "position"),
    [
        (events.PlayerRegistered(member_id="p1", name="Ann Lee"), '{"name": "Ann Lee"}', 3),
        (
            events.decode(
                "PlayerProfileUpdated",
                payload={"member_id": "p2", "name": "Bo", "birth_date": "1990-02-03"},
            ),
            '{"birth_date": "1990-02-03", "name": "Bo"}',
            2**40 + 7,
        ),
    ],
)
def test_a_spooled_profile_reads_back_as_put(
    fact: events.PlayerRegistered, text: str, position: int
) -> None:
    # Issue 33 ("decode a player's profile only when a rater asks for it"): the fact, its
    # type, its stored text and its position come back equal, after other spooled records.
    with closing(batch.Fresh()) as fresh:
        fresh.put_profile("other", (events.PlayerRegistered(member_id="other"), "{}", 1))
        fresh.put_profile(fact.member_id, (fact, text, position))
        found = fresh.profile(fact.member_id)
        assert found is not None
        assert (type(found[0]), found) == (type(fact), (fact, text, position))
        assert fresh.facts[fact.member_id] == fact
        assert fresh.facts.get("nobody") is None
