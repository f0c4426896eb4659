"""The authorization matrix: every REST route and every MCP tool × every kind of token.

Token kinds: none, bad, read-only scoped to A, read-write scoped to another
collection (B), read-write scoped to A, admin. Expected: 401 for none/bad on
authenticated routes; 403 for a collection outside the token's scope and for a
write with a read-only token; otherwise the request reaches the handler (any
status but 401/403). Afterwards B, which only admin may touch, is unchanged:
no token reads or writes outside its collections.
"""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest
from houkai.api import mcp_server
from houkai.api.rest import create_app
from houkai.api.routes import ROUTES, Route

from houkai.app.auth import parse_tokens
from houkai.app.service import MemoryService


def _content(rows: list[dict]) -> list[dict]:
    """What a write would change (reads legitimately bump access counters)."""
    return [
        {k: v for k, v in r.items() if k not in ("access_count", "last_accessed")} for r in rows
    ]


KINDS = ("none", "bad", "ro_a", "rw_b", "rw_a", "admin")
ARCHIVE = {"export", "import"}  # server-path policy is admin-only by design: no 2xx promised


@pytest.fixture(scope="module")
def world(settings, embedder):
    a, b = f"az-a-{uuid.uuid4().hex[:6]}", f"az-b-{uuid.uuid4().hex[:6]}"
    # the matrix sends hundreds of wrong tokens from one address: no throttling here
    s = settings.replace(collection=a, pipeline_mode="inline", http_auth_max_failures=0)
    tokens = f"adm,roa:{a}:ro,rwa:{a},rwb:{b}"
    service = MemoryService(s, actor="http")
    ids = {
        c: service.remember(f"secret fact of {c}", wait=True, collection=c)["id"] for c in (a, b)
    }
    job = service.remember_many(["a job item"], wait=True, collection=a)["job_id"]
    b_before = _content(service.list_recent(limit=100, collection=b))
    app = create_app(s, service, tokens=tokens)
    yield {
        "a": a,
        "b": b,
        "ids": ids,
        "job": job,
        "service": service,
        "client": app.test_client(),
        "tokens": {
            "none": None,
            "bad": "wrong",
            "ro_a": "roa",
            "rw_b": "rwb",
            "rw_a": "rwa",
            "admin": "adm",
        },
        "grants": parse_tokens(tokens),
        "b_before": b_before,
    }
    for c in (a, b):
        service.store(c).drop()


def _body(route: Route, memory_id: str) -> dict[str, Any] | None:
    bodies: dict[str, dict[str, Any]] = {
        "remember": {"text": "authz probe"},
        "remember_many": {"items": ["authz probe"]},
        "edit": {"importance": 0.4},
        "recall": {"query": "fact"},
        "recall_pack": {"query": "fact"},
        "auto_context": {"task": "fact"},
        "link": {"src_id": memory_id, "dst_id": "missing"},
        "unlink": {"src_id": memory_id, "dst_id": "missing"},
        "supersede": {"old_id": memory_id, "new_id": "missing"},
        "restore": {"memory_id": memory_id},
        "subgraph": {"memory_ids": [memory_id]},
        "undo": {"memory_id": "missing"},
        "nuke": {"confirm": "not it"},
        "export": {"path": "x.ahkai"},
        "import": {"path": "x.ahkai"},
        "ingest": {"documents": [{"text": "authz probe document"}]},
        "purge_expired": {"dry_run": True},
        "conflicts": {"memory_id": memory_id},
        "maintenance_tick": {},
    }
    return None if route.body is None else bodies.get(route.name, {})


def _url(route: Route, collection: str, world: dict) -> str:
    path = route.path.replace("{memory_id}", world["ids"].get(collection, "missing"))
    path = path.replace("{job_id}", world["job"])
    query = {"recall_get": "?query=fact", "get_at": "?ts=0", "state_at": "?ts=0"}.get(
        route.name, ""
    )
    return (f"/c/{collection}" if route.scoped else "") + path + query


def _expect(route: Route, kind: str, target: str, world: dict) -> str:
    """'401', '403' or 'ok' (reaches the handler)."""
    if not route.auth:
        return "ok"
    if kind in ("none", "bad"):
        return "401"
    if kind == "admin" or not route.scoped:
        return "ok"
    allowed = {"ro_a": world["a"], "rw_a": world["a"], "rw_b": world["b"]}[kind]
    if target != allowed:
        return "403"
    if route.write and kind == "ro_a":
        return "403"
    return "ok"


@pytest.mark.timeout(900)  # bounded, but the shared CI box can be slow
def test_rest_authorization_matrix(world):
    checked = 0
    for route in ROUTES:
        targets = (world["a"], world["b"]) if route.scoped else ("-",)
        for target in targets:
            memory_id = world["ids"].get(target, "missing")
            for kind in KINDS:
                if target == world["b"] and kind in ("rw_b", "admin") and route.write:
                    continue  # only writes B's owners may do; B must stay intact for the check
                token = world["tokens"][kind]
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                r = world["client"].open(
                    _url(route, target, world),
                    method=route.method,
                    headers=headers,
                    json=_body(route, memory_id),
                )
                want = _expect(route, kind, target, world)
                label = f"{route.method} {route.path} on {target} with {kind}: {r.status_code}"
                checked += 1
                if want == "ok":
                    if route.name in ARCHIVE:
                        continue
                    assert r.status_code not in (401, 403), label + f" {r.get_data()[:200]!r}"
                    assert r.status_code < 500, label
                else:
                    assert r.status_code == int(want), label + f" {r.get_data()[:200]!r}"
                    body = r.get_data(as_text=True)
                    assert "secret fact" not in body, label
    assert checked > 300
    service = world["service"]
    after = _content(service.list_recent(limit=100, collection=world["b"]))
    assert after == world["b_before"], "a token wrote outside its collections"
    r = world["client"].get("/collections", headers={"Authorization": "Bearer roa"})
    assert {c["name"] for c in r.get_json()["collections"]} == {world["a"]}


def _mcp_401(token: str | None) -> int:
    """Status of a tools/list POST through the MCP HTTP auth layer."""
    sent: list[dict] = []

    async def inner(scope, receive, send):  # reached only when authenticated
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    app = mcp_server.BearerAuth(inner, parse_tokens("adm"))
    anyio.run(app, {"type": "http", "headers": headers, "path": "/mcp"}, receive, send)
    return sent[0]["status"]


@pytest.mark.timeout(900)  # bounded, but the shared CI box can be slow
def test_mcp_authorization_matrix(world):
    assert _mcp_401(None) == 401 and _mcp_401("wrong") == 401 and _mcp_401("adm") == 200
    mcp_server.set_service(world["service"])
    checked = 0
    try:
        for spec in mcp_server.TOOLS:
            for target in (world["a"], world["b"]):
                for kind in ("ro_a", "rw_b", "rw_a", "admin"):
                    if target == world["b"] and kind in ("rw_b", "admin") and not spec.read_only:
                        continue
                    grant = world["grants"][world["tokens"][kind]]
                    policy = mcp_server.CallPolicy(grant=grant, allow_server_paths=False)
                    allowed = {"ro_a": world["a"], "rw_a": world["a"], "rw_b": world["b"]}
                    refused = kind != "admin" and (
                        target != allowed[kind] or (kind == "ro_a" and not spec.read_only)
                    )
                    label = f"{spec.name} on {target} with {kind}"
                    checked += 1
                    try:
                        result = mcp_server.call_tool(spec.name, {"collection": target}, policy)
                    except mcp_server.ToolError as exc:
                        message = str(exc)
                        auth_refusal = "may not use collection" in message or "read-only" in message
                        assert auth_refusal == refused, f"{label}: {message}"
                        continue
                    except Exception as exc:  # the service refused the (empty) arguments
                        assert not refused, f"{label}: reached the service ({exc})"
                        continue
                    assert not refused, f"{label}: answered {str(result)[:200]}"
                    if kind in ("ro_a", "rw_a"):  # scoped to A: B never leaks into an answer
                        assert "secret fact of " + world["b"] not in str(result), label
    finally:
        mcp_server.set_service(None)
    assert checked > 150
    after = _content(world["service"].list_recent(limit=100, collection=world["b"]))
    assert after == world["b_before"]
