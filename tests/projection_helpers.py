"""Building small ledgers for the projection tests."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

from ledger.application import RatingsLedger
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    parse,
)
from ledger.log import read_entries
from ledger.roles import Role
from projections.projector import View

GENERATE_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "generate.py"


def generator() -> ModuleType:
    """scripts/generate.py as a module (its `generate(store, players, games, seed, start,
    years)` appends the project's synthetic ledger)."""
    spec = importlib.util.spec_from_file_location("generate_script", GENERATE_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_script", module)
    spec.loader.exec_module(module)
    return module


def generated_entries(folder: Path) -> list[Any]:
    """The entries of a generated ledger in `folder` (120 players, 6,000 games from 2023,
    seed 5): late sections, corrections, a withdrawal and an amendment among them."""
    store = f"sqlite:///{folder / 'ledger.db'}"
    generator().generate(store, 120, 6000, 5, date(2023, 1, 1), 3)
    app = RatingsLedger(store)
    try:
        return list(read_entries(app))
    finally:
        app.close()


def round_robin(
    section_id: str,
    players: list[str],
    start: str,
    end: str | None = None,
    *,
    results: dict[tuple[str, str], str] | None = None,
    time_control: str = "G/90;d30",
    online: bool = False,
) -> dict[str, Any]:
    """Everyone plays everyone once; the earlier-listed player wins unless `results` says."""
    results = results or {}
    games = [
        {"round": r, "white": a, "black": b, "result": results.get((a, b), "1-0")}
        for r, (a, b) in enumerate(itertools.combinations(players, 2), start=1)
    ]
    return {
        "section_id": section_id,
        "event_name": section_id,
        "online": online,
        "time_control": time_control,
        "start_date": start,
        "end_date": end or start,
        "players": [{"id": p} for p in players],
        "games": games,
    }


class Ledger:
    """A RatingsLedger with one-line verbs for tests: `td` registers, submits and reports
    matches, `admin` keeps the records, `director` decides (set up here if not yet)."""

    def __init__(self, app: RatingsLedger) -> None:
        self.app = app
        if not app.roles.holders():
            app.roles.initialize(actor="director")
        app.roles.grant("td", Role.TOURNAMENT_DIRECTOR, actor="director")
        app.roles.grant("admin", Role.RATINGS_ADMIN, actor="director")

    def register(self, *ids: str, **profile: Any) -> None:
        self.app.players.register(
            *(parse(RegisterPlayer, {"id": i, **profile}) for i in ids), actor="td"
        )

    def submit(self, *sections: dict[str, Any]) -> None:
        self.app.sections.submit(*(parse(SubmitSection, s) for s in sections), actor="td")

    def correct(self, section: dict[str, Any], reason: str = "wrong result") -> None:
        self.app.sections.correct(parse(SubmitSection, section), reason=reason, actor="admin")

    def withdraw(self, section_id: str) -> None:
        self.app.sections.withdraw(section_id, reason="not rateable", actor="admin")

    def opening(self, player: str, system: str, rating: float, games: int, **more: Any) -> None:
        data = {
            "player": player,
            "system": system,
            "as_of": "2020-01-01",
            "rating": rating,
            "games": games,
            **more,
        }
        self.app.players.record_opening_balance(parse(RecordOpeningBalance, data), actor="admin")

    def money_floor(self, player: str, amount: float, limit: int, day: str) -> None:
        data = {"player": player, "amount": amount, "limit": limit, "date": day}
        self.app.decisions.award_money_floor(parse(AwardMoneyFloor, data), actor="director")

    def override(self, player: str, action: str, value: float | None, day: str) -> None:
        data = {
            "player": player,
            "action": action,
            "value": value,
            "effective": day,
            "reason": "director's decision",
        }
        self.app.decisions.override(parse(DirectorOverride, data), actor="director")

    def match(self, match_id: str, a: str, b: str, results: list[str], day: str) -> None:
        data = {
            "match_id": match_id,
            "online": False,
            "time_control": "G/120",
            "start_date": day,
            "end_date": day,
            "players": [{"id": a}, {"id": b}],
            "games": [
                {"round": i, "white": a, "black": b, "result": r}
                for i, r in enumerate(results, start=1)
            ],
        }
        self.app.sections.submit_match(parse(SubmitMatch, data), actor="td")

    def fide(self, player: str, rating_list: str, games: list[tuple[float, float]]) -> None:
        data = {
            "player": player,
            "rating_list": rating_list,
            "games": [{"opponent_rating": r, "score": s} for r, s in games],
        }
        self.app.decisions.submit_fide_adjustment(parse(SubmitFideAdjustment, data), actor="admin")

    def amend(self, parameter: str, value: Any, effective: str, until: str | None = None) -> None:
        data = {
            "parameter": parameter,
            "value": value,
            "effective": effective,
            "until": until,
            "reason": "retroactive change",
        }
        self.app.decisions.amend_rules(parse(AmendRules, data), actor="director")

    def catch_up(self, view: View):
        return view.catch_up(read_entries(self.app, view.last_position))

    def rebuilt(self, path) -> View:
        view = View(path)
        view.rebuild(read_entries(self.app))
        return view


def counting(monkeypatch: Any, owner: object, name: str) -> list[tuple[Any, ...]]:
    """The calls of `owner.name` from now on (its arguments), each still made."""
    calls: list[tuple[Any, ...]] = []
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls
