"""Provenance and scope on memories (issue 30): stored, shown, filtered, through every door."""

from __future__ import annotations

import json

import pytest

from houkai.domain.model import Memory, ValidationError


def test_scope_fields_are_stored_and_read_back(store):
    m = store.remember(
        "Alice prefers green tea",
        user_id="alice",
        agent_id="helper",
        session_id="s1",
        message_ids=["m1", "m2"],
    )
    got = store.get(m.id)
    assert got is not None
    assert (got.user_id, got.agent_id, got.session_id) == ("alice", "helper", "s1")
    assert got.message_ids == ["m1", "m2"]
    assert got.to_dict()["message_ids"] == ["m1", "m2"]
    assert Memory.from_dict(got.to_dict()).session_id == "s1"


def test_a_plain_memory_has_no_scope_fields(store):
    m = store.remember("Deploys happen on Tuesdays")
    d = store.get(m.id).to_dict()
    assert not {"user_id", "agent_id", "session_id", "message_ids"} & set(d)


def test_scope_filters_on_recall_list_and_pack(store):
    a = store.remember("The user's favourite colour is green", user_id="alice")
    b = store.remember("The user's favourite colour is red", user_id="bob", agent_id="x")
    store.remember("The favourite colour of the office is beige")
    hits = store.recall("favourite colour", k=5, user_id="alice")
    assert [m.id for m, _ in hits] == [a.id]
    hits = store.recall("favourite colour", k=5, mode="hybrid", agent_id="x")
    assert [m.id for m, _ in hits] == [b.id]
    assert [m.id for m in store.list_recent(user_id="bob")] == [b.id]
    assert store.recall_pack("favourite colour", user_id="alice").ids() == [a.id]
    assert len(store.recall("favourite colour", k=5)) == 3


def test_bad_scope_ids_are_refused(store):
    with pytest.raises(ValidationError):
        store.remember("x", user_id=" ")
    with pytest.raises(ValidationError):
        store.remember("x", message_ids="m1")
    with pytest.raises(ValidationError):
        store.recall("x", user_id=42)


def test_export_import_keeps_provenance(make_store, tmp_path):
    src = make_store()
    m = src.remember("Bob lives in Berlin", user_id="bob", session_id="s9", message_ids=["a"])
    path = tmp_path / "out.ahkai"
    src.export(str(path))
    dst = make_store()
    dst.import_(str(path))
    got = dst.get(m.id)
    assert got is not None and got.user_id == "bob" and got.message_ids == ["a"]


def test_rest_mcp_and_service_show_and_filter_scope(settings, embedder, make_store):
    from houkai.api import mcp_server
    from houkai.api.rest import create_app

    from houkai.app.service import MemoryService

    name = make_store().collection_name
    scoped = settings.replace(collection=name, pipeline_mode="inline")
    client = create_app(scoped, MemoryService(scoped, actor="http")).test_client()
    r = client.post(
        "/memories",
        json={"text": "Carol drinks oat milk", "user_id": "carol", "message_ids": ["m7"]},
    )
    assert r.status_code == 201, r.get_json()
    client.post("/memories", json={"text": "Dave drinks whole milk", "user_id": "dave"})
    listed = client.get("/memories?user_id=carol").get_json()["memories"]
    assert [m["text"] for m in listed] == ["Carol drinks oat milk"]
    assert listed[0]["user_id"] == "carol" and listed[0]["message_ids"] == ["m7"]
    found = client.post("/recall", json={"query": "milk", "user_id": "dave"}).get_json()
    assert [m["text"] for m in found["results"]] == ["Dave drinks whole milk"]
    bad = client.post("/memories", json={"text": "x", "user_id": ""})
    assert bad.status_code == 400 and "user_id" in bad.get_json()["error"]

    mcp_server.set_service(MemoryService(scoped, actor="mcp"))
    try:
        out = mcp_server.to_jsonable(
            mcp_server.call_tool("recall", {"query": "milk", "user_id": "carol"})
        )
    finally:
        mcp_server.set_service(None)
    assert [m["user_id"] for m in json.loads(json.dumps(out))] == ["carol"]


def test_an_index_from_before_the_scope_fields_gets_them_in_place(make_store, settings):
    import redis

    from houkai import MemoryStore
    from houkai.db import schema

    old = make_store()
    kept = old.remember("A memory from before the scope fields")
    # the index and signature an older houkai made: no uidk/aidk/sidk, no "sc"
    args = schema._schema_args(old.keys, old.index_params)
    for name in schema.SCOPE_TAG_FIELDS:
        at = args.index(name)
        del args[at : at + 2]
    old.client.execute_command("FT.DROPINDEX", old.keys.index)
    old.client.execute_command(*args)
    signature = json.loads(schema.read_meta(old.client, old.keys)["signature"])
    signature.pop("sc")
    old.client.hset(old.keys.meta, "signature", json.dumps(signature, sort_keys=True))
    schema.await_scan(old.client, old.keys.index, 10, expected=1)

    sent: list[tuple] = []
    original = redis.Redis.execute_command

    def spy(self, *a, **kw):
        sent.append(a)
        return original(self, *a, **kw)

    redis.Redis.execute_command = spy  # type: ignore[method-assign]
    try:
        upgraded = MemoryStore(collection=old.collection_name, settings=settings)
    finally:
        redis.Redis.execute_command = original  # type: ignore[method-assign]
    assert not [a for a in sent if str(a[0]).upper() == "FT.DROPINDEX"]
    assert any(str(a[0]).upper() == "FT.ALTER" for a in sent)
    assert json.loads(schema.read_meta(upgraded.client, upgraded.keys)["signature"])["sc"] == 1
    new = upgraded.remember("A memory with a scope", user_id="zoe")
    assert [m.id for m in upgraded.list_recent(user_id="zoe")] == [new.id]
    assert {m.id for m in upgraded.list_recent()} == {kept.id, new.id}


def test_auto_context_takes_the_scope_filters(store):
    store.remember("The user's laptop is a ThinkPad", user_id="ivy")
    store.remember("The user's laptop is a MacBook", user_id="jon")
    pack = store.auto_context_pack("which laptop does the user have", user_id="ivy")
    assert [p.memory.text for p in pack.items] == ["The user's laptop is a ThinkPad"]
