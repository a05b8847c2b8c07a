"""Print the read-model digest of each ledger, rebuilt in a temporary file, as JSON.

    python scripts/digest.py sqlite:///demo.db sqlite:///ledger-100000.db [--family uschess]

`digest` is `View.digest` (the content, projections/schema.py CONTENT); `tables_digest` is
the definition before issue 21 (every stored table, `select *` in primary-key order), which
changes with the layout. The speed work keeps `digest` (docs/decisions.md).
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


def tables_digest(view: View) -> str:
    """The digest as defined before issue 21."""
    h = hashlib.sha256()
    for table in sorted(view.db.table_names()):
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
                        "tables_digest": tables_digest(view),
                    }
                )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
