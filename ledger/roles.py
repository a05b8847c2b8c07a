"""Who may write what: the roles recorded in the ledger and, as data, the verbs each may use."""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum
from typing import Any

from ledger import events
from ledger.errors import AccessDenied, InvalidCommand


class Role(StrEnum):
    DIRECTOR = "director"
    RATINGS_ADMIN = "ratings_admin"
    TOURNAMENT_DIRECTOR = "tournament_director"
    AUDITOR = "auditor"


class Verb(StrEnum):
    """The ledger's write verbs, named as on the command line (`init` needs no role)."""

    REGISTER = "register"
    OPENING_BALANCE = "opening-balance"
    SUBMIT = "submit"
    CORRECT = "correct"
    WITHDRAW = "withdraw"
    REINSTATE = "reinstate"
    REVIEW = "review"
    FIDE_ADJUST = "fide-adjust"
    FIDE_UPLIFT = "fide-uplift"
    AWARD_MONEY_FLOOR = "award-money-floor"
    MATCH = "match"
    OVERRIDE = "override"
    REVOKE_OVERRIDE = "revoke-override"
    AMEND_RULES = "amend-rules"
    PUBLISH_LIST = "publish-list"
    VOID = "void"
    SET_ASIDE = "set-aside"
    MERGE_PLAYERS = "merge-players"
    GRANT_ROLE = "grant-role"
    REVOKE_ROLE = "revoke-role"
    SET_FAMILY = "set-family"


D, RA, TD = Role.DIRECTOR, Role.RATINGS_ADMIN, Role.TOURNAMENT_DIRECTOR

MAY: dict[Verb, tuple[Role, ...]] = {
    Verb.REGISTER: (D, RA, TD),
    Verb.OPENING_BALANCE: (D, RA),
    Verb.SUBMIT: (D, RA, TD),  # the office imports the reports TDs send (issue 20)
    Verb.CORRECT: (D, RA),
    Verb.WITHDRAW: (D, RA),
    Verb.REINSTATE: (D, RA),
    Verb.REVIEW: (D, RA),  # the office's review of a TD's upload (issue 32)
    Verb.FIDE_ADJUST: (D, RA),
    Verb.FIDE_UPLIFT: (D,),
    Verb.AWARD_MONEY_FLOOR: (D,),
    Verb.MATCH: (D, TD),
    Verb.OVERRIDE: (D,),
    Verb.REVOKE_OVERRIDE: (D,),
    Verb.AMEND_RULES: (D,),
    Verb.PUBLISH_LIST: (D, RA),
    Verb.VOID: (D,),
    Verb.SET_ASIDE: (D,),  # entries that fail verification, set aside (issue 28)
    Verb.MERGE_PLAYERS: (D, RA),  # the office joins records, as it corrects sections
    Verb.GRANT_ROLE: (D,),
    Verb.REVOKE_ROLE: (D,),
    Verb.SET_FAMILY: (D,),  # the ledger's federation, the family read by default (issue 30)
}
"""The roles that may use each write verb; an auditor may use none (reading needs no role)."""


OFFICE: tuple[Role, ...] = (D, RA)
"""The ratings office (issue 32): a section one of them submits needs no review; one submitted
by an actor holding neither role at that position waits in `requests` for the office's
`review` (projections/uploads.py)."""


PROFILE_KINDS = ("PlayerRegistered", "PlayerProfileUpdated")
"""The kinds that set a player's profile (on his record, `domain.player_key(member_id)`)."""
RATING_FIELDS = (
    "birth_date",
    "birth_year",
    "adult",
    "fide",
    "cfc",
    "fide_id",
    "federation",
    "reported_rating",
    "fide_k",
    "fide_reached_2400",
    "playing_since",
    "fide_adjustment_opt_in",
    "membership_expires",
)
"""The profile fields (ledger/events.py `PlayerRegistered`) a registered player's ratings
follow from (issue 28): his age, the published ratings and ids he is rated from, his
federation, FIDE adjustment and membership. Changing one once he is registered is the
office's (`RATING_FIELDS_MAY`); a tournament director's `register` may change only the others
(name, title, sex, club)."""
RATING_FIELDS_MAY: tuple[Role, ...] = (D, RA)
"""Who may change a registered player's rating fields through `register`: a correction by
another door is the office's, as corrections are (issue 28)."""


RECORDED_BY: dict[str, Verb] = {
    name: Verb(kind.verb) for name, kind in events.KINDS.items() if kind.verb is not None
}
"""The verb each kind of entry records (declared with the kind in ledger/events.py): its signer
must have held a role that may use it at that position (checked from the log itself on every
read, `ledger.evidence.signing.Verifier`)."""


def lacks_authority(kind: str, held: Collection[str], changed: Collection[str] = ()) -> str | None:
    """Why an entry of `kind` signed by a holder of `held` was not theirs to record (None: it
    was). `changed`: the rating fields a profile change changes (`may_change_rating_fields`).
    `LedgerInitialized` is checked where it stands (only as the ledger's first write)."""
    verb = RECORDED_BY.get(kind)
    if verb is None:
        return f"{kind} is not a kind of entry this ledger records"
    holds = ", ".join(sorted(held)) or "no role"
    if not any(role in held for role in MAY[verb]):
        return f"{verb} takes {' or '.join(MAY[verb])}, and its signer held {holds} there"
    if kind in PROFILE_KINDS and changed and not may_change_rating_fields(held):
        return (
            f"it changes a registered player's {', '.join(changed)}, which takes "
            f"{' or '.join(RATING_FIELDS_MAY)}, and its signer held {holds} there"
        )
    return None


def may_change_rating_fields(held: Collection[str]) -> bool:
    """Whether a holder of `held` may change a registered player's rating fields."""
    return any(role in held for role in RATING_FIELDS_MAY)


def rating_fields_changed(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """The rating fields (`RATING_FIELDS`) whose values differ between two profiles
    (`before` None: none known, so every one `after` gives counts)."""
    before = before or {}
    return [f for f in RATING_FIELDS if before.get(f) != after.get(f)]


class NotInitialized(AccessDenied):
    """A write to a ledger that was never initialized: no one holds a role yet."""

    def __init__(self) -> None:
        super().__init__(
            "this ledger has no roles yet: run `ratings-ledger init --actor NAME` first "
            "(NAME becomes its director)"
        )


def authorize(held: Collection[str], actor: str, verb: Verb) -> None:
    """Refuse `verb` to `actor`, who holds the roles `held`, unless one of them may use it."""
    allowed = MAY[verb]
    if any(role in held for role in allowed):
        return
    names = ", ".join(allowed)
    needs = f"the role {names}" if len(allowed) == 1 else f"one of the roles {names}"
    holds = ", ".join(sorted(held)) or "no role"
    raise AccessDenied(f"{actor!r} may not {verb}: it takes {needs} ({actor!r} holds {holds})")


def parse_role(value: object) -> Role:
    """A role named in a grant or revocation."""
    if isinstance(value, str):
        try:
            return Role(value)
        except ValueError:
            pass
    raise InvalidCommand(("role",), f"{value!r} is not one of {', '.join(Role)}")


def parse_holder(value: object) -> str:
    """The actor a role is granted to or revoked from: a name like any actor's."""
    try:
        from ledger import commands

        return commands.actor(value)
    except InvalidCommand as exc:
        raise InvalidCommand(("holder", *exc.path[1:]), exc.message) from None
