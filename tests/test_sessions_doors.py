"""Sessions through every door (issue 30): REST (also under /c/<collection>), MCP, CLI."""

from __future__ import annotations

import json

import pytest
from houkai.api import mcp_server
from houkai.api.rest import create_app

from houkai.app.service import MemoryService


@pytest.fixture()
def rest(settings, embedder, make_store):
    name = make_store().collection_name
    scoped = settings.replace(collection=name, pipeline_mode="inline")
    client = create_app(scoped, MemoryService(scoped, actor="http")).test_client()
    client.collection = name  # type: ignore[attr-defined]
    return client


@pytest.fixture()
def mcp(settings, embedder, make_store):
    name = make_store().collection_name
    scoped = settings.replace(collection=name, pipeline_mode="inline")
    mcp_server.set_service(MemoryService(scoped, actor="mcp"))

    def call(tool: str, arguments: dict):
        return mcp_server.to_jsonable(mcp_server.call_tool(tool, arguments))

    yield call
    mcp_server.set_service(None)


CHAT = [
    {"id": "m1", "role": "user", "content": "Hi! I live in Paris and I prefer tea over coffee."},
    {"id": "m2", "role": "assistant", "content": "Noted! Anything else?"},
    {"id": "m3", "role": "user", "content": "We decided to use Postgres for the billing app."},
]


def test_rest_round_trip(rest):
    r = rest.post("/sessions/chat-1/messages", json={"messages": CHAT, "user_id": "alice"})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["added"] == 3 and body["pending"] == 3 and body["extraction_queued"] is False
    again = rest.post("/sessions/chat-1/messages", json={"messages": CHAT[:1]}).get_json()
    assert again["added"] == 0

    got = rest.get("/sessions/chat-1").get_json()
    assert [m["id"] for m in got["window"]] == ["m1", "m2", "m3"]
    assert got["user_id"] == "alice" and got["pending"] == 3

    done = rest.post("/sessions/chat-1/extract").get_json()
    assert done["added"] == 3 and done["queued"] is False
    got = rest.get("/sessions/chat-1?query=what%20database%20do%20we%20use").get_json()
    assert got["pending"] == 0 and "Postgres" in got["text"]
    became = {m["id"]: m["became"] for m in got["window"]}
    assert len(became["m1"]) == 2 and became["m2"] == []
    memory = next(m for m in got["memories"] if "Postgres" in m["text"])
    assert memory["session_id"] == "chat-1" and memory["message_ids"] == ["m3"]
    assert memory["user_id"] == "alice"

    listed = rest.get("/memories?session_id=chat-1").get_json()["memories"]
    assert len(listed) == 3 and all(m["session_id"] == "chat-1" for m in listed)
    assert [s["session_id"] for s in rest.get("/sessions").get_json()["sessions"]] == ["chat-1"]

    scoped = f"/c/{rest.collection}/sessions/chat-1"
    assert rest.get(scoped).get_json()["session_id"] == "chat-1"
    assert rest.delete(scoped).get_json() == {"deleted": True, "session_id": "chat-1"}
    assert rest.get("/sessions/chat-1").status_code == 404
    assert rest.delete("/sessions/chat-1").status_code == 404
    assert len(rest.get("/memories?session_id=chat-1").get_json()["memories"]) == 3


@pytest.mark.parametrize(
    "body, words",
    [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "role"),
        ({"messages": [{"role": "user", "content": ""}]}, "content"),
        ({"messages": [{"role": "user"}]}, "content"),
        ({"messages": [{"role": "user", "content": "x", "mood": "happy"}]}, "mood"),
        ({"messages": "hello"}, "messages"),
        ({}, "messages"),
        ({"messages": [{"role": "user", "content": "x", "ts": "yesterday-ish"}]}, "ts"),
    ],
)
def test_rest_validation_errors_are_400_json(rest, body, words):
    r = rest.post("/sessions/s/messages", json=body)
    assert r.status_code == 400, r.get_json()
    assert words in r.get_json()["error"]


def test_rest_scope_conflict_is_409_and_unknown_session_404(rest):
    rest.post("/sessions/s/messages", json={"messages": CHAT[:1], "user_id": "a"})
    r = rest.post("/sessions/s/messages", json={"messages": CHAT[1:2], "user_id": "b"})
    assert r.status_code == 409 and "user_id" in r.get_json()["error"]
    assert rest.get("/sessions/nope").status_code == 404
    assert rest.post("/sessions/nope/extract").status_code == 404


def test_mcp_tools_round_trip(mcp):
    out = mcp("add_messages", {"session_id": "t", "messages": CHAT, "agent_id": "bot"})
    assert out["added"] == 3
    assert mcp("session_extract", {"session_id": "t"})["added"] == 3
    ctx = mcp("session_get", {"session_id": "t", "budget": 400})
    assert ctx["agent_id"] == "bot" and ctx["used_tokens"] <= 400
    assert [s["session_id"] for s in mcp("session_list", {})] == ["t"]
    recalled = mcp("recall", {"query": "where does the user live", "session_id": "t"})
    assert recalled[0]["text"] == "User lives in Paris." and recalled[0]["message_ids"] == ["m1"]
    assert mcp("session_delete", {"session_id": "t"})["deleted"] is True
    with pytest.raises(Exception, match="session"):
        mcp("session_get", {"session_id": "t"})
    with pytest.raises(Exception, match="role"):
        mcp("add_messages", {"session_id": "t", "messages": [{"role": "x", "content": "y"}]})
    assert json.dumps(mcp("session_list", {})) == "[]"


# ------------------------------------------------------------------------------ CLI
@pytest.fixture()
def houkai(settings, embedder, tmp_path):
    import uuid

    from click.testing import CliRunner

    from houkai import MemoryStore
    from houkai.cli import cli
    from houkai.domain.config import set_settings

    collection = f"cli-{uuid.uuid4().hex[:10]}"
    env = {
        "REDIS_URL": settings.redis_url,
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": settings.data_dir,
        "HOUKAI_JOURNAL_ARCHIVE_DIR": settings.journal_archive_dir,
        "HOUKAI_CONFIG": str(tmp_path / "absent.toml"),
        "HOUKAI_COLLECTION": collection,
        "HOUKAI_PIPELINE_MODE": "inline",
        "HOUKAI_LOCAL": "1",
        "NO_COLOR": "1",
    }
    runner = CliRunner()

    def invoke(*args: str):
        try:
            return runner.invoke(cli, list(args), env=env, catch_exceptions=False)
        finally:
            set_settings(settings)

    yield invoke
    MemoryStore(collection=collection, settings=settings).drop()


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def test_cli_add_import_show_list_extract_delete(houkai, tmp_path):
    out = json.loads(
        ok(houkai("session", "add", "s1", "--text", "I live in Oslo.", "--json")).stdout
    )
    assert out["added"] == 1 and out["pending"] == 1
    msg = json.dumps({"role": "assistant", "content": "Oslo is nice."})
    ok(houkai("session", "add", "s1", "--messages", msg, "--user-id", "olav"))

    jsonl = tmp_path / "chat.jsonl"
    jsonl.write_text(
        '{"role": "user", "content": "We decided to use Kotlin for the app."}\n'
        '{"role": "assistant", "content": [{"type": "text", "text": "Great choice."}]}\n'
    )
    first = json.loads(ok(houkai("session", "import", str(jsonl), "s1", "--json")).stdout)
    assert first["added"] == 2
    again = json.loads(ok(houkai("session", "import", str(jsonl), "s1", "--json")).stdout)
    assert again["added"] == 0  # ids from the file's lines: importing twice adds nothing

    export = tmp_path / "export.json"
    export.write_text(json.dumps([
        {"role": "user", "content": "My name is Kari.", "session_id": "ignored"},
        {"role": "human", "content": "I prefer trains to planes."},
    ]))  # fmt: skip
    ok(houkai("session", "import", str(export), "s2"))

    done = json.loads(ok(houkai("session", "extract", "s1", "--json")).stdout)
    assert done["added"] == 2 and done["messages"] == 4
    shown = json.loads(ok(houkai("session", "show", "s1", "--json")).stdout)
    assert shown["user_id"] == "olav" and len(shown["window"]) == 4
    assert shown["window"][0]["became"][0]["action"] == "ADD"
    text = ok(houkai("session", "show", "s1")).output
    assert "user: I live in Oslo." in text

    listed = json.loads(ok(houkai("session", "list", "--json")).stdout)
    assert {s["session_id"] for s in listed} == {"s1", "s2"}
    recalled = json.loads(ok(houkai("recall", "Kotlin", "--session-id", "s1", "--json")).stdout)
    assert recalled[0]["message_ids"] and recalled[0]["session_id"] == "s1"
    mine = json.loads(ok(houkai("list", "--user-id", "olav", "--json")).stdout)
    assert len(mine) == 2

    ok(houkai("session", "delete", "s2", "--yes"))
    missing = houkai("session", "show", "s2")
    assert missing.exit_code == 1 and "Error:" in missing.output and "s2" in missing.output
    bad = houkai("session", "add", "s1", "--messages", '{"role": "x", "content": "y"}')
    assert bad.exit_code == 1 and "Error:" in bad.output and "role" in bad.output
    nothing = houkai("session", "add", "s1")
    assert nothing.exit_code != 0
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    failed = houkai("session", "import", str(broken), "s1")
    assert failed.exit_code == 1 and "not JSON" in failed.output


def test_cli_remember_takes_scope_fields(houkai):
    ok(houkai("remember", "Tea at four", "--user-id", "u1", "--message-ids", "m9"))
    rows = json.loads(ok(houkai("list", "--user-id", "u1", "--json")).stdout)
    assert rows[0]["user_id"] == "u1" and rows[0]["message_ids"] == ["m9"]


# ------------------------------------------------------------------------ token scopes
def test_token_scopes_name_a_user(settings, embedder, make_store):
    from houkai.app.auth import parse_tokens

    name = make_store().collection_name
    scoped = settings.replace(collection=name, pipeline_mode="inline")
    tokens = "adm,alice-tok::rw:user=alice,bob-ro:*:ro:user=bob"
    assert parse_tokens(tokens)["alice-tok"].scope == (("user_id", "alice"),)
    app = create_app(scoped, MemoryService(scoped, actor="http"), tokens=tokens).test_client()

    def call(method, path, token, **kw):
        return getattr(app, method)(path, headers={"Authorization": f"Bearer {token}"}, **kw)

    call("post", "/memories", "adm", json={"text": "Bob likes jazz", "user_id": "bob"})
    made = call("post", "/memories", "alice-tok", json={"text": "Alice likes folk"})
    assert made.status_code == 201 and made.get_json()["user_id"] == "alice"  # set for her
    assert (
        call("post", "/memories", "alice-tok", json={"text": "x", "user_id": "bob"}).status_code
        == 403
    )

    found = call("post", "/recall", "alice-tok", json={"query": "who likes music"}).get_json()
    assert [m["text"] for m in found["results"]] == ["Alice likes folk"]
    listed = call("get", "/memories", "bob-ro").get_json()["memories"]
    assert [m["text"] for m in listed] == ["Bob likes jazz"]
    assert call("get", f"/memories/{made.get_json()['id']}", "bob-ro").status_code == 403
    assert call("get", "/stats", "alice-tok").status_code == 403

    chat = {"messages": [{"id": "1", "role": "user", "content": "I live in Oslo."}]}
    assert call("post", "/sessions/a1/messages", "alice-tok", json=chat).status_code == 201
    call("post", "/sessions/b1/messages", "adm", json={**chat, "user_id": "bob"})
    assert call("get", "/sessions/a1", "alice-tok").get_json()["user_id"] == "alice"
    assert call("get", "/sessions/b1", "alice-tok").status_code == 404  # not hers: not found
    assert call("delete", "/sessions/b1", "alice-tok").status_code == 404
    own = call("get", "/sessions", "alice-tok").get_json()["sessions"]
    assert [s["session_id"] for s in own] == ["a1"]
    assert call("post", "/sessions/b1/messages", "alice-tok", json=chat).status_code == 409
    assert len(call("get", "/sessions", "adm").get_json()["sessions"]) == 2


def test_cli_shows_a_memorys_provenance(houkai):
    made = json.loads(
        ok(
            houkai("remember", "Tea at five", "--session-id", "s7", "--message-ids", "a", "--json")
        ).stdout
    )
    shown = ok(houkai("show", made["id"])).output
    assert "session_id" in shown and "s7" in shown and "message_ids" in shown
