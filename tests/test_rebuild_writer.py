"""A rebuild's writer process (projections/writer.py), issue 33: "Work that does not depend on
earlier ratings (decoding, checking signatures, the writer) overlaps with rating." What the
rating process hands it waits in a queue beyond the pipe, so a writer busy with a burst does
not hold the rating; every message still arrives in order, and a writer that ended is still
one error line."""

import gc
import os
import signal
import sqlite3
import threading
from pathlib import Path

import pytest

from projections import writer

ROOT = Path(__file__).resolve().parents[1]
ROWS = 2_000  # a message's rows: about 90 KB each
ROW = "x" * 40


def _writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[writer.Writer, Path]:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the writer process imports tests.writer_helpers
    path = tmp_path / "model.db"
    sqlite3.connect(path).execute("create table t (n INTEGER, a TEXT, b TEXT)").connection.close()
    return writer.Writer(str(path)), path


def _messages(conn: writer.Writer, count: int) -> None:
    for m in range(count):
        conn.executemany(
            "insert into t values (?, ?, ?)", [(m * ROWS + i, ROW, ROW) for i in range(ROWS)]
        )


def _returns(work: threading.Thread) -> bool:
    """Whether `work` ends (a generous bound: a sender held by the writer never does)."""
    work.start()
    work.join(60)
    return not work.is_alive()


def test_a_writer_busy_with_a_burst_does_not_hold_the_rating_process(tmp_path, monkeypatch):
    conn, path = _writer(tmp_path, monkeypatch)
    go = tmp_path / "go"
    conn.call("tests.writer_helpers:wait_for", str(go))  # the writer busy until told
    # more than the pipe holds, fewer messages than the queue
    count = writer.QUEUE_MESSAGES - 2
    assert count * len(writer._framed([("", [(0, ROW, ROW)] * ROWS, True)])[1]) > writer.PIPE_BYTES
    burst = threading.Thread(target=_messages, args=(conn, count))
    returned = _returns(burst)
    go.touch()
    conn.close()
    assert returned
    with sqlite3.connect(path) as db:
        found = [n for (n,) in db.execute("select n from t order by rowid")]
    assert found == list(range(count * ROWS))  # all of them, in order


def test_a_burst_beyond_the_queues_bytes_waits_for_the_writer_and_arrives_in_order(
    tmp_path, monkeypatch
):
    # Issue 33, "peak memory at most 400 MB": the queue holds at most QUEUE_BYTES of messages
    # (a 1M-game rebuild's peak had been 40 history chunks queued); a sender beyond it waits
    # until the writer has taken enough, and every message still arrives, in order.
    conn, path = _writer(tmp_path, monkeypatch)
    go = tmp_path / "go"
    conn.call("tests.writer_helpers:wait_for", str(go))  # the writer busy until told
    big = 10 * ROWS  # about 900 KB a message
    size = len(writer._framed([("", [(0, ROW, ROW)] * big, True)])[1])
    count = 2 * writer.QUEUE_BYTES // size + 1  # twice the bytes, fewer than QUEUE_MESSAGES
    assert count < writer.QUEUE_MESSAGES
    queued: list[int] = []

    def burst() -> None:
        for m in range(count):
            conn.executemany("insert into t values (?, ?, ?)", [(m, ROW, ROW)] * big)
            queued.append(conn.queued)

    sender = threading.Thread(target=burst)
    sender.start()
    sender.join(3)
    held = sender.is_alive()  # the writer takes nothing yet: the sender waits
    go.touch()
    sender.join(60)
    conn.close()
    assert held and not sender.is_alive()
    assert max(queued) <= writer.QUEUE_BYTES
    with sqlite3.connect(path) as db:
        found = [n for (n,) in db.execute("select n from t order by rowid")]
    assert found == [m for m in range(count) for _ in range(big)]


def test_a_writer_process_that_ended_is_one_error_line_and_holds_nothing(tmp_path, monkeypatch):
    conn, path = _writer(tmp_path, monkeypatch)
    _messages(conn, 1)
    os.kill(conn.process.pid, signal.SIGKILL)
    conn.process.wait()
    # more messages than the queue holds: they are dropped, never waited on
    assert _returns(threading.Thread(target=_messages, args=(conn, 2 * writer.QUEUE_MESSAGES)))
    with pytest.raises(sqlite3.DatabaseError) as raised:
        conn.close()
    assert str(raised.value) == "writing the read model: the writer process ended (-9)"
    with sqlite3.connect(path) as db:
        assert db.execute("select count(*) from t").fetchone() == (0,)


def test_the_writer_process_stores_its_rows_without_the_cycle_collector(tmp_path, monkeypatch):
    # docs/decisions.md, "The writer process without the cycle collector (issue 33)": its
    # rows are acyclic tuples; the rating process's own collector is left as it was.
    conn, path = _writer(tmp_path, monkeypatch)
    conn.call("tests.writer_helpers:note_collector")
    _messages(conn, 2)
    conn.close()
    with sqlite3.connect(path) as db:
        assert db.execute("select n from t where a = 'gc'").fetchall() == [(0,)]
        assert db.execute("select count(*) from t").fetchone() == (2 * ROWS + 1,)
    assert gc.isenabled()
