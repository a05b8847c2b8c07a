"""The write verbs of published rating lists: publish a list, commit its ratings."""

from __future__ import annotations

from datetime import date

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate

from ledger import commands
from ledger.commands import PublishList
from ledger.domain import PublishedList, published_list_key
from ledger.errors import InvalidCommand
from ledger.log import LedgerEntry
from ledger.roles import Verb
from ledger.rules.rating_lists import RatingList
from ledger.writes.writer import Writer


class ListWrites:
    """The verbs on rating lists (`app.lists`), given the application as their `Writer`."""

    def __init__(self, app: Writer) -> None:
        self.app, self.records = app, app.records

    def publish(self, publication: PublishList, *, actor: str) -> list[LedgerEntry]:
        """A family's rating list, published after the family's latest one (as-of date and
        cutoff not earlier), its name not used before in the family."""
        actor = commands.actor(actor)
        family, name = publication.family, publication.name

        def decide() -> list[Aggregate]:
            published = self.published(family)
            if any(p.name == name for p in published):
                raise InvalidCommand(("name",), f"{family} already has a list {name!r}")
            last = self.app.recorder.max_notification_id() or 0
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

        return self.app.append(Verb.PUBLISH_LIST, actor, decide)

    def commit_ratings(
        self, family: str, name: str, rows: int, root: str, *, actor: str
    ) -> list[LedgerEntry]:
        """Commit the ratings of the published list `name` (the Merkle root over its rows,
        projections/proofs.py); once per list."""
        actor = commands.actor(actor)
        if len(root) != 64 or any(c not in "0123456789abcdef" for c in root):
            raise InvalidCommand(("ratings_root",), f"{root!r} is not a SHA-256 root in hex")

        def decide() -> list[Aggregate]:
            for number in range(1, len(self.published(family)) + 1):
                record = self.records.get(PublishedList, published_list_key(family, number))
                if record.list_name != name:
                    continue
                if getattr(record, "ratings_root", None) is not None:
                    raise InvalidCommand(("name",), f"the ratings of {name!r} are committed")
                record.commit_ratings(
                    family=family, list_name=name, rows=rows, ratings_root=root, actor=actor
                )
                return [record]
            raise InvalidCommand(("name",), f"{family} has no published list {name!r}")

        return self.app.append(Verb.PUBLISH_LIST, actor, decide)

    def published(self, family: str) -> list[RatingList]:
        """The rating lists published in `family`, in the order they were published."""
        published: list[RatingList] = []
        while True:
            try:
                record = self.records.get(
                    PublishedList, published_list_key(family, len(published) + 1)
                )
            except AggregateNotFoundError:
                return published
            as_of = date.fromisoformat(record.as_of)
            published.append(RatingList(record.list_name, as_of, record.cutoff_position))
