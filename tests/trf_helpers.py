"""Small TRF16 texts shaped like the real files of issue 31, and a fresh ledger to import them
into (the tests of `import trf`'s header flags, unknown values, contradictions and start
numbers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from typer.testing import CliRunner, Result

from ledger.entrypoints.cli import app as main_app

HEADER = ("012 Club Night", "042 2024/05/04", "052 2024/05/04", "122 90+30")
Cell = tuple[int, str, str]  # opponent's starting rank (0: none), colour, code


def player(
    start: int,
    name: str,
    cells: Sequence[Cell],
    *,
    points: str = "",
    fide_id: str = "",
    birth: str = "",
    rating: str = "",
) -> str:
    """A `001` line in TRF16's columns: starting rank 5-8, name 15-47, rating 49-52, FIDE id
    58-68, birth date 70-79, points 81-84, round r's 10 columns from 92 + 10(r-1)."""
    line = (
        f"001 {start:>4} m    {name:<33} {rating:>4} {'':>3} {fide_id:>11} {birth:<10} "
        f"{points:>4} {start:>4}"
    )
    return line + "".join(f"  {opponent or '0000':>4} {c} {code}" for opponent, c, code in cells)


def trf(*lines: str, header: Sequence[str] = HEADER) -> str:
    return "\n".join([*header, *lines]) + "\n"


def write(tmp_path: Path, text: str, name: str = "club.trf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def ledger(tmp_path: Path) -> Callable[..., Result]:
    """`ratings-ledger ARGS --store` a fresh SQLite ledger (stdout and stderr apart)."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main_app, [*args, "--store", store])

    assert invoke("init", "--actor", "ed").exit_code == 0
    return invoke


def import_trf(cli: Callable[..., Result], path: Path, *options: str) -> Result:
    return cli("import", "trf", str(path), "--register-players", "--actor", "ed", *options)


def imported(store_url: str, path: Path) -> Callable[..., str]:
    """The CLI on `store_url` (each call must exit 0; its output returned), after a director's
    `import trf` of `path` registering its players."""
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(main_app, [*args, "--store", store_url])
        assert result.exit_code == 0, result.output
        return result.output

    run("import", "trf", str(path), "--register-players", "--actor", "director")
    return run
