"""The rating-history chart: inline SVG, one line per system, dates across and ratings up, on
round ticks. Geometry here; the drawing is the template `chart.svg`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from markupsafe import escape

from ledger.entrypoints.web.render import ENV

TICK_SIZE = 11  # px, as the stylesheet sets `.tick` and `.legend` (12 px, bold)
LEGEND_SIZE = 12
CHAR_WIDTH = 0.62  # a digit or capital's advance in em, generously: labels are never clipped
SERIES_COLORS = ("#1f5fa8", "#b5402a", "#2e7d32", "#7b3fa0", "#a06a00", "#00838f", "#555")
Series = dict[str, list[tuple[str, float]]]


@dataclass(frozen=True)
class Tick:
    at: str  # the x (dates) or y (ratings) coordinate, formatted
    label: str
    text_at: str = ""  # the label's y, for a rating
    anchor: str = "middle"


@dataclass(frozen=True)
class Line:
    system: str
    color: str
    points: str  # the polyline's "x,y x,y …"
    dots: tuple[tuple[str, str, str], ...]  # (cx, cy, title) of each change
    legend_x: int


def charts(series: Series) -> str:
    """The chart twice: wide for a screen, narrow (larger lettering) for a phone; the
    stylesheet shows one. A screen reader reads neither drawing but the figure's one
    description (`described`; issue 31: "the rating chart's text appears twice")."""
    drawn = chart(series, 720, 260, "wide") + chart(series, 360, 240, "narrow", labels=4)
    label = escape(described(series))
    return f"<figure class='chart' role='img' aria-label='{label}'>{drawn}</figure>"


def described(series: Series) -> str:
    """The chart in words: each system's first and last rating, with their dates, and how many
    changes lie between."""
    lines = []
    for system, points in series.items():
        (first, low), (last, high) = points[0], points[-1]
        changes = f"{len(points)} changes" if len(points) > 1 else "1 change"
        lines.append(f"{system} {low:.0f} on {first} to {high:.0f} on {last}, {changes}")
    return "Rating history: " + "; ".join(lines) + "."


def chart(
    series: Series, width: int = 720, height: int = 260, size: str = "wide", labels: int = 7
) -> str:
    """A rating-history chart as inline SVG: one line per system, dates across, ratings up."""
    points = [p for ps in series.values() for p in ps]
    left, right, top, bottom = 56, 12, 12, 40
    days = [date.fromisoformat(d).toordinal() for d, _ in points]
    lo_day, hi_day = min(days), max(days)
    lo, hi = min(r for _, r in points), max(r for _, r in points)
    step = _step(max(hi - lo, 40.0) / 4)
    lo, hi = math.floor(lo / step - 0.25) * step, math.ceil(hi / step + 0.25) * step
    if hi_day == lo_day:
        lo_day, hi_day = lo_day - 15, hi_day + 15

    def x(day: str) -> float:
        span = hi_day - lo_day
        d = date.fromisoformat(day).toordinal()
        return left + (d - lo_day) / span * (width - left - right)

    def y(rating: float) -> float:
        return top + (hi - rating) / (hi - lo) * (height - top - bottom)

    across = [
        Tick(f"{at:.1f}", label, anchor=_anchor(at, label_width(label, TICK_SIZE), width))
        for d, label in date_ticks(lo_day, hi_day, labels)
        for at in (x(date.fromordinal(d).isoformat()),)
    ]
    legend_x: list[int] = []
    at: float = left + 8
    for system in series:
        legend_x.append(round(at))
        at += label_width(system, LEGEND_SIZE) + 12
    up = [Tick(f"{y(v):.1f}", str(v), f"{y(v) + 4:.1f}") for v in rating_ticks(lo, hi)]
    lines = [
        Line(
            system,
            SERIES_COLORS[n % len(SERIES_COLORS)],
            " ".join(f"{x(d):.1f},{y(r):.1f}" for d, r in ps),
            tuple((f"{x(d):.1f}", f"{y(r):.1f}", f"{system} {d}: {r:.2f}") for d, r in ps),
            legend_x[n],
        )
        for n, (system, ps) in enumerate(series.items())
    ]
    drawn = ENV.get_template("chart.svg").render(
        size=size,
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        title=", ".join(series),
        across=across,
        up=up,
        lines=lines,
    )
    return "".join(line.strip() for line in drawn.splitlines())


def label_width(text: str, size: float) -> float:
    """The width a label takes at `size` px, at most (CHAR_WIDTH em a character)."""
    return len(text) * size * CHAR_WIDTH


def _anchor(at: float, wide: float, width: int) -> str:
    """Centred under its tick, unless that would cross an edge of the drawing: then it ends
    at the tick (right edge) or starts at it (left edge)."""
    if at + wide / 2 > width:
        return "end"
    if at - wide / 2 < 0:
        return "start"
    return "middle"


def _step(rough: float) -> float:
    """A round step near `rough`: 10, 20, 25, 50, 100, 200, 250, 500, …"""
    base: int = 10 ** max(math.floor(math.log10(rough)), 1)
    return next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= rough)


def rating_ticks(lo: float, hi: float) -> list[int]:
    """Round ratings from `lo` to `hi`, four to six of them."""
    step = _step((hi - lo) / 5)
    first = math.ceil(lo / step) * step
    return [int(first + i * step) for i in range(int((hi - first) // step) + 1)]


def date_ticks(lo_day: int, hi_day: int, most: int = 7) -> list[tuple[int, str]]:
    """Date labels (as ordinals) at the starts of years, quarters or months, at most `most`."""
    first, last = date.fromordinal(lo_day), date.fromordinal(hi_day)
    months = (last.year - first.year) * 12 + last.month - first.month
    for every in (1, 3, 6, 12, 24, 60):
        if months // every < most:
            break
    ticks: list[tuple[int, str]] = []
    y, m = first.year, first.month
    while True:
        m += 1
        if m > 12:
            y, m = y + 1, 1
        if (y * 12 + m - 1) % every:
            continue
        day = date(y, m, 1)
        if day > last:
            return ticks
        ticks.append((day.toordinal(), str(y) if every >= 12 else f"{y}-{m:02d}"))
