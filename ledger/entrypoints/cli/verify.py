"""`ratings-ledger verify` and `anchor`: recompute the hash chain and check every signature
(exit 1 at the first broken position); sign the head for an auditor to keep."""

from __future__ import annotations

import json
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ledger.entrypoints.cli.common import (
    AsJson,
    Family,
    Store,
    fail,
    print_json,
    reported,
    rules_family,
)
from ledger.errors import InvalidCommand
from ledger.inputs import read_text
from ledger.roles import Role
from ledger.store import DEFAULT_STORE, view_path

if TYPE_CHECKING:
    from ledger.evidence import Head, Verification

ANCHOR = "ratings-ledger anchor 1"


def register(app: typer.Typer) -> None:
    """Add `verify` and `anchor` to the `ratings-ledger` app."""
    app.command("verify")(verify_chain)
    app.command("anchor")(anchor)


def verify_chain(
    digest: Annotated[
        bool, typer.Option("--digest", help="Print only the head as DIGEST@POS, to record")
    ] = False,
    expect: Annotated[
        str | None,
        typer.Option(help="A receipt or head recorded earlier (DIGEST@POS): still held?"),
    ] = None,
    anchor_file: Annotated[
        Path | None,
        typer.Option("--anchor", help="A signed head from `anchor`: catches a deleted tail"),
    ] = None,
    store: Store = DEFAULT_STORE,
    as_json: AsJson = False,
    view: Annotated[
        bool,
        typer.Option("--view", help="Also rebuild the read model apart and compare digests"),
    ] = False,
    view_file: Annotated[
        Path | None,
        typer.Option(
            "--view-file", envvar="RATINGS_LEDGER_VIEW", help="The read model (default beside)"
        ),
    ] = None,
    family: Family = None,
) -> None:
    """Recompute the ledger's SHA-256 chain and check every entry's signature against the key
    its actor held then; print the head digest (exit 0) or the first broken position (exit 1).
    Reads only: it never writes, and read-only credentials suffice. With --view, also the read
    model: rebuilt into a temporary file, it must match."""
    from ledger.evidence import verify
    from ledger.evidence.chain import parse_expected
    from ledger.evidence.reads import link_at
    from ledger.reading import open_ledger

    with reported():
        try:
            expected = parse_expected(expect) if expect is not None else None
        except ValueError as exc:
            fail(2, str(exc))
        anchored = _read_anchor(anchor_file) if anchor_file is not None else None
        with closing(open_ledger(store)) as ledger:
            found = verify(ledger, keys_at=anchored["position"] if anchored else 0)
            recorded = link_at(ledger, expected.position) if expected else None
            at_anchor = link_at(ledger, anchored["position"]) if anchored else None
    if found.broken is not None:
        fail(1, f"chain broken at position {found.broken.position}: {found.broken.reason}")
    if expected is not None and recorded != expected.digest:
        held = f"holds {recorded}" if recorded else "has no entry there"
        fail(1, f"expected {expected} but the chain {held}; the ledger was rewritten")
    if anchored is not None:
        _check_anchor(anchored, found, at_anchor)
    if view:
        verify_view(store, view_file, rules_family(store, family))
    _report(found, expected, anchored, as_json, digest)


def _report(
    found: Verification,
    expected: Head | None,
    anchored: dict[str, Any] | None,
    as_json: bool,
    digest: bool,
) -> None:
    """What `verify` prints of an intact ledger: JSON, the head alone, or its lines (with the
    entries a director set aside, each named)."""
    if as_json:
        print_json(
            {
                "intact": True,
                "entries": found.entries,
                "head": str(found.head),
                "matches": None if expected is None else str(expected),
                "anchor": None if anchored is None else anchored["position"],
                "set_aside": [
                    {"position": p, **vars(n)} for p, n in sorted(found.set_aside.items())
                ],
            }
        )
        return
    if digest:
        typer.echo(str(found.head))
        return
    checked = f", matches {expected}" if expected else ""
    checked += f", holds the anchor at {anchored['position']}" if anchored else ""
    aside = len(found.set_aside)
    but = f" but the {aside} set aside" if aside else ""
    typer.echo(
        f"chain intact, every signature checks{but}: {found.entries} entries, "
        f"head {found.head}{checked}"
    )
    for position, note in sorted(found.set_aside.items()):
        typer.echo(
            f"set aside: entry {position}, by {note.actor!r} at position {note.by_position}: "
            f"{note.reason}"
        )


def anchor(
    actor: Annotated[str, typer.Option(help="The director who signs the head (their key)")],
    store: Store = DEFAULT_STORE,
) -> None:
    """Print the head, verified and signed by a director, as a small JSON document for an
    auditor to keep outside the database (`verify --anchor FILE` checks the ledger against it).
    """
    from ledger.evidence import Keyring, verify
    from ledger.evidence.signing import KeyRefused, public_text
    from ledger.reading import open_ledger

    with reported(), closing(open_ledger(store)) as ledger:
        found = verify(ledger, keys_at=ledger.recorder.max_notification_id() or 0)
        if found.broken is not None:
            fail(1, f"chain broken at position {found.broken.position}: {found.broken.reason}")
        keyring = Keyring()
        key = keyring.private_key(actor)
        if Role.DIRECTOR not in found.roles.get(actor, ()):
            raise KeyRefused(f"{actor!r} is not a director of this ledger; a director anchors")
        if key is None or found.keys.get(actor) != public_text(key):
            raise KeyRefused(
                f"the keyring {keyring.path} has not the key the ledger holds for {actor!r}"
            )
        document: dict[str, Any] = {
            "anchor": ANCHOR,
            "position": found.head.position,
            "digest": found.head.digest,
            "entries": found.entries,
            "actor": actor,
            "public_key": public_text(key),
            "signed_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        document["signature"] = key.sign(_signed_part(document)).hex()
    typer.echo(json.dumps(document, indent=2))


def _signed_part(document: dict[str, Any]) -> bytes:
    """What an anchor's signature covers: its other fields as sorted, compact JSON."""
    fields = {k: v for k, v in document.items() if k != "signature"}
    return json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()


def _read_anchor(path: Path) -> dict[str, Any]:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        document = json.loads(read_text(path, "json"))
        if not isinstance(document, dict) or document.get("anchor") != ANCHOR:
            raise ValueError("not an anchor from `ratings-ledger anchor`")
        if not isinstance(document.get("position"), int) or document["position"] < 1:
            raise ValueError("its position is not a positive number")
        signature = bytes.fromhex(document["signature"])
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(document["public_key"]))
    except InvalidCommand as exc:
        fail(2, f"--anchor {exc.message}")
    except (ValueError, KeyError, TypeError) as exc:
        fail(2, f"--anchor {path}: {exc}")
    try:
        public.verify(signature, _signed_part(document))
    except InvalidSignature:
        fail(1, f"--anchor {path}: its signature does not check (the anchor was altered)")
    return document


def _check_anchor(anchored: dict[str, Any], found: Verification, held: str | None) -> None:
    """The anchor's position still holds its digest, and was signed by a director's key the
    ledger held there."""
    position, actor = anchored["position"], anchored["actor"]
    if found.head.position < position:
        fail(
            1,
            f"the ledger ends at position {found.head.position} but the anchor holds position "
            f"{position}: entries were deleted from its tail",
        )
    if held != anchored["digest"]:
        fail(1, f"the anchor holds {anchored['digest']}@{position} but the chain holds {held}")
    if found.keys.get(actor) != anchored["public_key"] or Role.DIRECTOR not in found.roles.get(
        actor, ()
    ):
        fail(1, f"the anchor's key is not the key of a director {actor!r} at position {position}")


def verify_view(store: str, path: Path | None, family: str) -> None:
    """Exit 1 with one line unless the read model equals its rebuild from the ledger."""
    from projections.seals import Seals
    from projections.session import ReadSession
    from projections.timetravel import checkpoints

    path = view_path(store, path, family)
    if not path.is_file():
        fail(1, f"no read model at {path}")
    with reported():
        try:
            session = ReadSession.open(store, path, family)
        except ValueError as exc:
            fail(2, str(exc))
        with closing(session):
            position, kept, rebuilt = session.digests()
            found = checkpoints(session.view, position)
            refused = Seals(session.ledger).refused(found, session.view.kind)
    if kept != rebuilt:
        fail(
            1,
            f"the read model {path} differs from its rebuild at position "
            f"{position} (digest {kept[:16]}…, rebuilt {rebuilt[:16]}…): rebuild it",
        )
    if refused:
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        fail(1, f"{refused[0]}{more}: no read uses it; remove it, or rebuild the read model")
    unchecked = f" ({len(found)} checkpoint files not checked: no seal secret here)"
    said = unchecked if refused is None and found else ""
    typer.echo(f"read model {path} matches its rebuild at position {position}: {kept}{said}")
