"""Plausibility at the door: every number, date and text of a write is checked against the
ranges in ledger/plausibility.py before anything is appended; stored text is shown escaped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from tamper_helpers import insert
from typer.testing import CliRunner

from ledger import bounds
from ledger import plausibility as p
from ledger.application import RatingsLedger
from ledger.commands import MAX_PROBLEMS
from ledger.domain import Player
from ledger.entrypoints.cli import app
from ledger.evidence.signing import Keyring
from ledger.log import read_entries
from ledger.text import shown

runner = CliRunner()
TODAY = date.today()
TOMORROW = (TODAY + timedelta(days=1)).isoformat()
LATEST = p.years_ahead(bounds.YEARS_AHEAD).isoformat()
TOO_LATE = (p.years_ahead(bounds.YEARS_AHEAD) + timedelta(days=1)).isoformat()
START = date.fromisoformat("2024-05-04")  # the start date of SECTION and MATCH
LONGEST = (START + timedelta(days=bounds.MAX_EVENT_DAYS)).isoformat()
TOO_LONG = (START + timedelta(days=bounds.MAX_EVENT_DAYS + 1)).isoformat()
BONUS_TOO_HIGH = bounds.BONUS_MULTIPLIER.door + 1
NEWLINE, ANSI, BIDI = "Ann\nrecorded Forged at position 99", "Ann\x1b[31m", "Ann\u202emoc.live"

# The valid content of each write, by CLI verb; `None` marks the verbs given as options.
PLAYER = {
    "id": "20000003",
    "name": "Ann Example",
    "birth_date": "2001-02-03",
    "adult": True,
    "fide": {"rating": 2100, "date": "2024-01-01", "games": 50, "federation": "USA"},
    "cfc": {"rating": 2000, "date": "2024-01-01"},
    "membership_expires": "2026-01-01",
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
GAME = {"round": 1, "white": "20000001", "black": "20000002", "result": "1-0"}
SECTION = {
    "section_id": "S-1",
    "tournament_id": "T-1",
    "event_name": "Spring open",
    "online": False,
    "time_control": "G/90;d30",
    "start_date": "2024-05-04",
    "end_date": "2024-05-05",
    "players": [{"id": "20000001"}, {"id": "20000002"}],
    "games": [GAME],
}
MATCH = {**{k: v for k, v in SECTION.items() if k not in ("section_id", "tournament_id")}}
MATCH["match_id"] = "M-1"
ADJUSTMENT = {
    "player": "20000001",
    "rating_list": "2024-05-01",
    "games": [{"opponent_rating": 1900, "opponent_id": "FIDE 123", "score": 1}],
}
FILES: dict[str, tuple[dict[str, Any], str]] = {
    "register": (PLAYER, "td"),
    "opening-balance": (BALANCE, "office"),
    "submit": (SECTION, "td"),
    "match": (MATCH, "td"),
    "fide-adjust": (ADJUSTMENT, "office"),
}
OPTIONS: dict[str, dict[str, str]] = {
    "award-money-floor": {
        "player": "20000001",
        "amount": "2000",
        "limit": "1800",
        "date": "2024-05-04",
    },
    "override": {
        "player": "20000001",
        "action": "adjust_rating",
        "value": "1500",
        "effective": "2024-05-04",
        "reason": "appeal",
    },
    "amend-rules": {
        "parameter": "bonus_multiplier",
        "value": "12",
        "effective": "2025-01-01",
        "reason": "board motion",
    },
}
CONVERSION = {"split": 2000, "low": [-1073, 1.5667], "high": [20, 1.02]}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[str]:
    """A SQLite ledger set up by `director`, with `office` and `td`, and two players."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with closing(RatingsLedger(url)) as ledger:
        ledger.roles.initialize(actor="director")
        ledger.roles.grant("office", "ratings_admin", actor="director")
        ledger.roles.grant("td", "tournament_director", actor="director")
    players = tmp_path / "players.json"
    players.write_text(json.dumps([{"id": "20000001"}, {"id": "20000002"}]))
    assert cli(url, "register", str(players), actor="td")[0] == 0
    yield url


def cli(store: str, *args: str, actor: str = "director") -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--actor", actor, "--store", store])
    return result.exit_code, result.stdout, result.stderr


def entries(store: str) -> int:
    with closing(RatingsLedger(store)) as ledger:
        return ledger.recorder.max_notification_id() or 0


def changed(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `data` with the value at `path` replaced."""
    data = json.loads(json.dumps(data))
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return data


def write(store: str, tmp_path: Path, verb: str, path: tuple[Any, ...], value: Any) -> tuple:
    """Run `verb` with the value at `path` (a file field, an option, or `actor`) replaced."""
    actor = value if path == ("actor",) else None
    if verb in FILES:
        data, default_actor = FILES[verb]
        if actor is None:
            data = changed(data, path, value)
        file = tmp_path / "command.json"
        file.write_text(json.dumps(data, ensure_ascii=False))
        return cli(store, verb, str(file), actor=actor or default_actor)
    if verb == "grant-role":
        return cli(store, verb, value, "auditor")
    options = dict(OPTIONS[verb])
    if isinstance(value, dict):  # a conversion's pieces
        options["parameter"] = "fide_conversion"
    if actor is None:
        options[path[0]] = value if isinstance(value, str) else json.dumps(value)
    args = [f"--{k}={v}" for k, v in options.items()]
    return cli(store, verb, *args, actor=actor or "director")


# (verb, field path, poison value, what the one error line shows of the value)
POISON: list[tuple[str, tuple[Any, ...], Any, str]] = [
    # What was found: non-finite and huge numbers appended with exit 0.
    ("amend-rules", ("value",), "NaN", "nan"),
    ("amend-rules", ("value",), "Infinity", "inf"),
    ("amend-rules", ("value",), "-Infinity", "-inf"),
    ("amend-rules", ("value",), "1e300", "1e+300"),
    ("amend-rules", ("value",), str(BONUS_TOO_HIGH), str(BONUS_TOO_HIGH)),
    ("amend-rules", ("value",), {**CONVERSION, "split": 1e300}, "1e+300"),
    ("amend-rules", ("value",), {**CONVERSION, "low": ["NaN", 1.5]}, "nan"),
    ("amend-rules", ("value",), {**CONVERSION, "high": [20, 1e300]}, "1e+300"),
    ("opening-balance", ("rating",), 1e300, "1e+300"),
    ("opening-balance", ("peak",), 1e300, "1e+300"),
    ("opening-balance", ("ceiling",), 1e300, "1e+300"),
    ("opening-balance", ("money_floor",), 10**12, "1000000000000"),
    ("opening-balance", ("director_floor",), 10**12, "1000000000000"),
    ("opening-balance", ("games",), 10**12, "1000000000000"),
    ("opening-balance", ("olm_games",), 10**12, "1000000000000"),
    ("opening-balance", ("sections_of_three",), 10**12, "1000000000000"),
    ("override", ("value",), "1e300", "1e+300"),
    ("override", ("value",), "1e400", "inf"),
    ("override", ("value",), "nan", "nan"),
    ("register", ("fide", "rating"), 1e308, "1e+308"),
    ("register", ("fide", "games"), 10**12, "1000000000000"),
    ("register", ("cfc", "rating"), 1e300, "1e+300"),
    ("fide-adjust", ("games", 0, "opponent_rating"), 1e300, "1e+300"),
    ("award-money-floor", ("amount",), "1e300", "1e+300"),
    ("award-money-floor", ("limit",), str(10**12), "1000000000000"),
    ("submit", ("games", 0, "round"), 10**12, "1000000000000"),
    ("match", ("games", 0, "round"), 10**12, "1000000000000"),
    # What was found: dates in year 1, in 2999, sections lasting 1,000 years.
    ("register", ("birth_date",), "0001-01-01", "0001-01-01"),
    ("register", ("birth_date",), "2999-01-01", "2999-01-01"),
    ("register", ("birth_date",), TOMORROW, TOMORROW),
    ("register", ("playing_since",), TOMORROW, TOMORROW),
    ("register", ("membership_expires",), "2999-01-01", "2999-01-01"),
    ("register", ("fide", "date"), "1899-12-31", "1899-12-31"),
    ("register", ("cfc", "date"), TOO_LATE, TOO_LATE),
    ("opening-balance", ("as_of",), "0001-01-01", "0001-01-01"),
    ("submit", ("start_date",), "0001-01-01", "0001-01-01"),
    ("submit", ("end_date",), "2999-01-01", "2999-01-01"),
    ("submit", ("end_date",), TOO_LATE, TOO_LATE),
    ("submit", ("start_date",), "1026-05-04", "1026-05-04"),
    ("submit", ("end_date",), TOO_LONG, TOO_LONG),
    ("match", ("start_date",), "0001-01-01", "0001-01-01"),
    ("match", ("end_date",), "2026-05-04", "2026-05-04"),
    ("fide-adjust", ("rating_list",), "2999-01-01", "2999-01-01"),
    ("award-money-floor", ("date",), "0001-01-01", "0001-01-01"),
    ("override", ("effective",), "2999-01-01", "2999-01-01"),
    ("amend-rules", ("effective",), "0001-01-01", "0001-01-01"),
    # What was found: newlines, ANSI escapes and bidi overrides in names and role holders.
    ("register", ("name",), NEWLINE, repr(NEWLINE)),
    ("register", ("name",), ANSI, repr(ANSI)),
    ("register", ("name",), BIDI, repr(BIDI)),
    ("register", ("name",), "Ann\u2028B", repr("Ann\u2028B")),
    ("register", ("name",), "Ann\tB", repr("Ann\tB")),
    ("register", ("name",), "Ann\x00", repr("Ann\x00")),
    ("register", ("name",), "Ann\ue000", repr("Ann\ue000")),
    ("register", ("name",), "x" * (bounds.MAX_NAME + 1), "201 characters"),
    ("submit", ("event_name",), NEWLINE, repr(NEWLINE)),
    ("submit", ("time_control",), "G/90\x1b[2J", repr("G/90\x1b[2J")),
    ("match", ("event_name",), BIDI, repr(BIDI)),
    ("fide-adjust", ("games", 0, "opponent_id"), ANSI, repr(ANSI)),
    ("override", ("reason",), NEWLINE, repr(NEWLINE)),
    ("override", ("reason",), "r" * (bounds.MAX_REASON + 1), "1,001 characters"),
    ("amend-rules", ("reason",), BIDI, repr(BIDI)),
    ("grant-role", ("holder",), NEWLINE, repr(NEWLINE)),
    ("grant-role", ("holder",), BIDI, repr(BIDI)),
    ("grant-role", ("holder",), ANSI, repr(ANSI)),
    ("register", ("actor",), ANSI, repr(ANSI)),
    ("submit", ("actor",), NEWLINE, repr(NEWLINE)),
]


@pytest.mark.parametrize(
    ("verb", "path", "value", "shown"),
    POISON,
    ids=[f"{c[0]}-{c[1][-1]}-{c[3][:20]}" for c in POISON],
)
def test_an_implausible_value_is_refused_in_one_line_naming_the_field_and_nothing_is_appended(
    store: str, tmp_path: Path, verb: str, path: tuple[Any, ...], value: Any, shown: str
) -> None:
    # Issue 10: "Every command validates every number, date and text before anything is
    # appended ... A refused write exits 2 with ONE line naming the field and value".
    before = entries(store)
    code, _, stderr = write(store, tmp_path, verb, path, value)
    field = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")
    assert code == 2, stderr
    assert stderr.count("\n") == 1 and stderr.startswith(f"error: {field}: "), stderr
    assert shown in stderr
    assert entries(store) == before


# (verb, field path, a value at the edge of its range)
BOUNDARY: list[tuple[str, tuple[Any, ...], Any]] = [
    ("amend-rules", ("value",), "0"),
    ("amend-rules", ("value",), str(bounds.BONUS_MULTIPLIER.door)),
    ("amend-rules", ("value",), CONVERSION),
    ("amend-rules", ("effective",), LATEST),
    ("opening-balance", ("rating",), bounds.RATING.door),
    ("opening-balance", ("rating",), 0),
    ("opening-balance", ("ceiling",), bounds.RATING.door),
    ("opening-balance", ("games",), bounds.GAMES.door),
    ("opening-balance", ("as_of",), "1900-01-01"),
    ("override", ("value",), str(bounds.RATING.door)),
    ("register", ("fide", "rating"), bounds.RATING.door),
    ("register", ("birth_date",), "1900-01-01"),
    ("register", ("birth_date",), TODAY.isoformat()),
    ("register", ("membership_expires",), f"{TODAY.year + bounds.MEMBERSHIP_YEARS_AHEAD}-01-01"),
    ("register", ("name",), "x" * bounds.MAX_NAME),
    ("register", ("name",), "Mohammad\u200cReza Ahmadi"),  # ZWNJ spells Persian names
    ("register", ("name",), "  Ann Example  "),
    ("register", ("name",), "Zoë Ōtsuka 李娜 Ørjan"),
    ("fide-adjust", ("games", 0, "opponent_rating"), bounds.RATING.door),
    ("award-money-floor", ("amount",), str(bounds.PRIZE.door)),
    ("award-money-floor", ("limit",), str(bounds.RATING.door)),
    ("submit", ("games", 0, "round"), bounds.ROUND.door),
    ("submit", ("start_date",), "2024-05-05"),  # a one-day section
    ("submit", ("end_date",), LONGEST),
    ("match", ("end_date",), LONGEST),
    ("override", ("reason",), "r" * bounds.MAX_REASON),
    ("grant-role", ("holder",), "Ann Example-Ørjan"),
]


@pytest.mark.parametrize(("verb", "path", "value"), BOUNDARY, ids=str)
def test_a_value_at_the_edge_of_its_plausible_range_is_accepted(
    store: str, tmp_path: Path, keyring: Keyring, verb: str, path: tuple[Any, ...], value: Any
) -> None:
    # Issue 10: ranges are documented and refuse only the implausible; their edges are in.
    if verb == "grant-role":
        keyring.ensure(value)  # a holder's public key is recorded with the grant
    before = entries(store)
    code, _, stderr = write(store, tmp_path, verb, path, value)
    assert (code, stderr) == (0, "")
    assert entries(store) == before + 1


def test_a_name_is_stored_nfc_normalized_and_stripped_of_spaces_at_the_ends(
    store: str, tmp_path: Path
) -> None:
    # Issue 10: "NFC-normalized ... decide about plain spaces at the ends: strip".
    assert write(store, tmp_path, "register", ("name",), "  Zoe\u0308 ")[0] == 0
    with closing(RatingsLedger(store)) as ledger:
        [entry] = [e for e in read_entries(ledger) if e.payload.get("member_id") == "20000003"]
    assert entry.payload["name"] == "Zo\u00eb"


def test_a_stored_name_with_control_characters_cannot_forge_lines_in_log_or_player(
    store: str, tmp_path: Path, keyring: Keyring
) -> None:
    # Issue 10: "One name with a newline forges an extra line in `log` and `player` output";
    # an entry written before these checks (here: straight into the database, signed by td
    # and sealed as a write of an older version would be) is shown escaped, one per line.
    name = f"{NEWLINE}{ANSI}{BIDI}"
    profile = dict.fromkeys(
        ("birth_date", "adult", "fide", "cfc", "fide_adjustment_opt_in"), None
    ) | {"membership_expires": None, "playing_since": None}
    player = Player(member_id="20000009", name=name, **profile, actor="td")
    with closing(RatingsLedger(store)) as ledger:
        stored = ledger.mapper.to_stored_event(player.collect_events()[0])
        count = 1 + (ledger.recorder.max_notification_id() or 0)
    key = keyring.private_key("td")
    args = (stored.originator_id, stored.originator_version, stored.topic, stored.state)
    insert(store, *args, key=key, seal=True)
    log = runner.invoke(app, ["log", "--store", store])
    assert log.exit_code == 0, log.stderr
    assert log.stdout.count("\n") == count
    assert not any(c in log.stdout for c in "\x1b\u202e\r")
    view = tmp_path / "view.db"
    shown = runner.invoke(app, ["player", "20000009", "--store", store, "--view", str(view)])
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout == (
        "20000009  Ann\\nrecorded Forged at position 99Ann\\x1b[31mAnn\\u202emoc.live\n"
    )


def test_shown_escapes_exactly_the_characters_a_text_may_not_hold() -> None:
    # One predicate decides both what a command refuses and what display escapes.
    text = "a\nb\x1b\u202e\u2028\u200cé 李"
    assert shown(text) == "a\\nb\\x1b\\u202e\\u2028\u200cé 李"


@pytest.mark.parametrize("listed", [False, True])
def test_a_refusal_lists_every_problem_in_its_one_line_each_naming_its_field(
    store: str, tmp_path: Path, listed: bool
) -> None:
    # Issue 10: "if a validation has several problems, the line should list them all, not
    # '(and 1 more problem)'".
    bad = {**PLAYER, "name": ANSI, "birth_date": "0001-01-01", "fide": {"rating": 1e300}}
    (tmp_path / "players.json").write_text(json.dumps([PLAYER, bad] if listed else bad))
    code, _, stderr = cli(store, "register", str(tmp_path / "players.json"), actor="td")
    at = "[1]." if listed else ""
    assert (code, stderr) == (
        2,
        f"error: {at}name: 'Ann\\x1b[31m' holds a control character at position 4 (U+001B); "
        f"{at}birth_date: 0001-01-01 is not between 1900-01-01 and {TODAY} (not after today); "
        f"{at}fide.rating: 1e+300: input should be less than or equal to {bounds.RATING.door}\n",
    )


def test_a_refusal_with_very_many_problems_lists_the_first_ones_and_counts_the_rest(
    store: str, tmp_path: Path
) -> None:
    # One line stays short: MAX_PROBLEMS problems are listed, the others only counted.
    games = [{**GAME, "round": 10**12}] * 25
    (tmp_path / "section.json").write_text(json.dumps({**SECTION, "games": games}))
    code, _, stderr = cli(store, "submit", str(tmp_path / "section.json"), actor="td")
    assert code == 2 and stderr.count("\n") == 1
    assert stderr.count("1000000000000: input should be less than") == MAX_PROBLEMS
    assert stderr.endswith(f" (and {25 - MAX_PROBLEMS} more problems)\n")


@pytest.mark.parametrize(
    "value", ["NaN", "Infinity", "1e300", '{"split": 2000, "low": [0, 99], "high": [0, 1]}']
)
def test_a_what_if_replay_refuses_an_implausible_amendment_like_amend_rules(
    store: str, tmp_path: Path, value: str
) -> None:
    # A what-if appends nothing, but its --amend values meet the same ranges as amend-rules.
    parameter = "fide_conversion" if value.startswith("{") else "bonus_multiplier"
    to = tmp_path / "what-if.db"
    result = runner.invoke(
        app,
        ["replay", "--to", str(to), "--amend", f"{parameter}={value}@2025-01-01", "--store", store],
    )
    assert (result.exit_code, result.stderr.count("\n")) == (2, 1), result.stderr
    assert result.stderr.startswith(f"error: --amend '{parameter}={value}@2025-01-01': ")


def test_every_value_the_commands_accept_the_read_side_can_rate() -> None:
    # Issue 10: the door (ledger/plausibility.py) is tighter than the read side's bounds,
    # so no accepted entry ever becomes a "not rated" problem row (ledger/bounds.py's table).
    for bound in (bounds.RATING, bounds.GAMES, bounds.ROUND, bounds.PRIZE, bounds.BONUS_MULTIPLIER):
        assert bound.door <= bound.read
    assert bounds.EARLIEST_DATE.year >= bounds.FIRST_YEAR
    assert p.years_ahead(bounds.MEMBERSHIP_YEARS_AHEAD).year <= bounds.LAST_YEAR
