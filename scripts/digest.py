"""Print the read-model digest of each ledger, rebuilt in a temporary file, as JSON.

    python scripts/digest.py sqlite:///demo.db sqlite:///ledger-100000.db [--family uschess]

`digest` is `View.digest` (the content, projections/schema.py `content`); `tables_digest` is
the definition before issue 21 (every stored table, `select *` in primary-key order), which
changes with the layout. The speed work keeps `digest` (docs/decisions.md). `legacy_digest` is
the digest as defined at b365532, before issue 29 gave each family its own columns: every
family's history and ratings with US Chess's columns, a column a family no longer stores read
as the constant it always held there (`LEGACY`), so that the move is seen to lose no value.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from contextlib import closing
from pathlib import Path

from ledger.application import RatingsLedger
from ledger.log import read_entries
from ledger.rules.families import DEFAULT
from projections.projector import View
from projections.proofs import LEAF_STATE
from projections.schema import NAME_TABLES, content

# The history and ratings columns every read model had at b365532, and the value each held in
# a family that does not keep it (US Chess keeps them all): SQL literals (the state's are those
# of a committed list row's leaf, `proofs.LEAF_STATE`).
LEGACY_HISTORY = {
    "item_key": None,
    "player": None,
    "system": None,
    "sort_key": None,
    "kind": None,
    "end_date": None,
    "position": None,
    "revision": None,
    "rules": None,
    "bonus_multiplier": "null",
    "formula": None,
    "pre_rating": None,
    "post_rating": None,
    "official_rating": None,
    "games_before": None,
    "games_after": None,
    "m": None,
    "score": None,
    "n_eff": "null",
    "k": None,
    "expected": None,
    "bonus": "null",
    "step3": "null",
    "step4": "null",
    "step5": "null",
    "floor_bound": "null",
    "detail": None,
    **LEAF_STATE,
}
LEGACY_RATINGS = {
    "player": None,
    "system": None,
    "rating": None,
    "official_rating": None,
    "games": None,
    "wins": None,
    "draws": None,
    "losses": None,
    "established": "null",
    "history": "'mixed'",
    "sections_of_three": "0",
    "peak": "null",
    "olm_games": "0",
    "olm_title_date": "null",
    "floor": "null",
    "floor_bound": "null",
    "floor_absolute": "null",
    "floor_peak": "null",
    "floor_olm": "null",
    "floor_money": "null",
    "floor_director": "null",
    "floor_lowerings": "0",
    "ceiling": "null",
    "pending_floor_request": "null",
    "rated_on": None,
}


def _legacy_select(view: View, table: str, columns: dict[str, str | None]) -> str:
    stored = {r[1] for r in view.db.execute(f"pragma table_info([{table}])")}
    return ", ".join(c if c in stored else f"{columns[c]} as {c}" for c in columns)


def legacy_digest(view: View) -> str:
    """The digest as defined at b365532 (see the module's docstring)."""
    queries = dict(content(view.family))
    history = _legacy_select(view, "history", LEGACY_HISTORY)
    ratings = _legacy_select(view, "ratings", LEGACY_RATINGS)
    queries["history"] = f"select {history} from history order by player, system, sort_key"
    queries["ratings"] = f"select {ratings} from ratings order by player, system"
    h = hashlib.sha256()
    for table, query in queries.items():
        h.update(table.encode())
        for row in view.db.execute(query):
            h.update(json.dumps(row, default=str).encode())
    return h.hexdigest()


def tables_digest(view: View) -> str:
    """The digest as defined before issue 21."""
    h = hashlib.sha256()
    for table in sorted(set(view.db.table_names()) - NAME_TABLES.keys()):  # none then
        order = ", ".join(view.db[table].pks)
        h.update(table.encode())
        for row in view.db.execute(f"select * from [{table}] order by {order}"):
            h.update(json.dumps(row, default=str).encode())
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+")
    parser.add_argument("--family", default=DEFAULT)
    args = parser.parse_args()
    out = []
    for store in args.stores:
        with tempfile.TemporaryDirectory() as tmp, closing(RatingsLedger(store)) as app:
            view = View(Path(tmp) / "view.db", args.family)
            with closing(view):
                stats = view.rebuild(read_entries(app))
                out.append(
                    {
                        "store": store,
                        "family": args.family,
                        "last_position": stats.last_position,
                        "history_rows": stats.rows,
                        "digest": view.digest(),
                        "legacy_digest": legacy_digest(view),
                        "tables_digest": tables_digest(view),
                    }
                )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
