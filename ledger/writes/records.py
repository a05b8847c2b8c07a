"""The records a write verb decides from, read through the application's repository and
recorder: a store's failure is a StoreError naming the store, a missing record the
InvalidCommand or UnknownRecord its caller sees."""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Set
from contextlib import contextmanager
from typing import TypeVar, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import ApplicationRecorder, Notification, PersistenceError

from ledger.commands import SubmitMatch, SubmitSection
from ledger.domain import ROLES_KEY, Player, Roles, Section, player_key, section_key
from ledger.errors import InvalidCommand, StoreError, UnknownRecord
from ledger.store import redacted

A = TypeVar("A", bound=Aggregate)


class Records:
    """The ledger's records as a write decides from them (ledger/writes/)."""

    def __init__(
        self, repository: Repository[UUID], recorder: ApplicationRecorder, store: str
    ) -> None:
        self.repository, self.recorder, self.store = repository, recorder, store

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A store's failure as the StoreError naming the store (its password redacted)."""
        try:
            yield
        except PersistenceError as exc:
            raise StoreError(f"store {redacted(self.store)}: {exc}") from None

    def get(self, cls: type[A], key: UUID) -> A:
        """The record at `key`; AggregateNotFoundError if there is none."""
        with self._reading():
            return cast(A, self.repository.get(key))

    def exists(self, key: UUID) -> bool:
        """Whether a record has an event at `key`."""
        with self._reading():
            return bool(self.recorder.select_events(key, limit=1))

    def existing(self, keys: Sequence[UUID]) -> set[UUID]:
        """Those of `keys` with an event, in one read (the recorder is a sealing one or the
        remote one: ledger/evidence, `existing`)."""
        with self._reading():
            return cast(set[UUID], self.recorder.existing(keys))  # type: ignore[attr-defined]

    def entry_at(self, position: int, field: str) -> Notification:
        """The stored entry at `position`; InvalidCommand naming `field` if there is none."""
        with self._reading():
            found = self.recorder.select_notifications(position, 1)
        if not found or found[0].id != position:
            raise InvalidCommand((field,), f"the ledger has no entry at {position}")
        return found[0]

    def roles(self) -> Roles | None:
        """The ledger's roles record; None before `initialize`."""
        try:
            return self.get(Roles, ROLES_KEY)
        except AggregateNotFoundError:
            return None

    def known(self, member_id: str) -> Player:
        """A registered player's record; UnknownRecord if there is none."""
        try:
            return self.get(Player, player_key(member_id))
        except AggregateNotFoundError:
            raise UnknownRecord(f"{member_id!r} is not a registered player") from None

    def registered(self, member_id: str, path: tuple[int | str, ...]) -> Player:
        """A registered player's record; InvalidCommand at `path` if there is none."""
        try:
            return self.get(Player, player_key(member_id))
        except AggregateNotFoundError:
            raise InvalidCommand(path, f"{member_id!r} is not a registered player") from None

    def check_players(
        self, report: SubmitSection | SubmitMatch, new: Set[str] = frozenset()
    ) -> None:
        """Every player of `report` registered, or among `new` (registered in the same write),
        asked of the store in one read."""
        keys = {p.id: player_key(p.id) for p in report.players if p.id not in new}
        known = self.existing(list(keys.values()))
        for j, p in enumerate(report.players):
            if p.id in keys and keys[p.id] not in known:
                raise InvalidCommand(("players", j, "id"), f"{p.id!r} is not a registered player")

    def section(self, section_id: str) -> Section:
        """A section's record; InvalidCommand if there is none."""
        try:
            return self.get(Section, section_key(section_id))
        except AggregateNotFoundError:
            raise InvalidCommand(
                ("section_id",), f"section {section_id!r} does not exist"
            ) from None
