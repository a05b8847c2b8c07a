"""A rating anyone can verify (issue 18): a published list commits its rows (a Merkle root over
them, RFC 9162 §2.1, recorded as `ListRatingsCommitted`), and a player's proof bundle carries
what recomputing his change needs, each piece proved against a checkpoint the verifier holds.

A list's rows are its players' standings after it, one leaf each, sorted by (system, player):
the rating, N and every state column the next period is rated from. A bundle for player P on
list L holds L's and the previous list's entries, P's row on L, the rows of P and his opponents
on the previous list (or the two neighbouring leaves that show a player is not on it), the
entries of P's items in L's period, P's profile and those of players the previous list does
not hold, and the FIDE uplifts and merges the rating depends on (projections/proof_facts.py);
`verify_bundle` checks every inclusion, then, where the family rates a period from the
previous list (FIDE 10.65), rates those items again through the family's own rater and period
code, uplifted and renamed as the read model does, and compares P's row. Its work is
proportional to P's games, not to the ledger's length.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any, ParamSpec, TypeVar

from ledger import events
from ledger.errors import LedgerError
from ledger.evidence import Checkpoint, CheckpointError, merkle, transparency
from ledger.reading import Readable
from ledger.rules.families import family as rules_family
from ledger.rules.rating_lists import list_for
from projections import periods, proof_facts, queries
from projections.items import Item, fact_item
from projections.merges import renamed
from projections.proof_facts import Facts
from projections.schema import STATE_SELECT, ReadModel
from projections.standing import Standing

P = ParamSpec("P")
R = TypeVar("R")

BUNDLE = "ratings-ledger rating proof 1"
PROFILE_ENTRIES = ("PlayerRegistered", "PlayerProfileUpdated")


class BundleError(LedgerError):
    """A proof bundle that does not prove what it says."""


# A list's rows and their tree


def list_rows(view: ReadModel, found: periods.PublishedList) -> list[bytes]:
    """The leaves of a list: each (system, player)'s standing after the list, `view` being the
    read model as known at the list (projections.timetravel.list_view)."""
    rows = view.db.execute(
        f"select h.system, h.player, h.official_rating, {STATE_SELECT} from history h "
        "join (select player, system, max(sort_key) as sort_key from history "
        "where sort_key <= ? group by player, system) latest "
        "on latest.player = h.player and latest.system = h.system "
        "and latest.sort_key = h.sort_key order by h.system, h.player",
        [found.sort_key],
    ).fetchall()
    return [row_leaf(system, player, official, state) for system, player, official, *state in rows]


def row_leaf(system: str, player: str, official: int | None, state: Sequence[object]) -> bytes:
    """One row's leaf data: canonical JSON (keys sorted, no spaces, floats as Python's repr)."""
    value = {"system": system, "player": player, "official_rating": official, "state": [*state]}
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


class MemoryTree:
    """The RFC 9162 tree over leaves held in memory (a list's rows)."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self.leaves = list(leaves)
        level = [merkle.leaf_hash(x) for x in self.leaves]
        self.levels = [level]
        while len(level) > 1:
            level = [merkle.node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            self.levels.append(level)

    def node(self, level: int, index: int) -> bytes:
        return self.levels[level][index]

    @property
    def size(self) -> int:
        return len(self.leaves)

    def root(self) -> str:
        return merkle.root(self.node, self.size).hex()

    def proof(self, index: int) -> dict[str, Any]:
        path = merkle.inclusion_proof(self.node, index, self.size)
        return {
            "leaf": self.leaves[index].decode(),
            "index": index,
            "proof": [p.hex() for p in path],
        }


def _key(leaf: bytes | str) -> tuple[str, str]:
    row = json.loads(leaf)
    return row["system"], row["player"]


def commitment(view: ReadModel, found: periods.PublishedList) -> MemoryTree:
    return MemoryTree(list_rows(view, found))


# Making a bundle


def make_bundle(
    ledger: Readable,
    at_list: ReadModel,
    before: ReadModel | None,
    name: str,
    player: str,
    system: str,
) -> dict[str, Any]:
    """The bundle proving `player`'s row in `system` on the list `name`: `at_list` and `before`
    are the read models as known at it and at the previous list of its family (None: it is
    the first), `ledger` the open ledger (its latest signed checkpoint is the bundle's)."""
    found = queries.published_list(at_list, name)
    lists = queries.published_lists(at_list, at_list.family)
    committed = _commit_positions(ledger, at_list.family)
    if found is None or name not in committed:
        raise BundleError(f"the ratings of {at_list.family} list {name!r} are not committed")
    tree = commitment(at_list, found)
    if tree.root() != committed[name][1]:
        raise BundleError(
            f"the read model's rows of list {name!r} differ from those committed at "
            "publication (rebuild the read model, or the rules changed since)"
        )
    index = _index(tree, (system, player))
    if index is None:
        raise BundleError(f"{player} has no {system} row on list {name!r}")
    checkpoint = transparency.latest(ledger)
    positions = {found.position, committed[name][0]}
    bundle: dict[str, Any] = {
        "bundle": BUNDLE,
        "player": player,
        "system": system,
        "family": at_list.family,
        "checkpoint": checkpoint.text(),
        "list": {"published": found.position, "committed": committed[name][0]},
        "row": tree.proof(index),
        "previous": None,
        "items": [],
        "profiles": {},
    }
    number = next(i for i, x in enumerate(lists) if x.name == name)
    if before is not None and number > 0 and lists[number - 1].name in committed:
        previous = lists[number - 1]
        positions |= _add_period(bundle, ledger, at_list, found, before, previous, committed)
    bundle["entries"] = {
        str(p): transparency.inclusion(ledger, p, checkpoint.size) for p in sorted(positions)
    }
    return bundle


def _add_period(
    bundle: dict[str, Any],
    ledger: Readable,
    at_list: ReadModel,
    found: periods.PublishedList,
    before: ReadModel,
    previous: periods.PublishedList,
    committed: dict[str, tuple[int, str]],
) -> set[int]:
    """What recomputing P's row takes, added to `bundle`: the previous list's rows of P and
    his opponents (or proofs they are absent), the items of the list's period, the profiles
    and the uplifts, merges and voids in force; the positions of the entries they need."""
    player, system, name = bundle["player"], bundle["system"], found.name
    old = commitment(before, previous)
    positions = {previous.position, committed[previous.name][0]}
    items = _items_in_period(at_list, player, system, name)
    context = proof_facts.gather(ledger, at_list, found, previous)
    context.carry(p for item in items for p in item.players)
    seen = [renamed(item, context.in_force) for item in items]
    players = {player} | {o for item in seen for o in proof_facts.opponents(item, player)}
    rows = {}
    for pid in sorted(players):
        at = _index(old, (system, pid))
        rows[pid] = old.proof(at) if at is not None else _absent(old, (system, pid))
        if at is None or pid == player:  # a profile, and those of records merged into it
            # (an absent player enters at its rating; the player's birth date sets his K)
            context.carry(context.in_force.absorbed(pid))
            for record in [pid, *context.in_force.absorbed(pid)]:
                if (where := queries.profile_position(at_list, record)) is not None:
                    bundle["profiles"][record] = where
                    positions.add(where)
    bundle["previous"] = {
        "published": previous.position,
        "committed": committed[previous.name][0],
        "rows": rows,
        "earlier": context.earlier,
    }
    recomputed = periods.rates_from_previous_list(at_list.family)
    if recomputed and (rerated := _rerated(at_list, previous, old, system, players)):
        bundle["previous"]["rerated"] = rerated
    bundle["items"] = [[item.position, item.revision] for item in items]
    bundle |= {"uplifts": context.uplifts, "merges": context.merges, "voids": context.voids}
    return positions | {item.revision for item in items} | context.positions()


def _rerated(
    at_list: ReadModel,
    previous: periods.PublishedList,
    old: MemoryTree,
    system: str,
    players: set[str],
) -> list[str]:
    """The players whose standing on the previous list, as the list `at_list` knew it, is not
    the one that list committed: history re-rated after it (a merge, correction or void known
    only since), which a bundle cannot recompute from the committed rows."""
    committed = {_key(x): x for x in old.leaves}
    known = {_key(x): x for x in list_rows(at_list, previous)}
    return sorted(p for p in players if committed.get((system, p)) != known.get((system, p)))


def _commit_positions(ledger: Readable, family: str) -> dict[str, tuple[int, str]]:
    """Each committed list of `family`: its name → (the commitment's position, its root); a
    list's first commitment (`verify` refuses a second)."""
    from ledger.log import read_entries

    found: dict[str, tuple[int, str]] = {}
    for e in read_entries(ledger):
        if e.type == "ListRatingsCommitted" and e.payload.get("family") == family:
            found.setdefault(e.payload["list_name"], (e.position, e.payload["ratings_root"]))
    return found


def _index(tree: MemoryTree, key: tuple[str, str]) -> int | None:
    keys = [_key(x) for x in tree.leaves]
    lo, hi = 0, len(keys)
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(keys) and keys[lo] == key else None


def _absent(tree: MemoryTree, key: tuple[str, str]) -> dict[str, Any]:
    """The neighbouring leaves that show `key` is not a row (an empty tree: none needed)."""
    keys = [_key(x) for x in tree.leaves]
    after = next((i for i, k in enumerate(keys) if k > key), len(keys))
    return {"absent": [tree.proof(i) for i in (after - 1, after) if 0 <= i < len(keys)]}


def _items_in_period(view: ReadModel, player: str, system: str, name: str) -> list[Item]:
    """The player's items rated in the period of list `name` (their history rows name it)."""
    rows = view.db.execute(
        "select item_key, detail from history where player = ? and system = ? "
        "and kind in ('section', 'match') order by sort_key",
        [player, system],
    ).fetchall()
    keys = [k for k, detail in rows if json.loads(detail).get("list") == name]
    return [item for k in keys if (item := queries.item(view, k)) is not None]


# Checking a bundle, offline


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
    if _key(row["leaf"]) != (system, player):
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
    items = _recompute(bundle, facts, listed, said)
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
    lookup = _previous_rows(bundle["previous"]["rows"], old_root, previous.name, system)
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
    )
    got: tuple[int | None, Standing | None] | None = recomputed.get((player, system))
    state, official = said["state"], said["official_rating"]
    if got is None:  # no item of his in the period: his row stands as on the previous list
        before = lookup.get(player)
        got = (None, before)
    if got[1] != Standing.from_columns(state) or (got[0] is not None and got[0] != official):
        raise BundleError(
            f"recomputed from the bundle, {player}'s {system} row on {listed.name!r} would be "
            f"{got[0]} (N={getattr(got[1], 'games', None)}), not the {official} "
            f"(N={state[1]}) the list committed{context.late(previous)}"
        )
    return len(items)


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
    items = []
    for first, revision in bundle["items"]:
        fact = facts[int(revision)]
        item = fact_item(fact, int(revision), int(first))
        period = list_for(
            date.fromisoformat(item.end),
            item.position,
            [previous.rating_list, listed.rating_list],
            rules_family(family).late_items,
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
    rows: dict[str, Any], root: tuple[str, int], name: str, system: str
) -> dict[str, Standing]:
    """Each player's standing on the previous list, proved (absent: proved not there)."""
    found = {}
    for pid, proof in rows.items():
        key = (system, pid)
        if "absent" not in proof:
            if _key(proof["leaf"]) != key:
                raise BundleError(f"the previous list's row given for {pid} is another's")
            _check_row(proof, root, name)
            found[pid] = Standing.from_columns(json.loads(proof["leaf"])["state"])
            continue
        sides = proof["absent"]
        for side in sides:
            _check_row(side, root, name)
        indexes = [int(s["index"]) for s in sides]
        keys = [_key(s["leaf"]) for s in sides]
        fits = (
            (len(sides) == 2 and indexes[1] == indexes[0] + 1 and keys[0] < key < keys[1])
            or (len(sides) == 1 and indexes[0] == 0 and key < keys[0])
            or (len(sides) == 1 and indexes[0] == root[1] - 1 and keys[0] < key)
            or (not sides and root[1] == 0)
        )
        if not fits:
            raise BundleError(f"the bundle does not show that {pid} is absent from {name!r}")
    return found
