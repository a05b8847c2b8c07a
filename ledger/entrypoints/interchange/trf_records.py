"""A parsed TRF: the player lines (`001`) and the file's tags, comment lines and team records.

`trf` reads a file into these; `trf_players` tells who each player is in the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from ledger.entrypoints.interchange import Entry
from ledger.entrypoints.interchange import trf_header as header
from ledger.entrypoints.interchange.trf_map import IdMap
from ledger.text import digits


@dataclass(frozen=True)
class TrfPlayer:
    """A `001` line: what TRF16 says about the player, and the rounds."""

    start: int
    name: str
    fide_id: str | None
    line: int
    rounds: tuple[Entry, ...]
    sex: str | None = None
    title: str | None = None
    rating: int | None = None
    federation: str | None = None
    birth_date: date | None = None
    birth_year: int | None = None
    points: float | None = None  # columns 81-84, as the file gives them (None: none given)
    unread: tuple[tuple[str, str], ...] = ()  # (column, as written) the import did not read


@dataclass(frozen=True)
class TrfReport:
    """A parsed file: the tournament tags (tag → line number, text) and the player lines."""

    source: str
    tags: Mapping[str, tuple[int, str]]
    players: tuple[TrfPlayer, ...]
    skipped: tuple[str, ...] = ()
    round_dates: tuple[date, ...] = ()  # the 132 lines' dates of the rounds
    embedded: Mapping[str, list[str]] = field(default_factory=dict)  # `### ratings-ledger` lines
    team_lines: Mapping[str, list[tuple[int, str]]] = field(default_factory=dict)  # TEAM_RECORDS

    def embedded_one(self, key: str) -> str | None:
        return self.embedded[key][0] if self.embedded.get(key) else None

    def embedded_map(self) -> IdMap | None:
        """The member ids an export wrote (`### ratings-ledger member START ID`), if any."""
        pairs = [m.split() for m in self.embedded.get("member", [])]
        found = {int(p[0]): p[1] for p in pairs if len(p) == 2 and digits(p[0])}
        return IdMap(found, {}) if found else None

    def where(self, player: TrfPlayer) -> str:
        return f"{self.source} line {player.line} (player {player.start})"

    @property
    def warnings(self) -> list[str]:
        """What the reading skipped (the bye's own line)."""
        return list(self.skipped)

    @property
    def header(self) -> dict[str, tuple[str, str]]:
        """Each tournament line's text and place (`file line 4`), by tag."""
        return {t: (text, f"{self.source} line {n}") for t, (n, text) in self.tags.items()}

    @property
    def team(self) -> bool:
        """A team tournament's file (TRF-2026 013/310 team lines, 082, a team 092/192)."""
        return header.is_team_file(self.header, "013" in self.tags or "310" in self.tags)

    @property
    def rounds_played(self) -> int:
        """The last round with a game in it (byes entered ahead of a round do not count)."""
        return max((e.round for p in self.players for e in p.rounds if e.opponent), default=0)

    def tag(self, tag: str) -> tuple[str, str] | None:
        """The text of a tournament tag and where it is, if the file has it."""
        if tag not in self.tags:
            return None
        line, text = self.tags[tag]
        return text, f"{self.source} line {line}"
