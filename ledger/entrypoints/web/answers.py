"""Every JSON answer of the site's API (`/api/v1/...`, issue 32), as the pydantic models the
pages build their twins with: a page's data is validated into its model here and written from
it, and `openapi.py` documents the same models (docs/openapi.json).

A model declares its fields in the order the page has always written them (the answer's bytes
are unchanged); a field a page writes only sometimes has a default and is left out when the
page did not set it (`dump`). A row whose columns are its family's (a ratings row, a history
row, an explanation's steps) declares the columns every family has and allows the family's
own after them (`FamilyColumns`). Numbers are written as the read model holds them (an integer
stays one: `Number`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from ledger.evidence.remote import PROBLEM
from projections.queries.search import MATCHES

# A number as stored: an integer is kept an integer (pydantic's `float` would write 5 as 5.0).
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
Json = Annotated[Any, WithJsonSchema({})]  # any JSON value (a stored payload or detail)
# A site error's kind (its problem's type, after `PROBLEM`), by its status.
SITE_KINDS = {400: "bad-input", 404: "not-found", 405: "method", 414: "too-long", 500: "fault",
              503: "store"}  # fmt: skip
# The write door's own kinds besides those (web/writes.py; `remote.refusal` reads them back).
DOOR_KINDS = ("head-moved", "conflict", "roles", "store-says", "length", "too-large",
              "rate-limited")  # fmt: skip


class Answer(BaseModel):
    """A JSON answer: fields as declared, none other."""

    model_config = ConfigDict(extra="forbid")


class FamilyColumns(BaseModel):
    """A row with its family's own columns after the ones every family has."""

    model_config = ConfigDict(extra="allow")


class Page(Answer):
    """A page's twin: `ledger_break` (issue 28) where a read stopped at a write that does not
    verify, the one line of `verify` saying where."""

    ledger_break: str | None = Field(
        default=None, description="where the ledger's verified read stopped (issue 28)"
    )


# -- players --------------------------------------------------------------------------------


class Rating(FamilyColumns):
    """A player's ratings row in one system (its family adds its columns: US Chess's floors,
    FIDE's and the ICU's K)."""

    rating: Number | None
    official_rating: int | None
    games: int | None


class Found(Answer):
    id: str
    name: str | None
    match: str = Field(
        description="how the words matched: " + ", ".join(("id", *MATCHES)),
    )
    ratings: dict[str, Rating]


class Search(Page):
    """`/players?q=`: players by member id or name (accents and spellings ignored), a page of
    50 from `offset`."""

    query: str
    offset: int
    total: int
    players: list[Found]


class MergedInto(Answer):
    id: str
    position: int
    reason: str | None
    name: str | None


class Card(Answer):
    name: str | None
    title: str | None
    federation: str | None
    fide_id: str | None
    sex: str | None
    birth_year: int | None
    club: str | None


class Played(FamilyColumns):
    """A section's rating before and after in one system (FIDE: `pending_change`, the ΔR
    summed onto the next list)."""

    before: Number | None
    after: Number | None
    official_after: int | None


class PlayedSection(Answer):
    section_id: str
    event_name: str | None
    start_date: str | None
    end_date: str | None
    score: Number
    games: int
    ratings: dict[str, Played]
    not_rated: str | None = Field(default=None, description="why the section rated him not")


class Player(Page):
    """`/players/{player}`: the player's card, his ratings in each system (as of `as_of`),
    and the sections he played."""

    id: str
    name: str | None = None
    ratings: dict[str, Rating]
    unrated: dict[str, str] | None = Field(
        default=None, description="system → shown unrated by the last list (FIDE 7.2.1)"
    )
    merged_into: MergedInto | None = None
    merged: list[str] | None = None
    as_of: str | None
    position: int | None
    card: Card | None
    sections: list[PlayedSection]


class HistoryRow(FamilyColumns):
    """One change of a player's rating (its family adds its figures and state columns)."""

    item_key: str
    player: str
    system: str
    sort_key: str
    kind: str
    end_date: str
    position: int
    revision: int
    rules: str | None
    formula: str | None
    pre_rating: Number | None
    post_rating: Number | None
    official_rating: int | None
    games_before: int | None
    games_after: int | None
    m: int | None
    score: Number | None
    k: Number | None
    expected: Number | None
    detail: Json


class History(Page):
    """`/players/{player}/history`: every change of his rating in one system."""

    id: str
    system: str | None
    as_of: str | None
    history: list[HistoryRow]


class ExplainedItem(FamilyColumns):
    key: str
    kind: str


class Explanation(FamilyColumns):
    """`/players/{player}/explain`: one change recomputed from the rules' text (the steps
    are the family's: US Chess's `steps`, FIDE's `fide`, the ICU's `values`)."""

    player: str
    system: str
    item: ExplainedItem | None = None
    ledger_break: str | None = None


class ListRating(Answer):
    id: str
    system: str
    list: str
    as_of: str
    rating: Number | None
    official_rating: int | None
    games: int | None
    from_: str | None = Field(alias="from")


class OnList(Page):
    """`/players/{player}/lists/{list}`: what a published list said of him."""

    id: str
    list: str
    ratings: dict[str, ListRating]


class Proof(FamilyColumns):
    """`/players/{player}/lists/{list}/proof?system=`: the proof bundle of his row on a list
    (projections/proofs.py: checked offline by `verify-proof`)."""

    bundle: str
    player: str
    system: str
    family: str
    checkpoint: str
    ledger_break: str | None = None


# -- sections -------------------------------------------------------------------------------


class SectionRow(Answer):
    section_id: str
    event_name: str | None
    start_date: str | None
    end_date: str | None
    status: str | None
    players: int | None


class Home(Page):
    """`/`: the latest sections."""

    latest_sections: list[SectionRow]


class Sections(Page):
    """`/sections`: sections newest first, filtered (`q`, `from`, `to`, `player`)."""

    offset: int
    total: int
    sections: list[SectionRow]


class RatingChange(Answer):
    pre: Number | None
    games_before: int
    post: Number | None
    official: int | None
    games_after: int
    change: Number | None
    k: Number | None
    performance: Number | None
    below: int | None = Field(description="FIDE 7.2.1: the floor that shows him unrated after it")


class CrosstableRow(Answer):
    pair: int
    player: str
    name: str | None
    cells: list[str]
    total: Number
    ratings: dict[str, RatingChange]


class Standing(Answer):
    place: str
    pair: int
    player: str
    title: str | None
    federation: str | None
    total: Number
    performance: dict[str, Number | None]


class Section(Page):
    """`/sections/{section}`: a rated section's crosstable and standings."""

    section_id: str
    event_name: str | None
    start_date: str
    end_date: str
    time_control: str | None
    status: str | None
    family: str
    systems: list[str]
    rows: list[CrosstableRow]
    not_rated: str | None
    unrated: dict[str, str]
    standings: list[Standing]


class Withdrawn(Page):
    """`/sections/{section}` of a section withdrawn from rating: when, by whom and why."""

    section_id: str
    event_name: str | None
    status: str
    start_date: str | None
    end_date: str | None
    submitted_position: int | None
    latest_position: int
    reason: str | None
    withdrawn_by: str | None
    withdrawn_at: str | None


# -- lists ----------------------------------------------------------------------------------


class PublishedList(Answer):
    family: str
    number: int
    name: str
    as_of: str
    cutoff_position: int
    position: int


class FamilyLists(Answer):
    family: str
    federation: str
    address: str | None
    lists: list[PublishedList]


class Lists(Page):
    """`/lists`: every list each family published, newest first."""

    family: str
    lists: list[PublishedList]
    families: list[FamilyLists]


class Member(Answer):
    id: str


class MemberCard(Card, Member):
    """A member id, then his card's fields."""


class ListRow(MemberCard):
    rating: int | None
    exact: Number | None
    games: int | None
    established: bool | None
    earlier_games: str | None = Field(
        default=None, description="FIDE: said of a rating published without a count of games"
    )


class UnratedRow(MemberCard):
    shown: str


class OneList(Page):
    """`/lists/{list}`: a published list in one system, filtered."""

    list_: PublishedList = Field(alias="list")  # `list` would hide the type below
    system: str | None
    systems: list[str]
    filters: dict[str, str]
    total: int
    rows: list[ListRow]
    unrated: list[UnratedRow]


# -- the ledger -----------------------------------------------------------------------------


class Entry(Answer):
    position: int
    type: str
    recorded_at: str
    actor: str | None
    aggregate_id: str
    payload: dict[str, Json]


class Log(Page):
    """`/log`: the ledger's entries newest first, 100 a page (`before`, `after`, `type`,
    `section`)."""

    entries: list[Entry]
    newer: bool
    older: bool
    type: str | None
    section: str | None
    position: int | None


class Problem(Answer):
    position: int
    item_key: str | None
    kind: str | None
    reason: str | None


class Problems(Page):
    """`/problems`: every entry the read model could not use, and why."""

    problems: list[Problem]
    position: int | None


class ProblemDetails(Answer):
    """An error (RFC 9457, `application/problem+json`): `detail` is the one line the CLI and
    the HTML page say."""

    type: str = Field(description=f"`{PROBLEM}` and the error's kind: " + ", ".join(
        sorted({*SITE_KINDS.values(), *DOOR_KINDS})))  # fmt: skip
    title: str = Field(description="the status's phrase")
    status: int
    detail: str


def problem(status: int, title: str, detail: str, kind: str = "") -> ProblemDetails:
    """The one convention of every API error, the site's and the write door's: the type our
    own (`PROBLEM` and a kind: the status's on the site, `SITE_KINDS`; the door names its
    own), the title the status's phrase, the detail the error's one line."""
    return ProblemDetails(
        type=PROBLEM + (kind or SITE_KINDS[status]), title=title, status=status, detail=detail
    )


def dump(answer: BaseModel) -> bytes:
    """An answer's JSON: the fields set, in order, `ledger_break` last (pydantic writes the
    JSON itself, five times faster than a dict of Python values; a value JSON has no type for
    is written as its `str`)."""
    if "ledger_break" not in answer.model_fields_set:
        return answer.model_dump_json(by_alias=True, exclude_unset=True, fallback=str).encode()
    out = answer.model_dump(mode="json", by_alias=True, exclude_unset=True, fallback=str)
    out["ledger_break"] = out.pop("ledger_break")
    return json.dumps(out, ensure_ascii=False).encode()
