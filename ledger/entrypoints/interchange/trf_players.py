"""Who each TRF player is in the ledger: the member a line matches (`--map`, a profile's FIDE
id, a member id), the id the ledger assigns a player without a FIDE id, and what the `001` line
puts into a new member's profile."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ledger.entrypoints.interchange.trf_map import IdMap
from ledger.entrypoints.interchange.trf_records import TrfPlayer, TrfReport
from ledger.errors import InvalidCommand
from ledger.rules.families import family
from ledger.rules.time_controls import known_time_control

FIDE = "fide"  # a TRF is FIDE's report: the ratings it gives are on FIDE's lists


def assigned_ids(report: TrfReport) -> dict[int, str]:
    """The member id the ledger gives each player without a FIDE id: `X` and 8 hex digits of
    the SHA-256 of the name (case and spacing folded), birth year and federation, so the same
    person in the next file of the same organizer gets the same id; two such lines in one file
    that agree on all three are told apart by their starting rank."""
    ids: dict[int, str] = {}
    for p in report.players:
        if p.fide_id is None:
            key = f"{' '.join(p.name.casefold().split())}|{p.birth_year or ''}|{p.federation or ''}"
            ids[p.start] = "X" + hashlib.sha256(key.encode()).hexdigest()[:8].upper()
    counts = Counter(ids.values())
    return {n: f"{m}-{n}" if counts[m] > 1 else m for n, m in ids.items()}


@dataclass(frozen=True)
class Match:
    """A TRF player's member id, and how it was found: `map`, `fide_id` (a member whose
    profile has it), `member` (a member whose id it is), `new` (to be registered), or
    `assigned` (no FIDE id: the id the ledger gives, see `assigned_ids`)."""

    member: str
    how: str


def match(
    report: TrfReport, id_map: IdMap | None, registered: Mapping[str, str | None]
) -> dict[int, Match]:
    """Each starting rank's member: by `--map` (starting rank, then FIDE id), else the member
    whose profile has the FIDE id, else the FIDE id as member id (registered or new).

    `registered` maps every registered member id to its profile's FIDE id (or None).
    """
    id_map = id_map or report.embedded_map()
    holders: dict[str, list[str]] = {}
    for member, fide_id in registered.items():
        if fide_id is not None:
            holders.setdefault(fide_id, []).append(member)
    matches: dict[int, Match] = {}
    assigned = assigned_ids(report)
    for p in report.players:
        if id_map is not None and p.start in id_map.by_start:
            matches[p.start] = Match(id_map.by_start[p.start], "map")
            continue
        if id_map is not None and p.fide_id is not None and p.fide_id in id_map.by_fide_id:
            matches[p.start] = Match(id_map.by_fide_id[p.fide_id], "map")
            continue
        if p.start in assigned:
            matches[p.start] = Match(assigned[p.start], "assigned")
            continue
        fide_id = p.fide_id or assigned[p.start]
        found = sorted(holders.get(fide_id, []))
        if len(found) > 1:
            raise InvalidCommand(
                (),
                f"{report.where(p)}: FIDE id {fide_id} is in the profiles of members "
                f"{', '.join(found)}; give --map",
            )
        if found:
            matches[p.start] = Match(found[0], "fide_id")
        elif fide_id in registered:
            if registered[fide_id] is not None:
                raise InvalidCommand(
                    (),
                    f"{report.where(p)}: member {fide_id} has FIDE id {registered[fide_id]}, "
                    f"not {fide_id}; give --map",
                )
            matches[p.start] = Match(fide_id, "member")
        else:
            matches[p.start] = Match(fide_id, "new")
    return matches


def profile(player: TrfPlayer, member: str, start: date, kind: str) -> dict[str, Any]:
    """The `register` item of a TRF player: every field of the `001` line the profile holds.
    The rating (dated the tournament's start: the list the file was paired with) is the FIDE
    rating only when `kind` is FIDE's standard list and the player has a FIDE id; otherwise it
    is a rating the file reported, of that kind (`rating_kind`)."""
    fields: dict[str, Any] = {
        "id": member,
        "name": player.name or None,
        "sex": player.sex,
        "title": player.title,
        "fide_id": player.fide_id,
        "birth_date": player.birth_date and player.birth_date.isoformat(),
        "birth_year": player.birth_year if player.birth_date is None else None,
        "federation": player.federation,
    }
    if player.rating is not None:
        rated = {"rating": player.rating, "date": start.isoformat()}
        if kind == family(FIDE).list_system and player.fide_id is not None:
            fed = {"federation": player.federation} if player.federation else {}
            fields["fide"] = rated | fed
        else:
            fields["reported_rating"] = rated | {"kind": kind}
    return {k: v for k, v in fields.items() if v is not None}


def rating_kind(online: bool, time_control: str, start: date) -> str:
    """The kind of the ratings a file reports: `online`, the FIDE list its rate of play is
    rated on (`FIDE`, `FIDE_RAPID`, `FIDE_BLITZ`), `not rated` (too fast) or `unknown`."""
    if online:
        return "online"
    known = known_time_control(time_control)
    if known is None:
        return "unknown"
    return family(FIDE).list_for(known.total, start) or "not rated"
