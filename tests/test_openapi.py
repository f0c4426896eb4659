"""The OpenAPI document: valid 3.1, in sync with the Flask URL map, and a fuzz pass from it.

The fuzz pass derives a hypothesis strategy from each operation's declared
parameters and body schema, mixes in arbitrary JSON values of the wrong shape,
and asserts the server never answers 5xx, errors are ``{"error": ...}`` and
2xx bodies validate against the declared response schema.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from houkai.api.openapi import build_openapi
from houkai.api.rest import create_app
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from houkai.app.service import MemoryService

METHODS = {"GET", "POST", "PATCH", "DELETE", "PUT"}


@pytest.fixture(scope="module")
def fuzz_env(settings, embedder):
    name = f"oa-{uuid.uuid4().hex[:8]}"
    s = settings.replace(collection=name, pipeline_mode="inline", http_max_body=64 * 1024)
    service = MemoryService(s, actor="http")
    ids = [service.remember(t)["id"] for t in ("alpha memory about tests", "beta memory")]
    app = create_app(s, service)
    yield app, ids
    service.store(name).drop()


@pytest.fixture(scope="module")
def doc(fuzz_env) -> dict[str, Any]:
    app, _ = fuzz_env
    return app.test_client().get("/openapi.json").get_json()


def test_document_is_valid_openapi_31(doc):
    validate(doc)
    assert doc["openapi"] == "3.1.0"
    assert build_openapi()["paths"].keys() == doc["paths"].keys()


def _flask_operations(app) -> set[tuple[str, str]]:
    ops = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods or ():
            if method in METHODS:
                ops.add((path, method))
    return ops


def _doc_operations(doc) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in doc["paths"].items() for method in item}


def test_every_route_is_documented_and_vice_versa(fuzz_env, doc):
    app, _ = fuzz_env
    flask_ops, doc_ops = _flask_operations(app), _doc_operations(doc)
    assert flask_ops - doc_ops == set(), "routes missing from /openapi.json"
    assert doc_ops - flask_ops == set(), "documented operations Flask does not serve"
    for path, item in doc["paths"].items():
        declared = {
            p["name"] for op in item.values() for p in op["parameters"] if p["in"] == "path"
        }
        assert declared == set(re.findall(r"{([^}]+)}", path)), path


def test_operation_routes_are_one_blueprint_mounted_at_both_prefixes(fuzz_env):
    """Issue #28: every operation route is the ``api`` blueprint's; its collection-bound
    part is one blueprint registered at ``/`` and at ``/c/<collection>/``."""
    from houkai.api.routes import ROUTES

    app, _ = fuzz_env
    rules = list(app.url_map.iter_rules())
    operations = {r.endpoint.rsplit(".", 1)[1] for r in rules if r.endpoint.startswith("api.")}
    assert operations == {route.name for route in ROUTES}
    plain = {r.rule for r in rules if r.endpoint.startswith("api.collection.")}
    prefixed = {r.rule for r in rules if r.endpoint.startswith("api.in_collection.")}
    assert plain and prefixed == {"/c/<collection>" + rule for rule in plain}
    assert plain == {route.flask_rule for route in ROUTES if route.scoped}


def test_documented_operations_answer_as_declared(fuzz_env, doc):
    """Each documented (non-prefixed) GET answers with a declared status, never 405/404-route."""
    app, ids = fuzz_env
    client = app.test_client()
    for path, item in doc["paths"].items():
        if "get" not in item or path.startswith("/c/"):
            continue
        url = path.replace("{memory_id}", ids[0]).replace("{job_id}", "nope")
        op = item["get"]
        query = {
            p["name"]: "1h" for p in op["parameters"] if p.get("required") and p["in"] == "query"
        }
        r = client.get(url, query_string=query)
        assert str(r.status_code) in op["responses"], (path, r.status_code, r.get_data())


# ---------------------------------------------------------------- fuzz
JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _strategy(schema: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy:
    if "$ref" in schema:
        return _strategy(components[schema["$ref"].rsplit("/", 1)[-1]], components)
    if "oneOf" in schema:
        return st.one_of(*[_strategy(s, components) for s in schema["oneOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of(*[_strategy({**schema, "type": k}, components) for k in kind])
    if kind == "string":
        return st.text(max_size=24)
    if kind == "integer":
        lo, hi = schema.get("minimum", -3), schema.get("maximum", 60)
        return st.integers(min_value=lo - 1, max_value=min(hi + 1, 60))
    if kind == "number":
        return st.floats(min_value=-5, max_value=1e10, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(_strategy(schema.get("items", {}), components), max_size=3)
    if kind == "object" and "properties" in schema:
        props = {k: _mostly(_strategy(v, components)) for k, v in schema["properties"].items()}
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: v for k, v in props.items() if k in required},
            optional={k: v for k, v in props.items() if k not in required},
        )
    return JUNK


def _mostly(valid: st.SearchStrategy) -> st.SearchStrategy:
    """Valid three times out of four, arbitrary JSON otherwise."""
    return st.one_of(valid, valid, valid, JUNK)


def _as_query(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _fuzz_cases(doc_paths: dict[str, Any]) -> list[tuple[str, str]]:
    skip = {"/openapi.json", "/docs"}
    return [
        (path, method)
        for path, item in doc_paths.items()
        for method in item
        if not path.startswith("/c/") and path not in skip
    ]


_DOC = build_openapi()


@pytest.mark.parametrize("path,method", _fuzz_cases(_DOC["paths"]))
def test_fuzz_operation_never_5xx(fuzz_env, doc, path, method):
    app, ids = fuzz_env
    client = app.test_client()
    op = doc["paths"][path][method]
    components = doc["components"]["schemas"]
    path_params = [p["name"] for p in op["parameters"] if p["in"] == "path"]
    query_params = {
        p["name"]: p["schema"]
        for p in op["parameters"]
        if p["in"] == "query" and p["name"] != "collection"
    }
    body_schema = (
        op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    )

    @hsettings(
        max_examples=10,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data):
        url = path
        for name in path_params:
            value = data.draw(
                st.sampled_from(ids)
                | st.text(
                    alphabet=st.characters(
                        blacklist_categories=("Cs",), blacklist_characters="/?#%"
                    ),
                    min_size=1,
                    max_size=12,
                ),
                label=name,
            )
            url = url.replace("{" + name + "}", value)
        query = {}
        for name, schema in query_params.items():
            if data.draw(st.booleans(), label=f"has {name}"):
                value = data.draw(_mostly(_strategy(schema, components)), label=name)
                if value is not None:
                    query[name] = _as_query(value)
        kwargs: dict[str, Any] = {"query_string": query}
        if body_schema is not None:
            kwargs["json"] = data.draw(_mostly(_strategy(body_schema, components)), label="body")
        r = client.open(url, method=method.upper(), **kwargs)
        text = r.get_data().decode("utf-8", "replace")  # GET /export answers gzip bytes
        assert r.status_code < 500 or (path == "/ready" and r.status_code == 503), (
            method,
            url,
            kwargs,
            r.status_code,
            text,
        )
        assert "Traceback" not in text
        if r.mimetype != "application/json":
            return
        body = json.loads(text)
        if r.status_code >= 400:
            assert isinstance(body, dict) and isinstance(body.get("error"), str)
            return
        declared = op["responses"].get(str(r.status_code))
        assert declared is not None, (method, url, r.status_code)
        schema = declared.get("content", {}).get("application/json", {}).get("schema")
        if schema is not None:
            Draft202012Validator({**schema, "components": doc["components"]}).validate(body)

    run()
