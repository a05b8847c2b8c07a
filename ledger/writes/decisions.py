"""Write verbs deciding about ratings: FIDE adjustments, uplifts, money floors, overrides, voids."""

from __future__ import annotations

from eventsourcing.domain import Aggregate

from ledger import commands, events
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordFideUplift,
    SubmitFideAdjustment,
    VoidEntry,
)
from ledger.domain import (
    FideAdjustment,
    FideUplift,
    MoneyFloorAward,
    Override,
    RulesAmendment,
    Void,
    fide_adjustment_key,
    fide_uplift_key,
    void_key,
)
from ledger.errors import InvalidCommand
from ledger.evidence.signing import as_uuid
from ledger.log import LedgerEntry, entry_type, to_entry
from ledger.roles import Verb
from ledger.writes.batches import at_item, unique
from ledger.writes.writer import Writer


class DecisionWrites:
    """The verbs deciding about ratings (`app.decisions`), given the application as their
    `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def submit_fide_adjustment(
        self, *adjustments: SubmitFideAdjustment, actor: str
    ) -> list[LedgerEntry]:
        """Foreign FIDE games of registered players, one submission per player and list."""
        actor = commands.actor(actor)
        unique(
            adjustments,
            lambda a: f"player {a.player!r} for the {a.rating_list} list",
            ("rating_list",),
        )

        def decide() -> list[Aggregate]:
            created: list[Aggregate] = []
            for i, a in enumerate(adjustments):
                with at_item(i):
                    self.records.registered(a.player, ("player",))
                    if self.records.exists(
                        fide_adjustment_key(a.player, a.rating_list.isoformat())
                    ):
                        raise InvalidCommand(
                            ("rating_list",),
                            f"player {a.player!r} already has a FIDE adjustment for the "
                            f"{a.rating_list} list",
                        )
                created.append(FideAdjustment(**a.event_fields(), actor=actor))
            return created

        return self.app.append(Verb.FIDE_ADJUST, actor, decide)

    def record_fide_uplift(self, uplift: RecordFideUplift, *, actor: str) -> list[LedgerEntry]:
        """FIDE's one-time uplift of a list's ratings, entered once per list date."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            effective = uplift.effective.isoformat()
            if self.records.exists(fide_uplift_key(effective)):
                raise InvalidCommand(
                    ("effective",), f"a FIDE uplift is already recorded for {effective}"
                )
            return [FideUplift(**uplift.event_fields(), actor=actor)]

        return self.app.append(Verb.FIDE_UPLIFT, actor, decide)

    def award_money_floor(self, award: AwardMoneyFloor, *, actor: str) -> list[LedgerEntry]:
        """A large prize won by a registered player under a rating limit."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            self.records.registered(award.player, ("player",))
            return [MoneyFloorAward(**award.event_fields(), actor=actor)]

        return self.app.append(Verb.AWARD_MONEY_FLOOR, actor, decide)

    def override(self, decision: DirectorOverride, *, actor: str) -> list[LedgerEntry]:
        """A director's decision about a registered player's rating, with its reason."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            self.records.registered(decision.player, ("player",))
            return [Override(**decision.event_fields(), actor=actor)]

        return self.app.append(Verb.OVERRIDE, actor, decide)

    def revoke_override(self, position: int, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Undo the director's decision recorded at ledger `position`, giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)

        def decide() -> list[Aggregate]:
            found = self.app.recorder.select_notifications(position, 1)
            if (
                not found
                or found[0].id != position
                or not found[0].topic.endswith(":DirectorOverride")
            ):
                raise InvalidCommand(
                    ("position",), f"{position} is not the position of a director's decision"
                )
            decision = self.records.get(Override, as_uuid(found[0].originator_id))
            if decision.revoked:
                raise InvalidCommand(
                    ("position",), f"the decision at position {position} is already revoked"
                )
            system = to_entry(found[0]).payload["system"]
            decision.revoke(
                member_id=decision.member_id,
                system=system,
                position=position,
                reason=reason,
                actor=actor,
            )
            return [decision]

        return self.app.append(Verb.REVOKE_OVERRIDE, actor, decide)

    def amend_rules(self, amendment: AmendRules, *, actor: str) -> list[LedgerEntry]:
        """A rules parameter's new value from its effective date, with the reason."""
        actor = commands.actor(actor)
        return self.app.append(
            Verb.AMEND_RULES,
            actor,
            lambda: [RulesAmendment(**amendment.event_fields(), actor=actor)],
        )

    def void(self, decision: VoidEntry, *, actor: str) -> list[LedgerEntry]:
        """Take back the effect of the entry at a position: not a section's (withdraw or
        correct it), a role's (revoke it), a void's, or one already voided."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            position = decision.position
            kind = entry_type(self.records.entry_at(position, "position").topic)
            instead = getattr(events.KINDS.get(kind), "unvoidable", None)
            if instead is not None:
                raise InvalidCommand(("position",), f"the entry at {position} is {kind}: {instead}")
            if self.records.exists(void_key(position)):
                raise InvalidCommand(("position",), f"the entry at {position} is already voided")
            return [Void(**decision.event_fields(), actor=actor)]

        return self.app.append(Verb.VOID, actor, decide)
