"""The audit site: a read-only WSGI application over the read model, one JSON twin per page.

Every page takes `?as_of=YYYY-MM-DD` (ratings after every item that ended on or before that
day) and `?as_known_at=ISO` (the read model as the ledger stood then). Everything shown is
escaped; only GET and HEAD are answered; only the files of `static/` are served.
"""

from __future__ import annotations

import html
import json
import math
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing, contextmanager, nullcontext
from dataclasses import asdict, dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from ledger.application import RatingsLedger
from ledger.domain import LedgerError
from ledger.entrypoints.interchange.exports import crosstable
from ledger.log import LedgerEntry, read_entries, read_verified_entries, to_entry
from ledger.reading import open_ledger
from ledger.rules.rounding import round_half_up
from ledger.rules.uschess.floors import OLM_GAMES
from ledger.store import view_path
from projections import binding, queries
from projections import explain as ex
from projections.projector import View
from projections.queries import system_order
from projections.timetravel import NoSuchList, list_view, position_at, view_at

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
LOG_PAGE = 100
LOG_WINDOW = 1000  # positions read at a time when paging the log backwards
SEARCH_LIMIT = 50
SECTIONS_PAGE = 50
LATEST_SECTIONS = 10
LARGEST = 2**63 - 1  # SQLite's largest integer: a larger number is a bad parameter
LOCKED_ATTEMPTS = 3  # a read model locked by a writer: tries before answering 503
LOCKED_PAUSE_SECONDS = 0.2
RETRY_AFTER_SECONDS = 2
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

    def __init__(
        self, status: str, message: str, headers: list[tuple[str, str]] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []


@dataclass(frozen=True)
class When:
    """The two times a page can be asked about: ratings `as_of` a day, and the ledger as it
    was known at a moment (`as_known_at`, resolved to `position`)."""

    as_of: str | None = None
    as_known_at: str | None = None
    position: int | None = None
    by_position: bool = False  # asked as `?position=N` rather than `?as_known_at=`

    def params(self) -> dict[str, str]:
        asked = str(self.position) if self.by_position else None
        pairs = (("as_of", self.as_of), ("as_known_at", self.as_known_at), ("position", asked))
        return {k: v for k, v in pairs if v}


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

    def __init__(
        self, store: str, view: Path | None = None, family: str = "uschess", busy_ms: int = 1000
    ) -> None:
        self.store = store
        self.view = view_path(store, view, family)
        self.family = family
        self.busy_ms = busy_ms  # how long one try waits for a read model another writer holds
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
                data, page = self._locked_retry(route, query)
                status = "200 OK"
                if api:
                    ctype, body = "application/json", _json(data)
                else:
                    ctype, body = "text/html; charset=utf-8", page.encode()
        except HttpError as exc:
            status, extra = exc.status, exc.headers
            if api:
                ctype, body = "application/json", _json({"error": exc.message})
            else:
                ctype = "text/html; charset=utf-8"
                body = _layout(
                    exc.status, f"<p class='error'>{e(exc.message)}</p>", When()
                ).encode()
        else:
            extra = []
        headers = [("Content-Type", ctype), ("Content-Length", str(len(body))), *extra]
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

    def _locked_retry(self, route: str, query: dict[str, str]) -> tuple[Any, str]:
        """The answer; a read model locked by another writer is tried again briefly, then
        answered 503 with Retry-After."""
        for attempt in range(LOCKED_ATTEMPTS):
            try:
                return self._answer(route, query)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if attempt + 1 < LOCKED_ATTEMPTS:
                    time.sleep(LOCKED_PAUSE_SECONDS)
        raise HttpError(
            "503 Service Unavailable",
            "the read model is busy being updated; try again in a moment",
            [("Retry-After", str(RETRY_AFTER_SECONDS))],
        )

    def _answer(self, route: str, query: dict[str, str]) -> tuple[Any, str]:
        parts = [p for p in route.split("/") if p]
        when = _when(query)
        with self._read(when) as (view, ledger, when):
            if not parts:
                return _home(view, when)
            if parts == ["players"]:
                return _search(view, query, when)
            if parts[0] == "players" and len(parts) == 2:
                return _player(view, parts[1], when)
            if parts[0] == "players" and len(parts) == 3 and parts[2] == "history":
                return _history(view, parts[1], query.get("system"), when)
            if parts[0] == "players" and len(parts) == 3 and parts[2] == "explain":
                return _explain(view, parts[1], query, when)
            if parts[0] == "players" and len(parts) == 4 and parts[2] == "lists":
                return _on_list(view, ledger, parts[1], parts[3], when)
            if parts[0] == "players" and parts[2:3] == ["lists"] and parts[4:] == ["proof"]:
                return _proof(view, ledger, parts[1], parts[3], query.get("system"), when)
            if parts == ["sections"]:
                return _sections(view, query, when)
            if parts[0] == "sections" and len(parts) >= 2:
                return _section(view, ledger, "/".join(parts[1:]), when)
            if parts == ["log"]:
                return _log(ledger, query, when)
            if parts == ["problems"]:
                return _problems(view, when)
        raise HttpError("404 Not Found", f"no page at {route}")

    @contextmanager
    def _read(self, when: When) -> Iterator[tuple[View, RatingsLedger, When]]:
        """The read model caught up (or as known at `when`), and the ledger opened read-only;
        a missing store is never created."""
        try:
            ledger = open_ledger(self.store)
        except LedgerError as exc:
            raise HttpError("503 Service Unavailable", str(exc)) from None
        try:
            v = View(self.view, self.family)
        except (LedgerError, ValueError) as exc:
            ledger.close()
            raise HttpError("503 Service Unavailable", str(exc)) from None
        with closing(v), closing(ledger):
            v.db.execute(f"PRAGMA busy_timeout = {int(self.busy_ms)}")
            try:
                binding.check(v, ledger)
                binding.catch_up(v, ledger, read_verified_entries(ledger, v.last_position))
            except LedgerError as exc:
                raise HttpError("503 Service Unavailable", str(exc)) from None
            position = when.position
            if when.as_known_at is not None:
                position = position_at(ledger, datetime.fromisoformat(when.as_known_at))
                if position == 0:
                    raise HttpError(
                        "404 Not Found", f"the ledger had no entries at {when.as_known_at}"
                    )
            with view_at(ledger, v, position) as shown:
                yield shown, ledger, replace(when, position=position)


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
    position = query.get("position") or None
    if position is not None:
        if known is not None:
            raise HttpError("400 Bad Request", "give as_known_at or position, not both")
        return When(as_of, None, _int(position, "position", 1), by_position=True)
    return When(as_of, known)


def _int(text: str, name: str, least: int = 0) -> int:
    """A whole-number parameter from `least` up to SQLite's largest integer, else 400."""
    try:
        value = int(text)
    except ValueError:
        raise HttpError("400 Bad Request", f"{name}: {text!r} is not a number") from None
    if not least <= value <= LARGEST:
        raise HttpError("400 Bad Request", f"{name}: {text} is not between {least} and {LARGEST}")
    return value


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str).encode()


def _search_form(text: str, when: When) -> str:
    return (
        "<form method='get' action='/players' class='search'>"
        f"<label>Name or member id <input name='q' value='{e(text)}' "
        "placeholder='Müller, Hans or 12345678'></label> "
        + "".join(
            f"<input type='hidden' name='{k}' value='{e(v)}'>" for k, v in when.params().items()
        )
        + "<button type='submit'>Search</button></form>"
    )


def _home(view: View, when: When) -> tuple[Any, str]:
    latest = queries.sections(view, limit=LATEST_SECTIONS)
    body = (
        _search_form("", when)
        + "<h2>Latest sections</h2>"
        + _sections_table(latest["sections"], when)
        + f"<p><a href='{href('/sections', when)}'>All {latest['total']} sections</a></p>"
    )
    return {"latest_sections": latest["sections"]}, _layout("Ratings", body, when)


def _ratings_text(ratings: dict[str, Any]) -> str:
    return ", ".join(f"{e(s)} {e(r['official_rating'])}" for s, r in ratings.items()) or "unrated"


def _search(view: View, query: dict[str, str], when: When) -> tuple[Any, str]:
    text = query.get("q", "").strip()
    offset = _int(query.get("offset", "0"), "offset")
    found = {"total": 0, "players": []}
    if text:
        found = queries.search_players(view, text, SEARCH_LIMIT, offset)
    total, players = found["total"], found["players"]
    rows_html = "".join(
        f"<li><a href='{href('/players/' + seg(p['id']), when)}'>{e(p['id'])}</a> "
        f"<span class='name'>{e(p['name'])}</span> "
        f"<span class='ratings'>{_ratings_text(p['ratings'])}</span></li>"
        for p in players
    )
    body = _search_form(text, when)
    if text:
        shown = f"{offset + 1}–{offset + len(players)} of " if players and total > 1 else ""
        body += (
            f"<p class='count'>{shown}{total} player{'s' if total != 1 else ''} found for "
            f"<q>{e(text)}</q></p><ul class='results'>{rows_html}</ul>"
            + _pager("/players", when, offset, len(players), total, SEARCH_LIMIT, q=text)
        )
    data = {"query": text, "offset": offset, "total": total, "players": players}
    return data, _layout("Players", body, when, {"q": text})


def _pager(
    path: str, when: When, offset: int, shown: int, total: int, size: int, **params: Any
) -> str:
    """Links to the previous page and to the next, saying how many more there are."""
    links = []
    if offset > 0:
        links.append(
            f"<a href='{href(path, when, **params, offset=max(offset - size, 0) or None)}' "
            f"rel='prev'>Previous {min(size, offset)}</a>"
        )
    more = total - offset - shown
    if more > 0:
        links.append(
            f"<a href='{href(path, when, **params, offset=offset + shown)}' rel='next'>"
            f"{more} more</a>"
        )
    return f"<p class='pager'>{' · '.join(links)}</p>" if links else ""


def _sections_table(rows: list[dict[str, Any]], when: When) -> str:
    if not rows:
        return "<p>No sections.</p>"
    lines = "".join(
        f"<tr><td><a href='{href('/sections/' + seg(r['section_id']), when)}'>"
        f"{e(r['event_name'] or r['section_id'])}</a>"
        f"<br><span class='id'>{e(r['section_id'])}</span></td>"
        f"<td>{e(_dates(r['start_date'], r['end_date']))}</td>"
        f"<td>{e(r['status'])}</td><td>{e(r['players']) if r['players'] is not None else '–'}</td>"
        "</tr>"
        for r in rows
    )
    return (
        "<div class='scroll'><table class='sections'><thead><tr><th>Section</th><th>Dates</th>"
        f"<th>Status</th><th>Players</th></tr></thead><tbody>{lines}</tbody></table></div>"
    )


def _dates(start: str | None, end: str | None) -> str:
    return start or "" if start == end or not end else f"{start} – {end}"


def _sections(view: View, query: dict[str, str], when: When) -> tuple[Any, str]:
    text = query.get("q", "").strip()
    offset = _int(query.get("offset", "0"), "offset")
    first, last = (_day(query.get(k), k) for k in ("from", "to"))
    player = query.get("player") or None
    found = queries.sections(
        view, player=player, start=first, end=last, text=text, limit=SECTIONS_PAGE, offset=offset
    )
    if when.as_of is not None:
        found["sections"] = [r for r in found["sections"] if r["end_date"] <= when.as_of]
    keep = {"q": text or None, "from": first, "to": last, "player": player}
    body = (
        "<form method='get' action='/sections' class='search'>"
        f"<label>Event or section <input name='q' value='{e(text)}'></label> "
        + "".join(
            f"<input type='hidden' name='{k}' value='{e(v)}'>"
            for k, v in {**when.params(), **keep}.items()
            if v and k != "q"
        )
        + "<button type='submit'>Search</button></form>"
        + f"<p class='count'>{found['total']} section{'s' if found['total'] != 1 else ''}, "
        "newest first</p>"
        + _sections_table(found["sections"], when)
        + _pager(
            "/sections", when, offset, len(found["sections"]), found["total"], SECTIONS_PAGE, **keep
        )
    )
    return {"offset": offset, **found}, _layout("Sections", body, when, keep)


def _day(text: str | None, name: str) -> str | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise HttpError("400 Bad Request", f"{name}: {text!r} is not YYYY-MM-DD") from None


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
    fields = [
        (k, label)
        for k, label in RATING_FIELDS
        if any(r.get(k) is not None for r in data["ratings"].values())
    ]
    head = "".join(f"<th>{label}</th>" for _, label in fields)
    rows = "".join(
        f"<tr><th scope='row'><a href='{href(f'/players/{pid}/history', when, system=s)}'>"
        f"{e(s)}</a></th>" + "".join(f"<td>{_cell(r.get(k))}</td>" for k, _ in fields) + "</tr>"
        for s, r in data["ratings"].items()
    )
    series = {s: _points(queries.history(view, player, s), when.as_of) for s in systems}
    played = queries.player_sections(view, player)
    if when.as_of is not None:
        played = [t for t in played if t["end_date"] <= when.as_of]
    data["sections"] = played
    body = (
        f"<p class='name'>{e(data.get('name'))}</p>"
        + (
            f"<div class='scroll'><table class='ratings'><thead><tr><th>System</th>{head}</tr>"
            f"</thead><tbody>{rows}</tbody></table></div>"
            if rows
            else "<p>No rating yet.</p>"
        )
        + (charts(series) if any(series.values()) else "")
        + f"<h2>Tournaments ({len(played)})</h2>"
        + _played_table(played, when)
        + _lists_table(view, player, when)
    )
    return data, _layout(f"Player {player}", body, when)


def _lists_table(view: View, player: str, when: When) -> str:
    """The rating lists the federation published, each linked to what it said of the player."""
    lists = queries.published_lists(view, view.family)
    if not lists:
        return ""
    pid = seg(player)
    rows = "".join(
        f"<tr><td><a href='{href(f'/players/{pid}/lists/' + seg(x.name), when)}'>"
        f"{e(x.name)}</a></td><td>{e(x.as_of)}</td><td>{e(x.cutoff_position)}</td></tr>"
        for x in reversed(lists)
    )
    return (
        f"<h2>Rating lists ({len(lists)})</h2><table class='lists'><thead><tr><th>List</th>"
        f"<th>As of</th><th>Takes entries up to</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _on_list(
    view: View, ledger: RatingsLedger, player: str, name: str, when: When
) -> tuple[Any, str]:
    """What a published list said of a player: the read model as known at the list's cutoff."""
    systems = queries.systems_of(view, player)
    try:
        with list_view(ledger, view, name) as past:
            said = {s: queries.list_rating(past, player, s, name) for s in systems}
    except NoSuchList as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    said = {s: r for s, r in said.items() if r is not None}
    rows = "".join(
        f"<tr><th scope='row'>{e(s)}</th><td>{e(r['official_rating'])}</td>"
        f"<td>{_cell(r['rating'])}</td><td>{e(r['games'])}</td></tr>"
        for s, r in said.items()
    )
    pid = seg(player)
    body = f"<p class='name'><a href='{href('/players/' + pid, when)}'>{e(player)}</a></p>" + (
        "<table class='ratings'><thead><tr><th>System</th><th>Rating</th><th>Exact</th>"
        f"<th>N</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows
        else f"<p>The list {e(name)} gave no rating to {e(player)}.</p>"
    )
    proofs = "".join(
        f"<li><a href='{href(f'/api/players/{pid}/lists/{seg(name)}/proof', when, system=s)}'>"
        f"{e(s)}: proof bundle</a></li>"
        for s in said
    )
    if proofs:
        body += (
            f"<h2>Check it yourself</h2><ul class='proofs'>{proofs}</ul><p>With the ledger's "
            "checkpoint (<code>ratings-ledger checkpoint</code>), <code>ratings-ledger "
            "verify-rating BUNDLE --checkpoint FILE</code> recomputes the rating offline.</p>"
        )
    data = {"id": player, "list": name, "ratings": said}
    return data, _layout(f"Player {player} on the list {name}", body, when)


def _proof(
    view: View, ledger: RatingsLedger, player: str, name: str, system: str | None, when: When
) -> tuple[Any, str]:
    """A player's proof bundle for a list (projections/proofs.py); its page is the JSON."""
    from projections.proofs import BundleError, make_bundle

    names = [x.name for x in queries.published_lists(view, view.family)]
    if name not in names:
        raise HttpError("404 Not Found", f"no {view.family} list named {name!r}")
    if system is None:
        raise HttpError("400 Bad Request", "give ?system= (the rating system of the row)")
    previous = names[names.index(name) - 1] if names.index(name) else None
    try:
        with (
            list_view(ledger, view, name) as at_list,
            list_view(ledger, view, previous) if previous else nullcontext() as before,
        ):
            bundle = make_bundle(ledger, at_list, before, name, player, system)
    except BundleError as exc:
        raise HttpError("404 Not Found", str(exc)) from None
    body = f"<pre>{e(json.dumps(bundle, indent=1, sort_keys=True))}</pre>"
    return bundle, _layout(f"Proof of {player}'s {system} row on {name}", body, when)


def _played_table(played: list[dict[str, Any]], when: When) -> str:
    """The sections a player played, newest first, each with its rating changes."""
    if not played:
        return "<p>No rated section yet.</p>"
    lines = "".join(
        f"<tr><td><a href='{href('/sections/' + seg(t['section_id']), when)}'>"
        f"{e(t['event_name'] or t['section_id'])}</a>"
        f"<br><span class='id'>{e(_dates(t['start_date'], t['end_date']))} · "
        f"{e(t['section_id'])}</span></td>"
        f"<td>{_score(t['score'])}/{t['games']}</td><td>"
        + "<br>".join(
            f"<span class='change'>{e(s)} {_official(r['before'])} → {_official(r['after'])}</span>"
            for s, r in t["ratings"].items()
        )
        + "</td></tr>"
        for t in played
    )
    return (
        "<div class='scroll'><table class='played'><thead><tr><th>Event</th>"
        "<th>Score</th><th>Rating before → after</th></tr></thead>"
        f"<tbody>{lines}</tbody></table></div>"
    )


def _score(points: float) -> str:
    return f"{points:g}" if points != int(points) else str(int(points))


def _official(rating: float | None) -> str:
    return "unrated" if rating is None else str(round_half_up(rating))


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
        + f"<td><a href='{href(f'/players/{pid}/explain', when, system=system, **_item(item_key))}'"
        f" class='explain'>{e(item_key)}</a></td>"
        + "".join(f"<td>{_cell(r.get(k))}</td>" for k, _ in HISTORY_FIELDS)
        + "</tr>"
        for r in rows
        for item_key in (r["item_key"],)
    )
    body = (
        f"<p class='name'><a href='{href('/players/' + pid, when)}'>{e(player)}</a> "
        f"{e(data.get('name'))}</p><nav class='systems'>{tabs}</nav>"
        + (charts({system: _points(rows, None)}) if system and rows else "")
        + f"<div class='scroll'><table class='history'><thead><tr><th>Item (explain)</th>"
        f"{head}</tr></thead><tbody>{lines}</tbody></table></div>"
    )
    out = {"id": player, "system": system, "as_of": when.as_of, "history": rows}
    title = f"History of {player} ({system or 'unrated'})"
    return out, _layout(title, body, when, {"system": system})


def _item(key: str) -> dict[str, str]:
    """The explain parameter of an item: `section=ID` for a section, else `item=KEY`."""
    kind, _, name = key.partition(":")
    return {"section": name} if kind == "section" else {"item": key}


def _explain(view: View, player: str, query: dict[str, str], when: When) -> tuple[Any, str]:
    system = query.get("system")
    section = query.get("section")
    item = "section:" + section if section else query.get("item")
    if not system:
        raise HttpError("400 Bad Request", "explain needs ?system=")
    if item is None and when.as_of is None:
        raise HttpError("400 Bad Request", "explain needs ?section=, ?item= or ?as_of=")
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
        + (f"<h2>Games</h2>{_games_table(out['games'], when)}" if out.get("games") else "")
        + f"<h2>Rules</h2>{_tree(out['rules'])}"
        f"<h2>Fed by ledger positions</h2><table class='fed'><thead><tr><th>Position</th>"
        f"<th>What</th></tr></thead><tbody>{fed}</tbody></table>"
        + (f"<h2>Steps</h2>{_tree(out['steps'])}" if "steps" in out else "")
        + (f"<h2>Values</h2>{_tree(out['values'])}" if "values" in out else "")
    )
    title = f"Explain {player} {system} {it['key']}"
    keep = {"system": system, "section": section, "item": None if section else item}
    return out, _layout(title, body, when, keep)


def _games_table(games: list[dict[str, Any]], when: When) -> str:
    """One row per rated game: round, colour, opponent and rating, result, expected score."""
    lines = "".join(
        f"<tr><td>{e(g['round'])}</td><td>{e(g['colour'])}</td>"
        f"<td><a href='{href('/players/' + seg(g['opponent']), when)}'>{e(g['opponent'])}</a>"
        + (f"<br><span class='name'>{e(g['opponent_name'])}</span>" if g["opponent_name"] else "")
        + f"</td><td>{_exact(g['opponent_rating'])}</td><td>{_score(g['result'])}</td>"
        f"<td>{g['expected']:.4f}</td></tr>"
        for g in games
    )
    total = sum(g["result"] for g in games)
    expected = sum(g["expected"] for g in games)
    return (
        "<div class='scroll'><table class='games'><thead><tr><th>Round</th><th>Colour</th>"
        "<th>Opponent</th><th>Their rating</th><th>Result</th><th>Expected</th></tr>"
        f"</thead><tbody>{lines}</tbody><tfoot><tr><th colspan='4' scope='row'>Total</th>"
        f"<td>{_score(total)}</td><td>{expected:.4f}</td></tr></tfoot></table></div>"
    )


def _exact(rating: float | None) -> str:
    return "unrated" if rating is None else f"{rating:.4f}"


def _tree(value: Any) -> str:
    """A nested dict or list as definition lists, every leaf escaped."""
    if isinstance(value, dict):
        return (
            "<dl>"
            + "".join(
                f"<dt>{e(k)}</dt><dd>{_tree(v)}</dd>" for k, v in value.items() if v is not None
            )
            + "</dl>"
        )
    if isinstance(value, list):
        return "<ol>" + "".join(f"<li>{_tree(v)}</li>" for v in value) + "</ol>"
    return _cell(value, 4)


def _section(view: View, ledger: RatingsLedger, section_id: str, when: When) -> tuple[Any, str]:
    table = crosstable(view, section_id)
    if table is None:
        return _withdrawn(view, ledger, section_id, when)
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
        f"<div class='scroll'><table class='crosstable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )
    return asdict(table), _layout(f"Section {section_id}", body, when)


def _withdrawn(view: View, ledger: RatingsLedger, section_id: str, when: When) -> tuple[Any, str]:
    """A section withdrawn from rating: when, by whom and why, from its ledger entry."""
    record = queries.section_record(view, section_id)
    if record is None or record["status"] != "withdrawn":
        raise HttpError("404 Not Found", f"section {section_id!r} is not in the ledger")
    position = record["latest_position"]
    entry = next(read_entries(ledger, position - 1, batch=1), None)
    actor = entry.actor if entry is not None else None
    at = entry.recorded_at if entry is not None else None
    shown_at = None if at is None else datetime.fromisoformat(at).strftime("%Y-%m-%d %H:%M UTC")
    body = (
        f"<p class='event'>{e(record['event_name'])}</p>"
        f"<p>{e(_dates(record['start_date'], record['end_date']))}</p>"
        f"<p class='withdrawn'>Withdrawn from rating by <span class='actor'>{e(actor)}</span> "
        f"on {e(shown_at)} (<a href='{href('/log', when, after=position - 1)}#p{position}'>ledger "
        f"position {position}</a>). Reason: <q class='reason'>{e(record['reason'])}</q></p>"
        "<p>Its games no longer count; ratings were recomputed without it.</p>"
    )
    data = {**record, "withdrawn_by": actor, "withdrawn_at": at}
    return data, _layout(f"Section {section_id} (withdrawn)", body, when)


def _log(ledger: RatingsLedger, query: dict[str, str], when: When) -> tuple[Any, str]:
    """The log newest first, LOG_PAGE entries a page: `?before=N` pages back to older
    entries, `?after=N` forward to newer; `?type=` and `?section=` filter."""
    after = query.get("after")
    before = query.get("before")
    if after is not None and before is not None:
        raise HttpError("400 Bad Request", "give after or before, not both")
    kind = query.get("type") or None
    section = query.get("section") or None
    top = ledger.recorder.max_notification_id() or 0
    if when.position is not None:
        top = min(top, when.position)

    def keep(x: LedgerEntry) -> bool:
        return (kind is None or x.type == kind) and (
            section is None or x.payload.get("section_id") == section
        )

    if after is not None:
        found = _entries_after(ledger, _int(after, "after"), top, keep)
        newer, page = len(found) > LOG_PAGE, found[:LOG_PAGE][::-1]
        older = bool(page) and page[-1].position > 1
    else:
        last = top if before is None else min(top, _int(before, "before", 1) - 1)
        found = _entries_before(ledger, last, keep)
        older, page = len(found) > LOG_PAGE, found[:LOG_PAGE]
        newer = bool(page) and page[0].position < top
    entries = [asdict(x) for x in page]
    rows = "".join(
        f"<tr id='p{x['position']}'><td>{x['position']}</td><td>{e(x['recorded_at'])}</td>"
        f"<td><a href='{href('/log', when, type=x['type'])}'>{e(x['type'])}</a></td>"
        f"<td>{e(x['actor'])}</td><td>{_subject(x, when)}</td>"
        f"<td><details><summary>data</summary><pre>"
        f"{e(json.dumps(x['payload'], indent=1, ensure_ascii=False))}</pre></details></td></tr>"
        for x in entries
    )
    filters = {"type": kind, "section": section}
    links = []
    if newer:
        links.append(
            f"<a href='{href('/log', when, **filters, after=entries[0]['position'])}' "
            "rel='prev'>Newer entries</a>"
        )
    if older:
        links.append(
            f"<a href='{href('/log', when, **filters, before=entries[-1]['position'])}' "
            "rel='next'>Older entries</a>"
        )
    shown = ", ".join(f"{k} {e(v)}" for k, v in filters.items() if v)
    body = (
        (
            f"<p class='filter'>Only entries of {shown}. "
            f"<a href='{href('/log', when)}'>All entries</a></p>"
            if shown
            else ""
        )
        + "<div class='scroll'><table class='log'><thead><tr><th>Position</th>"
        "<th>Recorded at</th><th>Type</th><th>Actor</th><th>About</th><th>Data</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></div>"
        + (f"<p class='pager'>{' · '.join(links)}</p>" if links else "")
        + ("" if entries else "<p>No entries.</p>")
    )
    data = {
        "entries": entries,
        "newer": newer,
        "older": older,
        "type": kind,
        "section": section,
        "position": when.position,
    }
    return data, _layout("Ledger log", body, when, filters)


def _entries_after(
    ledger: RatingsLedger, after: int, top: int, keep: Callable[[LedgerEntry], bool]
) -> list[LedgerEntry]:
    """Up to LOG_PAGE + 1 kept entries after position `after` (up to `top`), oldest first."""
    found: list[LedgerEntry] = []
    for x in read_entries(ledger, after, batch=LOG_WINDOW):
        if x.position > top or len(found) > LOG_PAGE:
            break
        if keep(x):
            found.append(x)
    return found


def _entries_before(
    ledger: RatingsLedger, last: int, keep: Callable[[LedgerEntry], bool]
) -> list[LedgerEntry]:
    """Up to LOG_PAGE + 1 kept entries at or before position `last`, newest first."""
    found: list[LedgerEntry] = []
    while last > 0 and len(found) <= LOG_PAGE:
        first = max(last - LOG_WINDOW, 0)
        window = ledger.recorder.select_notifications(
            first, LOG_WINDOW, stop=last, inclusive_of_start=False
        )
        found += [x for x in map(to_entry, reversed(window)) if keep(x)]
        last = first
    return found[: LOG_PAGE + 1]


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
    return " ".join(e(p[k]) for k in ("holder", "role", "parameter") if isinstance(p.get(k), str))


def charts(series: dict[str, list[tuple[str, float]]]) -> str:
    """The chart twice: wide for a screen, narrow (larger lettering) for a phone; the
    stylesheet shows one."""
    return chart(series, 720, 260, "wide") + chart(series, 360, 240, "narrow", labels=4)


def chart(
    series: dict[str, list[tuple[str, float]]],
    width: int = 720,
    height: int = 260,
    size: str = "wide",
    labels: int = 7,
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

    parts = [
        f"<svg class='chart {size}' role='img' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' xmlns='http://www.w3.org/2000/svg'>"
        f"<title>Rating history: {e(', '.join(series))}</title>",
        f"<rect x='{left}' y='{top}' width='{width - left - right}' "
        f"height='{height - top - bottom}' class='plot'/>",
    ]
    for value in rating_ticks(lo, hi):
        parts.append(
            f"<line x1='{left}' x2='{width - right}' y1='{y(value):.1f}' y2='{y(value):.1f}' "
            f"class='grid'/><text x='{left - 6}' y='{y(value) + 4:.1f}' class='tick' "
            f"text-anchor='end'>{value}</text>"
        )
    for day, label in date_ticks(lo_day, hi_day, labels):
        at = x(date.fromordinal(day).isoformat())
        parts.append(
            f"<line x1='{at:.1f}' x2='{at:.1f}' y1='{top}' y2='{height - bottom}' class='grid'/>"
            f"<text x='{at:.1f}' y='{height - bottom + 16}' class='tick' "
            f"text-anchor='middle'>{e(label)}</text>"
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


def _step(rough: float) -> int:
    """A round step near `rough`: 10, 20, 25, 50, 100, 200, 250, 500, …"""
    base = 10 ** max(math.floor(math.log10(rough)), 1)
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
    ticks = []
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
    elif when.by_position:
        shown.append(f"as the ledger stood at position {e(when.position)}")
    banner = f"<p class='when'>Showing {'; '.join(shown)}.</p>" if shown else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)} · ratings-ledger</title>"
        "<link rel='stylesheet' href='/static/style.css'></head><body>"
        "<header><a href='/' class='home'>ratings-ledger</a> <nav>"
        "<a href='/players'>Players</a> <a href='/sections'>Sections</a> "
        "<a href='/log'>Ledger log</a></nav>"
        "<form method='get' class='when'>"
        f"<label>As of <input type='date' name='as_of' value='{e(when.as_of)}'></label> "
        f"<label>As known at <input name='as_known_at' value='{e(when.as_known_at)}' "
        "placeholder='2025-03-01T12:00'></label>"
        f"{hidden}<button type='submit'>Show</button></form></header>"
        f"<main><h1>{e(title)}</h1>{banner}{body}</main></body></html>"
    )
