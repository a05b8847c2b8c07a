"""The writer process's NULLs (docs/decisions.md, "The writer process's NULLs"): its rows'
Nones are bound through an adapter registered in that process alone, and stored as the NULLs
they always were: "Read-model digests unchanged by all of it" (issue 33)."""

import sqlite3
from pathlib import Path

import pytest

from projections import writer

ROOT = Path(__file__).resolve().parents[1]
ROWS = [(1, None, 2.5, None), (2, "a", None, None), (3, None, None, 7)]


def test_nones_the_writer_process_binds_are_stored_as_null(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    path = tmp_path / "model.db"
    with sqlite3.connect(path) as db:
        db.execute("create table t (n, a, b, c)")
        db.execute("create table u (id, a, b, c)")
    conn = writer.Writer(str(path))
    conn.executemany("insert into t values (?, ?, ?, ?)", ROWS)
    # the history rows' way (`split_rows`, called there as `append_printed` calls it)
    conn.call("projections.writer:split_rows", ROWS, 1, [("u", 1, 4, None)])
    conn.close()
    with sqlite3.connect(path) as db:
        found = [
            db.execute(f"select *, typeof(a), typeof(b) from {t} order by 1").fetchall()
            for t in ("t", "u")
        ]
    for rows in found:
        assert [r[:4] for r in rows] == ROWS
        assert [r[4:] for r in rows] == [("null", "real"), ("text", "null"), ("null", "null")]


@pytest.mark.parametrize("local", [True, False])
def test_the_adapter_is_a_setting_of_the_writer_process_alone(tmp_path, local):
    path = tmp_path / "model.db"
    sqlite3.connect(path).execute("create table t (n, a, b, c)").connection.close()
    conn = writer.LocalWriter(str(path)) if local else writer.Writer(str(path))
    conn.executemany("insert into t values (?, ?, ?, ?)", ROWS)
    conn.close()
    # this process binds its Nones as it always did: no adapter registered for them here
    assert (type(None), sqlite3.PrepareProtocol) not in sqlite3.adapters
