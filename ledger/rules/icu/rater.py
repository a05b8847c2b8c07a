"""The ICU rater: the ledger's sections under the ICU version in force (ledger/rules/icu)."""

from __future__ import annotations

from datetime import date

from ledger.rules.fide.games import (
    Games,
    GamesRater,
    played,
    profile_field,
    to_date,
)
from ledger.rules.icu import section as icu
from ledger.rules.icu.family import SYSTEM
from ledger.rules.icu.versions import NAMES
from ledger.rules.icu.versions import resolve as icu_version
from projections.change import Change
from projections.items import Item
from projections.rating import Rater
from projections.standing import Standing


class IcuRater(GamesRater):
    """The ICU rules on the ledger's sections: continuous formula, or performance while new."""

    system = SYSTEM
    rules = icu.RULES
    versions = NAMES

    def rate_games(
        self, item: Item, games: Games, pre: dict[str, Standing[object]]
    ) -> list[Change]:
        ids = list(pre)
        version = icu_version(date.fromisoformat(item.start), self.version_named(item))
        fixed = {p.id: p.fixed_rating for p in played(item).players if p.fixed_rating is not None}
        outcome = version.rate(
            icu.Section(
                date.fromisoformat(item.start),
                date.fromisoformat(item.end),
                tuple(
                    icu.Player(
                        pid,
                        fixed.get(pid, pre[pid].rating),
                        pre[pid].games,
                        to_date(profile_field(self.profiles, pid, "birth_date")),
                        to_date(profile_field(self.profiles, pid, "playing_since")),
                        foreign=pid in fixed,  # articles/17: foreign players held fixed
                    )
                    for pid in ids
                ),
                games,
            )
        )
        changes = []
        for o in outcome.players:
            if not o.games:
                continue
            before = pre[o.player]
            rating = o.post
            if version.carries_published:
                assert o.official is not None  # a player with games has his official rating
                rating = float(o.official)
            after: Standing[object] = Standing(
                rating=rating, games=before.games + o.games, rated_on=item.end
            )
            formula = "performance" if o.performance is not None else "continuous"
            changes.append(
                self.played_change(
                    item, o, outcome, self.system, before, after, formula, o.official
                )
            )
        return changes


# the family's reader as the read core's protocol types it (mypy checks the class against
# it): what `Family.rater` names
READER: type[Rater[object]] = IcuRater
