"""The API's OpenAPI 3.1 document (issue 32), written from the page table (`routes.py`), the
models of its answers (`answers.py`) and the write commands' models (`ledger/commands.py`):
served at `/api/v1/openapi.json`, checked in at docs/openapi.json (`ratings-ledger openapi`
writes it; tests/test_api.py fails when the two differ).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from ledger import commands
from ledger.door import Command
from ledger.entrypoints.web import answers
from ledger.entrypoints.web.render import API
from ledger.entrypoints.web.routes import ROUTES, WHEN, Param, Route
from ledger.evidence import wire
from ledger.rules.families import NAMES

DOCUMENT = "openapi.json"  # its name under `API`
VERSION = "1"  # the API's version: `API` ends with it
REF = "#/components/schemas/{model}"
ERRORS = {
    "400": "a parameter that is not one the page takes",
    "404": "no such page, record or family",
    "414": "a query string over its size limit (ledger/bounds.py INPUT_LIMITS)",
    "500": "a fault of the site",
    "503": "the ledger or read model cannot be read now (Retry-After when busy)",
}
# The write door's refusals (`serve --writes`, web/writes.py), by the kind in their type.
DOOR_ERRORS = {
    "400": "bad-input: a body or parameter that cannot be read, or refused by the rules",
    "403": "roles: the actor's key or roles do not allow the write",
    "404": "not-found or store-says: no such door path or record",
    "409": "head-moved (decide the write again at the new head) or conflict",
    "411": "length: a write states its Content-Length",
    "413": "too-large: a body over the door's limit",
    "429": "rate-limited: too many writes with this key (Retry-After)",
    "500": "fault: a fault of the server",
    "503": "store: the store cannot be used now",
}
DOOR_PARAMS = {
    "records": [Param(n, d, integer=True) for n, d in (
        ("gt", "versions after this one"), ("lte", "versions up to this one"),
        ("desc", "1: newest first"), ("limit", "at most this many"))],
    "entries": [Param(n, d, integer=n != "topic") for n, d in (
        ("start", "the first position"), ("limit", "at most this many (at most 1000)"),
        ("stop", "the last position"), ("topic", "only this fact kind (repeatable)"),
        ("inclusive", "0: after `start`, not from it"))],
    "log": [Param(n, d, integer=True) for n, d in (
        ("after", "the position the page starts after (0: the first entry)"),
        ("upto", "the last position to read (default: the head)"))],
}  # fmt: skip
DESCRIPTION = """The read API of a ratings ledger: every page of the site as JSON.

Versioning: every path here is under `/api/v1`. Within v1 an answer only gains fields (a
client must ignore a field it does not know) and a page only gains optional parameters;
removing or renaming a field, changing a field's type or meaning, or removing a page makes
`/api/v2`. `/api/...` without a version answers as the newest version does and promises
nothing. Every error is problem details (RFC 9457, `application/problem+json`), its `type`
`urn:ratings-ledger:problem:` and the error's kind (the site's and the write door's alike),
its `detail` the one line the site and the command line say. A family's pages answer at
`/{family}/...` too (the default family at `/`). The `components` also hold the models of the write
commands (ledger/commands.py: what the entries of a write hold).

The write door (`/writes...`) answers only on a server started with `serve --writes`: a
write is the stored entries signed on the writer's machine with the actor's key over the
checkpoint they make at the head read from `/writes/head` (ledger/evidence/remote.py is the
command line's client); the signature is its only authentication."""


def text() -> str:
    """The document as written to docs/openapi.json (sorted keys, two-space indents)."""
    return json.dumps(document(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


@functools.cache
def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the site's JSON API."""
    schemas = _schemas()
    paths: dict[str, Any] = {}
    for page in ROUTES:
        paths[page.path] = {"get": _operation(page, schemas, family=False)}
        paths["/{family}" + page.path.rstrip("/")] = {"get": _operation(page, schemas, True)}
    paths.update(_door(schemas))
    return {
        "openapi": "3.1.0",
        "info": {"title": "ratings-ledger", "version": VERSION, "description": DESCRIPTION},
        "servers": [{"url": API}],
        "paths": paths,
        "components": {"schemas": schemas["$defs"]},
    }


def _schemas() -> dict[str, Any]:
    """Every answer's schema (by route name, `$defs` holding the models), the problem
    details' and the write commands'."""
    entries: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        (r.name, "serialization", r.adapter) for r in ROUTES
    ]
    entries.append(("problem", "serialization", TypeAdapter(answers.ProblemDetails)))
    entries += [(m.__name__, "validation", TypeAdapter(m)) for m in write_bodies()]
    entries.append(("write", "validation", TypeAdapter(wire.Write)))
    answered = {"head": wire.WriteHead, "written": wire.Written, "events": wire.Events,
                "entries": wire.Entries, "log_page": wire.LogPage}  # fmt: skip
    entries += [(k, "serialization", TypeAdapter(m)) for k, m in answered.items()]
    top, defs = TypeAdapter.json_schemas(entries, ref_template=REF)
    out: dict[str, Any] = {key: schema for (key, _), schema in top.items()}
    out["$defs"] = defs.get("$defs", {})
    return out


def write_bodies() -> list[type[BaseModel]]:
    """The write commands' models (each validates a write's body before anything is
    appended), in name order."""
    found = [
        v
        for v in vars(commands).values()
        if isinstance(v, type) and issubclass(v, Command) and v.__module__ == commands.__name__
    ]
    return sorted(found, key=lambda m: m.__name__)


def _operation(page: Route, schemas: dict[str, Any], family: bool) -> dict[str, Any]:
    """The GET of `page` (of a family's address when `family`)."""
    names = [p[1:-1] for p in page.path.split("/") if p.startswith("{")]
    params = [_path_param(n) for n in names] + [_query(p) for p in (*page.params, *WHEN)]
    if family:
        family_param = _path_param("family", "the rules family whose pages these are")
        family_param["schema"] = {"type": "string", "enum": list(NAMES)}
        params.insert(0, family_param)
    problem = {"application/problem+json": {"schema": schemas["problem"]}}
    return {
        "operationId": ("family_" if family else "") + page.name,
        "summary": page.summary + (" (of one family)" if family else ""),
        "parameters": params,
        "responses": {
            "200": {
                "description": page.summary,
                "content": {"application/json": {"schema": schemas[page.name]}},
            },
            **{code: {"description": why, "content": problem} for code, why in ERRORS.items()},
        },
    }


def _door(schemas: dict[str, Any]) -> dict[str, Any]:
    """The write door's paths (module docstring of web/writes.py)."""
    problem = {"application/problem+json": {"schema": schemas["problem"]}}
    errors = {code: {"description": why, "content": problem} for code, why in DOOR_ERRORS.items()}

    def answer(name: str, summary: str, params: list[dict[str, Any]]) -> dict[str, Any]:
        ok = {"description": summary, "content": {"application/json": {"schema": schemas[name]}}}
        return {"operationId": "writes_" + name, "summary": summary, "parameters": params,
                "responses": {"200": ok, **errors}}  # fmt: skip

    post = answer("written", "append a signed write whole, or refuse it whole", [])
    post["requestBody"] = {
        "required": True,
        "content": {"application/json": {"schema": schemas["write"]}},
    }
    record = _path_param("record", "the record's id (a UUID)")
    return {
        "/writes": {"post": post},
        "/writes/head": {"get": answer("head", "the head a writer signs at", [])},
        "/writes/records/{record}": {"get": answer("events", "a record's stored entries",
            [record, *map(_query, DOOR_PARAMS["records"])])},
        "/writes/entries": {"get": answer("entries", "stored entries by position",
            list(map(_query, DOOR_PARAMS["entries"])))},
        "/writes/log": {"get": answer("log_page", "the entries and chain rows as stored, for a "
            "reader to verify on its own machine", list(map(_query, DOOR_PARAMS["log"])))},
    }  # fmt: skip


def _path_param(name: str, description: str = "") -> dict[str, Any]:
    described = {"description": description} if description else {}
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, **described}


def _query(param: Param) -> dict[str, Any]:
    return {
        "name": param.name,
        "in": "query",
        "required": False,
        "description": param.description,
        "schema": {"type": "integer" if param.integer else "string"},
    }
