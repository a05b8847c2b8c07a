"""A rating proof bundle checked offline (issue 18; projections/proofs.py makes it): every
entry included under the checkpoint the verifier holds, P's row under the list's committed
root, and, where the family rates a period from the previous list (FIDE 10.65), P's row rated
again from the bundle's items and the previous list's rows. No database; its work is
proportional to P's games."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import Any, ParamSpec, TypeVar

from ledger import events
from ledger.evidence import Checkpoint, CheckpointError, merkle, transparency
from ledger.rules.families import family as rules_family
from ledger.rules.rating_lists import list_for
from projections import periods, proof_facts
from projections.items import ITEM_FACTS, Item, fact_item
from projections.proof_facts import Facts
from projections.proofs import BUNDLE, BundleError, leaf_key, leaf_standing
from projections.standing import Standing

P = ParamSpec("P")
R = TypeVar("R")


def verify_bundle(bundle: dict[str, Any], held: Checkpoint) -> dict[str, Any]:
    """Check `bundle` against the checkpoint `held` (no database): every entry included, P's
    row under the list's committed root, and (where the family rates a period from the
    previous list) P's row recomputed from the items and the previous list's rows. Returns
    what was checked; BundleError at the first thing that does not hold."""
    try:
        return _verify(bundle, held)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise BundleError(f"the bundle is malformed ({type(exc).__name__}: {exc})") from None


def _verify(bundle: dict[str, Any], held: Checkpoint) -> dict[str, Any]:
    _check_checkpoint(bundle, held)
    facts = _proved_facts(bundle, held)
    player, system, family = bundle["player"], bundle["system"], bundle["family"]
    listed, root = _list(facts, bundle["list"], family)
    row = bundle["row"]
    if leaf_key(row["leaf"]) != (system, player):
        raise BundleError(f"the row proved is not {player}'s {system} row")
    _check_row(row, root, listed.name)
    said = json.loads(row["leaf"])
    out = {
        "player": player,
        "system": system,
        "list": listed.name,
        "official_rating": said["official_rating"],
        "checkpoint_size": held.size,
        "recomputed": False,
    }
    if bundle.get("previous") is None or not periods.rates_from_previous_list(family):
        out["why_not_recomputed"] = (
            "the first committed list of the family"
            if bundle.get("previous") is None
            else f"{family} rates item by item, not a period from the previous list"
        )
        return out
    try:
        items = _recompute(bundle, facts, listed, said)
    except periods.EarlierList as exc:  # its Ro is a list's older than the bundle's previous
        out["why_not_recomputed"] = str(exc)
        return out
    out["recomputed"] = True
    out["items"] = items
    return out


def _check_checkpoint(bundle: dict[str, Any], held: Checkpoint) -> None:
    """A rating proof bundle, proved against the very checkpoint the verifier holds."""
    if bundle.get("bundle") != BUNDLE:
        raise BundleError(f"not a rating proof bundle (expected {BUNDLE!r})")
    own = Checkpoint.parse(bundle["checkpoint"])
    if own.ledger != held.ledger:
        raise BundleError("the bundle is proved against another ledger's checkpoint")
    if own.size == held.size and own.root != held.root:
        raise BundleError(
            f"the bundle's checkpoint of size {own.size} has another root than the one you "
            "hold: the ledger was rewritten or forked since"
        )
    if own.size != held.size:
        raise BundleError(
            f"the bundle is proved against the checkpoint of size {own.size}, not the one you "
            f"hold (size {held.size}): ask for a bundle at yours, or a consistency proof"
        )


def _proved_facts(bundle: dict[str, Any], held: Checkpoint) -> Facts:
    """The bundle's entries by position, each proved included under `held`."""
    facts: Facts = {}
    for position, proof in bundle["entries"].items():
        if proof["position"] != int(position):
            raise BundleError(f"the proof filed under position {position} is another's")
        try:
            transparency.verify_inclusion(proof, held)
        except CheckpointError as exc:
            raise BundleError(str(exc)) from None
        facts[int(position)] = _fact(proof["leaf"])
    return facts


def _recompute(
    bundle: dict[str, Any], facts: Facts, listed: periods.PublishedList, said: dict[str, Any]
) -> int:
    """P's row rated again from the previous list's rows and the period's items, through the
    family's rater and period code, compared with the row the list committed (`said`); the
    number of items."""
    player, system, family = bundle["player"], bundle["system"], bundle["family"]
    previous, old_root = _list(facts, bundle["previous"], family)
    lookup = _previous_rows(bundle["previous"]["rows"], old_root, previous.name, system, family)
    profiles = _profiles(bundle, facts, listed)
    context = _checked(proof_facts.Context.read, bundle, facts, listed, previous)
    items = _period_items(bundle, facts, previous, listed, context)
    recomputed = periods.recompute(
        family,
        listed,
        items,
        {(pid, system): s for pid, s in lookup.items()},
        profiles,
        uplifts=(previous, context.before, context.raised),
        merged=context.merges,
        older=_older(bundle, facts, previous),
    )
    got: tuple[int | None, Standing[object] | None] | None = recomputed.get((player, system))
    state, official = said["state"], said["official_rating"]
    if got is None:  # no item of his in the period: his row stands as on the previous list
        before = lookup.get(player)
        got = (None, before)
    if got[1] != leaf_standing(family, state) or (got[0] is not None and got[0] != official):
        raise BundleError(
            f"recomputed from the bundle, {player}'s {system} row on {listed.name!r} would be "
            f"{got[0]} (N={getattr(got[1], 'games', None)}), not the {official} "
            f"(N={state[1]}) the list committed{context.late(previous)}"
        )
    return len(items)


def _older(
    bundle: dict[str, Any], facts: Facts, previous: periods.PublishedList
) -> list[tuple[periods.PublishedList, dict[periods.Key, Standing[object]]]]:
    """The lists before the previous one the bundle gives (issue 30: an item that started
    under one is rated from its ratings), each with its proved rows; checked to be the
    consecutive lists up to the previous one."""
    system, family = bundle["system"], bundle["family"]
    out = []
    for where in bundle["previous"].get("older", []):
        found, root = _list(facts, where, family)
        rows = _previous_rows(where["rows"], root, found.name, system, family)
        out.append((found, {(pid, system): s for pid, s in rows.items()}))
    numbers = [x.number for x, _ in out]
    if numbers != list(range(previous.number - len(out), previous.number)):
        raise BundleError(
            f"the older lists the bundle gives are not those before {previous.name!r}"
        )
    return out


def _profiles(
    bundle: dict[str, Any], facts: Facts, listed: periods.PublishedList
) -> dict[str, events.PlayerRegistered]:
    """The profiles the bundle gives, each its player's and entered by the list's cutoff."""
    profiles = {}
    for pid, position in bundle["profiles"].items():
        fact = facts[int(position)]
        if not isinstance(fact, events.PlayerRegistered) or fact.member_id != pid:
            raise BundleError(f"the entry at {position} is not {pid}'s profile")
        if int(position) > listed.cutoff_position:
            raise BundleError(f"{pid}'s profile at {position} is after the list's cutoff")
        profiles[pid] = fact
    return profiles


def _period_items(
    bundle: dict[str, Any],
    facts: Facts,
    previous: periods.PublishedList,
    listed: periods.PublishedList,
    context: proof_facts.Context,
) -> list[Item]:
    """The bundle's items, each in the list's period and naming P and his opponents as the
    previous list's rows do."""
    player, family = bundle["player"], bundle["family"]
    late_items = rules_family(family).late_items
    if late_items is None:
        raise BundleError(f"the {family} family publishes no rating lists")
    items = []
    for first, revision in bundle["items"]:
        fact = facts[int(revision)]
        if fact is None or type(fact) not in ITEM_FACTS:  # None: a kind the read side ignores
            raise BundleError(f"the entry at {revision} is not a rated item")
        item = fact_item(fact, int(revision), int(first))
        period = list_for(
            date.fromisoformat(item.end),
            item.position,
            [previous.rating_list, listed.rating_list],
            late_items,
        )
        if period != 1:
            raise BundleError(f"the item at {revision} is not in the period of {listed.name!r}")
        _checked(context.names_its_players, item, player, bundle["previous"]["rows"])
        items.append(item)
    return items


def _checked(check: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`check(*args)`: a bundle's uplift, merge or void that is not what it is filed as is a
    BundleError."""
    try:
        return check(*args, **kwargs)
    except proof_facts.ContextError as exc:
        raise BundleError(str(exc)) from None


def _fact(leaf: str) -> events.Fact | None:
    """The typed fact of an entry from its leaf (its signed message: a header line, then the
    stored JSON), or None for a kind the read side does not decode."""
    head, _, state = leaf.partition("\n")
    topic = json.loads(head)[2]
    return events.decode(topic.rpartition(":")[2], state.encode())


def _list(
    facts: Facts, where: dict[str, Any], family: str
) -> tuple[periods.PublishedList, tuple[str, int]]:
    """The published list and its committed root, from their proved entries."""
    published, committed = facts[int(where["published"])], facts[int(where["committed"])]
    if not isinstance(published, events.ListPublished) or published.family != family:
        raise BundleError(f"the entry at {where['published']} is not a {family} list")
    if (
        not isinstance(committed, events.ListRatingsCommitted)
        or committed.family != family
        or committed.list_name != published.list_name
    ):
        raise BundleError(f"the entry at {where['committed']} does not commit that list")
    listed = periods.PublishedList(
        family,
        published.number,
        published.list_name,
        published.as_of,
        published.cutoff_position,
        int(where["published"]),
    )
    return listed, (committed.ratings_root, committed.rows)


def _check_row(row: dict[str, Any], root: tuple[str, int], name: str) -> None:
    path = [bytes.fromhex(p) for p in row["proof"]]
    leaf = merkle.leaf_hash(row["leaf"].encode())
    if not merkle.verify_inclusion(leaf, int(row["index"]), root[1], path, bytes.fromhex(root[0])):
        raise BundleError(f"a row is not under the committed root of list {name!r}")


def _previous_rows(
    rows: dict[str, Any], root: tuple[str, int], name: str, system: str, family: str
) -> dict[str, Standing[object]]:
    """Each player's standing on the previous list, proved (absent: proved not there)."""
    found = {}
    for pid, proof in rows.items():
        key = (system, pid)
        if "absent" not in proof:
            if leaf_key(proof["leaf"]) != key:
                raise BundleError(f"the previous list's row given for {pid} is another's")
            _check_row(proof, root, name)
            state = json.loads(proof["leaf"])["state"]
            found[pid] = leaf_standing(family, state)
            continue
        sides = proof["absent"]
        for side in sides:
            _check_row(side, root, name)
        indexes = [int(s["index"]) for s in sides]
        keys = [leaf_key(s["leaf"]) for s in sides]
        fits = (
            (len(sides) == 2 and indexes[1] == indexes[0] + 1 and keys[0] < key < keys[1])
            or (len(sides) == 1 and indexes[0] == 0 and key < keys[0])
            or (len(sides) == 1 and indexes[0] == root[1] - 1 and keys[0] < key)
            or (not sides and root[1] == 0)
        )
        if not fits:
            raise BundleError(f"the bundle does not show that {pid} is absent from {name!r}")
    return found
