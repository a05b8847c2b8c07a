"""Hostile and broken input: every malformed file or option is refused with exit 2 and one
clear line, never a traceback, and the ledger is unchanged (a sample of scripts/fuzz.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "fuzz.py"
spec = importlib.util.spec_from_file_location("fuzz_script", SCRIPT)
assert spec is not None and spec.loader is not None
fuzz = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = fuzz
spec.loader.exec_module(fuzz)


def test_malformed_submissions_are_refused_with_one_clear_line_and_change_nothing(
    tmp_path: Path,
) -> None:
    # Issue: "A fuzzing script (hypothesis) generates >= 10,000 malformed player, section,
    # adjustment, award, match and override files; every one is refused with exit 2 and one
    # clear line, never a traceback, and the ledger is unchanged. The suite runs a smaller
    # sample of the same generator."
    out = fuzz.run(600, f"sqlite:///{tmp_path / 'ledger.db'}", tmp_path)
    assert out["failures"] == []
    assert (out["cases"], out["refused_cleanly"], out["ledger_unchanged"]) == (600, 600, True)
