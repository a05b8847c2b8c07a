"""The write verbs of roles: set the ledger up, grant and revoke roles, and who holds them;
and the ledger's federation (the rules family it rates under by default, issue 30)."""

from __future__ import annotations

from eventsourcing.domain import Aggregate

from ledger import commands
from ledger.commands import SetFamily
from ledger.domain import Roles
from ledger.errors import InvalidCommand
from ledger.evidence.signing import parse_public_key, public_text
from ledger.federation import recorded
from ledger.log import LedgerEntry
from ledger.roles import Role, Verb, parse_holder, parse_role
from ledger.rules.families import DEFAULT
from ledger.writes.writer import Writer


class RoleWrites:
    """The verbs on roles (`app.roles`), given the application as their `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def initialize(self, *, actor: str, family: SetFamily | None = None) -> list[LedgerEntry]:
        """Set the ledger up with `actor` as its first director, rating under `family` by
        default (None: US Chess, recorded as such); a ledger is set up once. The keyring gets
        a key for `actor` if it has none; its public key is recorded."""
        actor = commands.actor(actor)
        federation = (family or SetFamily(family=DEFAULT)).family

        def decide() -> list[Aggregate]:
            record = self.records.roles()
            if record is not None:
                directors = ", ".join(repr(d) for d in record.holders_of(Role.DIRECTOR))
                raise InvalidCommand(
                    (),
                    f"the ledger is already initialized (director: {directors}); a director "
                    "gives others roles with grant-role",
                )
            key = public_text(self.app.keyring.ensure(actor)) if not self.app.preview else None
            record = Roles(actor=actor, public_key=key, family=federation)
            record.grant(holder=actor, role=Role.DIRECTOR.value, actor=actor, public_key=key)
            return [record]

        return self.app.append(None, actor, decide)

    def grant(
        self, holder: str, role: str, *, actor: str, public_key: str | None = None
    ) -> list[LedgerEntry]:
        """Give `holder` a role with their public key: `public_key`, else the one the ledger
        holds for them, else the one in the keyring; an auditor, who writes nothing, needs none.
        Granting a role already held with the same key records nothing; with a new key, it
        rotates the holder's key."""
        actor, holder, granted = commands.actor(actor), parse_holder(holder), parse_role(role)
        given = parse_public_key(public_key) if public_key is not None else None

        def decide() -> list[Aggregate]:
            record = self.app.authorized(Verb.GRANT_ROLE, actor)
            key = given or record.key_of(holder) or self.app.keyring.public_key(holder)
            if key is None and granted is not Role.AUDITOR:
                raise InvalidCommand(
                    ("public_key",),
                    f"no public key for {holder!r}: give --public-key (from `ratings-ledger "
                    f"keys new {holder}` on their machine)",
                )
            if granted in record.roles_of(holder) and key == record.key_of(holder):
                return []
            record.grant(holder=holder, role=granted.value, actor=actor, public_key=key)
            return [record]

        return self.app.append(None, actor, decide)

    def revoke(self, holder: str, role: str, *, actor: str) -> list[LedgerEntry]:
        """Take a role from `holder`, who must hold it; the last director keeps theirs."""
        actor, holder, revoked = commands.actor(actor), parse_holder(holder), parse_role(role)

        def decide() -> list[Aggregate]:
            record = self.app.authorized(Verb.REVOKE_ROLE, actor)
            held = record.roles_of(holder)
            if revoked not in held:
                holds = ", ".join(sorted(held)) or "no role"
                raise InvalidCommand(
                    ("role",), f"{holder!r} does not hold {revoked} ({holder!r} holds {holds})"
                )
            if revoked is Role.DIRECTOR and record.holders_of(Role.DIRECTOR) == [holder]:
                raise InvalidCommand(
                    ("role",),
                    f"{holder!r} is the last director; grant director to another actor first",
                )
            record.revoke(holder=holder, role=revoked.value, actor=actor)
            return [record]

        return self.app.append(None, actor, decide)

    def set_family(self, change: SetFamily, *, actor: str) -> list[LedgerEntry]:
        """Make `change.family` the family the ledger rates under by default (directors only);
        the family it has already records nothing. Nothing is re-rated: each family keeps its
        own read model."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            record = self.app.authorized(Verb.SET_FAMILY, actor)
            if recorded(record.family) == change.family:
                return []
            record.change_family(**change.event_fields(), actor=actor)
            return [record]

        return self.app.append(None, actor, decide)

    def of(self, actor: str) -> frozenset[Role]:
        """The roles `actor` holds now, as recorded in the ledger."""
        record = self.records.roles()
        return frozenset(map(Role, record.roles_of(actor))) if record else frozenset()

    def holders(self) -> dict[str, frozenset[Role]]:
        """Every actor holding a role now, with their roles (empty before `initialize`)."""
        record = self.records.roles()
        held = record.held.items() if record else ()
        return {h: frozenset(map(Role, r)) for h, r in sorted(held) if r}
