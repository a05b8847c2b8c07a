"""The write verbs of a player's record: register, opening balances, merges."""

from __future__ import annotations

from eventsourcing.domain import Aggregate

from ledger import commands, merging
from ledger.commands import MergePlayers, RecordOpeningBalance, RegisterPlayer
from ledger.domain import Player, player_key, void_key
from ledger.errors import AccessDenied, Contradiction, InvalidCommand
from ledger.log import LedgerEntry
from ledger.roles import RATING_FIELDS_MAY, Verb, may_change_rating_fields, rating_fields_changed
from ledger.writes.batches import at_item, unique
from ledger.writes.writer import Writer


class PlayerWrites:
    """The verbs on players (`app.players`), given the application as their `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def register(self, *players: RegisterPlayer, actor: str) -> list[LedgerEntry]:
        """Register new players; for registered ones record the changed profile, if any. A
        registered player's rating fields (`roles.RATING_FIELDS`) are changed by the office
        only (`roles.RATING_FIELDS_MAY`): a tournament director's register that would change
        one is refused whole, naming the player and the fields (issue 28)."""
        actor = commands.actor(actor)
        unique(players, lambda p: repr(p.id), ("id",))

        def decide() -> list[Aggregate]:
            changed: list[Aggregate] = [*self._profiles(players, actor)]
            if not changed:
                who = repr(players[0].id) if len(players) == 1 else "every player given"
                raise InvalidCommand(
                    ("id",), f"{who} is already registered with these fields: it changes nothing"
                )
            return changed

        return self.app.append(Verb.REGISTER, actor, decide)

    def _profiles(self, players: tuple[RegisterPlayer, ...], actor: str) -> list[Player]:
        """The players `players` registers or changes (none: every one as given already)."""
        changed: list[Player] = []
        office: bool | None = None  # whether `actor` may change rating fields, once asked
        known = self.records.existing([player_key(p.id) for p in players])  # in one read
        for p in players:
            if player_key(p.id) not in known:
                changed.append(Player(member_id=p.id, **p.profile(), actor=actor))
                continue
            player = self.records.get(Player, player_key(p.id))
            profile = p.profile(player.profile)
            if profile == player.profile:
                continue
            rating = rating_fields_changed(player.profile, profile)
            if rating and not (office := self._may_rerate(actor) if office is None else office):
                raise AccessDenied(
                    f"{actor!r} may not change the {', '.join(rating)} of registered "
                    f"player {p.id!r}: that takes {' or '.join(RATING_FIELDS_MAY)}; "
                    "nothing was appended"
                )
            player.update_profile(member_id=p.id, **profile, actor=actor)
            changed.append(player)
        return changed

    def register_with_balances(
        self,
        players: tuple[RegisterPlayer, ...],
        balances: tuple[RecordOpeningBalance, ...],
        *,
        actor: str,
    ) -> list[LedgerEntry]:
        """Register or update `players` and record `balances` in one write (`import
        fide-list`: a list's profiles and balances appended whole, or nothing): each player's
        profile, then his balances. Takes both verbs' roles."""
        actor = commands.actor(actor)
        unique(players, lambda p: repr(p.id), ("id",))
        unique(balances, lambda b: f"player {b.player!r} in {b.system}", ("system",))

        def decide() -> list[Aggregate]:
            if balances:
                self.app.authorized(Verb.OPENING_BALANCE, actor)
            changed: dict[str, Player] = {}
            for p in self._profiles(players, actor):
                changed[p.member_id] = p
            self._balances(balances, changed, actor)
            return list(changed.values())

        return self.app.append(Verb.REGISTER if players else None, actor, decide)

    def _balances(
        self, balances: tuple[RecordOpeningBalance, ...], players: dict[str, Player], actor: str
    ) -> None:
        """Record `balances` on their players (`players`: those changed in this write, and
        those it reads, added)."""
        for i, b in enumerate(balances):
            with at_item(i):
                player = players.get(b.player) or self.records.registered(b.player, ("player",))
                player.check_no_opening_balance(str(b.system))
                player.record_opening_balance(**b.event_fields(), actor=actor)
            players[b.player] = player

    def _may_rerate(self, actor: str) -> bool:
        """Whether the verified log gives `actor` a role that changes rating fields."""
        return may_change_rating_fields(self.app.verified().roles.get(actor, set()))

    def record_opening_balance(
        self, *balances: RecordOpeningBalance, actor: str
    ) -> list[LedgerEntry]:
        """A registered player's record per system; at most one opening balance per system."""
        actor = commands.actor(actor)
        unique(balances, lambda b: f"player {b.player!r} in {b.system}", ("system",))

        def decide() -> list[Aggregate]:
            players: dict[str, Player] = {}
            self._balances(balances, players, actor)
            return list(players.values())

        return self.app.append(Verb.OPENING_BALANCE, actor, decide)

    def merge(self, merge: MergePlayers, *, actor: str) -> list[LedgerEntry]:
        """Join two records of one person: `merge.player` merged away into `merge.into`. Refused
        for an unknown record, a record merged away already (either side), two records in one
        section or match, and profiles that cannot both be true (unless `force`)."""
        actor = commands.actor(actor)

        def decide() -> list[Aggregate]:
            source, target = (self.records.known(m) for m in (merge.player, merge.into))
            merges = merging.merges_in_force(
                self.app.recorder, lambda position: self.records.exists(void_key(position))
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
            found = merging.played_together(
                self.app.recorder, person[merge.player], person[merge.into]
            )
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
                            self.records.known(m).profile
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

        return self.app.append(Verb.MERGE_PLAYERS, actor, decide)
