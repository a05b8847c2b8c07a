"""Append a deterministic, realistic synthetic ledger to a store and print its counts as JSON.

    python scripts/generate.py --players N --games M --seed S [--store URL]
                               [--start 2019-01-01] [--years 6]

Players have a latent strength that changes with age; a fifth start with opening balances, the
rest join over the years unrated. Sections (Swiss, round robins, quads; OTB and online; every
system and dual rating) are drawn from the strengths and submitted roughly in date order, with a
few late arrivals; FIDE adjustments, money floors, matches, director overrides, corrections, a
withdrawal and the 2025 bonus multiplier amendment are interleaved by date. The ledger is set up
first, its director granting each actor the role its writes need (STAFF). Same seed, same
content (apart from the recorded_at timestamps).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from ledger.application import RatingsLedger
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    RecordOpeningBalance,
    RegisterPlayer,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    parse,
)
from ledger.errors import LedgerError
from ledger.evidence import Keyring
from ledger.evidence.signing import KEYRING_VARIABLE
from ledger.log import read_entries
from ledger.store import store_url

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/generation/, however loaded
from generation.generator import Generator  # noqa: E402
from generation.world import DIRECTOR, ITEM_BATCH, SECTION_BATCH, STAFF, Counts, Op  # noqa: E402


class Writer:
    """Appends the stream, consecutive commands of one kind in a single call where possible."""

    def __init__(self, ledger: RatingsLedger, counts: Counts) -> None:
        self.ledger = ledger
        self.counts = counts

    def write(self, ops: Iterator[Op]) -> None:
        batch: list[Op] = []
        for op in ops:
            limit = SECTION_BATCH if op.kind == "section" else ITEM_BATCH
            if batch and (op.kind != batch[0].kind or len(batch) >= limit):
                self._flush(batch)
                batch = []
            batch.append(op)
        if batch:
            self._flush(batch)

    def _flush(self, batch: list[Op]) -> None:
        kind, items, ledger = batch[0].kind, [op.item for op in batch], self.ledger
        if kind == "register":
            ledger.players.register(*(parse(RegisterPlayer, i) for i in items), actor="membership")
            self.counts.players += len(items)
        elif kind == "opening":
            ledger.players.record_opening_balance(
                *(parse(RecordOpeningBalance, i) for i in items), actor="migration"
            )
        elif kind == "section":
            self._sections(items)
        elif kind == "fide":
            ledger.decisions.submit_fide_adjustment(
                *(parse(SubmitFideAdjustment, i) for i in items), actor="ratings-office"
            )
            self.counts.fide_adjustments += len(items)
        elif kind == "match":
            ledger.sections.submit_match(*(parse(SubmitMatch, i) for i in items), actor="td")
            self.counts.matches += len(items)
        else:
            for item in items:
                self._single(kind, item)

    def _sections(self, items: list[dict[str, Any]]) -> None:
        sections = [parse(SubmitSection, i) for i in items]
        self.ledger.sections.submit(*sections, actor="td")
        self.counts.sections += len(sections)

    def _single(self, kind: str, item: Any) -> None:
        ledger, counts = self.ledger, self.counts
        if kind == "correction":
            revision, reason = item
            ledger.sections.correct(
                parse(SubmitSection, revision), reason=reason, actor="ratings-office"
            )
            counts.corrections += 1
        elif kind == "withdrawal":
            section_id, reason = item
            ledger.sections.withdraw(section_id, reason=reason, actor="ratings-office")
            counts.withdrawals += 1
        elif kind == "money_floor":
            ledger.decisions.award_money_floor(parse(AwardMoneyFloor, item), actor=DIRECTOR)
            counts.money_floors += 1
        elif kind == "override":
            ledger.decisions.override(parse(DirectorOverride, item), actor=DIRECTOR)
            counts.overrides += 1
        elif kind == "amendment":
            ledger.decisions.amend_rules(parse(AmendRules, item), actor=DIRECTOR)
            counts.amendments += 1


def keyring_for(store: str | None) -> Keyring:
    """$RATINGS_LEDGER_KEYRING if set, else a `keys` folder beside a SQLite store."""
    url = store_url(store)
    if os.environ.get(KEYRING_VARIABLE) or not url.startswith("sqlite:///"):
        return Keyring()
    return Keyring(Path(url[len("sqlite:///") :]).parent / "keys")


def generate(
    store: str | None,
    players: int,
    games: int,
    seed: int,
    start: date,
    years: int,
    keyring: Keyring | None = None,
) -> dict[str, Any]:
    """Append the ledger for these settings to an empty store, its actors' keys made in
    `keyring` (default `keyring_for(store)`) when missing; the counts and the time taken."""
    began = time.perf_counter()
    generator = Generator(players, games, seed, start, years)
    ledger = RatingsLedger(store, keyring=keyring or keyring_for(store))
    try:
        if next(read_entries(ledger, batch=1), None) is not None:
            raise LedgerError(f"store {ledger.store} is not empty; generate into a new store")
        ledger.roles.initialize(actor=DIRECTOR)
        for actor, role in STAFF.items():
            ledger.keyring.ensure(actor)
            ledger.roles.grant(actor, role, actor=DIRECTOR)
        writer = Writer(ledger, generator.counts)
        writer.write(generator.ops())
    finally:
        ledger.close()
    return vars(generator.counts) | {"seconds": round(time.perf_counter() - began, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, required=True, help="registered players")
    parser.add_argument("--games", type=int, required=True, help="rated games in sections")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--store", help="store URL (default $RATINGS_LEDGER_STORE or SQLite)")
    parser.add_argument("--start", type=date.fromisoformat, default=date(2019, 1, 1))
    parser.add_argument("--years", type=int, default=6)
    args = parser.parse_args(argv)
    try:
        counts = generate(args.store, args.players, args.games, args.seed, args.start, args.years)
    except (ValueError, LedgerError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
