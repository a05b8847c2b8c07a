"""Each family owns its standing (issue 29): "no module outside a family's package and the
registry imports a family package (grep and the import graph)"."""

from __future__ import annotations

import ast
from pathlib import Path

from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.rules.families import NAMES
from projections.projector import View

ROOT = Path(__file__).resolve().parent.parent
FAMILY_PACKAGES = tuple(f"ledger.rules.{name}" for name in NAMES)
REGISTRY = "ledger.rules.families"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST) -> set[str]:
    """Every module an import statement names, at any depth (type-only and late ones too)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def names_a_family(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in FAMILY_PACKAGES)


def importers_of_family_packages() -> set[str]:
    found = set()
    for top in ("ledger", "projections"):
        for path in (ROOT / top).rglob("*.py"):
            module = module_name(path)
            if module == REGISTRY or names_a_family(module):
                continue
            if any(names_a_family(n) for n in imported(ast.parse(path.read_text()))):
                found.add(module)
    return found


def test_no_module_outside_a_family_package_and_the_registry_imports_a_family_package():
    # "The generic read core (projector, cascade, rebuild, schema, handlers, queries) imports
    # no family package; the registry is the one place that names them."
    assert importers_of_family_packages() == set()


def test_the_read_side_imports_no_family_package():
    # "the generic read core ... imports no family package": projections/ without exception.
    assert {m for m in importers_of_family_packages() if m.startswith("projections")} == set()


# A family's reader modules: the only modules of its package that import the read side.
READERS = {
    "ledger.rules.uschess.rater",
    "ledger.rules.uschess.decisions",
    "ledger.rules.uschess.state",
    "ledger.rules.fide.rater",
    "ledger.rules.fide.games",
    "ledger.rules.icu.rater",
}


def test_a_family_package_s_rule_modules_import_no_read_side():
    # "A family package's pure rule modules must not import `projections`; only its reader
    # modules do" (issue 29, docs/architecture.md).
    found = set()
    for name in NAMES:
        for path in (ROOT / "ledger" / "rules" / name).rglob("*.py"):
            names = imported(ast.parse(path.read_text()))
            if any(n == "projections" or n.startswith("projections.") for n in names):
                found.add(module_name(path))
    assert found == READERS


def test_a_fide_read_model_made_with_us_chess_columns_is_built_again(tmp_path):
    # "A FIDE or ICU read model no longer has US Chess's columns" (issue 29): one made before,
    # with them, starts again when opened, as a model of another layout does.
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ledger.register("20000001", "20000002", "20000003", adult=True)
    ledger.submit(round_robin("JAN", ["20000001", "20000002", "20000003"], "2024-01-06"))
    view = View(tmp_path / "fide.db", "fide")
    ledger.catch_up(view)
    assert view.last_position > 0
    view.db.execute("alter table ratings add column established INTEGER")
    view.db.conn.commit()
    view.close()
    reopened = View(tmp_path / "fide.db", "fide")
    assert reopened.last_position == 0
    assert "established" not in {r[1] for r in reopened.db.execute("pragma table_info(ratings)")}
    reopened.close()
    ledger.app.close()
