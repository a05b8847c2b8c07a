"""The replay's hot modules compiled by mypyc, loaded only when built from today's source.

`scripts/compile.py` compiles `MODULES` (the same source, mypy-typed, into C extensions) into
`build/compiled/` with a manifest of the source files they were built from: every project
module imported with them, since compiled code may carry another module's `Final` constants.
`install` (run when `ledger` is imported) puts a finder first on `sys.meta_path` that loads
the compiled modules only if every one of those files is unchanged, the Python is the one
they were built for and `RATINGS_LEDGER_PURE` is unset; otherwise every module runs from its
source, which stays the reference (docs/decisions.md, "Compiled modules").
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

# The modules compiled together (one mypyc group): the rules (but for the generic frozen
# dataclasses of family.py and timeline.py and versions.py's `object` field, which mypyc does
# not load) and the read core's replay and cascade path.
MODULES = (
    "ledger.bounds",
    "ledger.results",
    "ledger.rules.conversion",
    "ledger.rules.expectancy",
    "ledger.rules.fide.family",
    "ledger.rules.fide.games",
    "ledger.rules.fide.initial",
    "ledger.rules.fide.k_factor",
    "ledger.rules.fide.lists",
    "ledger.rules.fide.modern",
    "ledger.rules.fide.per_game",
    "ledger.rules.fide.periods",
    "ledger.rules.fide.rate_of_play",
    "ledger.rules.fide.rated",
    "ledger.rules.fide.rater",
    "ledger.rules.fide.section",
    "ledger.rules.fide.state",
    "ledger.rules.fide.tables",
    "ledger.rules.fide.unrated",
    "ledger.rules.fide.uplift",
    "ledger.rules.fide.versions",
    "ledger.rules.icu.algorithm",
    "ledger.rules.icu.bonus",
    "ledger.rules.icu.expectancy",
    "ledger.rules.icu.family",
    "ledger.rules.icu.k_factor",
    "ledger.rules.icu.lists",
    "ledger.rules.icu.performance",
    "ledger.rules.icu.practice",
    "ledger.rules.icu.provisional",
    "ledger.rules.icu.rater",
    "ledger.rules.icu.section",
    "ledger.rules.icu.versions",
    "ledger.rules.rating_lists",
    "ledger.rules.rounding",
    "ledger.rules.time_controls",
    "ledger.rules.time_notation",
    "ledger.rules.uschess.columns",
    "ledger.rules.uschess.decisions",
    "ledger.rules.uschess.effective_games",
    "ledger.rules.uschess.explain",
    "ledger.rules.uschess.family",
    "ledger.rules.uschess.fide_adjustment",
    "ledger.rules.uschess.floor_levels",
    "ledger.rules.uschess.floors",
    "ledger.rules.uschess.history",
    "ledger.rules.uschess.initialization",
    "ledger.rules.uschess.kernel",
    "ledger.rules.uschess.matches",
    "ledger.rules.uschess.overrides",
    "ledger.rules.uschess.parameters",
    "ledger.rules.uschess.rater",
    "ledger.rules.uschess.section",
    "ledger.rules.uschess.special_formula",
    "ledger.rules.uschess.standard_formula",
    "ledger.rules.uschess.state",
    "ledger.rules.uschess.systems",
    "ledger.rules.uschess.time_controls",
    "projections.batch",
    "projections.cascade",
    "projections.catchup",
    "projections.change",
    "projections.handlers",
    "projections.history_store",
    "projections.items",
    "projections.live_standings",
    "projections.names",
    "projections.profiles",
    "projections.rating_step",
    "projections.ratings_writer",
    "projections.rebuild",
    "projections.runs",
    "projections.schema",
    "projections.spooled_items",
    "projections.statements",
    "projections.uploads",
)
GROUP = "ratings_ledger"  # the group's shared library: `ratings_ledger__mypyc`
PURE_VARIABLE = "RATINGS_LEDGER_PURE"  # set (to anything but "" or "0"): every module from source
ROOT = Path(__file__).resolve().parent.parent  # the checkout: ledger/ and projections/ in it
FOLDER = ROOT / "build" / "compiled"
MANIFEST = "manifest.json"


def source_digest(files: Sequence[str], root: Path = ROOT) -> str:
    """SHA-256 over the named source files (paths relative to `root`) and their contents."""
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0")
        h.update((root / name).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def python_tag() -> str:
    """The interpreter an extension is built for: its cache tag and extension suffix."""
    return f"{sys.implementation.cache_tag} {importlib.machinery.EXTENSION_SUFFIXES[0]}"


def state(folder: Path = FOLDER, root: Path = ROOT) -> str:
    """ "compiled", or why the source runs: "pure (asked)", "pure (not built)", "pure (stale)",
    "pure (another Python)"."""
    return _checked(folder, root)[0]


def _checked(folder: Path, root: Path) -> tuple[str, dict[str, Any] | None]:
    """`state`, and the build's manifest when it says "compiled" (read once)."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return "pure (asked)", None
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return "pure (not built)", None
    if manifest.get("python") != python_tag():
        return "pure (another Python)", None
    try:
        fresh = source_digest(manifest["sources"], root) == manifest["digest"]
    except (OSError, KeyError, TypeError):
        fresh = False
    return ("compiled", manifest) if fresh else ("pure (stale)", None)


class CompiledFinder:
    """Finds the compiled modules (and their group's library) in a built folder."""

    def __init__(self, folder: Path, files: dict[str, str]) -> None:
        self.folder = folder
        self.files = files  # module name → its extension's path relative to `folder`

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        name = self.files.get(fullname)
        if name is None:
            return None
        file = str(self.folder / name)
        loader = importlib.machinery.ExtensionFileLoader(fullname, file)
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def running() -> bool:
    """Whether this process loads the compiled modules (`install` put its finder in place)."""
    return any(isinstance(f, CompiledFinder) for f in sys.meta_path)


def install(folder: Path = FOLDER, root: Path = ROOT) -> bool:
    """Load the compiled modules from now on when `state` says "compiled"; whether it did."""
    if running():
        return True
    manifest = _checked(folder, root)[1]
    if manifest is None:
        return False
    sys.meta_path.insert(0, CompiledFinder(folder, manifest["files"]))
    return True
