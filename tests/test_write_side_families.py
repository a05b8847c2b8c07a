"""The write side and the entry points know no family (issue 29): what they ask of one goes
through the registry (`ledger.rules.families`) and its `Family`."""

from __future__ import annotations

import ast
from pathlib import Path

from ledger.rules.families import NAMES

LEDGER = Path(__file__).resolve().parent.parent / "ledger"
FAMILY_PACKAGES = tuple(f"ledger.rules.{name}" for name in NAMES)


def imported(path: Path) -> set[str]:
    """Every module `path` imports, at its top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found


def test_no_module_outside_a_family_package_and_the_registry_imports_a_family_package():
    """ "No module outside a family's package and the registry imports a family package"."""
    outside = [
        p
        for p in LEDGER.rglob("*.py")
        if not any(p.is_relative_to(LEDGER / "rules" / name) for name in NAMES)
    ]
    found = {str(p.relative_to(LEDGER.parent)): imported(p) for p in outside}
    offenders = {
        path: sorted(m for m in modules if m.startswith(FAMILY_PACKAGES))
        for path, modules in found.items()
    }
    assert {path: names for path, names in offenders.items() if names} == {}
