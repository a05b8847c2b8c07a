"""Issue 31, "the rating chart's text appears twice to a screen reader: accessible once": the
two drawings (wide, narrow) are hidden from assistive technology and one figure describes the
chart in words (docs/decisions.md, "The chart, described once"; the browser's view of it:
tests/test_web_browser.py)."""

from __future__ import annotations

import re

from ledger.entrypoints.web.chart import charts, described

SERIES = {
    "OTBR": [("2024-01-06", 1500.4), ("2024-03-02", 1523.0), ("2024-06-01", 1611.6)],
    "OTBQ": [("2024-04-06", 1420.0)],
}


def test_the_chart_is_described_once_in_words():
    """Each system's first and last rating with their dates, and its number of changes."""
    assert described(SERIES) == (
        "Rating history: OTBR 1500 on 2024-01-06 to 1612 on 2024-06-01, 3 changes; "
        "OTBQ 1420 on 2024-04-06 to 1420 on 2024-04-06, 1 change."
    )


def test_both_drawings_are_hidden_and_the_figure_carries_the_description():
    html = charts(SERIES)
    assert html.count("role='img'") == 1
    assert html.startswith(f"<figure class='chart' role='img' aria-label='{described(SERIES)}'>")
    drawings = re.findall(r"<svg [^>]*>", html)
    assert len(drawings) == 2 and all("aria-hidden='true'" in d for d in drawings)
