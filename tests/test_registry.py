"""The operation registry: one declaration reaches every door, and the doors agree.

- Every generated artefact (MCP inputSchema, REST query/body, OpenAPI, provider
  tools, the manual's tables, click options) lists exactly the operation's fields, and a
  field added to a model shows up in all of them.
- The same call gives byte-identical JSON through every door in :data:`DOORS`
  (REST and MCP here; the CLI adds itself with :func:`add_door`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlencode

import click
import pytest
from houkai.api import mcp_server, openapi, routes
from houkai.api.rest import create_app
from pydantic import Field

from houkai.app import operations
from houkai.app.operations import docs, params, tools
from houkai.app.operations.cli import cli_options, collect
from houkai.app.service import MemoryService
from houkai.domain.model import MAX_RECALL_K

# --------------------------------------------------------------------------- artefacts


def _fields(op: operations.Operation) -> set[str]:
    return set(op.params.model_fields)


def _route_fields(route: routes.Route) -> set[str]:
    body = set((route.body or {}).get("properties", {}))
    path = {p for p in route.op.params.model_fields if "{" + p + "}" in route.path}
    return body | set(route.query) | path


def test_every_door_lists_exactly_the_model_fields():
    for op in operations.OPERATIONS:
        fields = _fields(op)
        if op.mcp:
            schema = mcp_server.TOOLS_BY_NAME[op.name].input_schema()
            assert set(schema["properties"]) - {"collection"} == fields, op.name
            (anthropic,) = tools.anthropic_tools([op.name])
            assert set(anthropic["input_schema"]["properties"]) == fields, op.name
        assert {p.name for p in cli_options(op)} == fields, op.name
        for route in (r for r in routes.ROUTES if r.op is op):
            listed = _route_fields(route)
            if route.method == "GET":  # query strings carry the scalar parameters only
                assert listed <= fields, route.name
            else:
                assert listed == fields, route.name


def test_manual_tables_are_current():
    """Every generated table sits in its page of the manual and matches the code."""
    pages = docs.pages()
    assert sorted(n for names in pages.values() for n in names) == sorted(docs.BLOCKS)
    for page, names in pages.items():
        text = page.read_text(encoding="utf-8")
        assert set(names) <= set(docs.blocks_in(text)), f"{page}: a block lost its markers"
        assert docs.update(text, names) == text, (
            f"{page} drifted; run: python -m houkai.app.operations.docs --write"
        )


def test_the_check_fails_on_drift_and_write_repairs_it(tmp_path):
    for page in docs.PAGES.values():
        target = tmp_path / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((docs.ROOT / page).read_text(encoding="utf-8"), encoding="utf-8")
    assert docs.main(["--check", "--root", str(tmp_path)]) == 0
    rest = tmp_path / docs.PAGES["rest-routes"]
    rest.write_text(rest.read_text().replace("| `POST /memories` |", "| `POST /memos` |"))
    assert docs.main(["--check", "--root", str(tmp_path)]) == 1
    assert docs.main(["--write", "--root", str(tmp_path)]) == 0
    assert docs.main(["--check", "--root", str(tmp_path)]) == 0
    assert "| `POST /memories` |" in rest.read_text()


def test_the_design_record_index_lists_every_record(tmp_path):
    (tmp_path / "0001-first.md").write_text("# ADR 0001: the first\n\nStatus: accepted\n")
    (tmp_path / "0002-second.md").write_text("# 0002 — the second\n\nStatus: proposed, x\n")
    table = docs.adr_table(tmp_path)
    assert "| [0001](adr/0001-first.md) | the first | accepted |" in table
    assert "| [0002](adr/0002-second.md) | the second | proposed |" in table
    shipped = docs.adr_table()
    assert all(f"(adr/{p.name})" in shipped for p in docs.ADR_DIR.glob("[0-9]*.md"))


def test_every_cli_command_is_in_the_reference():
    table = docs.cli_table()
    for path, _ in docs._commands():
        assert f"| `{path}" in table, path
    assert "`houkai recall`" in docs.operations_table()


class _RecallPlus(params.Recall):
    zeta_boost: float = Field(0.5, ge=0, le=2, description="A parameter added in one edit.")


def test_a_field_added_to_a_model_reaches_every_door(monkeypatch):
    """One edit (a model field) → MCP, REST, OpenAPI, provider tools, the manual, CLI."""
    base = operations.get("recall")
    op = replace(base, params=_RecallPlus)
    monkeypatch.setitem(operations.BY_NAME, "recall", op)
    ops = tuple(op if o is base else o for o in operations.OPERATIONS)
    monkeypatch.setattr(docs, "OPERATIONS", ops)

    tool = mcp_server.ToolSpec.of(op)
    assert tool.input_schema()["properties"]["zeta_boost"]["maximum"] == 2
    (openai,) = tools.openai_tools(["recall"])
    assert "zeta_boost" in openai["function"]["parameters"]["properties"]

    recall_routes = [routes._route(op, rest) for rest in op.rest]
    assert all(
        "zeta_boost" in {*r.query, *(r.body or {}).get("properties", {})} for r in recall_routes
    )
    monkeypatch.setattr(openapi, "ROUTES", [*recall_routes])
    doc = openapi.build_openapi()
    get_params = {p["name"] for p in doc["paths"]["/recall"]["get"]["parameters"]}
    body = doc["paths"]["/recall"]["post"]["requestBody"]["content"]["application/json"]
    assert "zeta_boost" in get_params and "zeta_boost" in body["schema"]["properties"]

    assert "zeta_boost" in docs.mcp_table() and "zeta_boost" in docs.rest_table()
    option = next(p for p in cli_options(op) if p.name == "zeta_boost")
    assert isinstance(option.type, click.FloatRange) and option.opts == ["--zeta-boost"]

    with pytest.raises(ValueError, match=r"zeta_boost: must be <= 2, got 3"):
        operations.check_arguments(op, {"query": "q", "zeta_boost": 3})


def test_cli_options_are_typed_from_the_model():
    recall = {p.name: p for p in cli_options(operations.get("recall"), arguments=("query",))}
    assert isinstance(recall["query"], click.Argument)
    assert recall["k"].opts == ["--k", "-k"] and isinstance(recall["k"].type, click.IntRange)
    assert recall["k"].type.min == 1 and recall["k"].type.max == MAX_RECALL_K
    assert isinstance(recall["mode"].type, click.Choice)
    assert list(recall["mode"].type.choices) == ["semantic", "hybrid"]
    assert recall["since"].type is click.STRING  # "7d", ISO-8601 or epoch seconds
    assert recall["touch"].secondary_opts == ["--no-touch"]
    remember = {p.name: p for p in cli_options(operations.get("remember"))}
    assert remember["tags"].multiple and remember["tags"].opts == ["--tags", "-g"]
    assert collect({"k": 3, "tags": ("a", "b"), "type": None, "tag": ()}) == {
        "k": 3,
        "tags": ["a", "b"],
    }


def test_errors_name_the_parameter_and_what_is_allowed():
    recall = operations.get("recall")
    cases = {
        "k": ("many", "k: expected an integer, got 'many'"),
        "mode": ("fuzzy", "mode must be one of semantic, hybrid — got 'fuzzy'"),
        "min_importance": (2, "min_importance: must be <= 1, got 2"),
    }
    for name, (value, message) in cases.items():
        with pytest.raises(ValueError) as info:
            operations.check_arguments(recall, {"query": "q", name: value})
        assert str(info.value) == message
    with pytest.raises(ValueError, match="recall: unknown argument"):
        operations.check_arguments(recall, {"query": "q", "kk": 1})
    with pytest.raises(ValueError, match="missing required argument"):
        operations.check_arguments(recall, {})


def test_service_tables_come_from_the_registry():
    from houkai.app.service import SEED_TOOLS, TOOLS

    assert operations.seed_tools() == SEED_TOOLS and len(SEED_TOOLS) == 23
    assert [t.name for t in mcp_server.TOOLS] == [o.name for o in operations.mcp_operations()]
    assert set(TOOLS) >= {t.name for t in mcp_server.TOOLS}


# --------------------------------------------------------------------------- doors

#: A door: ``(world, operation name, arguments) -> canonical JSON text``. Success is
#: the operation's result (REST's list envelope unwrapped); failure ``{"error": …}``.
Door = Callable[[dict[str, Any], str, dict[str, Any]], str]


def canonical(payload: Any) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _rest(world: dict[str, Any], name: str, args: dict[str, Any]) -> str:
    op = operations.get(name)
    rest = op.rest[0]
    client = world["client"]
    prefix = f"/c/{world['collection']}"
    if rest.method == "GET":
        query = {k: json.dumps(v) if isinstance(v, bool) else v for k, v in args.items()}
        r = client.get(prefix + rest.path + "?" + urlencode(query))
    else:
        r = client.open(prefix + rest.path, method=rest.method, json=args)
    body = r.get_json()
    if r.status_code >= 400:
        return canonical({"error": body["error"]})
    return canonical(body[rest.envelope] if rest.envelope else body)


def _mcp(world: dict[str, Any], name: str, args: dict[str, Any]) -> str:
    mcp_server.set_service(world["service"])
    try:
        result = mcp_server.call_tool(name, {**args, "collection": world["collection"]})
    except Exception as exc:
        return canonical({"error": mcp_server.error_message(exc)})
    finally:
        mcp_server.set_service(None)
    return canonical(mcp_server.to_jsonable(result))


DOORS: dict[str, Door] = {"rest": _rest, "mcp": _mcp}


def add_door(name: str, door: Door) -> None:
    """Add a door (e.g. the CLI's ``--format json``) to every equivalence check below."""
    DOORS[name] = door


@pytest.fixture(scope="module")
def world(settings, embedder):
    name = f"doors-{uuid.uuid4().hex[:8]}"
    s = settings.replace(collection=f"{name}-default", pipeline_mode="inline")
    service = MemoryService(s, actor="http")
    for text, kind in (
        ("The deploy pipeline runs on Fridays after the freeze", "procedural"),
        ("Staging deploys need a green build first", "procedural"),
        ("The user prefers concise answers", "feedback"),
    ):
        service.remember(text, type=kind, tags=["doors"], collection=name)
    yield {
        "collection": name,
        "service": service,
        "client": create_app(s, service).test_client(),
    }
    service.store(name).drop()


SAME_CALLS = {
    "recall": ("recall", {"query": "deploy process", "k": 2, "mode": "hybrid", "touch": False}),
    "list": ("list_recent", {"limit": 5, "type": "procedural"}),
    "pack": ("recall_pack", {"query": "deploy", "token_budget": 200, "touch": False}),
    "error": ("recall", {"query": "deploy", "k": 0}),
    "bad enum": ("list_recent", {"type": "dream"}),
}


@pytest.mark.parametrize("call", sorted(SAME_CALLS))
def test_same_call_same_json_through_every_door(world, call):
    name, args = SAME_CALLS[call]
    answers = {door: run(world, name, dict(args)) for door, run in DOORS.items()}
    first = next(iter(answers.values()))
    assert all(a == first for a in answers.values()), answers
    if call in ("error", "bad enum"):
        assert json.loads(first)["error"].split(":")[0].split(" ")[0] in ("k", "type")
    else:
        assert json.loads(first), "an empty answer proves nothing"


def test_reading_an_unknown_collection_is_404_in_every_door(world):
    missing = {**world, "collection": f"nosuch-{uuid.uuid4().hex[:6]}"}
    for door, run in DOORS.items():
        answer = json.loads(run(missing, "recall", {"query": "anything"}))
        assert "no collection named" in answer.get("error", ""), door
    assert not world["service"].has_collection(missing["collection"])


def test_checking_arguments_compiles_each_schema_once():
    """A long-running server checks every request: the validators compiled for the
    checks (cached per schema object) must not grow with the number of requests, as
    they did for cross-field rules and the edit route's own rule, built anew per call."""
    from houkai.app.operations import schema

    remember = operations.get("remember")  # its model has a cross-field rule ("not")
    app = create_app()
    client = app.test_client()
    for _ in range(3):
        operations.check_arguments(remember, {"text": "a note"})
        client.patch("/memories/missing", json={})
    before = len(schema._VALIDATORS)
    for _ in range(20):
        operations.check_arguments(remember, {"text": "a note"})
        assert client.patch("/memories/missing", json={}).status_code == 400
    assert len(schema._VALIDATORS) == before
