"""The MCP server end to end, through the official SDK client.

``houkai mcp`` runs as a real subprocess (stdio, then streamable HTTP) against
the session's Redis Stack; every tool is listed and called at least once and
its structured result read back.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _childenv import child_env
from anyio.from_thread import start_blocking_portal
from houkai.api import mcp_server

HOUKAI = str(Path(sys.executable).parent / "houkai")
SEED_TOOLS = (
    "remember",
    "remember_many",
    "edit",
    "recall",
    "recall_pack",
    "auto_context",
    "forget",
    "purge_expired",
    "list_recent",
    "stats",
    "metrics",
    "link",
    "unlink",
    "neighbors",
    "find_conflicts",
    "supersede",
    "maintenance_tick",
    "journal_tail",
    "history",
    "state_at",
    "get_at",
    "export",
    "import",
)


def server_env(settings, collection: str) -> dict[str, str]:
    return child_env(
        REDIS_URL=settings.redis_url,
        HOUKAI_KEY_PREFIX=settings.key_prefix,
        HOUKAI_COLLECTION=collection,
        HOUKAI_DATA_DIR=settings.data_dir,
        HOUKAI_JOURNAL_ARCHIVE_DIR=settings.journal_archive_dir,
        HOUKAI_CONFIG=os.path.join(settings.data_dir, "no-such-config.toml"),
        HOUKAI_PIPELINE_MODE="inline",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )


class Session:
    """A synchronous face on an SDK ``Client`` living in a background event loop."""

    def __init__(self, portal, client) -> None:
        self.portal = portal
        self.client = client

    def tools(self) -> list[Any]:
        return self.portal.call(self.client.list_tools).tools

    def call(self, name: str, arguments: dict[str, Any] | None = None):
        return self.portal.call(self.client.call_tool, name, arguments or {})

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call and return the structured result (lists unwrapped), failing on a tool error."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {text_of(result)}"
        data = result.structured_content
        assert json.loads(text_of(result)) == (
            data["result"] if set(data) == {"result"} and isinstance(data["result"], list) else data
        )
        return data["result"] if set(data) == {"result"} else data

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        result = self.call(name, arguments)
        assert result.is_error, f"{name} unexpectedly succeeded: {text_of(result)}"
        message = text_of(result)
        assert message.startswith("Error: ")
        assert "Traceback" not in message
        return message


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@contextlib.contextmanager
def session(make_target) -> Iterator[Session]:
    """Open an SDK client (built inside the portal's loop) for the duration of the block."""
    from mcp import Client

    with start_blocking_portal() as portal:
        client = portal.call(lambda: Client(make_target(), read_timeout_seconds=180))
        with portal.wrap_async_context_manager(client) as connected:
            yield Session(portal, connected)


def drop_collection(settings, name: str) -> None:
    from houkai import MemoryStore

    MemoryStore(collection=name, settings=settings).drop()


# --------------------------------------------------------------------------- stdio


@pytest.fixture(scope="module")
def stdio(settings) -> Iterator[tuple[Session, str]]:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    collection = f"mcp-{uuid.uuid4().hex[:8]}"
    params = StdioServerParameters(
        command=HOUKAI, args=["mcp"], env=server_env(settings, collection)
    )
    # stdio_client's default errlog is whatever sys.stderr was when the SDK was
    # first imported (possibly a capture buffer with no file descriptor): give
    # the server's stderr a real file.
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            with session(lambda: stdio_client(params, errlog=errlog)) as s:
                yield s, collection
        finally:
            drop_collection(settings, collection)


def test_lists_every_seed_tool_with_schema(stdio):
    s, _ = stdio
    tools = {t.name: t for t in s.tools()}
    assert set(SEED_TOOLS) <= set(tools)
    assert {"jobs", "job", "ingest", "get"} <= set(tools)
    assert "nuke" not in tools  # no "delete everything" button for a model
    for tool in tools.values():
        assert tool.description and len(tool.description) > 20
        assert tool.input_schema["type"] == "object"
        assert "collection" in tool.input_schema["properties"]
    required = {name: set(t.input_schema.get("required", [])) for name, t in tools.items()}
    assert required["remember"] == {"text"}
    assert required["recall"] == {"query"}
    assert required["link"] == {"src_id", "dst_id"}
    assert required["get_at"] == {"memory_id", "ts"}
    assert required["import"] == {"path"}
    assert required["stats"] == set()
    assert tools["remember"].input_schema["properties"]["type"]["enum"] == [
        "episodic",
        "semantic",
        "procedural",
        "feedback",
    ]
    assert tools["recall"].annotations.read_only_hint is True
    assert tools["forget"].annotations.destructive_hint is True


def test_remember_is_recallable_immediately(stdio):
    s, collection = stdio
    stored = s.ok(
        "remember",
        {
            "text": "The staging database is called kestrel-pg",
            "tags": ["db", "staging"],
            "type": "semantic",
        },
    )
    assert stored["stored"] is True and stored["id"]
    hits = s.ok("recall", {"query": "what is the staging database called?", "k": 3})
    assert hits[0]["id"] == stored["id"]
    assert hits[0]["tags"] == ["db", "staging"]
    assert s.ok("stats")["collection"] == collection


def test_every_tool_round_trip(stdio, tmp_path):
    s, _ = stdio
    called: set[str] = set()

    def ok(name, args=None):
        called.add(name)
        return s.ok(name, args)

    def err(name, args=None):
        called.add(name)
        return s.error(name, args)

    a = ok(
        "remember",
        {
            "text": "Always run the linter before pushing a branch",
            "type": "procedural",
            "tags": ["git"],
            "importance": 0.8,
        },
    )
    b = ok(
        "remember",
        {
            "text": "The linter is ruff, configured in pyproject.toml",
            "tags": ["lint"],
            "source": "pyproject.toml",
        },
    )
    assert a["importance"] == 0.8
    many = ok(
        "remember_many",
        {
            "items": [
                {"text": "Releases are cut on Thursdays"},
                {"text": "The CI runs on two cores", "tags": ["ci"]},
            ],
            "wait": True,
        },
    )
    assert many["stored"] == 2 and len(many["ids"]) == 2
    edited = ok("edit", {"memory_id": b["id"], "importance": 0.9, "tags": ["lint", "python"]})
    assert edited["ok"] is True and edited["tags"] == ["lint", "python"]
    assert ok("get", {"memory_id": b["id"]})["importance"] == 0.9

    hits = ok("recall", {"query": "which linter do we use", "mode": "hybrid", "explain": True})
    assert hits[0]["id"] == b["id"] and "explain" in hits[0]
    pack = ok("recall_pack", {"query": "linting rules", "token_budget": 200})
    assert pack["budget"] == 200 and {i["id"] for i in pack["items"]} >= {a["id"], b["id"]}
    assert "ruff" in pack["text"]
    ctx = ok("auto_context", {"task": "push a branch after linting", "max_phrases": 2})
    assert ctx["queries"][0] == "push a branch after linting" and ctx["items"]
    recent = ok("list_recent", {"limit": 10})
    assert {m["id"] for m in recent} >= {a["id"], b["id"], *many["ids"]}
    assert ok("metrics")["count"] >= 4
    assert ok("stats")["count"] >= 4

    assert ok("link", {"src_id": a["id"], "dst_id": b["id"], "rel": "refines"})["ok"] is True
    nbrs = ok("neighbors", {"memory_id": a["id"], "direction": "out"})
    assert [(n["id"], n["rel"]) for n in nbrs] == [(b["id"], "refines")]
    assert ok("unlink", {"src_id": a["id"], "dst_id": b["id"]})["removed"] == 1

    dup = ok(
        "remember", {"text": "Always run the linter before pushing a branch!", "type": "procedural"}
    )
    conflicts = ok("find_conflicts", {"memory_id": dup["id"]})
    assert any(a["id"] in (c["a"]["id"], c["b"]["id"]) for c in conflicts)
    refused = ok(
        "remember",
        {
            "text": "Always run the linter before pushing a branch.",
            "type": "procedural",
            "on_conflict": "raise",
        },
    )
    assert refused["stored"] is False and refused["conflicts"]
    assert ok("supersede", {"old_id": dup["id"], "new_id": a["id"]})["ok"] is True
    assert dup["id"] not in {h["id"] for h in ok("recall", {"query": "run the linter"})}
    assert ok("restore", {"memory_id": dup["id"]})["restored"] is True

    timeline = ok("history", {"memory_id": b["id"]})
    assert [e["op"] for e in timeline][:2] == ["remember", "edit"]
    then = ok("get_at", {"memory_id": b["id"], "ts": timeline[0]["ts"] + 0.0001})
    assert then["ok"] is True and then["importance"] == 0.5
    assert ok("state_at", {"ts": time.time()})["count"] >= 5
    # str(time.time()) carries 7 decimals; Go/.NET ISO times 7–9 fraction digits
    for ts in ("1796106465.6042693", "2026-12-01T06:00:00.123456789Z"):
        assert "memories" in ok("state_at", {"ts": ts})
    tail = ok("journal_tail", {"n": 5})
    assert len(tail) == 5 and tail[0]["ts"] >= tail[-1]["ts"]
    edit_entry = next(e for e in timeline if e["op"] == "edit")
    undone = ok("undo", {"entry_id": edit_entry["entry_id"]})
    assert undone["op"] == "edit" and undone["id"] == b["id"]
    assert ok("get", {"memory_id": b["id"]})["importance"] == 0.5

    archive = tmp_path / "mem.ahkai"
    exported = ok("export", {"path": str(archive)})
    assert exported["count"] >= 5 and archive.is_file()
    imported = ok("import", {"path": str(archive), "dry_run": True})
    assert imported["ok"] is True and imported["skipped"] >= 5

    assert ok("purge_expired", {"dry_run": True})["dry_run"] is True
    short = ok("remember", {"text": "Temporary note that expires", "ttl_seconds": 3600})
    assert short["expires_at"] > time.time()

    assert ok("forget", {"memory_id": dup["id"]}) == {"deleted": True}
    assert ok("forget", {"memory_id": dup["id"]}) == {"deleted": False}

    tick = ok("maintenance_tick", {})
    assert {"summary", "ran_decay", "ran_purge", "decayed", "purged"} <= set(tick)
    ingested = ok(
        "ingest",
        {
            "documents": [{"text": "# Runbook\n\nWe deploy with Ansible.", "source": "runbook.md"}],
            "wait": True,
        },
    )
    assert ingested["job_id"] and ingested["ids"]
    job = ok("job", {"job_id": ingested["job_id"]})
    assert job["state"] == "done" and job["done"] == job["total"] == len(ingested["ids"])
    assert ingested["job_id"] in {j["id"] for j in ok("jobs", {"limit": 5})}
    assert ok("recall", {"query": "how do we deploy?", "k": 1})[0]["source"] == "runbook.md"
    assert "no job" in err("job", {"job_id": "nope"})
    checked = ok("check_findable", {"sample": 50})
    assert checked["ok"] is True and checked["sampled"] >= 3 and checked["own_text"] == 1.0
    assert "sample" in err("check_findable", {"sample": 0})
    chat = [{"id": "m1", "role": "user", "content": "I live in Paris."}]
    added = ok("add_messages", {"session_id": "mcp-s", "messages": chat, "user_id": "u"})
    assert added["added"] == 1 and added["pending"] == 1
    assert "content" in err("add_messages", {"session_id": "x", "messages": [{"role": "user"}]})
    extracted = ok("session_extract", {"session_id": "mcp-s"})
    assert extracted.get("queued") or extracted["added"] == 1
    assert ok("session_get", {"session_id": "mcp-s"})["window"][0]["id"] == "m1"
    assert "mcp-s" in {x["session_id"] for x in ok("session_list", {})}
    assert ok("session_delete", {"session_id": "mcp-s"})["deleted"] is True
    assert "session" in err("session_get", {"session_id": "mcp-s"})
    assert called >= set(SEED_TOOLS) | {"get", "restore", "undo", "job", "jobs", "ingest"}
    assert called >= {t.name for t in s.tools()}


def test_errors_are_tool_errors_with_clear_messages(stdio):
    s, _ = stdio
    assert "unknown tool 'bogus'" in s.error("bogus")
    assert "k: expected an integer" in s.error("recall", {"query": "x", "k": "many"})
    assert "missing required" in s.error("remember", {})
    assert "unknown argument" in s.error("forget", {"memory_id": "x", "nope": 1})
    assert "type" in s.error("remember", {"text": "x", "type": "dream"})
    # edit answers the seed's {ok: false, error} for an unknown id or a bad value
    refused = s.ok("edit", {"memory_id": "does-not-exist", "text": "y"})
    assert refused["ok"] is False and "does-not-exist" in refused["error"]
    assert "collection" in s.error("stats", {"collection": "bad name!"})
    # nulls mean "use the default"
    assert isinstance(s.ok("list_recent", {"limit": None}), list)


def test_collection_argument_switches_namespace(stdio, settings):
    s, _ = stdio
    other = f"mcp-other-{uuid.uuid4().hex[:6]}"
    try:
        stored = s.ok("remember", {"text": "Only in the other namespace", "collection": other})
        assert s.ok("get", {"memory_id": stored["id"], "collection": other})["text"]
        assert "no memory" in s.error("get", {"memory_id": stored["id"]})
    finally:
        drop_collection(settings, other)


# --------------------------------------------------------------------------- HTTP


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def http_server(settings, embedder) -> Iterator[dict[str, Any]]:
    """The HTTP app served by uvicorn in a thread (shares this process's loaded model)."""
    import threading

    import uvicorn

    from houkai.app.service import MemoryService

    collection = f"mcp-http-{uuid.uuid4().hex[:8]}"
    tokens = f"rw-secret,ro-secret:{collection}:ro,elsewhere-secret:some_other_coll"
    mcp_server.set_service(MemoryService(settings.replace(collection=collection), actor="mcp"))
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            mcp_server.build_http_app(tokens=tokens),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        yield {"url": f"http://127.0.0.1:{port}/mcp", "collection": collection}
    finally:
        server.should_exit = True
        thread.join(10)
        mcp_server.set_service(None)
        drop_collection(settings, collection)


def http_session(url: str, token: str | None):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    def target():
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return streamable_http_client(
            url, http_client=httpx2.AsyncClient(headers=headers, timeout=180)
        )

    return session(target)


def test_http_rejects_missing_or_wrong_token(http_server):
    import httpx2

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic x"}):
        reply = httpx2.post(http_server["url"], json=body, headers=headers)
        assert reply.status_code == 401
        assert reply.headers["www-authenticate"].startswith("Bearer")
    with pytest.raises(Exception), http_session(http_server["url"], None) as s:  # noqa: B017
        s.tools()


def test_http_with_token_stores_and_recalls(http_server):
    with http_session(http_server["url"], "rw-secret") as s:
        names = {t.name for t in s.tools()}
        assert set(SEED_TOOLS) <= names
        stored = s.ok("remember", {"text": "Remote agents talk to houkai over HTTP"})
        hits = s.ok("recall", {"query": "how do remote agents connect?", "k": 1})
        assert hits[0]["id"] == stored["id"]
        assert s.ok("stats")["collection"] == http_server["collection"]
        # over HTTP, server paths follow the REST policy: admin tokens, inside export_dir
        assert "export_dir" in s.error("export", {"path": "/tmp/x.ahkai"})
        assert "'..'" in s.error("import", {"path": "../x.ahkai"})
        exported = s.ok("export", {"path": "mcp-http.ahkai"})
        assert exported["path"].endswith("/exports/mcp-http.ahkai") and exported["count"] >= 1
        assert s.ok("import", {"path": "mcp-http.ahkai", "dry_run": True})["skipped"] >= 1


def test_http_token_grants_are_enforced(http_server):
    with http_session(http_server["url"], "ro-secret") as s:
        assert isinstance(s.ok("list_recent"), list)
        assert "read-only" in s.error("remember", {"text": "should not be stored"})
        assert "may not use collection" in s.error("recall", {"query": "x", "collection": "zz"})
    with http_session(http_server["url"], "elsewhere-secret") as s:
        assert "may not use collection" in s.error("stats")


def test_houkai_mcp_http_command_serves_with_token(settings):
    """The CLI wiring: `houkai mcp --transport http --token …` serves /mcp behind the token."""
    import httpx2

    port = _free_port()
    argv = [HOUKAI, "mcp", "--transport", "http", "--port", str(port), "--token", "cli-secret"]
    proc = subprocess.Popen(
        argv,
        env=server_env(settings, "mcp-cli-http"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {proc.stderr.read()!r}")
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        assert (
            httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code == 401
        )
        with http_session(url, "cli-secret") as s:  # listing needs neither Redis nor the model
            assert set(SEED_TOOLS) <= {t.name for t in s.tools()}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


# --------------------------------------------------------------------------- module


def test_mcp_over_http_and_rest_share_one_path_policy(settings, tmp_path):
    """Item 2: the same function decides for both doors; only admins, inside export_dir."""
    from houkai.app.auth import parse_tokens
    from houkai.app.service import MemoryService
    from houkai.domain.errors import HoukaiError

    grants = parse_tokens("admin,team:proj-a")
    service = MemoryService(settings.replace(export_dir=str(tmp_path / "ex")), actor="mcp")
    mcp_server.set_service(service)
    try:
        remote = mcp_server.CallPolicy
        with pytest.raises(HoukaiError) as info:  # read-write, but on one collection only
            mcp_server.call_tool(
                "export",
                {"path": "a.ahkai", "collection": "proj-a"},
                remote(grant=grants["team"], allow_server_paths=False),
            )
        assert info.value.status == 403 and "admin token" in info.value.message
        with pytest.raises(HoukaiError, match="export_dir"):
            mcp_server.call_tool(
                "ingest", {"path": "/etc"}, remote(grant=grants["admin"], allow_server_paths=False)
            )
        with pytest.raises(HoukaiError, match="admin token"):
            mcp_server.call_tool(
                "import", {"path": "/etc/passwd"}, remote(allow_server_paths=False)
            )
    finally:
        mcp_server.set_service(None)
    assert not (tmp_path / "ex" / "a.ahkai").exists()


def test_mcp_refuses_poisoned_numbers(stdio):
    s, _ = stdio
    assert "expires_at" in s.error("remember", {"text": "far future", "expires_at": 1e300})
    assert "ttl" in s.error("remember", {"text": "far future", "ttl_seconds": 1e300})


def test_mcp_refuses_nan_as_a_raw_client_sends_it(settings):
    """The SDK's client writes NaN as null; a raw JSON-RPC line can hold NaN, which Python's
    JSON reads: a tool error naming the argument, not Redis's syntax error."""
    from houkai.app.service import MemoryService
    from houkai.domain.errors import HoukaiError

    mcp_server.set_service(MemoryService(settings, actor="mcp"))
    try:
        with pytest.raises(HoukaiError, match="min_importance: must be a finite number"):
            mcp_server.call_tool("recall", {"query": "x", "min_importance": float("nan")})
    finally:
        mcp_server.set_service(None)


def test_stdio_answers_a_line_it_cannot_read(tmp_path):
    """The SDK's stdio transport answered nothing to an unreadable line, so a client
    waited until its own timeout; now each gets JSON-RPC's parse error (id null), or for
    JSON that is no JSON-RPC message an invalid-request error with the id it sent, and
    the session goes on."""
    lines = [
        "{not json",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember",'
        '"arguments":{"text":"raw \\ud83d surrogate"}}}',
        '{"jsonrpc":"2.0","id":5,"method":3}',
        '{"id":"q-1","params":{}}',
        "[1, 2]",
        '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    ]
    out = subprocess.run(
        [sys.executable, "-m", "houkai.cli", "mcp"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env={**os.environ, "HOUKAI_DATA_DIR": str(tmp_path), "REDIS_URL": "redis://127.0.0.1:1"},
        timeout=60,
    )
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["id"], r.get("error", {}).get("code")) for r in replies] == [
        (None, -32700),
        (None, -32700),
        (5, -32600),
        ("q-1", -32600),
        (None, -32600),
        (7, None),
    ], out.stderr
    assert replies[0]["error"]["message"].startswith("Parse error: Invalid JSON")
    assert replies[2]["error"]["message"].startswith("Invalid Request: ")
    assert replies[5]["result"]["serverInfo"]["name"] == "houkai"


def test_import_has_no_side_effects():
    code = (
        "import sys, houkai.api.mcp_server as m; "
        "assert m._service is None; "
        "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules; "
        "print(len(m.TOOLS))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "REDIS_URL": "redis://127.0.0.1:1"},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == len(mcp_server.TOOLS)


def test_tool_table_matches_service_signatures():
    from houkai.app.service import tool_parameters

    for spec in mcp_server.TOOLS:
        params = tool_parameters(spec.name)
        assert set(spec.input_schema()["properties"]) <= set(params), spec.name
        assert set(spec.required) == {p for p, required in params.items() if required}


def test_http_refuses_public_bind_without_token_and_bad_specs():
    from click.testing import CliRunner

    from houkai.cli import cli

    env = {"REDIS_URL": "redis://127.0.0.1:1", "HOUKAI_HTTP_TOKENS": ""}
    public = CliRunner().invoke(cli, ["mcp", "--transport", "http", "--host", "0.0.0.0"], env=env)
    assert public.exit_code == 1 and "without a bearer token" in public.output
    bad = CliRunner().invoke(cli, ["mcp", "--transport", "http", "--token", "t:c:admin"], env=env)
    assert bad.exit_code == 1 and "mode must be ro or rw" in bad.output
    stdio_flags = CliRunner().invoke(cli, ["mcp", "--port", "9"], env=env)
    assert stdio_flags.exit_code != 0 and "--transport http" in stdio_flags.output


def test_token_spec_parsing():
    from houkai.app.auth import authenticate, parse_tokens

    grants = parse_tokens(" admin , agent:proj_a|proj_b:ro, any:*:rw ")
    assert set(grants) == {"admin", "agent", "any"}
    assert grants["admin"].collections is None and not grants["admin"].read_only
    assert grants["agent"].collections == {"proj_a", "proj_b"} and grants["agent"].read_only
    assert grants["agent"].allows_collection("proj_a")
    assert not grants["agent"].allows_collection("proj_c")
    assert grants["any"].collections is None
    assert parse_tokens("") == {} and parse_tokens(None) == {}
    for spec in ("a:b:ro:x", ":x", "a b", "a:b:admin", "a:bad name!"):
        with pytest.raises(ValueError):
            parse_tokens(spec)
    assert authenticate("Bearer agent", grants) is grants["agent"]
    assert authenticate("bearer  admin ", grants) is grants["admin"]
    for header in (None, "", "Bearer", "Bearer nope", "Basic admin", "admin"):
        assert authenticate(header, grants) is None
