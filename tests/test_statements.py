"""A statement run for many rows with their NULLs written into it (projections/statements.py,
issue 33): the rows stored are those binding every value stores; a list bound as JSON."""

import json
import sqlite3

from projections import statements

ROWS = [
    (1, 1500.0, None, "a", None),
    (2, None, None, None, None),
    (3, 1612.5, 7, "b", 0.25),
    (4, None, 3, None, 1e-300),
    (5, 1500.0, None, "c", None),
]


def tables() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    for name in ("bound", "written"):
        conn.execute(f"create table {name} (id INTEGER PRIMARY KEY, r REAL, n INTEGER, t, x)")
    return conn


def test_rows_inserted_with_their_nulls_written_in_are_the_rows_bound():
    conn = tables()
    conn.executemany("insert into bound values (?, ?, ?, ?, ?)", ROWS)
    statements.executemany(conn, "insert into written values (?, ?, ?, ?, ?)", ROWS)
    bound = conn.execute("select *, typeof(r), typeof(x) from bound order by id").fetchall()
    written = conn.execute("select *, typeof(r), typeof(x) from written order by id").fetchall()
    assert written == bound
    assert written[1] == (2, None, None, None, None, "null", "null")


def test_rows_updated_with_their_nulls_written_in_are_the_rows_bound():
    conn = tables()
    full = [(i, 1.0, 1, "z", 2.0) for i in range(1, 6)]
    for name in ("bound", "written"):
        conn.executemany(f"insert into {name} values (?, ?, ?, ?, ?)", full)
    changes = [(*row[1:], row[0]) for row in ROWS]
    conn.executemany("update bound set r = ?, n = ?, t = ?, x = ? where id = ?", changes)
    statements.executemany(
        conn, "update written set r = ?, n = ?, t = ?, x = ? where id = ?", changes
    )
    bound = conn.execute("select * from bound order by id").fetchall()
    assert conn.execute("select * from written order by id").fetchall() == bound == ROWS


def test_a_statement_has_null_in_place_of_the_placeholders_of_a_rows_nones():
    statement = "update t set a = ?, b = ?, c = ? where id = ?"
    assert (
        statements.with_nulls(statement, (1,)) == "update t set a = ?, b = NULL, c = ? where id = ?"
    )
    assert statements.with_nulls(statement, ()) == statement


def test_a_list_bound_as_json_reads_back_the_values_json_dumps_gave():
    values = ["Łukasz Żółć", "OTBR", 'a "quoted" \\ name', 3, -7, ["12345678", "OLB"], []]
    conn = sqlite3.connect(":memory:")
    query = (
        "select key, value, type, case type when 'array' then json_extract(value, '$[1]') end "
        "from json_each(?)"
    )
    read = conn.execute(query, [statements.json_list(values)]).fetchall()
    assert read == conn.execute(query, [json.dumps(values)]).fetchall()
    assert [v for _, v, t, _ in read if t in ("text", "integer")] == values[:5]
