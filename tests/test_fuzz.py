"""Hostile and broken input: every malformed file or option is refused with exit 2 and one
clear line, never a traceback, and the ledger is unchanged (a sample of scripts/fuzz.py);
every poison value (issue 10) is refused naming its field."""

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
    poison = len(list(fuzz.poison_cases()))
    assert (out["poison_cases"], out["poison_refused"]) == (poison, poison)


def test_every_poison_class_is_tried_in_every_field_of_its_kind() -> None:
    # Issue 10: "non-finite and huge numbers in every numeric field, out-of-window dates,
    # control/format/bidi characters in every text field, overlong text, huge rounds".
    tried = {(args[0], field) for args, _, field, _ in fuzz.poison_cases()}
    for command, _, fields in fuzz.FILES.values():
        for path, (kind, _) in fields.items():
            if kind in fuzz.POISON:
                assert (command, fuzz.field_path(path)) in tried
    for command, _, options in fuzz.OPTIONS.values():
        for name, kind in options.items():
            if kind in fuzz.POISON:
                assert (command, name) in tried
    assert {("grant-role", "holder"), ("register", "actor"), ("amend-rules", "value")} <= tried


def test_the_commands_the_fuzzer_spoils_are_valid_so_only_the_spoiling_refuses(
    tmp_path: Path,
) -> None:
    # Every malformed or poisoned case is one valid command with one thing changed; if the
    # valid command were refused too, the fuzzer would prove nothing.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    fuzz.prepare(store)
    for args, content in fuzz.valid_cases():
        result = fuzz.invoke(store, tmp_path, args, content, "director")
        assert (result.exit_code, result.stderr) == (0, ""), args
