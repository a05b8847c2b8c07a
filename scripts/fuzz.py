"""Fuzz the write commands with malformed input: each must be refused with exit 2 and one line.

Usage: fuzz.py [--cases 10000] [--store sqlite:///fuzz.db]. Prints JSON counts; exit 1 if any
case was not refused cleanly or the ledger changed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

import typer
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ledger.application import RatingsLedger
from ledger.chain import verify
from ledger.cli import app

PLAYER = {"id": "20000001", "name": "Ann", "birth_date": "2001-02-03", "adult": True}
SECTION = {
    "section_id": "FUZZ-1",
    "event_name": "Fuzz open",
    "online": False,
    "time_control": "G/90;d30",
    "start_date": "2024-05-04",
    "end_date": "2024-05-05",
    "players": [{"id": "20000001"}, {"id": "20000002"}],
    "games": [{"round": 1, "white": "20000001", "black": "20000002", "result": "1-0"}],
}
MATCH = {**{k: v for k, v in SECTION.items() if k != "section_id"}, "match_id": "M-1"}
ADJUSTMENT = {
    "player": "20000001",
    "rating_list": "2024-05-01",
    "games": [{"opponent_rating": 1900, "score": 1}],
}
AWARD = {"player": "20000001", "amount": "2000", "limit": "1800", "date": "2024-05-04"}
OVERRIDE = {
    "player": "20000001",
    "action": "set_floor",
    "value": "1500",
    "effective": "2024-05-04",
    "reason": "appeal",
}
# kind → (command, valid data, {field path: (type, required)})
FILES: dict[str, tuple[str, dict[str, Any], dict[tuple[Any, ...], tuple[str, bool]]]] = {
    "player": (
        "register",
        PLAYER,
        {
            ("id",): ("id", True),
            ("name",): ("text", False),
            ("birth_date",): ("date", False),
            ("adult",): ("bool", False),
        },
    ),
    "section": (
        "submit",
        SECTION,
        {
            ("section_id",): ("id", True),
            ("event_name",): ("text", True),
            ("online",): ("bool", True),
            ("time_control",): ("text", True),
            ("start_date",): ("date", True),
            ("end_date",): ("date", True),
            ("players",): ("list", True),
            ("games",): ("list", True),
            ("players", 0, "id"): ("id", True),
            ("games", 0, "round"): ("round", True),
            ("games", 0, "white"): ("id", True),
            ("games", 0, "result"): ("result", True),
        },
    ),
    "match": (
        "match",
        MATCH,
        {
            ("match_id",): ("id", True),
            ("online",): ("bool", True),
            ("start_date",): ("date", True),
            ("players",): ("list", True),
            ("games",): ("list", True),
            ("games", 0, "round"): ("round", True),
            ("games", 0, "black"): ("id", True),
            ("games", 0, "result"): ("result", True),
        },
    ),
    "adjustment": (
        "fide-adjust",
        ADJUSTMENT,
        {
            ("player",): ("id", True),
            ("rating_list",): ("date", True),
            ("games",): ("list", True),
            ("games", 0, "opponent_rating"): ("rating", True),
            ("games", 0, "score"): ("score", True),
        },
    ),
}
OPTIONS = {
    "award": (
        "award-money-floor",
        AWARD,
        {"player": "id", "amount": "amount", "limit": "amount", "date": "date"},
    ),
    "override": (
        "override",
        OVERRIDE,
        {
            "player": "id",
            "action": "word",
            "value": "amount",
            "effective": "date",
            "reason": "text",
        },
    ),
}
HOSTILE = [
    "1'; DROP TABLE stored_events; --",
    "<script>alert(1)</script>",
    "a b",
    "ü" * 3,
    "x" * 101,
    "\x00",
    "-leading",
    "../../etc/passwd",
    "",
]
WRONG: dict[str, list[Any]] = {
    "id": [1, 2.5, True, [], {}, *HOSTILE],
    "text": [1, True, [], {}, "", "   ", "x" * 1001],
    "date": [20240504, "2024-13-01", "2024-02-30", "24-05-04", "yesterday", True, []],
    "bool": ["true", 1, 0, "yes", [], {}],
    "list": [{}, "x", 5, [], [1], [None], True],
    "round": [0, -1, 1.5, "1", True, None],
    "result": ["2-0", 1, None, "½", "1-1", "0F-0F"],
    "rating": [-1, 0, "1900", True, float("nan"), float("inf"), None],
    "score": [0.7, 2, "1", True, -1, None],
    "amount": ["-5", "0", "abc", "nan", "inf", "1e400", "1" * 5000],
    "word": ["drop_table", "", "SET_FLOOR", "<b>"],
}
TOP_LEVEL = ["1", '"x"', "null", "true", "[]", "[1]", "[[]]", "{}", "[{}]"]


def _set(data: Any, path: tuple[Any, ...], value: Any, drop: bool = False) -> Any:
    data = json.loads(json.dumps(data))
    target = data
    for part in path[:-1]:
        target = target[part]
    if drop:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@st.composite
def malformed_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """A (command, file content) that no valid submission matches."""
    kind = draw(st.sampled_from(sorted(FILES)))
    command, valid, fields = FILES[kind]
    text = json.dumps(valid)
    how = draw(st.sampled_from(["truncate", "bytes", "top", "drop", "extra", "wrong", "deep"]))
    if how == "truncate":
        return command, text[: draw(st.integers(0, len(text) - 1))].encode()
    if how == "bytes":
        at = draw(st.integers(0, len(text)))
        return command, text[:at].encode() + b"\xff\xfe" + text[at:].encode()
    if how == "top":
        return command, draw(st.sampled_from(TOP_LEVEL)).encode()
    if how == "deep":
        depth = draw(st.integers(2_000, 50_000))
        return command, (text[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}").encode()
    path = draw(st.sampled_from(sorted(fields, key=str)))
    kind_of, required = fields[path]
    if how == "drop":
        if not required:
            return command, json.dumps(_set(valid, path[:-1] + ("no_such_field",), 1)).encode()
        data = _set(valid, path, None, drop=True)
    elif how == "extra":
        name = draw(st.text(min_size=1, max_size=20).filter(lambda n: n not in valid))
        data = _set(valid, path[:-1] + (name,), draw(st.sampled_from(WRONG["text"])))
    else:
        data = _set(valid, path, draw(st.sampled_from(WRONG[kind_of])))
    as_list = draw(st.booleans())
    return command, json.dumps([valid, data] if as_list else data).encode()


@st.composite
def malformed_options(draw: st.DrawFn) -> list[str]:
    """The arguments of an award or override with one option malformed."""
    command, valid, fields = OPTIONS[draw(st.sampled_from(sorted(OPTIONS)))]
    name = draw(st.sampled_from(sorted(fields)))
    values = {**valid, name: draw(st.sampled_from(WRONG[fields[name]]))}
    return [command, *(f"--{k}={v}" for k, v in values.items())]


def refused_cleanly(result: Any) -> str | None:
    """None if the CLI refused with exit 2 and one `error:` line; else what went wrong."""
    lines = result.stderr.strip().splitlines()
    if result.exit_code != 2 or result.exception and not isinstance(result.exception, SystemExit):
        return f"exit {result.exit_code} {result.exception!r}: {result.stderr[-300:]}"
    if len(lines) != 1 or not lines[0].startswith("error: ") or "Traceback" in result.output:
        return f"not one clear line: {result.stderr[:300]!r}"
    return None


def run(cases: int, store: str, workdir: Path) -> dict[str, Any]:
    """Run `cases` malformed files and option sets through the CLI against `store`."""
    runner, command = CliRunner(), typer.main.get_command(app)
    failures: list[str] = []
    counts = {"cases": 0, "refused_cleanly": 0}
    with closing(RatingsLedger(store)) as ledger:
        if ledger.recorder.max_notification_id() is None:
            ledger.initialize(actor="director")
        before = verify(ledger).head
    path = workdir / "fuzz.json"

    def check(args: list[str]) -> None:
        result = runner.invoke(command, [*args, "--actor", "director", "--store", store])
        counts["cases"] += 1
        problem = refused_cleanly(result)
        if problem is None:
            counts["refused_cleanly"] += 1
        else:
            failures.append(f"{args[:3]}: {problem}")

    @settings(
        max_examples=cases,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.one_of(malformed_file(), malformed_options()))
    def case(drawn: tuple[str, bytes] | list[str]) -> None:
        if isinstance(drawn, tuple):
            path.write_bytes(drawn[1])
            check([drawn[0], str(path)])
        else:
            check(drawn)

    case()
    with closing(RatingsLedger(store)) as ledger:
        after = verify(ledger).head
    return {**counts, "ledger_unchanged": after == before, "failures": failures[:10]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--store", help="store URL (default: a new SQLite file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or f"sqlite:///{Path(tmp) / 'fuzz.db'}"
        out = run(args.cases, store, Path(tmp))
    print(json.dumps(out, indent=2))
    return 0 if out["refused_cleanly"] == out["cases"] and out["ledger_unchanged"] else 1


if __name__ == "__main__":
    sys.exit(main())
