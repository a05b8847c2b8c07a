"""The write door's JSON (issue 32) as pydantic models: the body a writer posts, the head it
signs at and the door's answers. The door validates a posted write with `Write` (one place for
its shape), `RemoteRecorder` sends what these describe, and the OpenAPI document
(`ledger/entrypoints/web/openapi.py`) is written from them.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

HEX = r"^([0-9a-f]{2})*$"
BASE64 = r"^[A-Za-z0-9+/]*={0,2}$"


class Wire(BaseModel):
    """A door's JSON object: fields as declared, none other."""

    model_config = ConfigDict(extra="forbid")


class StoredEntry(Wire):
    """One stored entry as the ledger keeps it: its record, version, fact kind (topic) and
    state (the stored JSON's bytes, base64)."""

    originator_id: str = Field(description="the record's id (a UUID)")
    originator_version: int
    topic: str
    state: Annotated[str, Field(pattern=BASE64, description="the stored bytes, base64")]


class PositionedEntry(StoredEntry):
    """A stored entry with the position the ledger gave it."""

    id: int


class SignedCheckpoint(Wire):
    """The checkpoint a write makes (what its writer signs): the tree's size and Merkle root
    after the write's entries, and its last position."""

    size: int
    root: Annotated[str, Field(pattern=HEX)]
    position: int


class Write(Wire):
    """`POST /api/v1/writes`: entries signed on the writer's machine with the actor's key,
    over the checkpoint they make at `head` (`ledger.evidence.remote.checkpoint_after`)."""

    ledger: str = Field(description="the identity of the ledger the write is signed for")
    actor: str = Field(description="the signer: every entry's actor")
    head: int = Field(description="the position of the head the write was decided at")
    checkpoint: SignedCheckpoint
    signature: Annotated[str, Field(pattern=HEX, description="Ed25519 over the checkpoint")]
    events: list[StoredEntry]


class WriteHead(Wire):
    """`GET /api/v1/writes/head`: what a writer signs at: the ledger's identity, the last
    position, the next one, the tree (size and frontier) before it, and the keys and roles
    the signed log holds there (`end`: the position they are held at)."""

    ledger: str
    position: int
    next: int
    size: int
    frontier: list[Annotated[str, Field(pattern=HEX)]]
    end: int
    keys: dict[str, str] = Field(description="each actor's public key, hex")
    roles: dict[str, list[str]]


class Written(Wire):
    """A write appended: its entries' positions, the new head's link and position, and its
    ratings report when the door could make one (projections/consequences.py)."""

    positions: list[int]
    link: str
    position: int
    report: dict[str, Any] | None = Field(
        default=None, description="the ratings report the command line prints after a write"
    )


class Events(Wire):
    """`GET /api/v1/writes/records/{record}`: a record's stored entries."""

    events: list[StoredEntry]


class Entries(Wire):
    """`GET /api/v1/writes/entries`: stored entries by position."""

    entries: list[PositionedEntry]


class ChainRow(Wire):
    """One row of the ledger's chain table as stored: a position, its link and the write's
    signature there (empty inside a write). Not trusted: a reader recomputes the links and
    checks the signatures over the Merkle roots it computes from the entries."""

    position: int
    link: str
    signature: str


class LogPage(Wire):
    """`GET /api/v1/writes/log?after=&upto=`: the log as stored, for a reader to verify on its
    own machine: the entries after `after` (at most 1000, up to `upto`) and the chain rows of
    the positions they cover (after `after`, up to `covered`)."""

    entries: list[PositionedEntry]
    chain: list[ChainRow]
    covered: int = Field(description="the last position this page covers: the next's `after`")
