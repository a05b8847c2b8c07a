"""The read side's typed facts (ledger/events.py) line up with the write side's @event methods
(ledger/domain.py): the same names and the same fields, so the one stored JSON decodes."""

from __future__ import annotations

import msgspec
import pytest

from ledger import domain, events
from ledger.log import read_entries

AGGREGATES = (
    domain.Player,
    domain.Section,
    domain.Match,
    domain.FideAdjustment,
    domain.MoneyFloorAward,
    domain.Override,
    domain.RulesAmendment,
    domain.PublishedList,
    domain.FideUplift,
    domain.Void,
    domain.Roles,
)


def recorded() -> dict[str, list[str]]:
    """Every event the domain records: its name → its fields but `actor`."""
    out = {}
    for aggregate in AGGREGATES:
        for value in vars(aggregate).values():
            if isinstance(value, type) and "TOPIC" in vars(value):
                name = value.TOPIC.removeprefix(domain.TOPIC_PREFIX)
                out[name] = [f for f in value.__annotations__ if f != "actor"]
    return out


def test_every_fact_the_read_side_decodes_has_the_domain_event_s_fields():
    domain_events = recorded()
    for name, cls in events.DECODERS.items():
        assert name in domain_events, name
        assert list(cls.__struct_fields__) == domain_events[name], name


def test_the_projection_s_items_cover_every_rated_fact():
    from projections.items import ITEM_FACTS

    names = {cls.__name__ for cls in ITEM_FACTS}
    assert names <= set(events.DECODERS)
    assert {"SectionSubmitted", "SectionCorrected", "SectionWithdrawn"} <= names


def test_stored_entries_decode_into_their_facts(ledger, section_ready):
    ledger.submit_section(section_ready(), actor="td")
    (entry,) = [e for e in read_entries(ledger) if e.type == "SectionSubmitted"]
    fact = events.decode(entry.type, entry.state)
    assert isinstance(fact, events.SectionSubmitted)
    assert fact == events.decode(entry.type, payload=entry.payload)
    assert events.to_payload(fact) == {**entry.payload}
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**entry.payload, "start_date": "0001-01-01"}, events.SectionSubmitted)
    with pytest.raises(events.Undecodable, match="a date YYYY-MM-DD"):
        events.decode(entry.type, payload={**entry.payload, "end_date": "2999-01-01"})
