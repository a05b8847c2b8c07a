"""The write verb that sets aside entries failing verification (issue 28, directors only)."""

from __future__ import annotations

from eventsourcing.domain import Aggregate

from ledger import commands
from ledger.commands import SetAside as SetAsideCommand
from ledger.domain import SetAside
from ledger.errors import InvalidCommand
from ledger.evidence.reads import verifier_at
from ledger.evidence.verified import first_break
from ledger.log import LedgerEntry
from ledger.roles import Verb
from ledger.writes.writer import Writer


class AsideWrites:
    """The verb setting entries aside (`app.asides`), given the application as its `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def set_aside(self, decision: SetAsideCommand, *, actor: str) -> list[LedgerEntry]:
        """Set aside the entries at `decision.positions`, each the first entry that fails
        verification once those before it are set aside: refused (nothing appended) for a
        position with no entry, one set aside already, or one that verifies (void it to take
        back its effect instead)."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            positions = sorted(set(decision.positions))
            done = verifier_at(self.app.recorder, 0).set_aside
            aside: list[int] = []
            for position in positions:
                self.records.entry_at(position, "positions")
                if position in done:
                    raise InvalidCommand(
                        ("positions",), f"the entry at {position} is set aside already"
                    )
                found = first_break(self.app.recorder, aside)
                if found is None or found.position > position:
                    raise InvalidCommand(
                        ("positions",),
                        f"the entry at {position} verifies: only an entry that fails "
                        "verification is set aside (`void` takes back an entry's effect)",
                    )
                if found.position < position:
                    raise InvalidCommand(
                        ("positions",),
                        f"entry {found.position} fails verification before it "
                        f"({found.reason}): set that one aside first",
                    )
                aside.append(position)
            fields = decision.event_fields() | {"positions": tuple(positions)}
            return [SetAside(**fields, actor=actor)]

        return self.app.append(Verb.SET_ASIDE, actor, decide)
