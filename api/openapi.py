"""The OpenAPI 3.1 document, generated from the same routes Flask mounts.

Both come from :data:`houkai.api.routes.ROUTES`, itself generated from the
operation registry (:mod:`houkai.app.operations`), so the document, the URL map,
MCP and the CLI cannot drift; ``tests/test_openapi.py`` still checks both directions.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from houkai import __version__
from houkai.db.keys import COLLECTION_RE

from .routes import COMPONENTS, ROUTES, Route

ERROR = {"$ref": "#/components/schemas/Error"}
COLLECTION_PATTERN = COLLECTION_RE.pattern
_PARAM = re.compile(r"{([^}]+)}")


def _err(text: str) -> dict[str, Any]:
    return {"description": text, "content": {"application/json": {"schema": ERROR}}}


def _operation(route: Route, scoped_prefix: bool, secured: bool) -> dict[str, Any]:
    params: list[dict[str, Any]] = []
    if scoped_prefix:
        params.append(
            {
                "name": "collection",
                "in": "path",
                "required": True,
                "schema": {"type": "string", "pattern": COLLECTION_PATTERN},
                "description": "Collection to address.",
            }
        )
    for name in _PARAM.findall(route.path):
        schema: dict[str, Any] = {"type": "string", "minLength": 1}
        if name == "memory_id":
            schema["not"] = {"const": "batch"}  # /memories/batch is its own route
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    for name, schema in route.query.items():
        params.append(
            {
                "name": name,
                "in": "query",
                "required": name in route.required_query,
                "schema": schema,
            }
        )
    if route.scoped and not scoped_prefix:
        params.append(
            {
                "name": "collection",
                "in": "query",
                "required": False,
                "schema": {"type": "string", "pattern": COLLECTION_PATTERN},
                "description": "Collection to address (default: the configured one).",
            }
        )
    responses: dict[str, Any] = {}
    for code, (text, response) in route.responses.items():
        entry: dict[str, Any] = {"description": text}
        if response is not None:
            entry["content"] = {route.content_type: {"schema": response}}
        responses[str(code)] = entry
    responses.setdefault("400", _err("Bad input"))
    cross_site = "Request sent by a page of another origin (Origin header; cross-site)"
    responses["403"] = _err(cross_site)
    if route.auth and secured:
        responses["401"] = _err("Missing or wrong bearer token")
        responses["403"] = _err(
            f"Token not allowed for this collection or read-only; or: {cross_site}"
        )
        responses["429"] = _err(
            "Too many wrong tokens from this client address; retry after Retry-After seconds"
        )
    if "{" in route.path or route.scoped:
        responses.setdefault("404", _err("Unknown id or collection"))
    if "{memory_id}" in route.path:
        responses["405"] = _err("memory_id 'batch' names the batch route (POST only)")
    if route.body is not None:
        responses["413"] = _err(
            "Request body over http_max_body"
            + (" (an archive: http_max_upload)" if route.upload else "")
        )
        responses["415"] = _err(
            "Content-Type is not application/json"
            + (
                " (nor an archive type: application/gzip, application/octet-stream)"
                if route.upload
                else ""
            )
        )
    responses["421"] = _err(
        "Host header names another server (DNS rebinding guard; http_allowed_hosts)"
    )
    responses["500"] = _err("Unexpected error (body carries only a request_id)")
    responses.setdefault("503", _err("Redis unavailable (down, restarting or loading)"))
    op: dict[str, Any] = {
        "operationId": route.name + ("_in_collection" if scoped_prefix else ""),
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": params,
        "responses": responses,
    }
    if route.body is not None:
        op["requestBody"] = {
            "required": bool(route.body.get("required") or route.body.get("minProperties")),
            "content": {"application/json": {"schema": route.body}},
        }
        if route.upload:
            binary = {"schema": {"type": "string", "format": "binary"}}
            op["requestBody"]["content"].update(
                {"application/gzip": binary, "application/octet-stream": binary}
            )
    if not route.auth:
        op["security"] = []
    return op


def build_openapi(app: Flask | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API."""
    secured = bool(app.config.get("HOUKAI_TOKENS")) if app is not None else True
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, False, secured)
        if route.scoped:
            paths.setdefault("/c/{collection}" + route.path, {})[route.method.lower()] = _operation(
                route, True, secured
            )
    text_ok = {
        "200": {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}
    }
    paths["/metrics/prometheus"] = {
        "get": {
            "operationId": "prometheus",
            "tags": ["ops"],
            "parameters": [],
            "summary": "Counts and runtime counters of every collection the token may read, "
            "in Prometheus text format.",
            "responses": {
                **text_ok,
                "401": _err("Missing or wrong bearer token"),
                "429": _err("Too many wrong tokens from this client address"),
                "500": _err("Unexpected error"),
            },
        }
    }
    paths["/openapi.json"] = {
        "get": {
            "operationId": "openapi",
            "tags": ["ops"],
            "parameters": [],
            "security": [],
            "summary": "This document.",
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    }
    paths["/docs"] = {
        "get": {
            "operationId": "docs",
            "tags": ["ops"],
            "parameters": [],
            "security": [],
            "summary": "Human-readable API reference (renders this document).",
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"text/html": {"schema": {"type": "string"}}},
                }
            },
        }
    }
    from .ui import openapi_paths as ui_paths

    paths.update(ui_paths())
    for entry in paths.values():  # the Host / Origin guard answers every path
        for op in entry.values():
            op["responses"].setdefault("403", _err("Request sent by a page of another origin"))
            op["responses"].setdefault("421", _err("Host header names another server"))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "houkai REST API",
            "version": __version__,
            "description": (
                "Long-term memory for AI agents. Every memory route exists at its plain path "
                "(default collection, or ?collection=NAME) and under /c/{collection}/. "
                'Errors are JSON {"error": …}. Writes wait until the memories are '
                "recallable and answer 201; with wait=false they answer 202 with a job id "
                "while the memories embed."
            ),
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "tags": [
            {"name": t}
            for t in (
                "memories",
                "recall",
                "graph",
                "audit",
                "portability",
                "jobs",
                "ops",
                "dashboard",
            )
        ],
        "paths": paths,
        "components": {
            "schemas": COMPONENTS,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "HOUKAI_HTTP_TOKENS entries TOKEN[:COLL1|COLL2][:ro|rw].",
                }
            },
        },
    }
