"""The audit site: a read-only WSGI application over the read model, one JSON twin per page.

Every page takes `?as_of=YYYY-MM-DD` (ratings after every item that ended on or before that
day) and `?as_known_at=ISO` (the read model as the ledger stood then). Everything shown is
escaped; only GET and HEAD are answered; only the files of `static/` are served.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from ledger.application import RatingsLedger
from ledger.domain import LedgerError
from ledger.interchange.exports import crosstable
from ledger.log import read_entries
from ledger.reading import open_ledger
from ledger.rules.uschess.floors import OLM_GAMES
from ledger.store import view_path
from projections import binding, queries
from projections import explain as ex
from projections.projector import View
from projections.queries import system_order
from projections.timetravel import position_at, view_at

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
LOG_PAGE = 100
SEARCH_LIMIT = 50
SECURITY_HEADERS = [
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
]
SERIES_COLORS = ("#1f5fa8", "#b5402a", "#2e7d32", "#7b3fa0", "#a06a00", "#00838f", "#555")


class HttpError(Exception):
    """An answer other than 200: the status line and a message for the page."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class When:
    """The two times a page can be asked about: ratings `as_of` a day, and the ledger as it
    was known at a moment (`as_known_at`, resolved to `position`)."""

    as_of: str | None = None
    as_known_at: str | None = None
    position: int | None = None

    def params(self) -> dict[str, str]:
        return {k: v for k, v in (("as_of", self.as_of), ("as_known_at", self.as_known_at)) if v}


def e(value: Any) -> str:
    """Any value as escaped HTML text (None as an empty cell)."""
    return "" if value is None else html.escape(str(value), quote=True)


def href(path: str, when: When, **params: Any) -> str:
    """A link that keeps the page's times; path segments are quoted by the caller."""
    query = {**{k: v for k, v in params.items() if v is not None}, **when.params()}
    return e(path + ("?" + urlencode(query) if query else ""))


def seg(text: str) -> str:
    """One URL path segment."""
    return quote(text, safe="")


class Site:
    """The WSGI application: `Site(store, view, family)` is called once per request."""

    def __init__(self, store: str, view: Path | None = None, family: str = "uschess") -> None:
        self.store = store
        self.view = view_path(store, view, family)
        self.family = family
        self.static = {p.name: p for p in STATIC.iterdir() if p.suffix in STATIC_TYPES}

    def __call__(
        self, environ: Mapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "/").encode("latin-1").decode("utf-8", "replace")
        query = {k: v[-1] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
        api = path == "/api" or path.startswith("/api/")
        try:
            if method not in ("GET", "HEAD"):
                raise HttpError("405 Method Not Allowed", "this site is read-only")
            if path.startswith("/static/"):
                status, ctype, body = "200 OK", *self._static(path[len("/static/") :])
            else:
                route = path[len("/api") :] if api else path
                data, page = self._answer(route, query)
                status = "200 OK"
                if api:
                    ctype, body = "application/json", _json(data)
                else:
                    ctype, body = "text/html; charset=utf-8", page.encode()
        except HttpError as exc:
            status = exc.status
            if api:
                ctype, body = "application/json", _json({"error": exc.message})
            else:
                ctype = "text/html; charset=utf-8"
                body = _layout(
                    exc.status, f"<p class='error'>{e(exc.message)}</p>", When()
                ).encode()
        headers = [("Content-Type", ctype), ("Content-Length", str(len(body)))]
        if status.startswith("405"):
            headers.append(("Allow", "GET, HEAD"))
        start_response(status, headers + SECURITY_HEADERS)
        return [b""] if method == "HEAD" else [body]

    def _static(self, name: str) -> tuple[str, bytes]:
        """Only a file listed in `static/` at start-up, by its bare name."""
        found = self.static.get(name)
        if found is None:
            raise HttpError("404 Not Found", f"no static file {name!r}")
        return STATIC_TYPES[found.suffix], found.read_bytes()

    def _answer(self, route: str, query: dict[str, str]) -> tuple[Any, str]:
        parts = [p for p in route.split("/") if p]
        when = _when(query)
        with self._read(when) as (view, ledger, when):
            if not parts:
                return _search(view, query.get("q", ""), when)
            if parts == ["players"]:
                return _search(view, query.get("q", ""), when)
            if parts[0] == "players" and len(parts) == 2:
                return _player(view, parts[1], when)
            if parts[0] == "players" and len(parts) == 3 and parts[2] == "history":
                return _history(view, parts[1], query.get("system"), when)
            if parts[0] == "players" and len(parts) == 3 and parts[2] == "explain":
                return _explain(view, parts[1], query, when)
            if parts[0] == "sections" and len(parts) >= 2:
                return _section(view, "/".join(parts[1:]), when)
            if parts == ["log"]:
                return _log(ledger, _int(query.get("after", "0"), "after"), when)
            if parts == ["problems"]:
                return _problems(view, when)
        raise HttpError("404 Not Found", f"no page at {route}")

    @contextmanager
    def _read(self, when: When) -> Iterator[tuple[View, RatingsLedger, When]]:
        """The read model caught up (or as known at `when.as_known_at`), and the ledger."""
        try:
            ledger = open_ledger(self.store)
        except LedgerError as exc:
            raise HttpError("503 Service Unavailable", str(exc)) from None
        try:
            v = View(self.view, self.family)
        except ValueError as exc:
            ledger.close()
            raise HttpError("503 Service Unavailable", str(exc)) from None
        with closing(v), closing(ledger):
            try:
                binding.check(v, ledger)
                binding.catch_up(v, ledger, read_entries(ledger, v.last_position))
            except LedgerError as exc:
                raise HttpError("503 Service Unavailable", str(exc)) from None
            position = None
            if when.as_known_at is not None:
                position = position_at(ledger, datetime.fromisoformat(when.as_known_at))
                if position == 0:
                    raise HttpError(
                        "404 Not Found", f"the ledger had no entries at {when.as_known_at}"
                    )
            with view_at(ledger, v, position) as shown:
                yield shown, ledger, When(when.as_of, when.as_known_at, position)


def _when(query: dict[str, str]) -> When:
    as_of = query.get("as_of") or None
    known = query.get("as_known_at") or None
    if as_of is not None:
        try:
            as_of = date.fromisoformat(as_of).isoformat()
        except ValueError:
            raise HttpError("400 Bad Request", f"as_of: {as_of!r} is not YYYY-MM-DD") from None
    if known is not None:
        try:
            datetime.fromisoformat(known)
        except ValueError:
            raise HttpError(
                "400 Bad Request", f"as_known_at: {known!r} is not an ISO date or date-time"
            ) from None
    return When(as_of, known)


def _int(text: str, name: str) -> int:
    try:
        return max(int(text), 0)
    except ValueError:
        raise HttpError("400 Bad Request", f"{name}: {text!r} is not a number") from None


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str).encode()


def _search(view: View, text: str, when: When) -> tuple[Any, str]:
    text = text.strip()
    found: list[dict[str, Any]] = []
    if text:
        found = queries.search_players(view, text, SEARCH_LIMIT)
    rows_html = "".join(
        f"<li><a href='{href('/players/' + seg(p['id']), when)}'>{e(p['id'])}</a> "
        f"<span class='name'>{e(p['name'])}</span></li>"
        for p in found
    )
    body = (
        "<form method='get' action='/players' class='search'>"
        f"<label>Member id or name <input name='q' value='{e(text)}' autofocus></label>"
        + "".join(
            f"<input type='hidden' name='{k}' value='{e(v)}'>" for k, v in when.params().items()
        )
        + "<button type='submit'>Search</button></form>"
    )
    if text:
        body += (
            f"<p>{len(found)} player{'s' if len(found) != 1 else ''} found for "
            f"<q>{e(text)}</q></p><ul class='results'>{rows_html}</ul>"
        )
    return {"query": text, "players": found}, _layout("Players", body, when, {"q": text})


def _player_data(view: View, player: str, when: When) -> dict[str, Any]:
    out = queries.player(view, player)
    if out is None:
        raise HttpError("404 Not Found", f"player {player!r} is not in the ledger")
    if when.as_of is not None:
        out["ratings"] = queries.ratings_as_of(view, player, when.as_of)
    out["ratings"] = {s: out["ratings"][s] for s in sorted(out["ratings"], key=system_order)}
    out["as_of"] = when.as_of
    out["position"] = when.position
    for r in out["ratings"].values():
        if view.family == "uschess":
            r["olm_progress"] = f"{r['olm_games']}/{OLM_GAMES}"
    return out


RATING_FIELDS = (
    ("official_rating", "Rating"),
    ("rating", "Exact"),
    ("games", "N"),
    ("established", "Established"),
    ("wins", "W"),
    ("draws", "D"),
    ("losses", "L"),
    ("floor", "Floor"),
    ("floor_bound", "Floor from"),
    ("floor_absolute", "Absolute"),
    ("floor_peak", "Peak floor"),
    ("floor_olm", "OLM floor"),
    ("floor_money", "Money floor"),
    ("floor_director", "Director floor"),
    ("peak", "Peak"),
    ("olm_progress", "OLM games"),
    ("olm_title_date", "OLM since"),
    ("ceiling", "Ceiling"),
    ("rated_on", "Rated on"),
)


def _player(view: View, player: str, when: When) -> tuple[Any, str]:
    data = _player_data(view, player, when)
    systems = list(data["ratings"])
    pid = seg(player)
    head = "".join(f"<th>{label}</th>" for _, label in RATING_FIELDS)
    rows = "".join(
        f"<tr><th scope='row'><a href='{href(f'/players/{pid}/history', when, system=s)}'>"
        f"{e(s)}</a></th>"
        + "".join(f"<td>{_cell(r.get(k))}</td>" for k, _ in RATING_FIELDS)
        + "</tr>"
        for s, r in data["ratings"].items()
    )
    series = {s: _points(queries.history(view, player, s), when.as_of) for s in systems}
    body = (
        f"<p class='name'>{e(data.get('name'))}</p>"
        + (
            f"<table class='ratings'><thead><tr><th>System</th>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            if rows
            else "<p>No rating yet.</p>"
        )
        + (chart(series) if any(series.values()) else "")
    )
    return data, _layout(f"Player {player}", body, when)


def _points(rows: list[dict[str, Any]], as_of: str | None) -> list[tuple[str, float]]:
    return [
        (r["end_date"], r["post_rating"])
        for r in rows
        if r["post_rating"] is not None and (as_of is None or r["end_date"] <= as_of)
    ]


def _cell(value: Any, decimals: int = 2) -> str:
    """A value for a table cell: floats to `decimals` places, booleans as yes/no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    if isinstance(value, dict):
        return e(json.dumps(value))
    return e(value)


HISTORY_FIELDS = (
    ("end_date", "Ended"),
    ("kind", "Kind"),
    ("formula", "Formula"),
    ("rules", "Rules"),
    ("pre_rating", "Before"),
    ("post_rating", "After"),
    ("official_rating", "Official"),
    ("games_before", "N before"),
    ("games_after", "N after"),
    ("score", "S"),
    ("expected", "E"),
    ("k", "K"),
    ("bonus", "Bonus"),
    ("floor_bound", "Floor bound"),
    ("position", "Position"),
)


def _history(view: View, player: str, system: str | None, when: When) -> tuple[Any, str]:
    data = _player_data(view, player, when)
    systems = queries.systems_of(view, player)
    system = system or (systems[0] if systems else None)
    rows = [] if system is None else queries.history(view, player, system)
    if when.as_of is not None:
        rows = [r for r in rows if r["end_date"] <= when.as_of]
    pid = seg(player)
    tabs = " ".join(
        f"<a href='{href(f'/players/{pid}/history', when, system=s)}'"
        + (" aria-current='page'" if s == system else "")
        + f">{e(s)}</a>"
        for s in systems
    )
    head = "".join(f"<th>{label}</th>" for _, label in HISTORY_FIELDS)
    lines = "".join(
        "<tr>"
        + f"<td><a href='{href(f'/players/{pid}/explain', when, system=system, item=item_key)}'"
        f" class='explain'>{e(item_key)}</a></td>"
        + "".join(f"<td>{_cell(r.get(k))}</td>" for k, _ in HISTORY_FIELDS)
        + "</tr>"
        for r in rows
        for item_key in (r["item_key"],)
    )
    body = (
        f"<p class='name'><a href='{href('/players/' + pid, when)}'>{e(player)}</a> "
        f"{e(data.get('name'))}</p><nav class='systems'>{tabs}</nav>"
        + (chart({system: _points(rows, None)}) if system and rows else "")
        + f"<table class='history'><thead><tr><th>Item (explain)</th>{head}</tr></thead>"
        f"<tbody>{lines}</tbody></table>"
    )
    out = {"id": player, "system": system, "as_of": when.as_of, "history": rows}
    title = f"History of {player} ({system or 'unrated'})"
    return out, _layout(title, body, when, {"system": system})


def _explain(view: View, player: str, query: dict[str, str], when: When) -> tuple[Any, str]:
    system = query.get("system")
    item = query.get("item")
    if not system:
        raise HttpError("400 Bad Request", "explain needs ?system=")
    if item is None and when.as_of is None:
        raise HttpError("400 Bad Request", "explain needs ?item= or ?as_of=")
    try:
        out = ex.explain(view, player, system, item, None if item else when.as_of)
    except ex.NotFound as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    res, it = out["result"], out["item"]
    fed = "".join(
        f"<tr><td><a href='{href('/log', when, after=max(f['position'] - 1, 0))}'>"
        f"{e(f['position'])}</a></td><td>{e(f['what'])}</td></tr>"
        for f in out["fed_by"]
    )
    verdict = "equals" if res["recomputes"] else "DIFFERS FROM"
    section = (
        f"<a href='{href('/sections/' + seg(it['key'].removeprefix('section:')), when)}'>"
        f"{e(it['key'])}</a>"
        if it["kind"] == "section"
        else e(it["key"])
    )
    body = (
        f"<p class='summary'>{e(player)} {e(system)}: {_exact(res['pre_rating'])} → "
        f"{_exact(res['post_rating'])} (official {e(res['official_rating'])}), N "
        f"{e(res['games_before'])} → {e(res['games_after'])}</p>"
        f"<p>From {section} ({e(it.get('event_name') or it['kind'])}), {e(it['start'])} to "
        f"{e(it['end'])}; follows {e(it['follows'])}.</p>"
        f"<p class='recomputed'>Recomputed: {_exact(res['recomputed_post_rating'])} "
        f"({verdict} the stored rating).</p>"
        f"<h2>Rules</h2>{_tree(out['rules'])}"
        f"<h2>Fed by ledger positions</h2><table class='fed'><tbody>{fed}</tbody></table>"
        + (f"<h2>Steps</h2>{_tree(out['steps'])}" if "steps" in out else "")
        + (f"<h2>Values</h2>{_tree(out['values'])}" if "values" in out else "")
    )
    title = f"Explain {player} {system} {it['key']}"
    return out, _layout(title, body, when, {"system": system, "item": item})


def _exact(rating: float | None) -> str:
    return "unrated" if rating is None else f"{rating:.4f}"


def _tree(value: Any) -> str:
    """A nested dict or list as definition lists, every leaf escaped."""
    if isinstance(value, dict):
        return (
            "<dl>"
            + "".join(f"<dt>{e(k)}</dt><dd>{_tree(v)}</dd>" for k, v in value.items())
            + "</dl>"
        )
    if isinstance(value, list):
        return "<ol>" + "".join(f"<li>{_tree(v)}</li>" for v in value) + "</ol>"
    return _cell(value, 4)


def _section(view: View, section_id: str, when: When) -> tuple[Any, str]:
    table = crosstable(view, section_id)
    if table is None:
        raise HttpError("404 Not Found", f"section {section_id!r} is not rated")
    rounds = len(table.rows[0].cells) if table.rows else 0
    head = (
        "<th>Pair</th><th>Player</th>"
        + "".join(f"<th>Rd {n}</th>" for n in range(1, rounds + 1))
        + "<th>Total</th>"
        + "".join(f"<th>{e(s)}</th>" for s in table.systems)
    )
    rows = "".join(
        f"<tr><td>{r.pair}</td><td><a href='{href('/players/' + seg(r.player), when)}'>"
        f"{e(r.player)}</a> <span class='name'>{e(r.name)}</span></td>"
        + "".join(f"<td>{e(c)}</td>" for c in r.cells)
        + f"<td>{r.total:.1f}</td>"
        + "".join(
            f"<td>{e(r.ratings[s].text(table.provisional)) if s in r.ratings else '-'}</td>"
            for s in table.systems
        )
        + "</tr>"
        for r in table.rows
    )
    body = (
        f"<p class='event'>{e(table.event_name)}</p>"
        f"<p>{e(table.start_date)} to {e(table.end_date)}, {e(table.time_control)}, "
        f"{e(table.status)}</p>"
        f"<table class='crosstable'><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    )
    return asdict(table), _layout(f"Section {section_id}", body, when)


def _log(ledger: RatingsLedger, after: int, when: When) -> tuple[Any, str]:
    entries = []
    for entry in read_entries(ledger, after, batch=LOG_PAGE + 1):
        if when.position is not None and entry.position > when.position:
            break
        entries.append(asdict(entry))
        if len(entries) > LOG_PAGE:
            break
    more = len(entries) > LOG_PAGE
    entries = entries[:LOG_PAGE]
    rows = "".join(
        f"<tr id='p{x['position']}'><td>{x['position']}</td><td>{e(x['recorded_at'])}</td>"
        f"<td>{e(x['type'])}</td><td>{e(x['actor'])}</td><td>{_subject(x, when)}</td>"
        f"<td><details><summary>data</summary><pre>"
        f"{e(json.dumps(x['payload'], indent=1, ensure_ascii=False))}</pre></details></td></tr>"
        for x in entries
    )
    pager = (
        f"<p><a href='{href('/log', when, after=entries[-1]['position'])}' rel='next'>"
        "Later entries</a></p>"
        if more
        else ""
    )
    body = (
        "<table class='log'><thead><tr><th>Position</th><th>Recorded at</th><th>Type</th>"
        f"<th>Actor</th><th>About</th><th>Data</th></tr></thead><tbody>{rows}</tbody></table>"
        + pager
    )
    data = {"after": after, "entries": entries, "more": more, "position": when.position}
    return data, _layout("Ledger log", body, when)


def _problems(view: View, when: When) -> tuple[Any, str]:
    found = queries.problems(view)
    rows = "".join(
        f"<tr><td><a href='{href('/log', when, after=r['position'] - 1)}'>{r['position']}</a>"
        f"</td><td>{e(r['kind'])}</td><td>{e(r['item_key'])}</td><td>{e(r['reason'])}</td></tr>"
        for r in found
    )
    body = (
        "<table class='problems'><thead><tr><th>Position</th><th>Kind</th><th>Item</th>"
        f"<th>Reason</th></tr></thead><tbody>{rows}</tbody></table>"
        if found
        else "<p>No problems: every ledger entry was applied.</p>"
    )
    return {"problems": found, "position": when.position}, _layout("Problems", body, when)


def _subject(entry: dict[str, Any], when: When) -> str:
    p = entry["payload"]
    if "section_id" in p:
        return (
            f"<a href='{href('/sections/' + seg(p['section_id']), when)}'>{e(p['section_id'])}</a>"
        )
    for key in ("member_id", "player"):
        if isinstance(p.get(key), str):
            return f"<a href='{href('/players/' + seg(p[key]), when)}'>{e(p[key])}</a>"
    return ""


def chart(series: dict[str, list[tuple[str, float]]], width: int = 720, height: int = 260) -> str:
    """A rating-history chart as inline SVG: one line per system, dates across, ratings up."""
    points = [p for ps in series.values() for p in ps]
    left, right, top, bottom = 56, 12, 12, 40
    days = [date.fromisoformat(d).toordinal() for d, _ in points]
    lo_day, hi_day = min(days), max(days)
    lo, hi = min(r for _, r in points), max(r for _, r in points)
    pad = max((hi - lo) * 0.08, 10.0)
    lo, hi = lo - pad, hi + pad

    def x(day: str) -> float:
        span = hi_day - lo_day or 1
        d = date.fromisoformat(day).toordinal()
        return left + (d - lo_day) / span * (width - left - right)

    def y(rating: float) -> float:
        return top + (hi - rating) / (hi - lo) * (height - top - bottom)

    parts = [
        f"<svg class='chart' role='img' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' xmlns='http://www.w3.org/2000/svg'>"
        f"<title>Rating history: {e(', '.join(series))}</title>",
        f"<rect x='{left}' y='{top}' width='{width - left - right}' "
        f"height='{height - top - bottom}' class='plot'/>",
    ]
    for i in range(5):
        value = lo + (hi - lo) * i / 4
        parts.append(
            f"<line x1='{left}' x2='{width - right}' y1='{y(value):.1f}' y2='{y(value):.1f}' "
            f"class='grid'/><text x='{left - 6}' y='{y(value) + 4:.1f}' class='tick' "
            f"text-anchor='end'>{value:.0f}</text>"
        )
    first, last = min(points)[0], max(points)[0]
    parts.append(
        f"<text x='{left}' y='{height - bottom + 16}' class='tick'>{e(first)}</text>"
        f"<text x='{width - right}' y='{height - bottom + 16}' class='tick' "
        f"text-anchor='end'>{e(last)}</text>"
    )
    for n, (system, ps) in enumerate(series.items()):
        color = SERIES_COLORS[n % len(SERIES_COLORS)]
        line = " ".join(f"{x(d):.1f},{y(r):.1f}" for d, r in ps)
        parts.append(f"<polyline points='{line}' fill='none' stroke='{color}' stroke-width='2'/>")
        parts += [
            f"<circle cx='{x(d):.1f}' cy='{y(r):.1f}' r='3' fill='{color}'>"
            f"<title>{e(system)} {e(d)}: {r:.2f}</title></circle>"
            for d, r in ps
        ]
        parts.append(
            f"<text x='{left + 8 + 70 * n}' y='{height - 6}' fill='{color}' "
            f"class='legend'>{e(system)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _layout(title: str, body: str, when: When, keep: dict[str, str | None] | None = None) -> str:
    """The page around `body`; the times form keeps the page's other parameters (`keep`)."""
    hidden = "".join(
        f"<input type='hidden' name='{e(k)}' value='{e(v)}'>" for k, v in (keep or {}).items() if v
    )
    shown = []
    if when.as_of:
        shown.append(f"ratings as of {e(when.as_of)}")
    if when.as_known_at:
        shown.append(f"as the ledger stood at {e(when.as_known_at)} (position {e(when.position)})")
    banner = f"<p class='when'>Showing {'; '.join(shown)}.</p>" if shown else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)} · ratings-ledger</title>"
        "<link rel='stylesheet' href='/static/style.css'></head><body>"
        "<header><a href='/' class='home'>ratings-ledger</a> <nav>"
        "<a href='/'>Players</a> <a href='/log'>Ledger log</a></nav>"
        "<form method='get' class='when'>"
        f"<label>As of <input type='date' name='as_of' value='{e(when.as_of)}'></label> "
        f"<label>As known at <input name='as_known_at' value='{e(when.as_known_at)}' "
        "placeholder='2025-03-01T12:00'></label>"
        f"{hidden}<button type='submit'>Show</button></form></header>"
        f"<main><h1>{e(title)}</h1>{banner}{body}</main></body></html>"
    )
