"""A stored history row known by its fingerprint (issue 33; docs/decisions.md, "A stored row
known by its fingerprint (issue 33)"): a cascade compares a new row with the stored one by
key, detail and a 64-bit BLAKE2b of the rest, made where the row is written, not by its ~45
values read back."""

import json
import os
import subprocess
import sys

import pytest
from projection_helpers import Ledger, round_robin

from ledger.application import RatingsLedger
from ledger.rules.families import DEFAULT
from projections import history_store
from projections.history_store import DETAIL, KEYS, fingerprint
from projections.projector import View
from projections.schema import content as family_content
from projections.schema import history_columns

A, B, C = "20000001", "20000002", "20000003"
COLUMNS = history_columns(DEFAULT)
CONTENT = family_content(DEFAULT)
# every value a fingerprint covers: the row but its key and its detail
PRINTED = [i for i in range(KEYS, len(COLUMNS)) if i != DETAIL]


@pytest.fixture
def ledger(tmp_path):
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    ledger.register(A, B, C, adult=True)
    ledger.opening(A, "OTBR", 1800, 40)
    ledger.opening(B, "OTBR", 1700, 40)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.submit(round_robin("FEB", [A, B, C], "2024-02-06"))
    yield ledger
    ledger.app.close()


def stored_rows(view: View) -> list[tuple[int, tuple]]:
    """Each stored row's fingerprint and its rater's row, as the view `history` reads it."""
    names = ", ".join(f"v.[{c}]" for c in COLUMNS)
    return [
        (r[0], tuple(r[1:]))
        for r in view.db.execute(
            f"select h.fingerprint, {names} from history v join history_rows h "
            "on h.player = v.player and h.system = v.system and h.sort_key = v.sort_key"
        )
    ]


def changed(value):
    """Another value of the same kind."""
    if value is None:
        return 1
    if isinstance(value, str):
        return value + "x"
    return value + 1


def test_a_row_changed_in_any_one_value_it_covers_has_another_fingerprint(ledger, tmp_path):
    # "a false 'same' is a 2^-64 collision": each value the fingerprint covers, changed
    # alone in a stored row, changes it; a whole float is the int it equals (1.0 == 1).
    rows = stored_rows(ledger.rebuilt(tmp_path / "view.db"))
    for _, row in rows:
        prints = {fingerprint(row)}
        for i in PRINTED:
            other = list(row)
            other[i] = changed(row[i])
            prints.add(fingerprint(other))
        assert len(prints) == 1 + len(PRINTED)
    row = rows[0][1]
    whole = [float(v) if isinstance(v, int) else v for v in row]
    assert list(map(type, whole)) != list(map(type, row)) and whole == list(row)
    assert fingerprint(whole) == fingerprint(row)


@pytest.mark.parametrize("writer", ["process", "local"])
def test_a_rebuild_stores_each_rows_fingerprint_as_this_process_makes_it(
    ledger, tmp_path, monkeypatch, writer
):
    # "computed where rows are written: in the replay by the writer process ... deterministic
    # across processes": the fingerprints a rebuild stored (by its writer process, or in this
    # one) are those of its rows as read back, made here; and another Python process, with
    # another str hash seed, makes the same of the same rows.
    monkeypatch.setenv("RATINGS_LEDGER_WRITER", writer)
    rows = stored_rows(ledger.rebuilt(tmp_path / "view.db"))
    assert rows and [p for p, _ in rows] == [fingerprint(r) for _, r in rows]
    code = (
        "import json, sys\n"
        "from projections.history_store import fingerprint\n"
        "print(json.dumps([fingerprint(r) for r in json.loads(sys.stdin.read())]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    made = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps([r for _, r in rows]),
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert json.loads(made.stdout) == [p for p, _ in rows]


@pytest.mark.parametrize(
    ("table", "column"), [("history_rows", "k"), ("history_standing", "s_peak")]
)
def test_a_stored_row_changed_behind_the_cascades_back_is_found_to_differ(
    ledger, tmp_path, table, column
):
    # "a stored row changed behind the cascade's back in one value is found to differ": A's
    # JAN row stored with another value (and that row's fingerprint, as a writer would store
    # it), a correction re-rating JAN finds it differs from what the rater makes and writes
    # it again: the model's history is a rebuild's.
    view = ledger.rebuilt(tmp_path / "view.db")
    names = ", ".join(f"[{c}]" for c in COLUMNS)
    row = list(
        view.db.execute(
            f"select {names} from history where player = ? and item_key = 'section:JAN'", [A]
        ).fetchone()
    )
    rid = view.db.execute(
        "select id from history_rows where player = ? and item_key = 'section:JAN'", [A]
    ).fetchone()[0]
    row[COLUMNS.index(column)] = changed(row[COLUMNS.index(column)])
    with view.db.conn:
        view.db.execute(
            f"update {table} set [{column}] = ? where id = ?", [row[COLUMNS.index(column)], rid]
        )
        view.db.execute(
            "update history_rows set fingerprint = ? where id = ?", [fingerprint(row), rid]
        )
    rebuilt = ledger.rebuilt(tmp_path / "rebuilt.db")
    history = CONTENT["history"]
    assert view.db.execute(history).fetchall() != rebuilt.db.execute(history).fetchall()
    ledger.correct(round_robin("JAN", [A, B, C], "2024-01-06") | {"event_name": "January"})
    stats = ledger.catch_up(view)
    rebuilt = ledger.rebuilt(tmp_path / "again.db")
    assert view.db.execute(history).fetchall() == rebuilt.db.execute(history).fetchall()
    assert stats.rows == 3  # JAN's three rows (their revision), A's among them


def test_the_fingerprint_is_not_content(ledger, tmp_path):
    # "the read-model digest must NOT change (the fingerprint is not content)": the view
    # `history` and the digest's query leave it out.
    view = ledger.rebuilt(tmp_path / "view.db")
    names = [d[0] for d in view.db.execute("select * from history limit 1").description]
    assert "fingerprint" not in names and "fingerprint" not in CONTENT["history"]
    assert "fingerprint" in history_store.STORED_NARROW
