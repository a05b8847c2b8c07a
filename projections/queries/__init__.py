"""The read side's front door: every read of the read model, one named function each.

The command line, the web page, the exports and `explain` all read through here (`queries.NAME`;
each function lives in the module of its concern below and is re-exported here); the only other
SQL against the read model is the projector's own bookkeeping. The rules and the projector's
modules are imported by the functions that need them: a `player` query on a read model already
up to date imports nothing else (issue 21, ledger/entrypoints/quick.py).
"""

from projections.queries.history import (
    history,
    history_row,
    previous_change,
    rating_as_of,
    ratings_as_of,
    row_as_of,
    standing_before,
    systems_of,
)
from projections.queries.known import NotRecorded, history_known_at, rating_known_at, recorded
from projections.queries.lists import (
    list_entries,
    list_rating,
    list_supplement,
    list_systems,
    list_unrated,
    published_and_pending,
    published_list,
    published_lists,
    rates_by_lists,
    supplement,
)
from projections.queries.players import (
    card,
    cards,
    current_ratings,
    merged_card,
    merges,
    names,
    person,
    player,
    player_card,
    player_reads,
    profile_position,
    profiles,
    records_of,
    survivor,
)
from projections.queries.records import (
    amendment_rows,
    amendments,
    awaiting_admin,
    item,
    items_in_order,
    problems,
    uploads_awaiting_review,
)
from projections.queries.search import search_players
from projections.queries.sections import (
    played_sections,
    player_sections,
    section_changes,
    section_record,
    section_report,
    section_status,
    sections,
)

__all__ = [
    "amendment_rows",
    "amendments",
    "awaiting_admin",
    "uploads_awaiting_review",
    "card",
    "cards",
    "current_ratings",
    "history",
    "history_known_at",
    "history_row",
    "item",
    "items_in_order",
    "list_entries",
    "list_rating",
    "list_supplement",
    "list_systems",
    "list_unrated",
    "merges",
    "names",
    "person",
    "player",
    "player_card",
    "player_reads",
    "played_sections",
    "merged_card",
    "player_sections",
    "recorded",
    "records_of",
    "previous_change",
    "problems",
    "profile_position",
    "profiles",
    "published_and_pending",
    "published_list",
    "published_lists",
    "rates_by_lists",
    "NotRecorded",
    "rating_as_of",
    "rating_known_at",
    "ratings_as_of",
    "row_as_of",
    "search_players",
    "section_changes",
    "section_record",
    "section_report",
    "section_status",
    "sections",
    "standing_before",
    "supplement",
    "survivor",
    "systems_of",
]
