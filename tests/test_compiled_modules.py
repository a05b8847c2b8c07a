"""The replay's hot modules compiled by mypyc: loaded only when current, rating as the source.

Issue 33: "the compiled path may be the default once a replay is large enough to repay its
load; the pure path stays the reference and both give the same digest."
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from projection_helpers import generator

from ledger import compiled

ROOT = Path(__file__).resolve().parents[1]


def built(root: Path, folder: Path, sources: list[str], python: str | None = None) -> None:
    """A manifest in `folder` saying its extensions were built from `sources` under `root`."""
    folder.mkdir()
    manifest = {
        "python": python or compiled.python_tag(),
        "sources": sources,
        "digest": compiled.source_digest(sources, root),
        "files": {},
    }
    (folder / compiled.MANIFEST).write_text(json.dumps(manifest))


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "rater.py").write_text("RATE = 1\n")
    return tmp_path


def test_modules_built_from_todays_source_are_the_ones_loaded(checkout: Path) -> None:
    built(checkout, checkout / "build", ["ledger/rater.py"])
    assert compiled.state(checkout / "build", checkout) == "compiled"


def test_a_changed_source_file_makes_every_module_run_from_source(checkout: Path) -> None:
    # compiled code may carry another module's constants: any listed file changed, none loads
    built(checkout, checkout / "build", ["ledger/rater.py"])
    (checkout / "ledger" / "rater.py").write_text("RATE = 2\n")
    assert compiled.state(checkout / "build", checkout) == "pure (stale)"


def test_a_deleted_source_file_makes_every_module_run_from_source(checkout: Path) -> None:
    built(checkout, checkout / "build", ["ledger/rater.py"])
    (checkout / "ledger" / "rater.py").unlink()
    assert compiled.state(checkout / "build", checkout) == "pure (stale)"


def test_extensions_built_for_another_python_are_not_loaded(checkout: Path) -> None:
    built(checkout, checkout / "build", ["ledger/rater.py"], python="cpython-310 .so")
    assert compiled.state(checkout / "build", checkout) == "pure (another Python)"


def test_no_build_or_a_broken_manifest_runs_the_source(checkout: Path) -> None:
    assert compiled.state(checkout / "build", checkout) == "pure (not built)"
    (checkout / "build").mkdir()
    (checkout / "build" / compiled.MANIFEST).write_text("{not json")
    assert compiled.state(checkout / "build", checkout) == "pure (not built)"


def test_the_pure_variable_runs_the_source_even_when_built(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built(checkout, checkout / "build", ["ledger/rater.py"])
    monkeypatch.setenv(compiled.PURE_VARIABLE, "1")
    assert compiled.state(checkout / "build", checkout) == "pure (asked)"


def _has_compiler() -> bool:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from compile import compiler
    finally:
        sys.path.pop(0)
    return compiler() is not None


needs_compiled = pytest.mark.skipif(
    os.environ.get(compiled.PURE_VARIABLE, "") not in ("", "0") or not _has_compiler(),
    reason="no C compiler on this machine (or RATINGS_LEDGER_PURE set): the source modules run",
)


@needs_compiled
def test_setup_leaves_the_compiled_modules_current_and_loaded() -> None:
    # scripts/setup runs scripts/compile.py: with a compiler, the tests run the compiled code
    from ledger.rules.uschess import rater

    assert compiled.state() == "compiled", "run ./scripts/setup (or scripts/compile.py)"
    assert rater.__file__ is not None and rater.__file__.endswith(".so")


def _output(command: list[str], pure: bool) -> str:
    """What `command` prints, run with the compiled modules or (`pure`) from source."""
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_VARIABLE}
    if pure:
        env[compiled.PURE_VARIABLE] = "1"
    run = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    return run.stdout


def _digest(store: str, family: str, pure: bool) -> str:
    digest = [sys.executable, str(ROOT / "scripts" / "digest.py"), "--family", family, store]
    return str(json.loads(_output(digest, pure))[0]["digest"])


@pytest.fixture(scope="module")
def generated_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The generated ledger (120 players, 6,000 games from 2023, seed 5): late sections,
    corrections, a withdrawal, an amendment, matches, overrides, money floors, FIDE items."""
    store = f"sqlite:///{tmp_path_factory.mktemp('compiled') / 'ledger.db'}"
    generator().generate(store, 120, 6000, 5, date(2023, 1, 1), 3)
    return store


@needs_compiled
@pytest.mark.parametrize("family", ["uschess", "fide", "icu"])
def test_the_compiled_modules_rate_a_ledger_exactly_as_the_source(
    generated_store: str, family: str
) -> None:
    assert compiled.state() == "compiled"
    assert _digest(generated_store, family, pure=False) == _digest(
        generated_store, family, pure=True
    )


@needs_compiled
def test_unasked_the_compiled_modules_rate_without_loading_numba(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 33: memory flat; the mypyc-compiled pure kernel takes Steps 2–5 within 1.3× of
    # numba's time without numba's load or its 110+ MiB (docs/decisions.md, "Compiled modules")
    from ledger.rules.uschess.rater import KERNEL_VARIABLE, Rater

    monkeypatch.delenv(KERNEL_VARIABLE, raising=False)
    assert compiled.running()
    assert Rater(lambda player, system: None, {}).kernel == "pure"
    monkeypatch.setenv(KERNEL_VARIABLE, "compiled")
    assert Rater(lambda player, system: None, {}).kernel == "compiled"


def _explained(store: str, player: str, section: str, pure: bool) -> str:
    cli = str(Path(sys.executable).parent / "ratings-ledger")
    command = [cli, "explain", player, "--system", "OTBR", "--section", section, "--json"]
    return _output([*command, "--store", store], pure)


@needs_compiled
def test_an_explanation_recomputed_by_the_compiled_modules_is_the_sources_to_the_letter(
    generated_store: str,
) -> None:
    # "able to say why every number is what it is": N and N' stay the ints the source gives
    # (compiled, an int in a `float` slot became 27.0 before the annotations said `float | int`)
    from ledger.application import RatingsLedger
    from ledger.log import read_entries
    from projections.projector import View

    app = RatingsLedger(generated_store)
    view = View(Path(generated_store.removeprefix("sqlite:///")).with_suffix(".test-view.db"))
    view.rebuild(read_entries(app))
    rows = view.db.execute(
        "select player, item_key from history where system = 'OTBR' and kind = 'section'"
        " and games_before between 1 and 30 order by sort_key limit 4"
    ).fetchall()
    view.close()
    app.close()
    assert len(rows) == 4
    for player, section in rows:
        compiled_text = _explained(generated_store, player, section, pure=False)
        assert '"N": ' in compiled_text
        assert compiled_text == _explained(generated_store, player, section, pure=True)
