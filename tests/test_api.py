"""Issue 32, "a stable, documented API": versioned paths (`/api/v1/…`) for every page's JSON
twin, an OpenAPI document generated from the same models that validate (pydantic), served by
the site and checked in, with a test that fails when a change breaks it; errors as problem
details (RFC 9457) with the same one-line messages; "the OpenAPI document validates, and a
client generated from it (any well-kept generator) calls three reads and one write
successfully in a test".

The ledger: tests/test_site_families.py's (the real FIDE tournament file, ICU opening
balances, the FIDE list 2024-10 and the US Chess list 2024-11), one more section submitted and
withdrawn, so that every model's shape is answered at least once.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from door_helpers import serving
from jsonschema import Draft202012Validator
from markupsafe import escape
from openapi_spec_validator import validate
from test_site_families import SECTION, SOKOLOV, _ledger
from test_web import get
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import RegisterPlayer
from ledger.domain import Player
from ledger.entrypoints.cli import app
from ledger.entrypoints.web import openapi
from ledger.entrypoints.web.app import Site
from ledger.evidence.remote import checkpoint_after, encoded, head_of
from ledger.evidence.signing import Keyring
from ledger.reading import open_ledger

CHECKED_IN = Path(__file__).parent.parent / "docs" / "openapi.json"
WITHDRAWN = "2024-06-01-spring"
# (path, query) of every page of the document, filled in for the ledger of the docstring.
PAGES = [
    ("/", ""),
    ("/players", "q=Sokolov"),
    (f"/players/{SOKOLOV}", ""),
    (f"/players/{SOKOLOV}", "as_of=2024-10-15"),
    (f"/players/{SOKOLOV}/history", "system=OTBR"),
    (f"/players/{SOKOLOV}/explain", f"system=OTBR&section={SECTION}"),
    (f"/players/{SOKOLOV}/lists/2024-11", ""),
    (f"/players/{SOKOLOV}/lists/2024-11/proof", "system=OTBR"),
    ("/sections", ""),
    (f"/sections/{SECTION}", ""),
    (f"/sections/{WITHDRAWN}", ""),
    ("/lists", ""),
    ("/lists/2024-11", ""),
    ("/log", ""),
    ("/problems", ""),
    ("/fide", ""),
    (f"/fide/players/{SOKOLOV}", ""),
    (f"/fide/players/{SOKOLOV}/history", "system=FIDE"),
    (f"/fide/players/{SOKOLOV}/explain", f"system=FIDE&section={SECTION}"),
    ("/fide/lists/2024-10", ""),
    (f"/fide/players/{SOKOLOV}/lists/2024-10/proof", "system=FIDE"),
    (f"/icu/players/{SOKOLOV}/explain", f"system=ICU&section={SECTION}"),
    (f"/icu/sections/{SECTION}", ""),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("api")
    store = _ledger(tmp)
    spring = {
        "section_id": WITHDRAWN,
        "event_name": "Spring Open",
        "start_date": "2024-06-01",
        "end_date": "2024-06-01",
        "time_control": "G/90;d30",
        "online": False,
        "players": [{"id": SOKOLOV}, {"id": "5500012"}],
        "games": [{"round": 1, "white": SOKOLOV, "black": "5500012", "result": "1-0"}],
    }
    (tmp / "spring.json").write_text(json.dumps(spring))
    runner = CliRunner()
    for args in (
        ["submit", str(tmp / "spring.json")],
        ["withdraw", WITHDRAWN, "--reason", "submitted twice"],
    ):
        result = runner.invoke(app, [*args, "--actor", "director", "--store", store])
        assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="module")
def site(store):
    return Site(store)


def _schema(operation: str, status: str = "200") -> Draft202012Validator:
    """The document's schema of an operation's answer, its references resolvable."""
    for item in openapi.document()["paths"].values():
        found = next(iter(item.values()))
        if found["operationId"] == operation:
            content = found["responses"][status]["content"]
            schema = next(iter(content.values()))["schema"]
            return Draft202012Validator({**schema, "components": openapi.document()["components"]})
    raise AssertionError(operation)


def test_the_checked_in_document_is_the_one_the_code_writes():
    # Issue 32: "checked in, with a test that fails when a change breaks it" (a change of a
    # model, a page or a parameter changes the document: `ratings-ledger openapi -o
    # docs/openapi.json` writes it again, and the diff shows the change to the API).
    assert CHECKED_IN.read_text(encoding="utf-8") == openapi.text()


def test_the_document_is_a_valid_openapi_3_1_document():
    # Issue 32: "The OpenAPI document validates".
    document = json.loads(CHECKED_IN.read_text(encoding="utf-8"))
    validate(document)  # openapi-spec-validator: raises on an invalid document
    assert document["openapi"] == "3.1.0"
    assert document["servers"] == [{"url": "/api/v1"}]


def test_the_site_serves_its_document_at_api_v1_openapi_json(site):
    # Brief: "Served at `/api/v1/openapi.json`, checked in at docs/openapi.json".
    answer = get(site, "/api/v1/openapi.json")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/json"
    assert answer.text == CHECKED_IN.read_text(encoding="utf-8")


def test_every_page_and_every_familys_has_a_path_in_the_document():
    # Issue 32: "versioned paths (`/api/v1/…`) for every page's JSON twin" and the brief:
    # "make the versioned paths cover the per-family ones". 13 pages, each at `/` and at
    # `/{family}`, and the write door's 5 paths (web/writes.py), which are no family's.
    paths = openapi.document()["paths"]
    assert len(paths) == 26 + 5
    door = {p for p in paths if p.startswith("/writes")}
    assert door == {
        *("/writes", "/writes/head", "/writes/records/{record}", "/writes/entries"),
        "/writes/log",  # the log as stored, verified on the reader's machine (issue 32)
    }
    for path in [p for p in paths if not p.startswith("/{family}") and p not in door]:
        assert "/{family}" + path.rstrip("/") in paths
    family = paths["/{family}/players/{player}"]["get"]["parameters"][0]
    assert family["schema"]["enum"] == ["uschess", "fide", "icu"]


@pytest.mark.parametrize(("path", "query"), PAGES)
def test_every_answer_at_api_v1_is_the_unversioned_answer_and_meets_its_schema(site, path, query):
    # Issue 32: the versioned paths answer every page; `/api/...` stays as an alias (the
    # brief: "keep `/api/...` answering as an alias"), byte for byte; the answer is what the
    # document says it is.
    versioned = get(site, "/api/v1" + path, query)
    assert versioned.status == 200, versioned.text
    assert versioned.text == get(site, "/api" + path, query).text
    operation = _operation_of(path)
    errors = list(_schema(operation).iter_errors(versioned.json()))
    assert errors == [], errors[:1]


def _operation_of(path: str) -> str:
    """The operationId the document gives the page at `path`."""
    parts = [p for p in path.split("/") if p]
    family = bool(parts) and parts[0] in ("fide", "icu")
    rest = "/" + "/".join(parts[1:] if family else parts)
    for item in openapi.document()["paths"].values():
        operation = next(iter(item.values()))["operationId"]
        template = next(p for p, i in openapi.document()["paths"].items() if i is item)
        if operation.startswith("family_") != family:
            continue
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template.removeprefix("/{family}") or "/")
        if re.fullmatch(pattern.rstrip("/") or "/", rest.rstrip("/") or "/"):
            return str(operation)
    raise AssertionError(path)


def test_the_withdrawn_section_is_answered_as_the_withdrawn_model(site):
    # The model of a withdrawn section's notice (answers.Withdrawn): who, when and why.
    answer = get(site, f"/api/v1/sections/{WITHDRAWN}").json()
    assert (answer["status"], answer["reason"], answer["withdrawn_by"]) == (
        "withdrawn",
        "submitted twice",
        "director",
    )


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        (f"/players/{SOKOLOV}", "as_of=Feb+1", 400),
        ("/players/99999999", "", 404),
        (f"/ecf/players/{SOKOLOV}", "", 404),
        (f"/players/{SOKOLOV}/explain", "item=section:X", 400),
    ],
)
def test_every_api_error_is_problem_details_with_the_pages_one_line(site, path, query, status):
    # Issue 32: "errors as problem details (RFC 9457) with the same one-line messages"; one
    # convention with the write door's (decisions: "A stable, documented API"): the type our
    # own URI with the error's kind, the title the status's phrase.
    answer = get(site, "/api/v1" + path, query)
    assert answer.status == status
    assert answer.headers["Content-Type"] == "application/problem+json"
    problem = answer.json()
    assert list(problem) == ["type", "title", "status", "detail"]
    kind = {400: "bad-input", 404: "not-found"}[status]
    assert problem["type"] == "urn:ratings-ledger:problem:" + kind and problem["status"] == status
    assert problem["title"] == {400: "Bad Request", 404: "Not Found"}[status]
    page = get(site, path, query).text
    shown = re.search(r"<p class='error'>(.*)</p>", page)
    assert shown is not None and "\n" not in problem["detail"]
    assert shown[1] == escape(problem["detail"])  # the page's line, escaped
    assert _schema("player", str(status)).is_valid(problem)


def test_a_write_to_the_read_only_site_is_problem_details_405(site):
    # Issue 32: every API error as problem details; the read site answers GET and HEAD only.
    answer = get(site, "/api/v1/players", method="POST")
    assert answer.status == 405
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json()["detail"] == "this site is read-only"
    assert answer.json()["type"] == "urn:ratings-ledger:problem:method"  # the door's kind too


def test_the_openapi_command_writes_the_checked_in_document(tmp_path):
    # Brief: "a script or `ratings-ledger openapi` command to regenerate it".
    out = tmp_path / "openapi.json"
    result = CliRunner().invoke(app, ["openapi", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == CHECKED_IN.read_text(encoding="utf-8")


def test_every_write_commands_model_is_in_the_document():
    # Brief: the document describes "the write bodies: the command models in ledger/door.py".
    schemas = openapi.document()["components"]["schemas"]
    names = {m.__name__ for m in openapi.write_bodies()}
    assert {"RegisterPlayer", "SubmitSection", "PublishList", "VoidEntry"} <= names
    assert names <= set(schemas)
    assert schemas["RegisterPlayer"]["additionalProperties"] is False  # strict, as the door


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """The models of a client generated from the served document by datamodel-code-generator
    (in a temporary folder, at test time: generating needs no network)."""
    from datamodel_code_generator import DataModelType, InputFileType, generate

    out = tmp_path_factory.mktemp("client") / "ledger_client.py"
    generate(
        openapi.text(),
        input_file_type=InputFileType.OpenAPI,
        output=out,
        output_model_type=DataModelType.PydanticV2BaseModel,
        formatters=[],  # the code as generated: nothing to format for a test
    )
    spec = importlib.util.spec_from_file_location("ledger_client", out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ledger_client"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["ledger_client"]


@pytest.fixture(scope="module")
def served(store):
    """The ledger of the docstring served with its write door (`serve --writes`)."""
    with serving(store) as door:
        yield door.url


def _call(base: str, operation: str, **values: str) -> tuple[str, str, dict[str, str]]:
    """The method and URL of an operation of the document (its path's values filled in) and
    its query."""
    document = json.loads(httpx_get(base, "/api/v1/openapi.json"))
    for template, item in document["paths"].items():
        for method, found in item.items():
            if found["operationId"] == operation:
                names = {p["name"] for p in found["parameters"] if p["in"] == "path"}
                path = template.format(**{n: values.pop(n) for n in names})
                return method, document["servers"][0]["url"] + path, values
    raise AssertionError(operation)


def httpx_get(base: str, path: str) -> str:
    import httpx

    return httpx.get(base + path, timeout=30).text


def test_a_generated_client_reads_three_pages_and_appends_a_signed_write(client, served, store):
    # Issue 32: "a client generated from it (any well-kept generator) calls three reads and
    # one write successfully in a test". The write is the door's (web/writes.py): the client
    # reads the head, and signs the checkpoint its entry makes there. A write's only
    # authentication is that signature, so a client needs the writer's private key: here the
    # tests' keyring's key for `director`, used through the project's own signing code
    # (`checkpoint_after`, the keyring's key), and the entry is made by the project's own
    # domain and mapper; every value sent is built by the generated models.
    import httpx

    with httpx.Client(base_url=served, timeout=30) as http:
        _, url, query = _call(served, "family_player", family="fide", player=SOKOLOV)
        player = client.Player.model_validate_json(http.get(url, params=query).content)
        assert player.ratings["FIDE"].official_rating == 2612  # test_site_families: 8.3.4
        _, url, query = _call(served, "list", list="2024-11", sex="w")
        listed = client.OneList.model_validate_json(http.get(url, params=query).content)
        assert [r.name for r in listed.rows] == ["Park, Chloe", "Chen, Fay"]  # the file's
        assert listed.total == 6  # women, of its six players
        _, url, query = _call(served, "search_players", q="Sokolov")
        found = client.Search.model_validate_json(http.get(url, params=query).content)
        assert [p.id for p in found.players] == [SOKOLOV]

        _, url, _ = _call(served, "writes_head")
        head = client.WriteHead.model_validate_json(http.get(url).content)
        write = _signed_register(client, served, head, "30000001", "Okafor, Ada")
        method, url, _ = _call(served, "writes_written")
        answer = http.request(method, url, json=write.model_dump(mode="json"))
        assert answer.status_code == 200, answer.text
        written = client.Written.model_validate_json(answer.content)
        assert written.positions == [head.next] and written.position == head.next

        _, url, query = _call(served, "player", player="30000001")
        registered = client.Player.model_validate_json(http.get(url, params=query).content)
        assert registered.name == "Okafor, Ada"
    with closing(open_ledger(store)) as ledger:
        assert ledger.recorder.max_notification_id() == head.position + 1  # one entry


def _signed_register(client: Any, url: str, head: Any, member: str, name: str) -> Any:
    """The generated `Write` of a `register` of one player by `director`, signed at `head`:
    the entry as the ledger stores it (the domain's fact through the mapper of a ledger
    opened on the server's address, as a laptop's)."""
    player = Player(member_id=member, **RegisterPlayer(id=member, name=name).profile(),
                    actor="director")  # fmt: skip
    with closing(RatingsLedger(url)) as remote:
        stored = [remote.mapper.to_stored_event(e) for e in player.collect_events()]
    signed_at = head_of(head.model_dump())
    checkpoint = checkpoint_after(signed_at, stored)
    key = Keyring().private_key("director")
    assert key is not None
    return client.Write(
        ledger=signed_at.ledger,
        actor="director",
        head=signed_at.position,
        checkpoint=client.SignedCheckpoint(
            size=checkpoint.size, root=checkpoint.root, position=checkpoint.position
        ),
        signature=key.sign(checkpoint.body()).hex(),
        events=[client.StoredEntry(**encoded(e)) for e in stored],
    )


def test_the_write_doors_answers_meet_their_schemas(served):
    # Issue 32: the door's routes in the document ("an OpenAPI document generated from the
    # same models that validate"): every door answer is what the document says it is, its
    # refusals problem details of the one convention (decisions: "A stable, documented API").
    import httpx

    head = httpx.get(served + "/api/v1/writes/head", timeout=30).json()
    assert _schema("writes_head").is_valid(head)
    entries = httpx.get(served + "/api/v1/writes/entries?start=1&limit=3", timeout=30).json()
    assert len(entries["entries"]) == 3 and _schema("writes_entries").is_valid(entries)
    record = entries["entries"][0]["originator_id"]
    events = httpx.get(served + f"/api/v1/writes/records/{record}", timeout=30).json()
    assert events["events"] and _schema("writes_events").is_valid(events)
    refused = httpx.post(served + "/api/v1/writes", json={"ledger": "x"}, timeout=30)
    assert refused.status_code == 400
    assert _schema("writes_written", "400").is_valid(refused.json())
    assert refused.json()["type"] == "urn:ratings-ledger:problem:bad-input"
