"""Compile the replay's hot modules (ledger/compiled.py MODULES) with mypyc, when they changed.

    python scripts/compile.py [--force]

Builds into build/compiled/ beside a manifest of the sources they were built from, which
`ledger.compiled` checks before it loads them. Without a C compiler (or mypy), or when the
build fails, it says so in one line and the source modules run, as they always can.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ledger import compiled  # noqa: E402

MYPY_CONFIG = """[mypy]
python_version = 3.11
ignore_missing_imports = True
"""


LIST_SOURCES = """
import importlib, json, sys
from pathlib import Path
from ledger import compiled
for name in compiled.MODULES:
    importlib.import_module(name)
found = set()
for module in list(sys.modules.values()):
    file = getattr(module, "__file__", None)
    if file and Path(file).resolve().is_relative_to(compiled.ROOT):
        relative = Path(file).resolve().relative_to(compiled.ROOT)
        if relative.parts[0] in ("ledger", "projections"):
            found.add(relative.as_posix())
print(json.dumps(sorted(found)))
"""


def sources() -> list[str]:
    """The project's source files imported with the compiled modules (from source, in a
    process of their own), relative to the checkout."""
    env = {**os.environ, compiled.PURE_VARIABLE: "1"}
    run = subprocess.run(
        [sys.executable, "-c", LIST_SOURCES],
        capture_output=True,
        text=True,
        check=True,
        cwd=compiled.ROOT,
        env=env,
    )
    return list(json.loads(run.stdout))


def compiler() -> str | None:
    """The C compiler setuptools would call, if it is on this machine."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


def build(folder: Path) -> None:
    """Compile MODULES into `folder` and write its manifest."""
    import warnings

    from mypyc.build import mypycify
    from setuptools import setup

    warnings.filterwarnings("ignore", message=".*tool.setuptools.*beta")

    files = [name.replace(".", "/") + ".py" for name in compiled.MODULES]
    listed = sources()
    # the sources' digest before mypyc reads them: a file edited while the (slow) build runs
    # leaves a manifest that does not match it, so the build is never loaded for it
    digest = compiled.source_digest(listed)
    work = compiled.ROOT / "build" / "compile-work"
    work.mkdir(parents=True, exist_ok=True)
    (work / "mypy.ini").write_text(MYPY_CONFIG)
    os.chdir(compiled.ROOT)
    said = io.StringIO()  # mypyc's notes ("Treating generator comprehension as list"…)
    try:
        with contextlib.redirect_stdout(said):
            extensions = mypycify(
                ["--config-file", str(work / "mypy.ini"), *files],
                opt_level="3",
                group_name=compiled.GROUP,
                target_dir=str(work / "c"),
            )
    except SystemExit:
        errors = [line for line in said.getvalue().splitlines() if ": error:" in line]
        raise RuntimeError(errors[0] if errors else "mypyc refused the modules") from None
    setup(
        name="ratings-ledger-compiled",
        ext_modules=extensions,
        script_args=[
            "--quiet",
            "build_ext",
            "--build-lib",
            str(folder),
            "--build-temp",
            str(work / "o"),
        ],
    )
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    names = [*compiled.MODULES, f"{compiled.GROUP}__mypyc"]
    found = {name: name.replace(".", "/") + suffix for name in names}
    missing = [name for name, file in found.items() if not (folder / file).exists()]
    if missing:
        raise RuntimeError(f"no extension built for {', '.join(missing)}")
    manifest = {
        "python": compiled.python_tag(),
        "sources": listed,
        "digest": digest,
        "files": found,
    }
    (folder / compiled.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="compile even when up to date")
    args = parser.parse_args()
    if not args.force and compiled.state() == "compiled":
        print("compiled modules: up to date")
        return 0
    if compiler() is None:
        print("compiled modules: no C compiler here; the source modules run")
        return 0
    try:
        import mypyc  # noqa: F401
    except ImportError:
        print("compiled modules: mypyc (mypy) is not installed; the source modules run")
        return 0
    parent = compiled.FOLDER.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="compiled-", dir=parent))
    try:
        build(staging)
    except (Exception, SystemExit) as e:  # setuptools ends a failed build with SystemExit
        shutil.rmtree(staging, ignore_errors=True)
        reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        print(f"compiled modules: the build failed ({reason}); the source modules run")
        return 0
    old = Path(tempfile.mkdtemp(prefix="compiled-old-", dir=parent))
    try:  # a process loading the old build keeps its files open; the new one is whole
        if compiled.FOLDER.exists():
            compiled.FOLDER.rename(old / "build")
        staging.rename(compiled.FOLDER)
    except OSError as e:  # another setup's build put its own in place first
        shutil.rmtree(staging, ignore_errors=True)
        print(f"compiled modules: not put in place ({e.strerror}); another build was")
        return 0
    finally:
        shutil.rmtree(old, ignore_errors=True)
    print(f"compiled modules: {len(compiled.MODULES)} built into {compiled.FOLDER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
