"""FIDE's own state of a player in one list: whether his published rating has reached 2400
(10.641's K = 10), the performances of an unrated player's events (10.3) and his results
against rated opponents (8.2, 7.1.4). Stored as the JSON of the read model's `s_extra`
column, byte for byte as before issue 29 (a key absent while it has no value)."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

# 8.2/7.1.4: an event's end date and its [opponent's rating, score] pairs (JSON's lists)
PoolEntry = tuple[str, Any]


# the JSON of each state without performances or pool, by its other fields' values and types
_PLAIN: dict[tuple[tuple[Any, ...], tuple[type, ...]], str] = {}


class FideState(NamedTuple):
    """Each field None while it has no value (its key absent from the JSON)."""

    reached_2400: bool | None = None
    prior: tuple[tuple[float, int], ...] | None = None  # 10.3: [performance, games] each
    pool: tuple[PoolEntry, ...] | None = None  # 8.2/7.1.4: his games join the pool
    # a published rating that came without a game count: his games before the ledger are
    # unknown; 8.3.3's K treats him as past his first 30 (decisions: "N without a count")
    prior_unknown: bool | None = None
    # issue 30: his K on FIDE's list of this system, as an opening balance records it
    k: int | None = None

    def to_json(self) -> str:
        """The state's JSON; a rated player's (no performances, no pool: most of a replay's)
        made once per value and kept (_PLAIN), as every row and standing stores it."""
        if self.prior is not None or self.pool is not None:
            return self._json()
        flags = (self.reached_2400, self.prior_unknown, self.k)
        key = (flags, tuple(map(type, flags)))  # True and 1 are equal keys: their types too
        found = _PLAIN.get(key)
        if found is None:
            found = _PLAIN[key] = self._json()
        return found

    def _json(self) -> str:
        return json.dumps(
            {k: v for k, v in self._asdict().items() if v is not None}, sort_keys=True
        )

    @classmethod
    def from_json(cls, text: str) -> FideState:
        data = json.loads(text)
        prior, pool = data.get("prior"), data.get("pool")
        return cls(
            data.get("reached_2400"),
            None if prior is None else tuple((r, n) for r, n in prior),
            None if pool is None else tuple((end, results) for end, results in pool),
            data.get("prior_unknown"),
            data.get("k"),
        )

    @property
    def reached(self) -> bool:
        return bool(self.reached_2400)

    def joined(self, own: FideState | None) -> FideState:
        """This period's state with the last event of `own` (a section's standing after it)
        added: 10.3 / 8.2, his results join those of earlier periods."""
        if own is None:
            return self
        prior = self.prior if own.prior is None else (*(self.prior or ()), own.prior[-1])
        pool = self.pool if own.pool is None else (*(self.pool or ()), own.pool[-1])
        return self._replace(prior=prior, pool=pool)

    def listed(self, official: int, dropped: bool) -> FideState:
        """The state after a list publishing `official`; `dropped`: shown as unrated again
        (7.2.1), his pool starting afresh."""
        reached = self.reached or official >= 2400
        if dropped:
            return FideState(reached, None, (), self.prior_unknown, self.k)
        return self._replace(reached_2400=reached)
