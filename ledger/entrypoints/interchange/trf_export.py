"""Any section of the ledger as a TRF16 file (issue 20: "a TRF export of any section (round
trip: import → export → import gives the same section)").

The `001` lines carry what the profiles hold (sex, title, name, FIDE rating, federation, FIDE
id, birth date or year) in TRF16's columns; each round is the opponent's starting rank, the
colour and the code (`1 = 0`, `+ -` for forfeits, `F H Z` for byes, `0000 - -` for a round the
player was not entered in). What TRF16 has no column
for goes into comment lines (`###`, which pairing programs skip) that `import trf` reads back:
the section id, tournament id and rules, and each starting rank's member id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.entrypoints.interchange import start_numbers
from ledger.rules.time_controls import NOT_GIVEN

CODES = {  # the ledger's result → (white's code, black's code)
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "1/2-1/2": ("=", "="),
    "½-½": ("=", "="),
    "1F-0F": ("+", "-"),
    "0F-1F": ("-", "+"),
}
BYES = {"full": ("F", 1.0), "half": ("H", 0.5), "zero": ("Z", 0.0)}
POINTS = {"1": 1.0, "=": 0.5, "+": 1.0}
TITLES = {"GM": "g", "IM": "m", "FM": "f", "CM": "c", "WGM": "wg", "WIM": "wm", "WFM": "wf"}
TITLES |= {"WCM": "wc"}
COMMENT = "### ratings-ledger"  # the comment lines `import trf` reads back
# A round the player was not entered in (a team's board not fielded): no game and no bye.
# TRF16 has no code for it; pairing programs read it as an unplayed round worth nothing, and
# `import trf` reads it back as nothing because the file says so (`### ratings-ledger absent`).
NOT_ENTERED = "0000 - -"


def to_trf(report: Mapping[str, Any], profiles: Mapping[str, Mapping[str, Any]]) -> str:
    """The TRF16 text of a section report (`section --json`), players in report order."""
    ids = [p["id"] for p in report["players"]]
    start = start_numbers(report)
    cells: dict[tuple[str, int], str] = {}
    points = dict.fromkeys(ids, 0.0)
    for g in report["games"]:
        codes = CODES[g["result"]]
        for pid, other, colour, code in (
            (g["white"], g["black"], "w", codes[0]),
            (g["black"], g["white"], "b", codes[1]),
        ):
            cells[(pid, g["round"])] = f"{start[other]:>4} {colour} {code}"
            points[pid] += POINTS.get(code, 0.0)
    for b in report.get("byes", []):
        code, score = BYES[b["bye"]]
        cells[(b["player"], b["round"])] = f"0000 - {code}"
        points[b["player"]] += score
    rounds = max((r for _, r in cells), default=0)
    order = sorted(ids, key=lambda pid: (-points[pid], start[pid]))
    place = {pid: n for n, pid in enumerate(order, start=1)}
    tc = report["time_control"]
    lines = [
        f"012 {report['event_name']}",
        *(["022 online"] if report["online"] else []),
        f"042 {report['start_date'].replace('-', '/')}",
        f"052 {report['end_date'].replace('-', '/')}",
        f"062 {len(ids)}",
        f"122 {'' if tc == NOT_GIVEN else tc}",
        f"XXR {rounds}",
        f"{COMMENT} section {report['section_id']}",
        *(f"{COMMENT} {k} {report[k]}" for k in ("tournament_id", "rules") if report.get(k)),
        *(f"{COMMENT} member {start[pid]} {pid}" for pid in ids),
        f"{COMMENT} absent {NOT_ENTERED}",
    ]
    for pid in ids:
        line = _player(start[pid], profiles.get(pid, {}), points[pid], place[pid])
        line += "".join(f"  {cells.get((pid, r), NOT_ENTERED)}" for r in range(1, rounds + 1))
        lines.append(line)
    return "\n".join(lines) + "\n"


def _player(start: int, profile: Mapping[str, Any], points: float, place: int) -> str:
    """A `001` line up to the points and rank (columns 1-89)."""
    fide = profile.get("fide") or {}
    born = profile.get("birth_date")
    birth = born.replace("-", "/") if born else str(profile.get("birth_year") or "")
    federation = profile.get("federation") or fide.get("federation") or ""
    rating = fide.get("rating")
    return (
        f"001 {start:>4} {profile.get('sex') or ' '}{TITLES.get(profile.get('title') or '', ''):>3}"
        f" {(profile.get('name') or '')[:33]:<33} {'' if rating is None else int(rating):>4}"
        f" {federation:>3} {profile.get('fide_id') or '':>11} {birth:<10} {points:>4.1f}"
        f" {place:>4}"
    )
