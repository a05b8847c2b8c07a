"""A rebuild's records kept in its spool file, not as objects (projections/batch.py `Fresh`,
issue 33: "memory stays flat in the number of games and players"): each reads back as it was
put, and the items in rating order."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
import sqlite_utils

from ledger import events
from projections import batch, writer
from projections.items import Item, fact_item
from projections.schema import create
from projections.spooled_items import parts


def _match(match_id: str, day: str, event_name: str) -> events.Fact:
    fact = events.decode(
        "MatchResultSubmitted",
        payload={
            "match_id": match_id,
            "event_name": event_name,
            "online": False,
            "time_control": "G/120",
            "start_date": day,
            "end_date": day,
            "players": [{"id": "p2"}, {"id": "p1"}],
            "games": [{"round": 1, "white": "p2", "black": "p1", "result": "1-0"}],
        },
    )
    assert fact is not None
    return fact


def _fields(i: Item | None) -> tuple[object, ...] | None:
    """An item's values (compiled by mypyc, `Item.__eq__` finds no `__slots__` to compare)."""
    if i is None:
        return None
    return (i.key, i.kind, i.start, i.end, i.position, i.revision, i.event, i.sort_key)


def test_a_spooled_item_reads_back_as_put_and_the_items_come_in_rating_order() -> None:
    # Issue 33: an item's kind, dates, position, revision and fact come back equal (a line
    # break in its text too: its record's parts are split at line breaks), its players
    # with it, and the items in rating order whatever order they were put in.
    items = [
        fact_item(_match("m3", "2024-03-01", "Spring\nOpen"), 9),
        fact_item(_match("m1", "2024-01-05", "Winter"), 4),
        fact_item(_match("m2", "2024-01-05", "Winter, again"), 7, 2),
    ]
    with closing(batch.Fresh()) as fresh:
        for item in items:
            fresh.put_item(item.key, item)
        fresh.put_item("gone", items[0])
        fresh.put_item("gone", None)
        assert _fields(fresh.item("match:m3")) == _fields(items[0])
        assert fresh.item("gone") is None
        assert parts(fresh._read(fresh.items["match:m1"].at))[2] == b'["p2","p1"]'
        ordered = list(fresh.ordered())
    assert list(map(_fields, ordered)) == [
        _fields(i) for i in sorted(items, key=lambda i: i.sort_key)
    ]
    assert [i.key for i in ordered] == ["match:m2", "match:m1", "match:m3"]


def test_a_spooled_section_revisions_and_note_read_back_as_put() -> None:
    # Issue 33: a section's row, a record's revisions and a note come back equal, and one put
    # again reads back as the latest.
    row = {"section_id": "s1", "latest_position": 2**40, "reason": None, "event_name": "Ann\n"}
    revisions: list[batch.Revision] = [[3, "SectionSubmitted", {"rounds": 2, "score": 1.5}]]
    with closing(batch.Fresh()) as fresh:
        fresh.put_section("s1", {"section_id": "s1"})
        fresh.put_section("s1", row)
        fresh.put_revisions("section:s1", revisions)
        fresh.put_note("roles:td", '["td"]')
        fresh.put_note("upload:s1", "x")
        fresh.put_note("upload:s1", None)
        assert fresh.section("s1") == row and fresh.section("s2") is None
        assert fresh.revisions("section:s1") == revisions and fresh.revisions("other") == []
        assert (fresh.note("roles:td"), fresh.note("upload:s1")) == ('["td"]', None)


def test_an_entrys_key_reads_back_by_its_position_whatever_order_they_came_in() -> None:
    # Issue 33: the entries' keys are kept as positions and keys in the positions' order.
    with closing(batch.Fresh()) as fresh:
        for position, key in [(5, "a"), (9, "b"), (7, "c"), (1, "d"), (9, "e")]:
            fresh.put_entry_key(position, key)
        assert [fresh.entry_key(p) for p in (1, 5, 7, 9, 2, 10)] == ["d", "a", "c", "e", None, None]
        assert list(fresh.positions) == [1, 5, 7, 9] and fresh.keys == ["d", "a", "c", "e"]


def test_spooled_records_read_back_alike_from_the_file_and_from_the_bytes_not_yet_written() -> None:
    # Issue 33 (the spool written SPOOL_BUFFER bytes at a time): a record put before the spool
    # last wrote to its file reads back from the file, one put after from memory, equal either
    # way; the file holds every byte before the ones kept in memory.
    texts = [f"{n}:" + "x" * (batch.SPOOL_BUFFER // 3) for n in range(7)]
    texts[4] = "big:" + "y" * batch.SPOOL_BUFFER  # more than the spool holds in memory
    with closing(batch.Fresh()) as fresh:
        for n, text in enumerate(texts):
            fresh.put_note(f"n{n}", text)
        assert 0 < fresh.flushed < fresh.spooled  # some in the file, the last ones not
        assert fresh.spooled - fresh.flushed == fresh.held < batch.SPOOL_BUFFER
        assert [fresh.note(f"n{n}") for n in range(7)] == texts
        assert len(fresh.spool.read()) == fresh.flushed


@pytest.mark.parametrize("local", [True, False])
def test_the_writer_makes_the_items_rows_from_the_spool_each_player_as_his_survivor(
    tmp_path, local
) -> None:
    # Issue 33 (docs/decisions.md, "The items' rows made by the writer from the spool"): the
    # writer, in this process or in its own, reads each item's record from the rebuild's spool
    # file and stores its row (the fact as text, byte for byte) and one row a player, in key
    # order, a player merged away named by the record he counts as, once.
    db = sqlite_utils.Database(tmp_path / "model.db")
    create(db, "uschess", None)
    db.close()
    items = [fact_item(_match(f"m{n}", "2024-01-05", "Winter — open"), n) for n in (2, 1)]
    with closing(batch.Fresh()) as fresh:
        for item in items:
            fresh.put_item(item.key, item)
        fresh.put_revisions(
            "merge:p2", [[3, "PlayersMerged", {"member_id": "p2", "into": "p1", "reason": None}]]
        )
        path = str(tmp_path / "model.db")
        conn = writer.LocalWriter(path) if local else writer.Writer(path, [fresh.shared()])
        for _ in fresh.item_writes(conn):
            pass
        conn.close()
    stored = sqlite3.connect(tmp_path / "model.db")
    rows = stored.execute("select key, kind, position, payload from items").fetchall()
    assert rows == [
        ("match:m1", "match", 1, events.encode(items[1].event).decode()),
        ("match:m2", "match", 2, events.encode(items[0].event).decode()),
    ]
    pairs = stored.execute("select item_key, player from item_players").fetchall()
    assert pairs == [("match:m1", "p1"), ("match:m2", "p1")]
    stored.close()
