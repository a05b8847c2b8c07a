"""A rating anyone can verify (issue 18): a published list commits its rows (a Merkle root over
them, RFC 9162 §2.1, recorded as `ListRatingsCommitted`), and a player's proof bundle carries
what recomputing his change needs, each piece proved against a checkpoint the verifier holds.

A list's rows are its players' standings after it, one leaf each, sorted by (system, player):
the rating, N and every state column the next period is rated from. A bundle for player P on
list L holds L's and the previous list's entries, P's row on L, the rows of P and his opponents
on the previous list (or the two neighbouring leaves that show a player is not on it), the
entries of P's items in L's period, P's profile and those of players the previous list does
not hold, and the FIDE uplifts and merges the rating depends on (projections/proof_facts.py);
`verify_bundle` (projections/proof_check.py) checks every inclusion, then, where the family
rates a period from the previous list (FIDE 10.65), rates those items again through the
family's own rater and period code, uplifted and renamed as the read model does, and compares
P's row. Its work is proportional to P's games, not to the ledger's length.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ParamSpec, TypeVar

from ledger.errors import LedgerError
from ledger.evidence import merkle, transparency
from ledger.reading import Readable
from projections import periods, proof_facts, queries
from projections.items import Item
from projections.merges import renamed
from projections.rating import rater_class
from projections.schema import ReadModel
from projections.standing import Standing

P = ParamSpec("P")
R = TypeVar("R")

BUNDLE = "ratings-ledger rating proof 1"
PROFILE_ENTRIES = ("PlayerRegistered", "PlayerProfileUpdated")


class BundleError(LedgerError):
    """A proof bundle that does not prove what it says."""


# A list's rows and their tree

# A committed row's state, after its rating and N: the leaf format of issue 28, fixed (a list
# committed before is verified by it), the state columns every read model had then; a column
# a family does not keep is the value it always held there (SQL literals, None: its own).
LEAF_STATE = {
    "s_wins": None,
    "s_draws": None,
    "s_losses": None,
    "s_history": "'mixed'",
    "s_rated_on": None,
    "s_sections_of_three": "0",
    "s_peak": "null",
    "s_olm_games": "0",
    "s_olm_title_date": "null",
    "s_money_floor": "null",
    "s_director_floor": "null",
    "s_ceiling": "null",
    "s_floor_lowerings": "0",
    "s_match_changes": "null",
    "s_pending_request": "null",
    "s_extra": "null",
}


def _leaf_state(family: str) -> str:
    own = rater_class(family).state_columns
    state = (f"h.{c}" if c in own else f"{v} as {c}" for c, v in LEAF_STATE.items())
    return ", ".join(("h.post_rating", "h.games_after", *state))


def leaf_standing(family: str, state: Sequence[Any]) -> Standing[object]:
    """The standing a leaf's state says (its rating, N and state columns)."""
    values = dict(zip(("post_rating", "games_after", *LEAF_STATE), state, strict=True))
    reader = rater_class(family)
    return reader.standing_of(
        [values[c] for c in ("post_rating", "games_after", *reader.state_columns)]
    )


def list_rows(view: ReadModel, found: periods.PublishedList) -> list[bytes]:
    """The leaves of a list: each (system, player)'s standing after the list, `view` being the
    read model as known at the list (projections.timetravel.list_view)."""
    rows = view.db.execute(
        f"select h.system, h.player, h.official_rating, {_leaf_state(view.family)} "
        "from history h "
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


def leaf_key(leaf: bytes | str) -> tuple[str, str]:
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
    rows = _rows(old, system, players)
    for pid in sorted(players):
        if "absent" in rows[pid] or pid == player:  # a profile, and those of records merged into it
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
    if recomputed:
        positions |= _add_older(bundle, at_list, before, previous, items, players, committed)
    bundle["items"] = [[item.position, item.revision] for item in items]
    bundle |= {"uplifts": context.uplifts, "merges": context.merges, "voids": context.voids}
    return positions | {item.revision for item in items} | context.positions()


def _rows(tree: MemoryTree, system: str, players: set[str]) -> dict[str, Any]:
    """Each player's row on a list (or the neighbouring leaves that show he has none)."""
    return {
        pid: tree.proof(at)
        if (at := _index(tree, (system, pid))) is not None
        else _absent(tree, (system, pid))
        for pid in sorted(players)
    }


def _add_older(
    bundle: dict[str, Any],
    at_list: ReadModel,
    before: ReadModel,
    previous: periods.PublishedList,
    items: Sequence[Item],
    players: set[str],
    committed: dict[str, tuple[int, str]],
) -> set[int]:
    """The lists before the previous one, from the list in force when the period's earliest
    item started (issue 30: it is rated from that list's ratings, `periods.in_force`), each
    with the rows of P and his opponents, added to `bundle` (`previous.older`); the positions
    of their entries. None is added while a list's rows are no longer the ones it committed
    (history re-rated since): the check then says why it does not recompute."""
    starts = [i.start for i in items if i.kind in ("section", "match") and i.start < previous.as_of]
    if not starts:
        return set()
    older = [
        x for x in queries.published_lists(at_list, at_list.family) if x.number < previous.number
    ]
    in_force = [x for x in older if x.as_of <= min(starts)]
    chain = older[older.index(in_force[-1]) :] if in_force else older
    system, given, positions = bundle["system"], [], set()
    for x in chain:
        tree = commitment(before, x)
        if x.name not in committed or tree.root() != committed[x.name][1]:
            return set()
        where = {"published": x.position, "committed": committed[x.name][0]}
        given.append(where | {"rows": _rows(tree, system, players)})
        positions |= set(where.values())
    bundle["previous"]["older"] = given
    return positions


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
    committed = {leaf_key(x): x for x in old.leaves}
    known = {leaf_key(x): x for x in list_rows(at_list, previous)}
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
    keys = [leaf_key(x) for x in tree.leaves]
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
    keys = [leaf_key(x) for x in tree.leaves]
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
