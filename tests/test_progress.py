"""The progress bar of long commands: drawn on a terminal, silent otherwise."""

from __future__ import annotations

import io

from ledger.progress import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_items_pass_through_unchanged_and_nothing_is_written_off_a_terminal():
    # Issue: long commands "stay quiet when not a terminal".
    out = io.StringIO()
    assert list(progress(range(5), 5, "rebuilding", out)) == [0, 1, 2, 3, 4]
    assert out.getvalue() == ""


def test_a_terminal_gets_a_bar_and_the_same_items():
    # Issue: long commands "show a progress bar (rich) on a terminal".
    out = Terminal()
    assert list(progress(range(5), 5, "rebuilding", out)) == [0, 1, 2, 3, 4]
    assert "rebuilding" in out.getvalue()


def test_a_consumer_may_stop_early():
    # `at_position` reads entries only up to a position (takewhile).
    items = progress(iter(range(100)), 100, "catching up", Terminal())
    assert [next(items) for _ in range(3)] == [0, 1, 2]
    items.close()
