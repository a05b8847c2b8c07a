"""Fuzz the write commands with malformed input: each must be refused with exit 2 and one line.

Besides `--cases` random malformed files and options, every poison value (non-finite and huge
numbers, dates out of the window, control, format and bidi characters, overlong text) is tried
in every field of its kind, and must be refused naming that field.

Usage: fuzz.py [--cases 10000] [--store sqlite:///fuzz.db]. Prints JSON counts; exit 1 if any
case was not refused cleanly or the ledger changed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import typer
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ledger import bounds
from ledger import plausibility as p
from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer, parse
from ledger.entrypoints.cli import app
from ledger.errors import field_path
from ledger.evidence import Keyring, verify

PLAYERS = ("20000001", "20000002")  # registered before fuzzing, so only the poison can refuse
PLAYER = {
    "id": "20000003",
    "name": "Ann",
    "birth_date": "2001-02-03",
    "adult": True,
    "fide": {"rating": 2100, "date": "2024-01-01", "games": 50},
    "cfc": {"rating": 2000, "date": "2024-01-01"},
    "membership_expires": "2025-12-31",
    "playing_since": "2010-01-01",
}
BALANCE = {
    "player": "20000001",
    "system": "OTBR",
    "as_of": "2024-01-01",
    "rating": 1850.5,
    "games": 40,
    "wins": 20,
    "draws": 8,
    "losses": 12,
    "sections_of_three": 9,
    "peak": 1901.5,
    "olm_games": 0,
    "money_floor": 1800,
    "director_floor": 1700,
    "ceiling": 2000,
}
SECTION = {
    "section_id": "FUZZ-1",
    "tournament_id": "FUZZ",
    "event_name": "Fuzz open",
    "online": False,
    "time_control": "G/90;d30",
    "start_date": "2024-05-04",
    "end_date": "2024-05-05",
    "players": [{"id": "20000001"}, {"id": "20000002"}],
    "games": [{"round": 1, "white": "20000001", "black": "20000002", "result": "1-0"}],
}
MATCH = {
    **{k: v for k, v in SECTION.items() if k not in ("section_id", "tournament_id")},
    "match_id": "M-1",
}
ADJUSTMENT = {
    "player": "20000001",
    "rating_list": "2024-05-01",
    "games": [{"opponent_rating": 1900, "opponent_id": "FIDE 1", "score": 1}],
}
AWARD = {"player": "20000001", "amount": "2000", "limit": "1800", "date": "2024-05-04"}
OVERRIDE = {
    "player": "20000001",
    "action": "set_floor",
    "value": "1500",
    "effective": "2024-05-04",
    "reason": "appeal",
}
AMEND = {
    "parameter": "bonus_multiplier",
    "value": "12",
    "effective": "2025-01-01",
    "until": "2026-01-01",
    "reason": "board motion",
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
            ("fide", "rating"): ("rating", True),
            ("fide", "games"): ("count", False),
            ("fide", "date"): ("date", False),
            ("cfc", "rating"): ("rating", True),
            ("cfc", "date"): ("date", False),
            ("membership_expires",): ("membership", False),
            ("playing_since",): ("date", False),
        },
    ),
    "balance": (
        "opening-balance",
        BALANCE,
        {
            ("player",): ("id", True),
            ("as_of",): ("date", True),
            ("rating",): ("rating", True),
            ("games",): ("count", True),
            ("wins",): ("count", False),
            ("draws",): ("count", False),
            ("losses",): ("count", False),
            ("sections_of_three",): ("count", False),
            ("peak",): ("rating", False),
            ("olm_games",): ("count", False),
            ("money_floor",): ("floor", False),
            ("director_floor",): ("floor", False),
            ("ceiling",): ("rating", False),
        },
    ),
    "section": (
        "submit",
        SECTION,
        {
            ("section_id",): ("id", True),
            ("tournament_id",): ("id", False),
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
            ("event_name",): ("text", False),
            ("online",): ("bool", True),
            ("time_control",): ("text", True),
            ("start_date",): ("date", True),
            ("end_date",): ("date", True),
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
            ("games", 0, "opponent_rating"): ("opponent", True),
            ("games", 0, "opponent_id"): ("text", False),
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
            "value": "value",
            "effective": "date",
            "reason": "reason",
        },
    ),
    "amend": (
        "amend-rules",
        AMEND,
        {
            "parameter": "word",
            "value": "multiplier",
            "effective": "date",
            "until": "date",
            "reason": "reason",
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
    "membership": [20240504, "2024-13-01", "yesterday", True, []],
    "round": [0, -1, 1.5, "1", True, None],
    "result": ["2-0", 1, None, "½", "1-1", "0F-0F"],
    "rating": [-1, "1900", True, float("nan"), float("inf"), []],
    "opponent": [-1, 0, "1900", True, float("nan"), float("inf"), None],
    "score": [0.7, 2, "1", True, -1, None],
    "amount": ["-5", "0", "abc", "nan", "inf", "1e400", "1" * 5000],
    "word": ["drop_table", "", "SET_FLOOR", "<b>"],
    "count": [-1, 1.5, "3", True],
    "reason": ["", "   ", "x" * 1001],
    "floor": [-100, 1800.5, "1800", True],
    "value": ["-5", "abc", "nan", "inf", "1e400", "1" * 5000],
    "multiplier": ["-1", "ten", "[]", '{"split": 2000}', "true"],
}
# Plausible in type, implausible in value: each is tried in every field of its kind.
_LATE = (p.years_ahead(bounds.YEARS_AHEAD) + timedelta(days=1)).isoformat()
_LATE_MEMBERSHIP = (p.years_ahead(bounds.MEMBERSHIP_YEARS_AHEAD) + timedelta(days=1)).isoformat()
_HUGE = [1e300, 1e308, -1e308, float("nan"), float("inf"), float("-inf"), 10**12, 2**64]
_TEXT = [
    *(f"Ann{c}B" for c in "\n\r\t\x00\x07\x1b\x7f\x85\u2028\u2029"),
    "\x1b[2J\x1b[31mAnn",  # ANSI: clear the screen, red
    *(f"Ann{c}B" for c in "\u202e\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c"),  # bidi
    *(f"Ann{c}B" for c in "\ufeff\u00ad\u2060\U000e0041\ue000\U000f0000\udc80\U0010ffff"),
    "x" * (bounds.MAX_REASON + 1),
    "x" * 100_000,
]
POISON: dict[str, list[Any]] = {
    "rating": [*_HUGE, bounds.RATING.door + 0.5],
    "opponent": [*_HUGE, bounds.RATING.door + 0.5],
    "floor": [10**12, 2**64, bounds.RATING.door + 1],
    "count": [10**12, 2**64, bounds.GAMES.door + 1],
    "round": [10**12, 2**64, bounds.ROUND.door + 1],
    "date": ["0001-01-01", "1899-12-31", "2999-01-01", "9999-12-31", _LATE],
    "membership": ["0001-01-01", "1899-12-31", "2999-01-01", _LATE_MEMBERSHIP],
    "text": _TEXT,
    "reason": _TEXT,
    "id": _TEXT,
    "amount": ["1e300", "1e400", "nan", "inf", "-inf", str(10**12), str(bounds.PRIZE.door + 1)],
    "value": ["1e300", "1e400", "nan", "-inf", str(10**12), str(bounds.RATING.door + 1)],
    "multiplier": [
        "NaN",
        "Infinity",
        "-Infinity",
        "1e300",
        str(bounds.BONUS_MULTIPLIER.door + 1),
        '{"split": 1e300, "low": [0, 1], "high": [0, 1]}',
        '{"split": 2000, "low": ["NaN", 1], "high": [0, 1]}',
    ],
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
        parent = valid
        for part in path[:-1]:
            parent = parent[part]
        name = draw(st.text(min_size=1, max_size=20).filter(lambda n: n not in parent))
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


def poison_cases() -> Iterator[tuple[list[str], bytes | None, str, str]]:
    """Every poison value in every field of its kind, the rest of the command valid:
    (arguments, the command file's content or None, the field to be named, the actor)."""
    for kind in sorted(FILES):
        command, valid, fields = FILES[kind]
        for path, (kind_of, _) in fields.items():
            for value in POISON.get(kind_of, ()):
                content = json.dumps(_set(valid, path, value)).encode()
                yield [command], content, field_path(path), "director"
    for command, valid, options in OPTIONS.values():
        for name, kind_of in options.items():
            for value in POISON.get(kind_of, ()):
                args = [f"--{k}={v}" for k, v in {**valid, name: value}.items()]
                yield [command, *args], None, name, "director"
    for value in POISON["text"]:
        yield ["grant-role", value, "auditor"], None, "holder", "director"
        yield ["register"], json.dumps(PLAYER).encode(), "actor", value


def valid_cases() -> Iterator[tuple[list[str], bytes | None]]:
    """The valid commands the malformed and poisoned ones are made from."""
    for command, valid, _ in FILES.values():
        yield [command], json.dumps(valid).encode()
    for command, valid, _ in OPTIONS.values():
        yield [command, *(f"--{k}={v}" for k, v in valid.items())], None
    yield ["grant-role", "Ann", "auditor"], None


def prepare(store: str) -> None:
    """A ledger set up by `director`, with PLAYERS registered (so only bad input can refuse)."""
    Keyring().ensure("Ann")  # the holder of the valid grant-role case has a key to record
    with closing(RatingsLedger(store)) as ledger:
        if ledger.recorder.max_notification_id() is None:
            ledger.roles.initialize(actor="director")
            players = [parse(RegisterPlayer, {"id": m}) for m in PLAYERS]
            ledger.players.register(*players, actor="director")


def invoke(store: str, workdir: Path, args: list[str], content: bytes | None, actor: str) -> Any:
    """The CLI's result for `args` (with the command file holding `content`, if any)."""
    if content is not None:
        path = workdir / "fuzz.json"
        path.write_bytes(content)
        args = [args[0], str(path), *args[1:]]
    return CliRunner().invoke(_command(), [*args, "--actor", actor, "--store", store])


@cache
def _command() -> Any:
    """The click command behind `app`, built once (building it takes ~0.1 s)."""
    return typer.main.get_command(app)


def run(cases: int, store: str, workdir: Path) -> dict[str, Any]:
    """Run `cases` malformed files and option sets, then every poison case, through the CLI
    against `store`."""
    failures: list[str] = []
    counts = {"cases": 0, "refused_cleanly": 0, "poison_cases": 0, "poison_refused": 0}
    prepare(store)
    with closing(RatingsLedger(store)) as ledger:
        before = verify(ledger).head

    def check(args: list[str], content: bytes | None = None) -> None:
        result = invoke(store, workdir, args, content, "director")
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
            check([drawn[0]], drawn[1])
        else:
            check(drawn)

    case()
    for args, content, field, actor in poison_cases():
        result = invoke(store, workdir, args, content, actor)
        counts["poison_cases"] += 1
        problem = refused_cleanly(result)
        if problem is None and not result.stderr.startswith(f"error: {field}: "):
            problem = f"does not name {field}: {result.stderr[:300]!r}"
        if problem is None:
            counts["poison_refused"] += 1
        else:
            failures.append(f"poison {args[:2]} {field}: {problem}")
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
    clean = out["refused_cleanly"] == out["cases"] and out["poison_refused"] == out["poison_cases"]
    return 0 if clean and out["ledger_unchanged"] else 1


if __name__ == "__main__":
    sys.exit(main())
