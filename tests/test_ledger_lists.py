"""Published rating lists: ListPublished records a family's list, its as-of date and cutoff."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.entrypoints.cli.writes import register
from ledger.errors import AccessDenied, InvalidCommand
from ledger.rules.rating_lists import RatingList

SET_UP_ENTRIES = 4  # the `ledger` fixture: LedgerInitialized and three RoleGranted


def publication(**changes: Any) -> PublishList:
    return parse(
        PublishList, {"family": "fide", "name": "2003-07", "as_of": "2003-07-01", **changes}
    )


def last_position(ledger: RatingsLedger) -> int:
    return ledger.recorder.max_notification_id() or 0


@pytest.mark.parametrize("actor", ["director", "office"])
def test_a_director_or_ratings_admin_records_a_published_list(
    ledger: RatingsLedger, actor: str
) -> None:
    # Brief: "a director or ratings_admin records that a federation published a rating list:
    # which family, its name, its as-of date, and the ledger position up to which it takes
    # items (default: the ledger's current last position at the time of the write)".
    [entry] = ledger.lists.publish(publication(), actor=actor)
    assert (entry.type, entry.position, entry.actor) == ("ListPublished", 5, actor)
    assert entry.payload == {
        "family": "fide",
        "number": 1,
        "list_name": "2003-07",
        "as_of": "2003-07-01",
        "cutoff_position": SET_UP_ENTRIES,
    }
    assert ledger.lists.published("fide") == [RatingList("2003-07", date(2003, 7, 1), 4)]


def test_lists_are_numbered_and_returned_in_the_order_published(ledger: RatingsLedger) -> None:
    ledger.lists.publish(
        publication(name="2003-01", as_of="2003-01-01", cutoff_position=2), actor="office"
    )
    [second] = ledger.lists.publish(publication(cutoff_position=2), actor="office")
    [third] = ledger.lists.publish(publication(name="2004-01", as_of="2004-01-01"), actor="office")
    assert (second.payload["number"], third.payload["number"]) == (2, 3)
    assert third.payload["cutoff_position"] == 6  # the last position when it was recorded
    assert ledger.lists.published("fide") == [
        RatingList("2003-01", date(2003, 1, 1), 2),
        RatingList("2003-07", date(2003, 7, 1), 2),
        RatingList("2004-01", date(2004, 1, 1), 6),
    ]


def test_each_family_orders_and_names_its_own_lists(ledger: RatingsLedger) -> None:
    # Brief: names are "unique per family"; "Lists within a family are published in order".
    ledger.lists.publish(publication(), actor="director")
    ledger.lists.publish(
        publication(family="icu", as_of="2001-01-01", cutoff_position=0), actor="director"
    )
    assert ledger.lists.published("icu") == [RatingList("2003-07", date(2001, 1, 1), 0)]
    assert [x.name for x in ledger.lists.published("fide")] == ["2003-07"]
    assert ledger.lists.published("uschess") == []


def test_a_list_may_share_the_as_of_date_and_cutoff_of_the_latest(ledger: RatingsLedger) -> None:
    # Brief: refused only if "earlier than the family's latest list" or the cutoff "lower".
    ledger.lists.publish(publication(name="standard", cutoff_position=3), actor="office")
    ledger.lists.publish(publication(name="rapid", cutoff_position=3), actor="office")
    assert [x.name for x in ledger.lists.published("fide")] == ["standard", "rapid"]


@pytest.mark.parametrize(
    ("earlier", "later", "message"),
    [
        ({}, {}, "name: fide already has a list '2003-07'"),
        (
            {},
            {"name": "2003-01", "as_of": "2003-01-01"},
            "as_of: 2003-01-01 is before 2003-07-01, the as-of date of the latest fide list "
            "'2003-07'",
        ),
        (
            {"cutoff_position": 3},
            {"name": "2004-01", "as_of": "2004-01-01", "cutoff_position": 2},
            "cutoff_position: 2 is below 3, the cutoff of the latest fide list '2003-07'",
        ),
        ({}, {"name": "2004-01", "cutoff_position": 6}, "cutoff_position: 6 is beyond the"),
    ],
)
def test_a_list_out_of_order_or_named_twice_is_refused_and_nothing_appended(
    ledger: RatingsLedger, earlier: dict[str, Any], later: dict[str, Any], message: str
) -> None:
    ledger.lists.publish(publication(**earlier), actor="office")
    before = last_position(ledger)
    with pytest.raises(InvalidCommand) as refused:
        ledger.lists.publish(publication(**later), actor="office")
    assert str(refused.value).startswith(message)
    assert last_position(ledger) == before
    assert len(ledger.lists.published("fide")) == 1


def test_a_cutoff_beyond_the_last_position_is_refused_on_an_empty_family(
    ledger: RatingsLedger,
) -> None:
    with pytest.raises(InvalidCommand, match="cutoff_position: 5 is beyond the ledger's last"):
        ledger.lists.publish(publication(cutoff_position=5), actor="office")
    assert last_position(ledger) == SET_UP_ENTRIES


def test_a_publication_that_loses_a_race_is_decided_again_against_the_winner(
    store_url: str, ledger: RatingsLedger
) -> None:
    # Decision: lists are numbered per family, so two writers publishing at once both take
    # number n+1; the loser's save fails and it decides again, seeing the winner's list.
    rival = RatingsLedger(store_url)
    real, calls = rival.lists.published, []

    def stale_once(family: str) -> list[RatingList]:
        calls.append(family)
        return [] if len(calls) == 1 else real(family)  # decided before the winner saved

    rival.lists.published = stale_once  # type: ignore[method-assign]
    try:
        ledger.lists.publish(publication(name="2004-01", as_of="2004-01-01"), actor="office")
        with pytest.raises(InvalidCommand, match="as_of: 2003-07-01 is before 2004-01-01"):
            rival.lists.publish(publication(), actor="office")
    finally:
        rival.close()
    assert len(calls) == 2
    assert [x.name for x in ledger.lists.published("fide")] == ["2004-01"]


@pytest.mark.parametrize("actor", ["td", "nobody"])
def test_only_a_director_or_ratings_admin_may_publish_a_list(
    ledger: RatingsLedger, actor: str
) -> None:
    with pytest.raises(AccessDenied, match=f"'{actor}' may not publish-list"):
        ledger.lists.publish(publication(), actor=actor)
    assert last_position(ledger) == SET_UP_ENTRIES


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"family": "elo"}, "family: 'elo' is not one of uschess, fide, icu"),
        ({"as_of": "2003-02-30"}, "as_of: '2003-02-30' is not a date (YYYY-MM-DD)"),
        ({"as_of": "1 July 2003"}, "as_of: '1 July 2003' is not a date (YYYY-MM-DD)"),
        ({"name": " "}, "name: must not be empty"),
        ({"cutoff_position": -1}, "cutoff_position: -1: input should be greater than or equal"),
        ({"cutoff_position": "4"}, "cutoff_position: '4': input should be a valid integer"),
        ({"ratings": {"x": 2300}}, "ratings: is not a known field"),
    ],
)
def test_a_malformed_publication_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidCommand) as refused:
        publication(**changes)
    assert str(refused.value).startswith(message)


@pytest.fixture
def cli(store_url: str, ledger: RatingsLedger):
    """Run `ratings-ledger ARGS --store STORE` on the `ledger` fixture's store."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    runner = CliRunner()
    return lambda *args: runner.invoke(app, [*args, "--store", store_url])


PUBLISH = ("publish-list", "--family", "fide", "--name", "2003-07", "--as-of", "2003-07-01")


def test_publish_list_on_the_command_line_shows_in_the_log(cli) -> None:
    # Brief: "The event in `log` output and `log --json` like the other events."
    result = cli(*PUBLISH, "--cutoff-position", "3", "--actor", "office")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == (
        "recorded ListPublished at position 5: family=fide list_name=2003-07"
    )
    assert result.stdout.splitlines()[1].startswith("receipt ")
    # Issue 18: "a published list also commits its ratings": the commitment follows it
    assert "recorded ListRatingsCommitted at position 6" in result.stdout
    published, committed = (x.split() for x in cli("log").stdout.splitlines()[-2:])
    assert (published[0], published[2], published[3], published[4:]) == (
        "5",
        "ListPublished",
        "office",
        ["family=fide", "list_name=2003-07"],
    )
    assert committed[:4:2] == ["6", "ListRatingsCommitted"] and committed[3] == "office"
    entry = json.loads(cli("log", "--json").stdout)[-2]
    assert (entry["type"], entry["actor"], entry["payload"]) == (
        "ListPublished",
        "office",
        {
            "family": "fide",
            "number": 1,
            "list_name": "2003-07",
            "as_of": "2003-07-01",
            "cutoff_position": 3,
        },
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--family", "elo"), 2, "error: family: 'elo' is not one of uschess, fide, icu"),
        (("--as-of", "2004-7-1"), 2, "error: as_of: '2004-7-1' is not a date (YYYY-MM-DD)"),
        (("--cutoff-position", "x"), 2, "error: cutoff_position: 'x': input should be a valid"),
        (("--cutoff-position", "99"), 2, "error: cutoff_position: 99 is beyond the ledger's"),
        (("--as-of", "2003-07-01"), 2, "error: as_of: 2003-07-01 is before 2004-01-01, the"),
        (("--name", "2004-01"), 2, "error: name: fide already has a list '2004-01'"),
        (("--actor", "td"), 4, "error: 'td' may not publish-list: it takes one of the roles"),
    ],
)
def test_a_refused_publication_exits_with_one_line_and_appends_nothing(
    cli, args: tuple[str, ...], code: int, message: str
) -> None:
    # Brief: "a refused write exits 2 with one line naming the field and value, nothing
    # appended" (4 for a role that may not write).
    first = ("publish-list", "--family", "fide", "--name", "2004-01", "--as-of", "2004-01-01")
    assert cli(*first, "--actor", "director").exit_code == 0
    before = len(json.loads(cli("log", "--json").stdout))
    options = {"--family": "fide", "--name": "2004-07", "--as-of": "2004-07-01"}
    options["--actor"] = "director"
    options.update(zip(args[::2], args[1::2], strict=True))
    result = cli("publish-list", *(x for kv in options.items() for x in kv))
    assert result.exit_code == code
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert len(json.loads(cli("log", "--json").stdout)) == before
