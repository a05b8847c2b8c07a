"""The layout's layers, read from the code's imports (issue 29, "A layout that shows the
layers")."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules() -> dict[str, ast.Module]:
    """Every module of ledger/ and projections/, parsed, by dotted name."""
    return {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in paths().items()}


def paths() -> dict[str, Path]:
    found = {}
    for package in ("ledger", "projections"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(tree: ast.Module) -> list[ast.ImportFrom | ast.Import]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom | ast.Import)]


def top_level(tree: ast.Module) -> tuple[set[str], dict[str, str], set[str]]:
    """The names a module defines, those it imports (name → module) and its `__all__`."""
    defined: set[str] = set()
    imported: dict[str, str] = {}
    exported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            defined |= names
            if "__all__" in names and isinstance(node.value, ast.List | ast.Tuple):
                exported |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= {a.asname or a.name: node.module for a in node.names}
    return defined, imported, exported


# A family package's reader: the modules that implement the read side's protocol
# (projections/rating.py) for it. They alone of the family import `projections`; its rules
# never do (docs/architecture.md, "A family's reader").
READERS = ("rater", "state", "decisions", "games")


def reads(name: str) -> bool:
    """Whether module `name` may import the read side: an entry point or a family's reader."""
    parts = name.split(".")
    if name.startswith("ledger.entrypoints"):
        return True
    return len(parts) == 4 and parts[:2] == ["ledger", "rules"] and parts[3] in READERS


def test_nothing_in_ledger_but_entrypoints_and_family_readers_imports_projections():
    # "`ledger/consequences.py` is the one write-side module that imports `projections`":
    # no module of ledger/ but the entrypoints and a family's reader imports the read side.
    found = [
        name
        for name, tree in modules().items()
        if name.startswith("ledger.") and not reads(name)
        for node in imports(tree)
        for module in (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
        )
        if module.split(".")[0] == "projections"
    ]
    assert found == []


def test_no_import_takes_a_name_through_a_module_that_only_re_exports_it():
    # "24 imports take a name through a module that only re-exports it": each name is imported
    # from the module that defines it, or from a package's face (its `__init__.py` `__all__`).
    parsed, where = modules(), paths()
    tables = {name: top_level(tree) for name, tree in parsed.items()}
    found = []
    for name, tree in parsed.items():
        for node in imports(tree):
            if not isinstance(node, ast.ImportFrom) or node.module not in tables:
                continue
            defined, imported, exported = tables[node.module]
            face = where[node.module].name == "__init__.py"
            for alias in node.names:
                if f"{node.module}.{alias.name}" in tables or alias.name in defined:
                    continue  # a submodule, or a name the module defines
                if alias.name in imported and not (face and alias.name in exported):
                    found.append(f"{name}: {alias.name} from {node.module}")
    assert found == []


def test_the_evidence_package_is_imported_by_no_module_it_imports():
    # "the tamper-evidence machinery as one package with a small face": the modules below it
    # (the log, the roles, the domain, the errors) import nothing of ledger/evidence/.
    parsed = modules()
    below = set()
    for name, tree in parsed.items():
        if name.startswith("ledger.evidence"):
            below |= {
                node.module
                for node in imports(tree)
                if isinstance(node, ast.ImportFrom)
                and node.module in parsed
                and not node.module.startswith("ledger.evidence")
            }
    found = [
        f"{name} imports {node.module}"
        for name in sorted(below)
        for node in imports(parsed[name])
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ledger.evidence")
    ]
    assert below and found == []
