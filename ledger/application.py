"""`RatingsLedger`: every write verb validates fully, then appends its facts atomically."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence, Set
from contextlib import contextmanager
from datetime import date
from typing import Any, TypeVar, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    ApplicationRecorder,
    IntegrityError,
    Notification,
    PersistenceError,
)
from eventsourcing.utils import Environment, EnvType

from ledger import commands, events, merging
from ledger.chain import Head, verifier_at
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    MergePlayers,
    PublishList,
    RecordFideUplift,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    VoidEntry,
)
from ledger.domain import (
    ROLES_KEY,
    ConflictError,
    FideAdjustment,
    FideUplift,
    InvalidCommand,
    Match,
    MoneyFloorAward,
    Override,
    Player,
    PublishedList,
    Roles,
    RulesAmendment,
    Section,
    StoreError,
    Void,
    fide_adjustment_key,
    fide_uplift_key,
    match_key,
    player_key,
    published_list_key,
    section_key,
    void_key,
)
from ledger.errors import Contradiction, UnknownRecord
from ledger.log import LedgerEntry, entry_type, to_entry
from ledger.roles import NotInitialized, Role, Verb, authorize, parse_holder, parse_role
from ledger.rules.rating_lists import RatingList
from ledger.signing import KeyRefused, Keyring, Verifier, parse_public_key, public_text
from ledger.store import APP_NAME, redacted, store_env, store_url

A = TypeVar("A", bound=Aggregate)
ATTEMPTS = 6
BACKOFF_SECONDS = 0.005  # up to 5, 10, 20, … ms (random) before deciding again
CREATE_TABLES_LOCK = 0x7261_7469_6E67_73  # a PostgreSQL advisory lock key ("ratings")


class RatingsLedger(Application):
    """The write side of the ledger; read it in order with `ledger.log.read_entries`.

    Every write verb first checks the actor's roles as recorded in the ledger (`ledger.roles`),
    then signs its entries with the actor's key from `keyring` (`ledger.signing`); the store's
    recorder seals them into the hash chain in the same transaction (`ledger.chain`).
    `read_only` opens an existing store for reading only: no table is created, no file made.
    """

    name = APP_NAME
    log_section_size = 5000

    def __init__(
        self,
        store: str | None = None,
        preview: bool = False,
        keyring: Keyring | None = None,
        read_only: bool = False,
    ) -> None:
        self.store = store_url(store)
        self.preview = preview  # decide and return the entries, append nothing (--dry-run)
        self.keyring = keyring or Keyring()
        self.read_only = read_only
        self.receipt: Head | None = None  # the chain's link after the last write, DIGEST@POS
        try:
            super().__init__(env=store_env(self.store, self.name, read_only))
        except (PersistenceError, OSError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreError(f"cannot open store {redacted(self.store)}: {first}") from None

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        """Only the store's settings: ambient variables never redirect the ledger."""
        return Environment(name, dict(env or {}))

    def construct_recorder(self) -> ApplicationRecorder:
        """The recorder, its tables created; on PostgreSQL one process at a time, because
        concurrent `CREATE ... IF NOT EXISTS` of the same objects fails there."""
        if self.read_only or self.env.get("PERSISTENCE_MODULE") != "eventsourcing.postgres":
            return super().construct_recorder()
        datastore = self.factory.datastore  # type: ignore[attr-defined]
        with datastore.get_connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (CREATE_TABLES_LOCK,))
            try:
                return super().construct_recorder()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (CREATE_TABLES_LOCK,))

    def register_player(self, *players: RegisterPlayer, actor: str) -> list[LedgerEntry]:
        """Register new players; for registered ones record the changed profile, if any."""
        actor = commands.actor(actor)
        _unique(players, lambda p: repr(p.id), ("id",))

        def decide() -> list[Aggregate]:
            changed: list[Aggregate] = []
            for p in players:
                try:
                    player = self._get(Player, player_key(p.id))
                except AggregateNotFoundError:
                    changed.append(Player(member_id=p.id, **p.profile(), actor=actor))
                    continue
                profile = p.profile(player.profile)
                if profile != player.profile:
                    player.update_profile(member_id=p.id, **profile, actor=actor)
                    changed.append(player)
            if not changed:
                who = repr(players[0].id) if len(players) == 1 else "every player given"
                raise InvalidCommand(
                    ("id",), f"{who} is already registered with these fields: it changes nothing"
                )
            return changed

        return self._append(Verb.REGISTER, actor, decide)

    def record_opening_balance(
        self, *balances: RecordOpeningBalance, actor: str
    ) -> list[LedgerEntry]:
        """A registered player's record per system; at most one opening balance per system."""
        actor = commands.actor(actor)
        _unique(balances, lambda b: f"player {b.player!r} in {b.system}", ("system",))

        def decide() -> list[Aggregate]:
            players: dict[str, Player] = {}
            for i, b in enumerate(balances):
                with _item(i):
                    player = players.get(b.player) or self._registered(b.player, ("player",))
                    player.check_no_opening_balance(str(b.system))
                    player.record_opening_balance(**b.event_fields(), actor=actor)
                players[b.player] = player
            return list(players.values())

        return self._append(Verb.OPENING_BALANCE, actor, decide)

    def submit_section(
        self, *sections: SubmitSection, actor: str, register: Sequence[RegisterPlayer] = ()
    ) -> list[LedgerEntry]:
        """New sections, all players registered or new in `register` (registered in the same
        append, all or nothing); a section id is accepted once."""
        actor = commands.actor(actor)
        _unique(sections, lambda s: repr(s.section_id), ("section_id",))
        _unique(register, lambda p: repr(p.id), ("id",))

        def decide() -> list[Aggregate]:
            if register:
                self._authorized(Verb.REGISTER, actor)
            created: list[Aggregate] = []
            for p in register:
                if self._exists(player_key(p.id)):
                    raise InvalidCommand(("id",), f"player {p.id!r} is already registered")
                created.append(Player(member_id=p.id, **p.profile(), actor=actor))
            new = {p.id for p in register}
            for i, s in enumerate(sections):
                with _item(i):
                    if self._exists(section_key(s.section_id)):
                        raise InvalidCommand(
                            ("section_id",), f"section {s.section_id!r} already exists"
                        )
                    self._check_players(s, new)
                created.append(Section(**s.event_fields(), actor=actor))
            return created

        return self._append(Verb.SUBMIT, actor, decide)

    def correct_section(
        self, revision: SubmitSection, *, reason: str, actor: str
    ) -> list[LedgerEntry]:
        """Replace a section's report with `revision` (same section id), giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)

        def decide() -> list[Aggregate]:
            section = self._section(revision.section_id)
            section.check_not_withdrawn()
            self._check_players(revision)
            if revision.event_fields() == section.report:
                raise InvalidCommand(
                    ("section_id",),
                    f"the correction of section {revision.section_id!r} is identical to its "
                    "current report: it changes nothing",
                )
            section.correct(**revision.event_fields(), reason=reason, actor=actor)
            return [section]

        return self._append(Verb.CORRECT, actor, decide)

    def current_report(self, section_id: str) -> dict[str, Any]:
        """The section's report as the write side holds it (what a correction replaces)."""
        return dict(self._section(commands.record_id("section_id", section_id)).report)

    def withdraw_section(self, section_id: str, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Withdraw a section from rating, giving the reason; a withdrawn section is final."""
        actor, reason = commands.actor(actor), commands.reason(reason)
        section_id = commands.record_id("section_id", section_id)

        def decide() -> list[Aggregate]:
            section = self._section(section_id)
            section.check_not_withdrawn()
            section.withdraw(section_id=section_id, reason=reason, actor=actor)
            return [section]

        return self._append(Verb.WITHDRAW, actor, decide)

    def reinstate_section(self, section_id: str, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Rate a withdrawn section again with its last report, giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)
        section_id = commands.record_id("section_id", section_id)

        def decide() -> list[Aggregate]:
            section = self._section(section_id)
            if not section.withdrawn:
                raise InvalidCommand(
                    ("section_id",),
                    f"section {section_id!r} is not withdrawn; nothing to reinstate",
                )
            section.reinstate(**section.report, reason=reason, actor=actor)
            return [section]

        return self._append(Verb.REINSTATE, actor, decide)

    def submit_fide_adjustment(
        self, *adjustments: SubmitFideAdjustment, actor: str
    ) -> list[LedgerEntry]:
        """Foreign FIDE games of registered players, one submission per player and list."""
        actor = commands.actor(actor)
        _unique(
            adjustments,
            lambda a: f"player {a.player!r} for the {a.rating_list} list",
            ("rating_list",),
        )

        def decide() -> list[Aggregate]:
            created: list[Aggregate] = []
            for i, a in enumerate(adjustments):
                with _item(i):
                    self._registered(a.player, ("player",))
                    if self._exists(fide_adjustment_key(a.player, a.rating_list.isoformat())):
                        raise InvalidCommand(
                            ("rating_list",),
                            f"player {a.player!r} already has a FIDE adjustment for the "
                            f"{a.rating_list} list",
                        )
                created.append(FideAdjustment(**a.event_fields(), actor=actor))
            return created

        return self._append(Verb.FIDE_ADJUST, actor, decide)

    def record_fide_uplift(self, uplift: RecordFideUplift, *, actor: str) -> list[LedgerEntry]:
        """FIDE's one-time uplift of a list's ratings, entered once per list date."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            effective = uplift.effective.isoformat()
            if self._exists(fide_uplift_key(effective)):
                raise InvalidCommand(
                    ("effective",), f"a FIDE uplift is already recorded for {effective}"
                )
            return [FideUplift(**uplift.event_fields(), actor=actor)]

        return self._append(Verb.FIDE_UPLIFT, actor, decide)

    def award_money_floor(self, award: AwardMoneyFloor, *, actor: str) -> list[LedgerEntry]:
        """A large prize won by a registered player under a rating limit."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            self._registered(award.player, ("player",))
            return [MoneyFloorAward(**award.event_fields(), actor=actor)]

        return self._append(Verb.AWARD_MONEY_FLOOR, actor, decide)

    def submit_match(self, *matches: SubmitMatch, actor: str) -> list[LedgerEntry]:
        """New matches between registered players; a match id is accepted once."""
        actor = commands.actor(actor)
        _unique(matches, lambda m: repr(m.match_id), ("match_id",))

        def decide() -> list[Aggregate]:
            created: list[Aggregate] = []
            for i, m in enumerate(matches):
                with _item(i):
                    if self._exists(match_key(m.match_id)):
                        raise InvalidCommand(("match_id",), f"match {m.match_id!r} already exists")
                    self._check_players(m)
                created.append(Match(**m.event_fields(), actor=actor))
            return created

        return self._append(Verb.MATCH, actor, decide)

    def override(self, decision: DirectorOverride, *, actor: str) -> list[LedgerEntry]:
        """A director's decision about a registered player's rating, with its reason."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            self._registered(decision.player, ("player",))
            return [Override(**decision.event_fields(), actor=actor)]

        return self._append(Verb.OVERRIDE, actor, decide)

    def revoke_override(self, position: int, *, reason: str, actor: str) -> list[LedgerEntry]:
        """Undo the director's decision recorded at ledger `position`, giving the reason."""
        actor, reason = commands.actor(actor), commands.reason(reason)

        def decide() -> list[Aggregate]:
            found = self.recorder.select_notifications(position, 1)
            if (
                not found
                or found[0].id != position
                or not found[0].topic.endswith(":DirectorOverride")
            ):
                raise InvalidCommand(
                    ("position",), f"{position} is not the position of a director's decision"
                )
            decision = self._get(Override, found[0].originator_id)
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

        return self._append(Verb.REVOKE_OVERRIDE, actor, decide)

    def amend_rules(self, amendment: AmendRules, *, actor: str) -> list[LedgerEntry]:
        """A rules parameter's new value from its effective date, with the reason."""
        actor = commands.actor(actor)
        return self._append(
            Verb.AMEND_RULES,
            actor,
            lambda: [RulesAmendment(**amendment.event_fields(), actor=actor)],
        )

    def publish_list(self, publication: PublishList, *, actor: str) -> list[LedgerEntry]:
        """A family's rating list, published after the family's latest one (as-of date and
        cutoff not earlier), its name not used before in the family."""
        actor = commands.actor(actor)
        family, name = publication.family, publication.name

        def decide() -> list[Aggregate]:
            published = self.published_lists(family)
            if any(p.name == name for p in published):
                raise InvalidCommand(("name",), f"{family} already has a list {name!r}")
            last = self.recorder.max_notification_id() or 0
            cutoff = publication.cutoff_position
            if cutoff is None:
                cutoff = last
            elif cutoff > last:
                raise InvalidCommand(
                    ("cutoff_position",), f"{cutoff} is beyond the ledger's last position {last}"
                )
            if published:
                latest = published[-1]
                if publication.as_of < latest.as_of:
                    raise InvalidCommand(
                        ("as_of",),
                        f"{publication.as_of} is before {latest.as_of}, the as-of date of the "
                        f"latest {family} list {latest.name!r}",
                    )
                if cutoff < latest.cutoff:
                    raise InvalidCommand(
                        ("cutoff_position",),
                        f"{cutoff} is below {latest.cutoff}, the cutoff of the latest {family} "
                        f"list {latest.name!r}",
                    )
            return [
                PublishedList(
                    family=family,
                    number=len(published) + 1,
                    list_name=name,
                    as_of=publication.as_of.isoformat(),
                    cutoff_position=cutoff,
                    actor=actor,
                )
            ]

        return self._append(Verb.PUBLISH_LIST, actor, decide)

    def commit_list_ratings(
        self, family: str, name: str, rows: int, root: str, *, actor: str
    ) -> list[LedgerEntry]:
        """Commit the ratings of the published list `name` (the Merkle root over its rows,
        projections/proofs.py); once per list."""
        actor = commands.actor(actor)
        if len(root) != 64 or any(c not in "0123456789abcdef" for c in root):
            raise InvalidCommand(("ratings_root",), f"{root!r} is not a SHA-256 root in hex")

        def decide() -> list[Aggregate]:
            for number in range(1, len(self.published_lists(family)) + 1):
                record = self._get(PublishedList, published_list_key(family, number))
                if record.list_name != name:
                    continue
                if getattr(record, "ratings_root", None) is not None:
                    raise InvalidCommand(("name",), f"the ratings of {name!r} are committed")
                record.commit_ratings(
                    family=family, list_name=name, rows=rows, ratings_root=root, actor=actor
                )
                return [record]
            raise InvalidCommand(("name",), f"{family} has no published list {name!r}")

        return self._append(Verb.PUBLISH_LIST, actor, decide)

    def published_lists(self, family: str) -> list[RatingList]:
        """The rating lists published in `family`, in the order they were published."""
        published: list[RatingList] = []
        while True:
            try:
                record = self._get(PublishedList, published_list_key(family, len(published) + 1))
            except AggregateNotFoundError:
                return published
            as_of = date.fromisoformat(record.as_of)
            published.append(RatingList(record.list_name, as_of, record.cutoff_position))

    def void(self, decision: VoidEntry, *, actor: str) -> list[LedgerEntry]:
        """Take back the effect of the entry at a position: not a section's (withdraw or
        correct it), a role's (revoke it), a void's, or one already voided."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            position = decision.position
            try:
                found = self.recorder.select_notifications(position, 1)
            except PersistenceError as exc:
                raise StoreError(f"store {redacted(self.store)}: {exc}") from None
            if not found or found[0].id != position:
                raise InvalidCommand(("position",), f"the ledger has no entry at {position}")
            kind = entry_type(found[0].topic)
            instead = getattr(events.KINDS.get(kind), "unvoidable", None)
            if instead is not None:
                raise InvalidCommand(("position",), f"the entry at {position} is {kind}: {instead}")
            if self._exists(void_key(position)):
                raise InvalidCommand(("position",), f"the entry at {position} is already voided")
            return [Void(**decision.event_fields(), actor=actor)]

        return self._append(Verb.VOID, actor, decide)

    def merge_players(self, merge: MergePlayers, *, actor: str) -> list[LedgerEntry]:
        """Join two records of one person: `merge.player` merged away into `merge.into`. Refused
        for an unknown record, a record merged away already (either side), two records in one
        section or match, and profiles that cannot both be true (unless `force`)."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            source, target = (self._known(m) for m in (merge.player, merge.into))
            merges = merging.merges_in_force(
                self.recorder, lambda position: self._exists(void_key(position))
            )
            for member_id in (merge.player, merge.into):
                if member_id in merges:
                    now = merging.surviving(merges, member_id)
                    raise Contradiction(
                        f"{member_id!r} was merged into {now!r} already"
                        + (f"; merge into {now!r} instead" if member_id == merge.into else "")
                    )
            person = {
                m: {m} | {x for x in merges if merging.surviving(merges, x) == m}
                for m in (merge.player, merge.into)
            }
            found = merging.played_together(self.recorder, person[merge.player], person[merge.into])
            if found is not None:
                raise Contradiction(
                    f"{merge.player!r} and {merge.into!r} both play in {found[0]} {found[1]!r}: "
                    "a person cannot play himself, so they are two people"
                )
            differ = merging.conflicts(
                *(
                    merging.person(
                        [record.profile]
                        + [
                            self._known(m).profile
                            for m in sorted(person[record.member_id] - {record.member_id})
                        ]
                    )
                    for record in (source, target)
                )
            )
            if differ and not merge.force:
                raise Contradiction(
                    f"the profiles of {merge.player!r} and {merge.into!r} differ ("
                    + "; ".join(differ)
                    + f"): give --force to merge them with {merge.into!r}'s own fields"
                )
            source.merge_into(**merge.event_fields(), actor=actor)
            return [source]

        return self._append(Verb.MERGE_PLAYERS, actor, decide)

    def initialize(self, *, actor: str) -> list[LedgerEntry]:
        """Set the ledger up with `actor` as its first director; a ledger is set up once.
        The keyring gets a key for `actor` if it has none; its public key is recorded."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            record = self._roles()
            if record is not None:
                directors = ", ".join(repr(d) for d in record.holders_of(Role.DIRECTOR))
                raise InvalidCommand(
                    (),
                    f"the ledger is already initialized (director: {directors}); a director "
                    "gives others roles with grant-role",
                )
            key = public_text(self.keyring.ensure(actor)) if not self.preview else None
            record = Roles(actor=actor, public_key=key)
            record.grant(holder=actor, role=Role.DIRECTOR.value, actor=actor, public_key=key)
            return [record]

        return self._append(None, actor, decide)

    def grant_role(
        self, holder: str, role: str, *, actor: str, public_key: str | None = None
    ) -> list[LedgerEntry]:
        """Give `holder` a role with their public key: `public_key`, else the one the ledger
        holds for them, else the one in the keyring; an auditor, who writes nothing, needs none.
        Granting a role already held with the same key records nothing; with a new key, it
        rotates the holder's key."""
        actor, holder, granted = commands.actor(actor), parse_holder(holder), parse_role(role)
        given = parse_public_key(public_key) if public_key is not None else None

        def decide() -> list[Aggregate]:
            record = self._authorized(Verb.GRANT_ROLE, actor)
            key = given or record.key_of(holder) or self.keyring.public_key(holder)
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

        return self._append(None, actor, decide)

    def revoke_role(self, holder: str, role: str, *, actor: str) -> list[LedgerEntry]:
        """Take a role from `holder`, who must hold it; the last director keeps theirs."""
        actor, holder, revoked = commands.actor(actor), parse_holder(holder), parse_role(role)

        def decide() -> list[Aggregate]:
            record = self._authorized(Verb.REVOKE_ROLE, actor)
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

        return self._append(None, actor, decide)

    def roles_of(self, actor: str) -> frozenset[Role]:
        """The roles `actor` holds now, as recorded in the ledger."""
        record = self._roles()
        return frozenset(map(Role, record.roles_of(actor))) if record else frozenset()

    def holders(self) -> dict[str, frozenset[Role]]:
        """Every actor holding a role now, with their roles (empty before `initialize`)."""
        record = self._roles()
        held = record.held.items() if record else ()
        return {h: frozenset(map(Role, r)) for h, r in sorted(held) if r}

    def _append(
        self, verb: Verb | None, actor: str, decide: Callable[[], list[Aggregate]]
    ) -> list[LedgerEntry]:
        """Check that `actor` may use `verb` (None: `decide` checks, if anything), decide against
        the current state and save atomically; re-check and re-decide if another writer got
        there first (the checks then run against the new state)."""
        for attempt in range(ATTEMPTS):
            record = self._authorized(verb, actor) if verb is not None else None
            aggregates = decide()
            if not aggregates:
                return []
            if self.preview:
                return self._previewed(aggregates)
            signer, sealed = self._signer(actor, record), list[Head]()
            try:
                recordings = self.save(*aggregates, signer=signer, sealed=sealed)
            except IntegrityError:
                time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**attempt))
                continue
            except PersistenceError as exc:
                raise StoreError(f"store {redacted(self.store)}: {exc}") from None
            self.receipt = sealed[-1]
            return [to_entry(r.notification) for r in recordings]
        raise ConflictError(
            f"other writers kept changing the same records ({ATTEMPTS} attempts); "
            "nothing was appended — try again"
        )

    def _signer(self, actor: str, record: Roles | None) -> Callable[[bytes], bytes]:
        """The signing function of `actor`'s key in the keyring, if it is the key the ledger
        holds for them in its verified log (`record`: the roles record read for this attempt,
        else read now; before `init`: the key `init` records)."""
        key = self.keyring.private_key(actor)
        if key is None:
            raise KeyRefused(
                f"{actor!r} has no key in the keyring {self.keyring.path} "
                f"(make one with `ratings-ledger keys new {actor}`); nothing was appended"
            )
        record = record or self._roles()
        held = self._verified(record).keys.get(actor) if record is not None else public_text(key)
        if held != public_text(key):
            raise KeyRefused(
                f"the key for {actor!r} in {self.keyring.path} is not the one the ledger holds "
                f"for {actor!r}; nothing was appended"
            )
        return key.sign

    def _verified(self, record: Roles) -> Verifier:
        """The keys and roles the ledger's signed log gives at its head, checked write by write
        (never the roles record alone: a row inserted behind the ledger's back is not trusted);
        refused in one line if the record read for this write says otherwise."""
        head = self.recorder.max_notification_id() or 0
        checked = getattr(self, "_checked", None)
        if checked is not None and checked[0] is record and checked[1] == head:
            return checked[2]  # the same attempt asks twice (its role, then its key)
        verifier = verifier_at(self, head)
        held = {h: set(r) for h, r in record.held.items() if r}
        if held != {h: r for h, r in verifier.roles.items() if r} or record.keys != verifier.keys:
            raise StoreError(
                "the ledger's roles record does not match its signed entries (changed outside "
                "the ledger): nothing was appended; run `ratings-ledger verify`"
            )
        self._checked = (record, head, verifier)
        return verifier

    def _previewed(self, aggregates: list[Aggregate]) -> list[LedgerEntry]:
        """The entries `aggregates` would append, at the positions they would take; none is."""
        start = self.recorder.max_notification_id() or 0
        entries = []
        for position, event in enumerate(
            (e for a in aggregates for e in a.collect_events()), start=start + 1
        ):
            stored = self.mapper.to_stored_event(event)
            entries.append(
                to_entry(
                    Notification(
                        originator_id=stored.originator_id,
                        originator_version=stored.originator_version,
                        topic=stored.topic,
                        state=stored.state,
                        id=position,
                    )
                )
            )
        return entries

    def _roles(self) -> Roles | None:
        try:
            return self._get(Roles, ROLES_KEY)
        except AggregateNotFoundError:
            return None

    def _authorized(self, verb: Verb, actor: str) -> Roles:
        """The ledger's roles record, if `actor` holds a role that may use `verb`."""
        record = self._roles()
        if record is None:
            raise NotInitialized()
        authorize(self._verified(record).roles.get(actor, set()), actor, verb)
        return record

    def _get(self, cls: type[A], key: UUID) -> A:
        try:
            return cast(A, self.repository.get(key))
        except PersistenceError as exc:
            raise StoreError(f"store {redacted(self.store)}: {exc}") from None

    def is_registered(self, member_id: str) -> bool:
        """Whether a player with this member id is registered."""
        return self._exists(player_key(member_id))

    def _exists(self, key: UUID) -> bool:
        try:
            return bool(self.recorder.select_events(key, limit=1))
        except PersistenceError as exc:
            raise StoreError(f"store {redacted(self.store)}: {exc}") from None

    def _known(self, member_id: str) -> Player:
        try:
            return self._get(Player, player_key(member_id))
        except AggregateNotFoundError:
            raise UnknownRecord(f"{member_id!r} is not a registered player") from None

    def _registered(self, member_id: str, path: tuple[int | str, ...]) -> Player:
        try:
            return self._get(Player, player_key(member_id))
        except AggregateNotFoundError:
            raise InvalidCommand(path, f"{member_id!r} is not a registered player") from None

    def _check_players(
        self, report: SubmitSection | SubmitMatch, new: Set[str] = frozenset()
    ) -> None:
        for j, p in enumerate(report.players):
            if p.id not in new and not self._exists(player_key(p.id)):
                raise InvalidCommand(("players", j, "id"), f"{p.id!r} is not a registered player")

    def _section(self, section_id: str) -> Section:
        try:
            return self._get(Section, section_key(section_id))
        except AggregateNotFoundError:
            raise InvalidCommand(
                ("section_id",), f"section {section_id!r} does not exist"
            ) from None


def _unique(items: Sequence[Any], key: Callable[[Any], str], path: tuple[str, ...]) -> None:
    """Reject a batch that gives the same record twice."""
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            raise InvalidCommand(path, f"{k} is given twice (also in item {seen[k]})", i)
        seen[k] = i


@contextmanager
def _item(index: int) -> Iterator[None]:
    """Locate an InvalidCommand raised while deciding item `index` of a batch."""
    try:
        yield
    except InvalidCommand as exc:
        raise exc.in_item(index) from None
