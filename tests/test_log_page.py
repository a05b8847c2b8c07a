"""Issue 31, "Pages a federation would publish: the log as readable entries": "the log page
shows raw `data{…}` blobs"; each entry now says what it records in words, who recorded it,
what it is about (linked), and its fields labelled from their one declaration in
ledger/events.py (docs/decisions.md, "What does the log page show of an entry?")."""

from __future__ import annotations

import re

import msgspec
import pytest
from projection_helpers import Ledger, round_robin
from test_web import get

from ledger.application import RatingsLedger
from ledger.commands import MergePlayers, VoidEntry, parse
from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.ledgerlog import kind_words
from ledger.events import KINDS, SectionSubmitted

A, B, C, D = "60000001", "60000002", "60000003", "60000004"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Four players, a section JAN, an override later voided, and C merged into D."""
    store = f"sqlite:///{tmp_path_factory.mktemp('log') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    try:
        names = ("Ann Ash", "Bo Birch", "Cy Cedar", "Cy Cedar")
        for member, name in zip((A, B, C, D), names, strict=True):
            ledger.register(member, name=name, adult=True)
        ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
        ledger.override(A, "set_floor", 1500, "2024-02-01")
        position = ledger.app.recorder.max_notification_id()
        void = parse(VoidEntry, {"position": position, "reason": "recorded in error"})
        ledger.app.decisions.void(void, actor="director")
        merge = parse(MergePlayers, {"player": C, "into": D, "reason": "one person"})
        ledger.app.players.merge(merge, actor="admin")
    finally:
        ledger.app.close()
    return Site(store)


def rows(site) -> dict[str, str]:
    """Each log row's HTML by the entry's type (the newest of a type)."""
    page = get(site, "/log").text
    found = re.findall(r"<tr id='p\d+'>.*?</tr>", page, re.S)
    return {re.search(r"title='(\w+)'", r).group(1): r for r in reversed(found)}


def test_no_entry_is_shown_as_raw_data(site):
    """Issue 31: "The log page shows raw `data{…}` blobs"."""
    page = get(site, "/log").text
    assert "<pre>" not in page and "<summary>data</summary>" not in page
    assert '"section_id"' not in page and "{" not in page.split("<tbody>")[1]


def test_an_entry_says_what_it_records_in_words(site):
    """Issue 31: "show readable entries (per fact kind: …what…)"."""
    assert kind_words("SectionSubmitted") == "Section submitted"
    assert kind_words("FideUpliftRecorded") == "FIDE uplift recorded"
    assert ">Section submitted</a>" in rows(site)["SectionSubmitted"]
    assert ">Players merged</a>" in rows(site)["PlayersMerged"]
    assert "<dt>action</dt><dd>set floor</dd>" in rows(site)["DirectorOverride"]


def test_a_sections_fields_come_in_their_declared_order_with_counts(site):
    """Issue 31: "the fields' labels from their one declaration in ledger/events.py": a
    section's fields in SectionSubmitted's order, its players and games as counts (three
    players, a round robin's three games)."""
    row = rows(site)["SectionSubmitted"]
    labels = re.findall(r"<dt>([^<]+)</dt>", row)
    declared = [f.name.replace("_", " ") for f in msgspec.structs.fields(SectionSubmitted)]
    assert labels == [x for x in declared if x in labels]
    assert {"section id", "event name", "start date", "players", "games"} <= set(labels)
    assert "<dt>players</dt><dd>3</dd>" in row and "<dt>games</dt><dd>3</dd>" in row
    assert "<dt>online</dt><dd>no</dd>" in row


def test_who_and_which_player_or_section_are_linked(site):
    """Issue 31: "who, what, which section/player, linked": a merge links both members (each
    field a write gives through the member door), a section its crosstable."""
    merge = rows(site)["PlayersMerged"]
    assert "<td data-label='Actor'>admin</td>" in merge
    assert f"<dt>member id</dt><dd><a href='/players/{C}'>{C}</a></dd>" in merge
    assert f"<dt>into</dt><dd><a href='/players/{D}'>{D}</a></dd>" in merge
    section = rows(site)["SectionSubmitted"]
    assert "<dt>section id</dt><dd><a href='/sections/JAN'>JAN</a></dd>" in section


def test_a_void_links_the_entry_it_voids(site):
    """Issue 31: "which …, linked": the voided entry's place in the log."""
    entries = get(site, "/api/log").json()["entries"]
    voided = next(x for x in entries if x["type"] == "EntryVoided")["payload"]["position"]
    link = f"<a href='/log?before={voided + 1}#p{voided}'>{voided}</a>"
    assert f"<dt>position</dt><dd>{link}</dd>" in rows(site)["EntryVoided"]
    assert f"id='p{voided}'" in get(site, "/log", f"before={voided + 1}").text


def test_every_declared_kind_has_words_and_labels():
    """Issue 31: "per fact kind": every kind ledger/events.py declares reads as words."""
    for kind, declared in KINDS.items():
        words = kind_words(kind)
        assert words[0].isupper() and " " in words and words.replace(" ", "").isalpha(), kind
        assert all(f.name.replace("_", " ").strip() for f in msgspec.structs.fields(declared))


def test_the_json_twin_keeps_the_stored_payload(site):
    """The page is for people; /api/log keeps each entry's payload as stored (issue 11)."""
    entries = get(site, "/api/log").json()["entries"]
    section = next(x for x in entries if x["type"] == "SectionSubmitted")
    assert section["payload"]["section_id"] == "JAN" and len(section["payload"]["games"]) == 3
