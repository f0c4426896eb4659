"""Recall parameters are declared once (issue #28): ``houkai/recall/parameters.py``.

* a parameter added to :data:`~houkai.recall.parameters.PARAMS` reaches the generated
  ``MemoryStore.recall`` signature and ``RecallRequest`` fields (``python -m
  houkai.recall.generate --write``), the request's check, and the registry's ``Recall``
  model (REST, MCP, CLI) — proved here on the real source, rewritten in memory;
* the generated code is in step (``--check``, also in ``./dev lint``) and keeps the seed's
  signature;
* the library and the doors refuse the same bad values with the same message.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import sys
import types
from typing import Any

import pytest
from _childenv import cli_env
from click.testing import CliRunner
from houkai.api import mcp_server
from houkai.api.rest import create_app

from houkai import AsyncMemoryStore, MemoryStore
from houkai.app.operations import params
from houkai.app.operations.catalog import BY_NAME
from houkai.app.operations.cli import cli_options
from houkai.app.operations.declared import declared
from houkai.app.operations.schema import check_arguments, model_schema
from houkai.app.service import MemoryService
from houkai.app.service_args import search_kwargs
from houkai.cli import cli
from houkai.domain.model import ValidationError
from houkai.recall import generate, parameters
from houkai.recall.parameters import Int, Param
from houkai.recall.request import RecallRequest

#: ``MemoryStore.recall`` as the seed spells it (names, order, defaults): kept exactly.
SEED_RECALL = [
    ("query", inspect.Parameter.empty), ("k", 5), ("type", None), ("tag", None),
    ("min_importance", None), ("source", None), ("since", None), ("until", None),
    ("mode", "semantic"), ("weights", None), ("overfetch", 4), ("include_superseded", False),
    ("include_expired", False), ("touch", True), ("explain", False), ("fusion", "weighted"),
    ("diversity", None), ("dedup_threshold", None), ("min_cosine", None), ("reranker", None),
    ("expand", None), ("rrf_k", 60), ("stages", None), ("as_of", None), ("user_id", None),
    ("agent_id", None), ("session_id", None),
]  # fmt: skip

#: The worked example of CONTRIBUTING.md ("adding a recall parameter").
NEW = Param("max_per_source", "int | None", None, Int(1, 100), "Most hits from one source.")


def test_the_generated_code_is_in_step_with_the_declaration() -> None:
    assert generate.stale() == []
    assert generate.main(["--check"]) == 0


def test_the_seed_signature_is_kept_in_the_library_and_the_async_store() -> None:
    for method in (MemoryStore.recall, AsyncMemoryStore.recall):
        got = list(inspect.signature(method).parameters.values())[1:]
        assert [(p.name, p.default) for p in got] == SEED_RECALL
        assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in got)
    fields = [(f.name, f.default) for f in dataclasses.fields(RecallRequest)]
    assert fields == [
        (n, dataclasses.MISSING if d is inspect.Parameter.empty else d) for n, d in SEED_RECALL
    ]


# --------------------------------------------------------------------------- one edit
def _load(name: str, package: str, source: str) -> types.ModuleType:
    """*source* as a fresh module *name* inside *package* (its relative imports resolve)."""
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = package
    sys.modules[name] = module
    try:
        exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


@pytest.fixture()
def added(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, types.ModuleType]:
    """PARAMS with :data:`NEW` appended, and the request and store modules generated from
    it (the real files' text, rewritten as ``--write`` would write them)."""
    monkeypatch.setattr(parameters, "PARAMS", (*parameters.PARAMS, NEW))
    request_target, store_target = generate.TARGETS
    sources = []
    for target in (request_target, store_target):
        text = target.path.read_text(encoding="utf-8")
        new = target.rewrite(text, parameters.PARAMS)
        assert new != text and f"{NEW.name}: int | None = None" in new
        sources.append(new)
    request = _load("houkai.recall._probe_request", "houkai.recall", sources[0])
    store = _load("houkai.store._probe_store", "houkai.store", sources[1])
    store.RecallRequest = request.RecallRequest  # type: ignore[attr-defined]
    return request, store


def test_one_declaration_stales_the_generated_code(added) -> None:
    stale = generate.stale()
    assert len(stale) == 2 and all("is stale" in s for s in stale), stale  # CI fails until --write


def test_a_declared_parameter_reaches_the_signature_and_the_request(added, store) -> None:
    request, probe = added
    signature = inspect.signature(probe.MemoryStore.recall)
    assert list(signature.parameters)[-1] == NEW.name
    assert signature.parameters[NEW.name].default is None
    assert request.RecallRequest("x", max_per_source=3).max_per_source == 3
    with pytest.raises(ValidationError, match=r"^max_per_source: must be <= 100, got 101$"):
        request.RecallRequest("x", max_per_source=101)
    store.remember("the deploy runbook lives in the wiki")
    hits = probe.MemoryStore.recall(store, "deploy runbook", k=1, max_per_source=2, touch=False)
    assert len(hits) == 1  # the library call takes it (and the engine may read it)
    with pytest.raises(ValidationError, match="max_per_source: must be >= 1, got 0"):
        probe.MemoryStore.recall(store, "deploy runbook", max_per_source=0)


def test_a_declared_parameter_reaches_the_registry_and_every_door(added) -> None:
    request, _ = added

    @declared("recall")  # what params.py does with the declaration
    class Recall(params.Filters, params.Ranking):
        pass

    schema = model_schema(Recall)["properties"]  # REST body, OpenAPI, MCP inputSchema
    assert schema[NEW.name]["description"] == NEW.doc
    assert {"type": "integer", "minimum": 1, "maximum": 100}.items() <= schema[NEW.name].items()
    order = list(schema)
    assert order.index("as_of") < order.index(NEW.name) < order.index("type")  # an own field
    op = dataclasses.replace(BY_NAME["recall"], params=Recall)
    option = next(o for o in cli_options(op) if o.name == NEW.name)
    assert option.opts == ["--max-per-source"] and option.type.max == 100  # type: ignore[attr-defined]
    with pytest.raises(ValidationError) as door:
        check_arguments(op, {"query": "x", NEW.name: 101})  # REST body, MCP arguments
    with pytest.raises(ValidationError) as library:
        request.RecallRequest("x", max_per_source=101)
    assert str(door.value) == str(library.value)
    handed = search_kwargs(Recall(query="x", max_per_source=7))  # what the service hands on
    assert request.RecallRequest.checked(**handed).max_per_source == 7


# --------------------------------------------------------------------------- same refusals
#: bad values every door and the library refuse, with the same message
SAME: list[tuple[str, Any]] = [
    ("k", 10_001), ("k", "3"), ("k", True), ("overfetch", 0), ("overfetch", 101),
    ("mode", "fast"), ("mode", 3), ("fusion", "sum"), ("type", "nope"), ("diversity", 1.5),
    ("diversity", "high"), ("dedup_threshold", -0.1), ("min_cosine", -1.5),
    ("min_importance", 2.0), ("user_id", 42), ("agent_id", "a" * 300), ("query", None),
    ("stages", "default,llm"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), SAME)
def test_the_library_and_the_registry_refuse_with_the_same_message(name: str, value: Any) -> None:
    arguments = {"query": "x", name: value}
    with pytest.raises(ValidationError) as library:
        RecallRequest(**arguments)
    assert (name if name != "stages" else "recall stage") in str(library.value)
    if name == "stages":  # the registry takes the string; the request resolves the names
        check_arguments(BY_NAME["recall"], arguments)
        return
    with pytest.raises(ValidationError) as door:
        check_arguments(BY_NAME["recall"], arguments)
    assert str(door.value) == str(library.value)


#: where the library and the doors differ on purpose: (value, who refuses it, why)
DIFFERENT: list[tuple[str, Any, str, str]] = [
    ("k", 0, "doors", "the seed's recall(k=0) answers [] (the doors start at 1)"),
    ("query", "", "doors", "the seed answers an empty query; the doors refuse it"),
    ("explain", "yes", "doors", "the seed takes any truthy switch; the doors a boolean"),
    ("since", "7d", "library", "the doors parse a span or ISO date into epoch seconds first"),
]


@pytest.mark.parametrize(("name", "value", "refuses", "why"), DIFFERENT)
def test_the_known_differences_are_the_documented_ones(name, value, refuses, why) -> None:
    arguments = {"query": "x", name: value}
    if refuses == "doors":
        with pytest.raises(ValidationError):
            check_arguments(BY_NAME["recall"], arguments)
        RecallRequest(**arguments)  # accepted, as the seed accepts it
    else:
        check_arguments(BY_NAME["recall"], arguments)
        with pytest.raises(ValidationError, match=f"^{name}: expected a number, got '7d'$"):
            RecallRequest(**arguments)


@pytest.fixture()
def doors(settings, store, tmp_path):
    """The REST app, the MCP tools and the CLI over one service on *store*'s collection."""
    s = settings.replace(collection=store.collection_name, pipeline_mode="inline")
    service = MemoryService(s)
    service._stores[store.collection_name] = store
    mcp_server.set_service(service)
    env = cli_env(s, tmp_path)
    try:
        yield create_app(s, service).test_client(), env
    finally:
        mcp_server.set_service(None)


#: (parameter, bad value, the CLI option's spelling) — the CLI reaches the same check
CLI_SAME = [("mode", "fast", "--mode"), ("fusion", "sum", "--fusion"),
            ("type", "nope", "--type"), ("stages", "default,llm", "--stages")]  # fmt: skip
#: the CLI's click ranges refuse these first, in click's words (same value refused, exit 1)
CLI_RANGE = [("k", 1001, "--k"), ("overfetch", 0, "--overfetch"),
             ("diversity", 1.5, "--diversity"), ("min_cosine", -1.5, "--min-cosine")]  # fmt: skip


@pytest.mark.parametrize(("name", "value", "flag"), CLI_SAME + CLI_RANGE)
def test_every_door_refuses_what_the_library_refuses(doors, store, name, value, flag) -> None:
    client, env = doors
    body = {"query": "deploy", name: value}
    with pytest.raises(ValueError) as library:
        store.recall(**body)
    message = str(library.value)
    r = client.post("/recall", json=body)
    assert r.status_code == 400 and r.get_json()["error"] == message, r.get_json()
    with pytest.raises(Exception) as tool:
        mcp_server.call_tool("recall", body)
    assert mcp_server.error_message(tool.value) == message
    out = CliRunner().invoke(cli, ["recall", "deploy", flag, str(value)], env=env)
    assert out.exit_code == 1 and "Error:" in out.output, out.output
    if (name, value, flag) in CLI_SAME:
        assert message in out.output, out.output
    else:
        assert flag in out.output and str(value) in out.output, out.output
