"""Why a section, or a player in it, has no rating under the view's rules family (issue 20):
the one query behind the import report's, the page's, the crosstable's and `explain`'s words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ledger.results import RATED_RESULTS
from ledger.rules.families import family as rules_family
from projections import queries
from projections.queries.records import item_problem
from projections.schema import ReadModel

WITHDRAWN = "withdrawn: the federation took the section out of rating"
NO_GAME = "no rated game in this section (byes and forfeits are not rated)"
WAITING = "rated when the list of its rating period is published"


@dataclass(frozen=True)
class Unrated:
    """The section's reason (None: it is rated) and each unrated player's."""

    section: str | None
    players: dict[str, str] = field(default_factory=dict)


def reasons(view: ReadModel, section_id: str) -> Unrated | None:
    """Why the section or its players got no rating from the view's family (None: no such
    section). A player is rated when the section wrote a rating or a FIDE performance for him,
    or a rating below the floor that shows him unrated (FIDE 7.2.1, before any list)."""
    payload = queries.section_report(view, section_id)
    if payload is None:
        return None
    if queries.section_status(view, section_id) == "withdrawn":
        return Unrated(WITHDRAWN, {p["id"]: WITHDRAWN for p in payload["players"]})
    rated = {
        player
        for player, _, _, post, _, _, _, _, detail in queries.section_changes(view, section_id)
        if post is not None or json.loads(detail or "{}").keys() & {"performance", "below"}
    }
    day = date.fromisoformat(payload["start_date"])
    why = rules_family(view.family).section_not_rated(
        payload["time_control"], payload["online"], day
    )
    if why is None and not rated:  # issue 30: a section its family dropped says why
        problem = item_problem(view, "section:" + section_id)
        why = None if problem is None else problem.removeprefix("not rated: ")
    if why is None and not rated and queries.rates_by_lists(view):
        why = WAITING
    if why is None and not rated:
        by = rules_family(view.family).words.federation
        why = f"no player was rated by {by} before: none to rate the others against"
    played = {
        pid
        for g in payload["games"]
        if g["result"] in RATED_RESULTS
        for pid in (g["white"], g["black"])
    }
    players = {}
    for p in payload["players"]:
        pid = p["id"]
        if pid in rated:
            continue
        players[pid] = why or (NO_GAME if pid not in played else _alone(view, pid, payload, rated))
    return Unrated(why if not rated else None, players)


def _alone(view: ReadModel, pid: str, payload: dict[str, Any], rated: set[str]) -> str:
    """A player who played rated games and still has no rating from them."""
    opponents = {
        g["black"] if g["white"] == pid else g["white"]
        for g in payload["games"]
        if pid in (g["white"], g["black"]) and g["result"] in RATED_RESULTS
    }
    name = rules_family(view.family).words.federation
    if not opponents & rated:
        return f"every opponent was unrated: no {name} rating to measure these games against"
    return f"the {name} rules rate none of these games for this player (see explain)"
