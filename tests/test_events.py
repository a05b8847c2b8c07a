"""The read side's typed facts (ledger/events.py) line up with the write side's @event methods
(ledger/domain.py): the same names and the same fields, so the one stored JSON decodes; and each
kind, declared once, keeps the stored format entries were always written in."""

from __future__ import annotations

import json

import msgspec
import pytest

from ledger import domain, events, fields
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
    domain.SetAside,
    domain.Roles,
)


def recorded(actor: bool = False) -> dict[str, list[str]]:
    """Every event the domain records: its name → its fields (but `actor`, unless asked)."""
    out = {}
    for aggregate in AGGREGATES:
        for value in vars(aggregate).values():
            if isinstance(value, type) and "TOPIC" in vars(value):
                name = value.TOPIC.removeprefix(domain.TOPIC_PREFIX)
                out[name] = [f for f in value.__annotations__ if actor or f != "actor"]
    return out


SECTION = "section_id tournament_id event_name online time_control start_date end_date system"
PROFILE = "member_id name birth_date adult fide cfc fide_adjustment_opt_in membership_expires"
# fide_id, title, sex (issue 11); federation, birth_year, reported_rating (issue 20); FIDE's K,
# reached 2400 and list flags (issue 30)
PROFILE_LATER = (
    "fide_id title sex club federation birth_year reported_rating "
    "fide_k fide_reached_2400 fide_flags"
)
STORED = {
    "LedgerInitialized": "actor public_key family",  # family: issue 30, added later
    "RoleGranted": "holder role actor public_key",
    "RoleRevoked": "holder role actor",
    "PlayerRegistered": f"{PROFILE} playing_since actor {PROFILE_LATER}",
    "PlayerProfileUpdated": f"{PROFILE} playing_since actor {PROFILE_LATER}",
    "PlayersMerged": "member_id into reason force actor",  # issue 20
    "OpeningBalanceRecorded": "member_id system as_of rating games wins draws losses "
    "sections_of_three history peak olm_games money_floor director_floor ceiling actor k",
    "SectionSubmitted": f"{SECTION} rules players games byes actor",
    "SectionCorrected": f"{SECTION} rules players games byes reason actor",
    "SectionWithdrawn": "section_id reason actor",
    "SectionReinstated": f"{SECTION} rules players games byes reason actor",
    "SectionReviewed": "section_id note actor",  # issue 32: a new kind
    "MatchResultSubmitted": "match_id event_name online time_control start_date end_date system "
    "players games actor",
    "FideAdjustmentSubmitted": "member_id rating_list youth_event games actor",
    "FideUpliftRecorded": "effective ceiling share reason actor",
    "MoneyFloorAwarded": "member_id amount limit date system actor",
    "DirectorOverride": "member_id action system value effective reason actor",
    "OverrideRevoked": "member_id system position reason actor",
    "RulesAmended": "parameter value effective until reason actor",
    "ListPublished": "family number list_name as_of cutoff_position actor",
    "ListRatingsCommitted": "family list_name rows ratings_root actor",
    "EntryVoided": "position reason actor",
    "EntrySetAside": "positions reason actor",  # issue 28: a new kind, stored from its first
    "FederationChanged": "family reason actor",  # issue 30: a new kind
}
"""Each kind's stored fields in the order every ledger holds them (after the envelope's
`timestamp` and, for a record's first entry, `originator_topic`)."""


def test_every_kind_is_recorded_with_the_stored_fields_in_their_stored_order():
    # Issue 17: "The stored format must not change": entries are signed and chained over their
    # stored bytes, whose keys follow the domain method's parameters, now made from the
    # declarations in ledger/events.py.
    assert set(events.KINDS) == set(STORED)
    assert {name: " ".join(fields) for name, fields in recorded(actor=True).items()} == STORED


def test_a_stored_entry_s_bytes_keep_the_envelope_then_the_declared_fields(
    ledger, register_players
):
    # Issue 17: existing ledgers must still verify and replay, so new entries are written as
    # before: `timestamp`, `originator_topic`, the fields, `actor`, then the later fields.
    from ledger.commands import RegisterPlayer, parse

    (entry,) = ledger.players.register(parse(RegisterPlayer, {"id": "P1"}), actor="office")
    keys = list(json.loads(entry.state))
    assert keys == ["timestamp", "originator_topic", *STORED["PlayerRegistered"].split()]


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
    ledger.sections.submit(section_ready(), actor="td")
    (entry,) = [e for e in read_entries(ledger) if e.type == "SectionSubmitted"]
    fact = events.decode(entry.type, entry.state)
    assert isinstance(fact, events.SectionSubmitted)
    assert fact == events.decode(entry.type, payload=entry.payload)
    assert events.to_payload(fact) == {**entry.payload}
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({**entry.payload, "start_date": "0001-01-01"}, events.SectionSubmitted)
    with pytest.raises(events.Undecodable, match="a date YYYY-MM-DD"):
        events.decode(entry.type, payload={**entry.payload, "end_date": "2999-01-01"})


def test_every_command_model_gives_its_fact_kind_s_fields_from_the_declaration():
    # Issue 17: "one declaration per fact kind ... from which the command model ... follow":
    # each command's event fields are its kind's fields, bar the ones its verb computes.
    from ledger import commands

    computed = {"ListPublished": {"number"}}
    for model in (
        commands.RegisterPlayer,
        commands.RecordOpeningBalance,
        commands.SubmitSection,
        commands.SubmitMatch,
        commands.SubmitFideAdjustment,
        commands.RecordFideUplift,
        commands.AwardMoneyFloor,
        commands.DirectorOverride,
        commands.AmendRules,
        commands.PublishList,
        commands.VoidEntry,
    ):
        kind = next(k for k in model.__mro__ if k.__name__ in events.KINDS).__name__
        fields = set(events.KINDS[kind].__struct_fields__) - computed.get(kind, set())
        assert set(model.fact_fields or ()) == fields, kind


class PrizeNoted(events.Fact, frozen=True, kw_only=True):
    """A kind a new contributor might add, declared once (not one of the ledger's kinds)."""

    verb = "award-money-floor"
    item = events.Makes("money", lambda f, pos: f"money:{pos}", lambda f: (f.date, f.date))

    member_id: fields.Player
    amount: fields.Amount
    date: fields.Date
    note: fields.Text | None = None


def test_a_kind_declared_once_gives_its_command_model_and_its_domain_method():
    # Issue 17: "adding a new fact kind touches its declaration, the rules that use it and
    # tests": the door (names, bounds, defaults) and the recorded fields follow from it.
    from eventsourcing.domain import Aggregate

    from ledger import commands, door

    class NotePrize(door.door(PrizeNoted)):
        pass

    assert list(NotePrize.model_fields) == ["player", "amount", "date", "note"]
    with pytest.raises(domain.InvalidCommand, match="amount: 1e\\+300: input should be less than"):
        commands.parse(NotePrize, {"player": "P1", "amount": 1e300, "date": "2024-05-05"})
    given = commands.parse(NotePrize, {"player": "P1", "amount": 500.0, "date": "2024-05-05"})
    assert given.event_fields() == {
        "member_id": "P1",
        "amount": 500.0,
        "date": "2024-05-05",
        "note": None,
    }

    class Prize(Aggregate):
        @domain.fact(PrizeNoted)
        def __init__(self, member_id: str, **_: object) -> None:
            self.member_id = member_id

    prize = Prize(**given.event_fields(), actor="director")
    (created,) = prize.collect_events()
    assert prize.member_id == "P1"
    assert [f for f in type(created).__annotations__] == [*PrizeNoted.__struct_fields__, "actor"]
