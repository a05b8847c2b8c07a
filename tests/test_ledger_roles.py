"""Roles: recorded in the ledger itself (RoleGranted/RoleRevoked) and checked on every write."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import closing
from typing import Any
from uuid import uuid4

import pytest
import typer
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import (
    AmendRules,
    AwardMoneyFloor,
    DirectorOverride,
    MergePlayers,
    PublishList,
    RecordFideUplift,
    RecordOpeningBalance,
    RegisterPlayer,
    SetAside,
    SetFamily,
    SubmitFideAdjustment,
    SubmitMatch,
    SubmitSection,
    VoidEntry,
    parse,
)
from ledger.entrypoints.cli.writes import register
from ledger.errors import AccessDenied, InvalidCommand
from ledger.log import LedgerEntry, read_entries
from ledger.roles import MAY, NotInitialized, Role, Verb
from tests.tamper_helpers import insert

Command = Callable[[RatingsLedger, str], list[LedgerEntry]]
SECTION = "2024-05-GP-OPEN"
WITHDRAWN = "2024-04-GP-OPEN"
PLAYERS = ("12345678", "30000001", "30000002", "30000003")
SECOND = "X0000000A"  # a second record of PLAYERS[0]'s, who plays nothing (merge-players)
ACTORS = {  # actor → the role the `prepared` ledger records for them (None: no role)
    "director": Role.DIRECTOR,
    "office": Role.RATINGS_ADMIN,
    "td": Role.TOURNAMENT_DIRECTOR,
    "auditor": Role.AUDITOR,
    "stranger": None,
}


def section(section_id: str = SECTION, **changes: Any) -> SubmitSection:
    """One round among PLAYERS."""
    data = {
        "section_id": section_id,
        "event_name": "Grand Prix",
        "online": False,
        "time_control": "G/90;d30",
        "start_date": "2024-05-04",
        "end_date": "2024-05-04",
        "players": [{"id": p} for p in PLAYERS],
        "games": [
            {"round": 1, "white": PLAYERS[0], "black": PLAYERS[1], "result": "1-0"},
            {"round": 1, "white": PLAYERS[2], "black": PLAYERS[3], "result": "1/2-1/2"},
        ],
    }
    return parse(SubmitSection, {**data, **changes})


COMMANDS: dict[Verb, Command] = {
    Verb.REGISTER: lambda app, actor: app.players.register(
        parse(RegisterPlayer, {"id": "40000000"}), actor=actor
    ),
    Verb.OPENING_BALANCE: lambda app, actor: app.players.record_opening_balance(
        parse(
            RecordOpeningBalance,
            {
                "player": "12345678",
                "system": "OTBR",
                "as_of": "2024-01-01",
                "rating": 1500,
                "games": 30,
            },
        ),
        actor=actor,
    ),
    Verb.SUBMIT: lambda app, actor: app.sections.submit(section("2024-06-GP-OPEN"), actor=actor),
    Verb.CORRECT: lambda app, actor: app.sections.correct(
        section(event_name="Grand Prix 2024"), reason="name", actor=actor
    ),
    Verb.WITHDRAW: lambda app, actor: app.sections.withdraw(
        SECTION, reason="not rated", actor=actor
    ),
    Verb.REINSTATE: lambda app, actor: app.sections.reinstate(
        WITHDRAWN, reason="rateable after all", actor=actor
    ),
    Verb.REVIEW: lambda app, actor: app.sections.review(SECTION, note="checked", actor=actor),
    Verb.FIDE_ADJUST: lambda app, actor: app.decisions.submit_fide_adjustment(
        parse(
            SubmitFideAdjustment,
            {
                "player": "12345678",
                "rating_list": "2024-06-01",
                "games": [{"opponent_rating": 2100, "score": 1}],
            },
        ),
        actor=actor,
    ),
    Verb.AWARD_MONEY_FLOOR: lambda app, actor: app.decisions.award_money_floor(
        parse(
            AwardMoneyFloor,
            {"player": "12345678", "amount": 5000, "limit": 1800, "date": "2024-05-05"},
        ),
        actor=actor,
    ),
    Verb.MATCH: lambda app, actor: app.sections.submit_match(
        parse(
            SubmitMatch,
            {
                "match_id": "M1",
                "online": False,
                "time_control": "G/60",
                "start_date": "2024-06-01",
                "end_date": "2024-06-01",
                "players": [{"id": "12345678"}, {"id": "30000001"}],
                "games": [{"round": 1, "white": "12345678", "black": "30000001", "result": "1-0"}],
            },
        ),
        actor=actor,
    ),
    Verb.OVERRIDE: lambda app, actor: app.decisions.override(
        parse(
            DirectorOverride,
            {
                "player": "12345678",
                "action": "impose_ceiling",
                "value": 2000,
                "effective": "2024-07-01",
                "reason": "review",
            },
        ),
        actor=actor,
    ),
    Verb.REVOKE_OVERRIDE: lambda app, actor: app.decisions.revoke_override(
        next((e.position for e in read_entries(app) if e.type == "DirectorOverride"), 1),
        reason="reconsidered",
        actor=actor,
    ),
    Verb.AMEND_RULES: lambda app, actor: app.decisions.amend_rules(
        parse(
            AmendRules,
            {
                "parameter": "bonus_multiplier",
                "value": 10,
                "effective": "2025-01-01",
                "reason": "vote",
            },
        ),
        actor=actor,
    ),
    Verb.FIDE_UPLIFT: lambda app, actor: app.decisions.record_fide_uplift(
        parse(RecordFideUplift, {"effective": "2024-03-01", "reason": "FIDE Council"}),
        actor=actor,
    ),
    Verb.PUBLISH_LIST: lambda app, actor: app.lists.publish(
        parse(PublishList, {"family": "fide", "name": "2024-07", "as_of": "2024-07-01"}),
        actor=actor,
    ),
    Verb.VOID: lambda app, actor: app.decisions.void(
        parse(
            VoidEntry,
            {
                "position": next(
                    (e.position for e in read_entries(app) if e.type == "PlayerRegistered"), 1
                ),
                "reason": "registered in error",
            },
        ),
        actor=actor,
    ),
    Verb.SET_ASIDE: lambda app, actor: app.asides.set_aside(  # the last entry, forged by the test
        parse(SetAside, {"positions": [app.recorder.max_notification_id() or 1], "reason": "r"}),
        actor=actor,
    ),
    Verb.MERGE_PLAYERS: lambda app, actor: app.players.merge(
        parse(MergePlayers, {"player": SECOND, "into": PLAYERS[0], "reason": "one person"}),
        actor=actor,
    ),
    Verb.GRANT_ROLE: lambda app, actor: app.roles.grant("newcomer", Role.AUDITOR, actor=actor),
    Verb.REVOKE_ROLE: lambda app, actor: app.roles.revoke("auditor", Role.AUDITOR, actor=actor),
    Verb.SET_FAMILY: lambda app, actor: app.roles.set_family(  # issue 30: a director's
        parse(SetFamily, {"family": "fide"}), actor=actor
    ),
}
CASES = [(verb, actor) for verb in Verb for actor in ACTORS]


@pytest.fixture
def prepared(ledger: RatingsLedger, register_players: Callable[..., None]) -> RatingsLedger:
    """The `ledger` fixture's roles plus an auditor; PLAYERS and SECOND, a submitted section, a
    withdrawn one and a director's decision."""
    ledger.roles.grant("auditor", Role.AUDITOR, actor="director")
    register_players(*PLAYERS, SECOND)
    ledger.sections.submit(section(), actor="td")
    ledger.sections.submit(section(WITHDRAWN), actor="td")
    ledger.sections.withdraw(WITHDRAWN, reason="not rated", actor="director")
    decision = {"player": PLAYERS[1], "action": "lift_ceiling", "effective": "2024-05-01"}
    ledger.decisions.override(
        parse(DirectorOverride, {**decision, "reason": "review"}), actor="director"
    )
    return ledger


def test_every_write_verb_has_a_command_here_and_a_row_in_the_table() -> None:
    # Issue: "Every write command ... checks the acting actor's roles": none is left out.
    assert set(COMMANDS) == set(MAY) == set(Verb)


@pytest.mark.parametrize(
    ("verb", "role", "allowed"),
    [
        *((verb, Role.DIRECTOR, True) for verb in Verb),
        *((verb, Role.AUDITOR, False) for verb in Verb),
        (Verb.SUBMIT, Role.TOURNAMENT_DIRECTOR, True),
        (Verb.MATCH, Role.TOURNAMENT_DIRECTOR, True),
        (Verb.REGISTER, Role.TOURNAMENT_DIRECTOR, True),
        (Verb.CORRECT, Role.TOURNAMENT_DIRECTOR, False),
        (Verb.CORRECT, Role.RATINGS_ADMIN, True),
        (Verb.WITHDRAW, Role.RATINGS_ADMIN, True),
        (Verb.REVIEW, Role.RATINGS_ADMIN, True),  # issue 32: the office reviews uploads
        (Verb.REVIEW, Role.TOURNAMENT_DIRECTOR, False),
        (Verb.FIDE_ADJUST, Role.RATINGS_ADMIN, True),
        (Verb.OPENING_BALANCE, Role.RATINGS_ADMIN, True),
        (Verb.REGISTER, Role.RATINGS_ADMIN, True),
        (Verb.SUBMIT, Role.RATINGS_ADMIN, True),  # issue 20: the office imports reports
        (Verb.MERGE_PLAYERS, Role.RATINGS_ADMIN, True),  # issue 20: as it corrects sections
        (Verb.MERGE_PLAYERS, Role.TOURNAMENT_DIRECTOR, False),
        *(
            (verb, role, False)
            for verb in (
                Verb.OVERRIDE,
                Verb.AWARD_MONEY_FLOOR,
                Verb.AMEND_RULES,
                Verb.VOID,
                Verb.SET_ASIDE,  # issue 28
                Verb.GRANT_ROLE,
                Verb.REVOKE_ROLE,
                Verb.SET_FAMILY,  # issue 30
            )
            for role in (Role.RATINGS_ADMIN, Role.TOURNAMENT_DIRECTOR)
        ),
    ],
)
def test_the_table_gives_each_role_the_writes_the_issue_names(
    verb: Verb, role: Role, allowed: bool
) -> None:
    # Issue: "tournament director may submit, ratings admin may correct/withdraw/record
    # adjustments, director may override, award money floors and amend rules, auditor reads";
    # "director: everything".
    assert (role in MAY[verb]) is allowed


@pytest.mark.parametrize(("verb", "actor"), CASES, ids=[f"{v}-by-{a}" for v, a in CASES])
def test_a_write_is_appended_only_when_the_actors_role_may_use_the_verb(
    prepared: RatingsLedger, verb: Verb, actor: str
) -> None:
    # Issue: "writes are checked against roles recorded in the ledger itself"; "A write by an
    # actor without the role is refused with a clear error and nothing appended."
    if verb is Verb.SET_ASIDE:  # issue 28: what a director sets aside is an entry that fails
        insert(prepared.store, uuid4(), 1, "ratings-ledger:PlayerRegistered", b"{}", seal=True)
    before = list(read_entries(prepared))
    if ACTORS[actor] in MAY[verb]:
        entries = COMMANDS[verb](prepared, actor)
        assert entries and all(e.actor == actor for e in entries)
        assert list(read_entries(prepared)) == before + entries
        return
    with pytest.raises(AccessDenied) as refused:
        COMMANDS[verb](prepared, actor)
    roles = ", ".join(MAY[verb])
    assert f"{actor!r} may not {verb}: it takes " in str(refused.value)
    assert roles in str(refused.value)
    assert list(read_entries(prepared)) == before


def test_the_refusal_names_the_actor_the_verb_the_roles_that_may_and_the_roles_held(
    prepared: RatingsLedger,
) -> None:
    # Issue: "a clear message naming actor, verb and the roles that may do it".
    with pytest.raises(AccessDenied) as refused:
        COMMANDS[Verb.CORRECT](prepared, "td")
    assert str(refused.value) == (
        "'td' may not correct: it takes one of the roles director, ratings_admin "
        "('td' holds tournament_director)"
    )
    with pytest.raises(AccessDenied) as refused:
        COMMANDS[Verb.OVERRIDE](prepared, "stranger")
    assert str(refused.value) == (
        "'stranger' may not override: it takes the role director ('stranger' holds no role)"
    )


@pytest.mark.parametrize("verb", list(Verb))
def test_a_ledger_never_initialized_refuses_every_write_and_says_to_run_init(
    store_url: str, verb: Verb
) -> None:
    # Issue: "A ledger that was never `init`ed refuses writes with a message telling the user to
    # run `ratings-ledger init --actor NAME`."
    with closing(RatingsLedger(store_url)) as app:
        with pytest.raises(NotInitialized, match=r"run `ratings-ledger init --actor NAME` first"):
            COMMANDS[verb](app, "anyone")
        assert list(read_entries(app)) == []


def test_init_makes_its_actor_the_director_once(store_url: str) -> None:
    # Issue: "The first actor set up at `init` is the director and holds every role"; "once; a
    # second `init` on an initialized ledger is refused clearly".
    with closing(RatingsLedger(store_url)) as app:
        entries = app.roles.initialize(actor="ann")
        key = app.keyring.public_key("ann")
        assert [(e.type, e.actor, e.payload) for e in entries] == [
            ("LedgerInitialized", "ann", {"public_key": key, "family": "uschess"}),
            ("RoleGranted", "ann", {"holder": "ann", "role": "director", "public_key": key}),
        ]
        assert app.roles.holders() == {"ann": {Role.DIRECTOR}}
        with pytest.raises(InvalidCommand, match="already initialized \\(director: 'ann'\\)"):
            app.roles.initialize(actor="bob")
        assert list(read_entries(app)) == entries


def test_a_granted_role_takes_effect_and_a_revoked_one_stops(prepared: RatingsLedger) -> None:
    # Issue: "grant then revoke takes effect".
    withdraw = COMMANDS[Verb.WITHDRAW]
    with pytest.raises(AccessDenied):
        withdraw(prepared, "td")
    [granted] = prepared.roles.grant("td", Role.RATINGS_ADMIN, actor="director")
    assert (granted.type, granted.payload) == (
        "RoleGranted",
        {"holder": "td", "role": "ratings_admin", "public_key": prepared.keyring.public_key("td")},
    )
    assert prepared.roles.of("td") == {Role.TOURNAMENT_DIRECTOR, Role.RATINGS_ADMIN}
    [revoked] = prepared.roles.revoke("td", Role.RATINGS_ADMIN, actor="director")
    assert (revoked.type, revoked.payload) == (
        "RoleRevoked",
        {"holder": "td", "role": "ratings_admin"},
    )
    before = list(read_entries(prepared))
    with pytest.raises(AccessDenied):
        withdraw(prepared, "td")
    assert list(read_entries(prepared)) == before
    prepared.roles.grant("td", Role.RATINGS_ADMIN, actor="director")
    [entry] = withdraw(prepared, "td")
    assert entry.type == "SectionWithdrawn"


def test_roles_are_read_from_the_ledger_by_any_new_ledger_on_the_store(
    prepared: RatingsLedger, store_url: str
) -> None:
    # Issue: "roles recorded in the ledger itself": another application on the same store sees
    # and enforces them.
    prepared.roles.grant("td", Role.RATINGS_ADMIN, actor="director")
    prepared.roles.revoke("office", Role.RATINGS_ADMIN, actor="director")
    with closing(RatingsLedger(store_url)) as fresh:
        assert fresh.roles.holders() == {
            "auditor": {Role.AUDITOR},
            "director": {Role.DIRECTOR},
            "td": {Role.TOURNAMENT_DIRECTOR, Role.RATINGS_ADMIN},
        }
        with pytest.raises(AccessDenied, match="'office' holds no role"):
            COMMANDS[Verb.WITHDRAW](fresh, "office")
        [entry] = COMMANDS[Verb.WITHDRAW](fresh, "td")
        assert entry.actor == "td"


def test_granting_a_role_already_held_records_nothing(prepared: RatingsLedger) -> None:
    # Facts only: a grant that changes nothing is no fact (like re-registering a profile).
    before = list(read_entries(prepared))
    assert prepared.roles.grant("office", Role.RATINGS_ADMIN, actor="director") == []
    assert list(read_entries(prepared)) == before


@pytest.mark.parametrize(
    ("holder", "role", "message"),
    [
        ("td", "wizard", "role: 'wizard' is not one of director, ratings_admin"),
        ("td", Role.AUDITOR, "role: 'td' does not hold auditor ('td' holds tournament_director)"),
        ("nobody", Role.AUDITOR, "role: 'nobody' does not hold auditor ('nobody' holds no role)"),
        ("director", Role.DIRECTOR, "role: 'director' is the last director; grant director to"),
        ("  ", Role.AUDITOR, "holder: must not be empty"),
    ],
)
def test_a_revocation_that_cannot_be_made_is_refused_and_appends_nothing(
    prepared: RatingsLedger, holder: str, role: str, message: str
) -> None:
    # Issue: "only a director may grant/revoke; refuse revoking the last director".
    before = list(read_entries(prepared))
    with pytest.raises(InvalidCommand) as refused:
        prepared.roles.revoke(holder, role, actor="director")
    assert str(refused.value).startswith(message)
    assert list(read_entries(prepared)) == before


def test_a_director_may_hand_over_to_another_and_then_loses_every_write(
    prepared: RatingsLedger,
) -> None:
    # Issue: "refuse revoking the last director" — but not a director who has a successor.
    prepared.roles.grant("bea", Role.DIRECTOR, actor="director")
    prepared.roles.revoke("director", Role.DIRECTOR, actor="director")
    assert prepared.roles.holders()["bea"] == {Role.DIRECTOR}
    with pytest.raises(AccessDenied, match="'director' may not grant-role"):
        prepared.roles.grant("director", Role.DIRECTOR, actor="director")
    with pytest.raises(InvalidCommand, match="'bea' is the last director"):
        prepared.roles.revoke("bea", Role.DIRECTOR, actor="bea")


def test_two_directors_revoking_each_other_at_once_leave_one_director(
    prepared: RatingsLedger, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue: "refuse revoking the last director", also against a rival revoking at the same
    # time: the loser re-decides on the new roles and is then no director at all.
    prepared.roles.grant("bea", Role.DIRECTOR, actor="director")
    save = RatingsLedger.save
    raced: list[bool] = []

    def save_after_a_rival(self: RatingsLedger, *objs: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(True)
            with closing(RatingsLedger(store_url)) as rival:
                rival.roles.revoke("director", Role.DIRECTOR, actor="bea")
        return save(self, *objs, **kwargs)

    monkeypatch.setattr(RatingsLedger, "save", save_after_a_rival)
    with pytest.raises(AccessDenied, match="'director' may not revoke-role"):
        prepared.roles.revoke("bea", Role.DIRECTOR, actor="director")
    assert prepared.roles.holders() == {
        "auditor": {Role.AUDITOR},
        "bea": {Role.DIRECTOR},
        "office": {Role.RATINGS_ADMIN},
        "td": {Role.TOURNAMENT_DIRECTOR},
    }


def test_the_role_check_loads_the_roles_record_and_never_reads_the_log(
    prepared: RatingsLedger, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Brief: "Keep the role check cheap (one aggregate load, not a scan of the log)".
    def no_scan(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the log was read")

    monkeypatch.setattr(prepared.recorder, "select_notifications", no_scan)
    with pytest.raises(AccessDenied):
        COMMANDS[Verb.SUBMIT](prepared, "auditor")
    [entry] = COMMANDS[Verb.SUBMIT](prepared, "td")
    assert entry.type == "SectionSubmitted"


@pytest.fixture
def run(store_url: str) -> Callable[..., Result]:
    """Invoke `ratings-ledger ARGS --store STORE`."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    return lambda *args: CliRunner().invoke(app, [*args, "--store", store_url])


def log_json(run: Callable[..., Result]) -> list[dict[str, Any]]:
    return json.loads(run("log", "--json").stdout)


def test_the_command_line_refuses_a_write_without_the_role_with_exit_4_and_one_line(
    run: Callable[..., Result],
) -> None:
    # Issue: "refused → ... a clear message naming actor, verb and the roles that may do it,
    # exit code 4 ..., nothing appended".
    assert run("init", "--actor", "ann").exit_code == 0
    assert run("grant-role", "tom", "tournament_director", "--actor", "ann").exit_code == 0
    before = log_json(run)
    result = run("withdraw", "ANY", "--reason", "x", "--actor", "tom")
    assert result.exit_code == 4
    assert result.stderr == (
        "error: 'tom' may not withdraw: it takes one of the roles director, ratings_admin "
        "('tom' holds tournament_director)\n"
    )
    result = run("grant-role", "tom", "director", "--actor", "tom")
    assert (result.exit_code, result.stderr.count("\n")) == (4, 1)
    assert "'tom' may not grant-role: it takes the role director" in result.stderr
    assert log_json(run) == before


def test_the_command_line_grants_and_revokes_roles_and_refuses_a_second_init(
    run: Callable[..., Result],
) -> None:
    # Issue: "New verbs `grant-role ACTOR ROLE --actor WHO` and `revoke-role ACTOR ROLE --actor
    # WHO`"; "a second `init` on an initialized ledger is refused clearly".
    assert run("withdraw", "ANY", "--reason", "x", "--actor", "ann").exit_code == 4
    assert run("init", "--actor", "ann").exit_code == 0
    result = run("grant-role", "ola", "ratings_admin", "--actor", "ann")
    recorded, receipt, checkpoint = result.stdout.splitlines()
    assert recorded == "recorded RoleGranted at position 3: holder=ola role=ratings_admin"
    assert receipt.startswith("receipt ") and receipt.endswith("@3")
    assert checkpoint.startswith("checkpoint 3 ")  # the tree of 3 entries the grant signed
    result = run("revoke-role", "ola", "ratings_admin", "--actor", "ann")
    assert result.stdout.splitlines()[0] == (
        "recorded RoleRevoked at position 4: holder=ola role=ratings_admin"
    )
    before = log_json(run)
    for args, code, line in (
        (("init", "--actor", "bob"), 2, "error: the ledger is already initialized"),
        (("grant-role", "ola", "admin", "--actor", "ann"), 2, "error: role: 'admin' is not one"),
        (("revoke-role", "ann", "director", "--actor", "ann"), 2, "error: role: 'ann' is the"),
        (("revoke-role", "ola", "ratings_admin", "--actor", "ola"), 4, "error: 'ola' may not"),
    ):
        result = run(*args)
        assert (result.exit_code, result.stderr.count("\n")) == (code, 1)
        assert result.stderr.startswith(line)
    assert log_json(run) == before
