"""The write verbs of reports of play: sections (submit, correct, withdraw, reinstate), matches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.domain import Aggregate

from ledger import commands
from ledger.commands import RegisterPlayer, SubmitMatch, SubmitSection
from ledger.domain import Match, Player, Section, match_key, player_key, section_key
from ledger.errors import InvalidCommand
from ledger.log import LedgerEntry
from ledger.roles import Verb
from ledger.writes.batches import at_item, unique
from ledger.writes.writer import Writer


class SectionWrites:
    """The verbs on sections and matches (`app.sections`), given the application as their
    `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def submit(
        self, *sections: SubmitSection, actor: str, register: Sequence[RegisterPlayer] = ()
    ) -> list[LedgerEntry]:
        """New sections, all players registered or new in `register` (registered in the same
        append, all or nothing); a section id is accepted once."""
        actor = commands.actor(actor)
        unique(sections, lambda s: repr(s.section_id), ("section_id",))
        unique(register, lambda p: repr(p.id), ("id",))

        def decide() -> list[Aggregate]:
            if register:
                self.app.authorized(Verb.REGISTER, actor)
            created: list[Aggregate] = []
            known = self.records.existing([player_key(p.id) for p in register])  # one read
            for p in register:
                if player_key(p.id) in known:
                    raise InvalidCommand(("id",), f"player {p.id!r} is already registered")
                created.append(Player(member_id=p.id, **p.profile(), actor=actor))
            new = {p.id for p in register}
            for i, s in enumerate(sections):
                with at_item(i):
                    if self.records.exists(section_key(s.section_id)):
                        raise InvalidCommand(
                            ("section_id",), f"section {s.section_id!r} already exists"
                        )
                    self.records.check_players(s, new)
                created.append(Section(**s.event_fields(), actor=actor))
            return created

        return self.app.append(Verb.SUBMIT, actor, decide)

    def correct(self, revision: SubmitSection, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Replace a section's report with `revision` (same section id), giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)

        def decide() -> list[Aggregate]:
            section = self.records.section(revision.section_id)
            section.check_not_withdrawn()
            self.records.check_players(revision)
            if revision.event_fields() == section.report:
                raise InvalidCommand(
                    ("section_id",),
                    f"the correction of section {revision.section_id!r} is identical to its "
                    "current report: it changes nothing",
                )
            section.correct(**revision.event_fields(), reason=reason, actor=actor)
            return [section]

        return self.app.append(Verb.CORRECT, actor, decide)

    def current_report(self, section_id: str) -> dict[str, Any]:
        """The section's report as the write side holds it (what a correction replaces)."""
        return dict(self.records.section(commands.record_id("section_id", section_id)).report)

    def withdraw(self, section_id: str, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Withdraw a section from rating, giving the reason; a withdrawn section is final."""
        actor, reason = commands.actor(actor), commands.reason(reason)
        section_id = commands.record_id("section_id", section_id)

        def decide() -> list[Aggregate]:
            section = self.records.section(section_id)
            section.check_not_withdrawn()
            section.withdraw(section_id=section_id, reason=reason, actor=actor)
            return [section]

        return self.app.append(Verb.WITHDRAW, actor, decide)

    def reinstate(self, section_id: str, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Rate a withdrawn section again with its last report, giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)
        section_id = commands.record_id("section_id", section_id)

        def decide() -> list[Aggregate]:
            section = self.records.section(section_id)
            if not section.withdrawn:
                raise InvalidCommand(
                    ("section_id",),
                    f"section {section_id!r} is not withdrawn; nothing to reinstate",
                )
            section.reinstate(**section.report, reason=reason, actor=actor)
            return [section]

        return self.app.append(Verb.REINSTATE, actor, decide)

    def review(self, section_id: str, *, note: str | None, actor: str) -> list[LedgerEntry]:
        """Record the office's review of a section (issue 32: it leaves the review queue)."""
        actor = commands.actor(actor)
        section_id = commands.record_id("section_id", section_id)
        note = None if note is None else commands.reason(note)

        def decide() -> list[Aggregate]:
            section = self.records.section(section_id)
            section.check_not_withdrawn()
            section.review(section_id=section_id, note=note, actor=actor)
            return [section]

        return self.app.append(Verb.REVIEW, actor, decide)

    def submit_match(self, *matches: SubmitMatch, actor: str) -> list[LedgerEntry]:
        """New matches between registered players; a match id is accepted once."""
        actor = commands.actor(actor)
        unique(matches, lambda m: repr(m.match_id), ("match_id",))

        def decide() -> list[Aggregate]:
            created: list[Aggregate] = []
            for i, m in enumerate(matches):
                with at_item(i):
                    if self.records.exists(match_key(m.match_id)):
                        raise InvalidCommand(("match_id",), f"match {m.match_id!r} already exists")
                    self.records.check_players(m)
                created.append(Match(**m.event_fields(), actor=actor))
            return created

        return self.app.append(Verb.MATCH, actor, decide)
