"""MemoryService: coercion, seed tool shapes, dispatch, collections — on the real store."""

from __future__ import annotations

import time
import uuid

import pytest

from houkai.app.errors import classify
from houkai.app.service import SEED_TOOLS, TOOLS, MemoryService, memory_to_dict, tool_parameters
from houkai.domain.coerce import as_bool, as_float, as_int, as_str_list, as_timestamp
from houkai.domain.errors import BadRequest, NotFound
from houkai.domain.model import ConflictError, MemoryNotFound
from houkai.domain.timeparse import is_relative, parse_timestamp
from houkai.store import MemoryStore


def needs(*methods: str) -> None:
    """Skip while a library method another engineer owns is not implemented yet."""
    missing = [m for m in methods if not callable(getattr(MemoryStore, m, None))]
    if missing:
        pytest.skip(f"store lacks {missing}")


@pytest.fixture()
def svc(settings, embedder, make_store):
    name = f"svc-{uuid.uuid4().hex[:8]}"
    store = make_store(name, actor="lib")  # dropped after the test
    service = MemoryService(settings.replace(collection=name), actor="lib")
    service._stores[name] = store
    return service


# ---------------------------------------------------------------- coercion
def test_timeparse_forms():
    now = 1_700_000_000.0
    assert parse_timestamp(None) is None and parse_timestamp("  ") is None
    assert parse_timestamp(12) == 12.0 and parse_timestamp("12.5") == 12.5
    assert parse_timestamp("7d", now=now) == now - 7 * 86400
    assert parse_timestamp("24h", now=now) == now - 86400
    assert parse_timestamp("2024-01-01") == 1704067200.0
    assert parse_timestamp("2024-01-01T00:00:00Z") == 1704067200.0
    assert parse_timestamp("2024-01-01T01:00:00+01:00") == 1704067200.0
    assert is_relative("30m") and not is_relative("2024-01-01")
    for bad in (True, "yesterday", [1], float("nan"), "inf"):
        with pytest.raises(ValueError):
            parse_timestamp(bad)


def test_coercion_accepts_json_and_strings_and_rejects_the_rest():
    assert as_int("5", "k") == 5 and as_int(5.0, "k") == 5 and as_int(None, "k", 3) == 3
    assert as_float("0.25", "x") == 0.25 and as_float(1, "x") == 1.0
    assert as_bool("false", "b") is False and as_bool("TRUE", "b") is True
    assert as_bool(0, "b") is False and as_bool(None, "b", True) is True
    assert as_str_list("one", "tags") == ["one"]
    assert as_timestamp("1d", "since") < time.time()
    for call in (
        lambda: as_int(True, "k"),
        lambda: as_int("5x", "k"),
        lambda: as_int(2.5, "k"),
        lambda: as_int({}, "k"),
        lambda: as_int(0, "k", lo=1),
        lambda: as_float("nan", "x"),
        lambda: as_float([], "x"),
        lambda: as_bool("maybe", "b"),
        lambda: as_bool(2, "b"),
        lambda: as_str_list([1], "tags"),
        lambda: as_timestamp("soon", "since"),
    ):
        with pytest.raises(BadRequest) as info:
            call()
        assert classify(info.value)[0] == 400


# ---------------------------------------------------------------- shapes
def test_remember_recall_get_forget_round_trip(svc):
    out = svc.remember(
        "The deploy script lives in ops/deploy.sh", tags=["ops"], importance="0.7", polarity="1"
    )
    assert out["stored"] is True and out["importance"] == 0.7
    assert out["memory"]["state"] == "ready" and out["memory"]["polarity"] == 1
    mid = out["id"]
    hits = svc.recall("where is the deploy script?", k="3")
    assert hits[0]["id"] == mid and 0 < hits[0]["score"] <= 1.0001
    assert {
        "id",
        "text",
        "type",
        "tags",
        "importance",
        "score",
        "created_at",
        "superseded_by",
        "expires_at",
    } <= set(hits[0])
    explained = svc.recall("deploy script", explain="true", mode="hybrid")
    assert "explain" in explained[0]
    assert svc.get(mid)["text"] == "The deploy script lives in ops/deploy.sh"
    assert svc.list_recent(limit=5)[0]["id"] == mid
    assert svc.forget(mid) == {"deleted": True}
    assert svc.forget(mid) == {"deleted": False}
    with pytest.raises(MemoryNotFound):
        svc.get(mid)


def test_remember_validation_is_clear(svc):
    for kwargs in (
        {"text": ""},
        {"text": "x", "type": "nope"},
        {"text": "x", "polarity": 5},
        {"text": "x", "importance": "high"},
        {"text": "x", "tags": [1]},
        {"text": "x", "tags": ["a,b"]},
        {"text": "x", "ttl_seconds": -1},
        {"text": "x", "ttl_seconds": 5, "expires_at": 9e9},
        {"text": 42},
        {"text": "x", "on_conflict": "explode"},
    ):
        with pytest.raises((ValueError, BadRequest)) as info:
            svc.remember(**kwargs)
        assert classify(info.value)[0] == 400, kwargs
    assert svc.store().count() == 0


def test_remember_many_and_all_or_nothing(svc):
    out = svc.remember_many(
        ["alpha memory", {"text": "beta memory", "tags": "b"}], batch_size="2", wait=True
    )
    assert out["stored"] == 2 and len(out["ids"]) == 2
    with pytest.raises((ValueError, BadRequest)):
        svc.remember_many(["fine", {"text": "bad", "type": "nope"}])
    with pytest.raises(BadRequest):
        svc.remember_many(["x"], on_conflict="raise")
    with pytest.raises(BadRequest):
        svc.remember_many([{"txt": "typo"}])
    with pytest.raises(BadRequest):
        svc.remember_many("not a list")
    assert svc.store().count() == 2
    assert svc.remember_many([]) == {"stored": 0, "ids": [], "job_id": None, "memories": []}


def test_edit_semantics(svc):
    mid = svc.remember("Use tabs for indentation", source="style-guide")["id"]
    out = svc.edit(mid, text="Use four spaces for indentation", tags=["style"])
    assert out["ok"] and out["text"] == "Use four spaces for indentation"
    assert out["source"] == "style-guide"  # omitted = unchanged
    assert svc.edit(mid, source=None)["source"] is None  # explicit None clears
    with pytest.raises(BadRequest):
        svc.edit(mid)
    with pytest.raises(MemoryNotFound):
        svc.edit("no-such-id", text="x")
    assert svc.recall("spaces indentation")[0]["id"] == mid  # re-embedded


def test_stats_health_collections_and_read_of_unknown_collection(svc):
    svc.remember("something to count")
    assert svc.stats()["count"] == 1 and svc.stats()["collection"] == svc.settings.collection
    assert svc.health() == {"status": "ok", "count": 1}
    names = [c["name"] for c in svc.collections()]
    assert svc.settings.collection in names
    with pytest.raises(NotFound):
        svc.list_recent(collection="never-created-" + uuid.uuid4().hex[:6])
    with pytest.raises(BadRequest):
        svc.list_recent(collection="bad name!")


def test_collections_are_isolated(svc):
    other = f"svc-o-{uuid.uuid4().hex[:6]}"
    try:
        svc.remember("only in the other collection", collection=other)
        assert svc.recall("other collection") == []
        assert svc.recall("other collection", collection=other)[0]["text"].startswith("only")
    finally:
        svc.store(other).drop()


def test_recall_bad_arguments(svc):
    for kwargs in (
        {"query": "x", "k": 0},
        {"query": "x", "mode": "hybird"},
        {"query": "x", "since": "yesterday"},
        {"query": None},
        {"query": "x", "expand": {"bogus": 1}},
        {"query": "x", "fusion": "max"},
        {"query": "x", "overfetch": "lots"},
    ):
        with pytest.raises((ValueError, BadRequest)) as info:
            svc.recall(**kwargs)
        assert classify(info.value)[0] == 400, kwargs


def test_nuke_requires_confirmation(svc):
    svc.remember("to be nuked")
    with pytest.raises(BadRequest):
        svc.nuke()
    assert svc.nuke(confirm="DELETE ALL") == {"ok": True, "deleted": 1}


def test_memory_to_dict_shape(svc):
    mem = svc.store().remember("shape check", ttl_seconds=60)
    d = memory_to_dict(mem, score=0.123456)
    assert d["score"] == 0.1235 and d["expires_at"] > time.time()
    assert d["superseded_by"] is None and d["state"] == "ready"


# ---------------------------------------------------------------- dispatch
def test_dispatch_covers_the_seed_tools():
    assert len(SEED_TOOLS) == 23 and "import" in SEED_TOOLS
    assert TOOLS["import"] == "import_"
    assert tool_parameters("link") == {
        "src_id": True,
        "dst_id": True,
        "rel": False,
        "collection": False,
    }


def test_dispatch_calls_and_rejects(svc):
    out = svc.dispatch("remember", {"text": "dispatch works", "tags": ["d"]})
    assert out["stored"] is True
    assert svc.dispatch("recall", {"query": "dispatch"})[0]["id"] == out["id"]
    assert svc.dispatch("forget", {"memory_id": out["id"]}) == {"deleted": True}
    with pytest.raises(BadRequest, match="unknown tool"):
        svc.dispatch("rm_rf", {})
    with pytest.raises(BadRequest, match="unknown argument"):
        svc.dispatch("recall", {"query": "x", "kk": 3})
    with pytest.raises(BadRequest, match="missing required"):
        svc.dispatch("recall", {})
    with pytest.raises(BadRequest):
        svc.dispatch("recall", ["query"])


def test_remember_raise_conflict(svc):
    needs("find_conflicts")
    svc.remember("The staging database runs on port 5432")
    with pytest.raises(ConflictError) as info:
        svc.remember("The staging database runs on port 5432", on_conflict="raise")
    assert classify(info.value)[0] == 409
    refused = svc.dispatch(
        "remember", {"text": "The staging database runs on port 5432", "on_conflict": "raise"}
    )
    assert refused["stored"] is False and refused["conflicts"]
    assert svc.store().count() == 1


def test_a_conflict_scan_stops_at_its_limit(svc):
    """A collection of near-duplicates has pairs by the square of its size: the scan
    streams and stops at ``limit`` (default 1000) instead of holding the door."""
    store = svc.store()
    store.remember_many([f"The staging database runs on port 5432 (copy {i})" for i in range(8)])
    everything = svc.find_conflicts(threshold=0.5)
    assert len(everything) == 28  # 8 choose 2
    first = svc.find_conflicts(threshold=0.5, limit=5)
    assert first == everything[:5]
    newer = svc.find_conflicts(threshold=0.5, since=0, limit=3)
    assert len(newer) == 3
    with pytest.raises(BadRequest, match="limit: must be <= 100000"):
        svc.find_conflicts(limit=100_001)


# ---------------------------------------------------------------- other engineers' methods
def test_graph_tools(svc):
    needs("link", "unlink", "neighbors", "supersede", "restore", "subgraph")
    a = svc.remember("Python 3.11 is the runtime")["id"]
    b = svc.remember("Python 3.12 is the runtime now")["id"]
    assert svc.link(a, b, "refines") == {"ok": True, "src_id": a, "dst_id": b, "rel": "refines"}
    assert [n["id"] for n in svc.neighbors(a)] == [b]
    assert svc.subgraph([a])["edges"] == [{"src": a, "dst": b, "rel": "refines"}]
    assert svc.unlink(a, b)["removed"] == 1
    assert svc.supersede(a, b)["ok"] is True
    assert a not in [m["id"] for m in svc.list_recent()]
    assert svc.restore(a)["restored"] is True
    with pytest.raises((MemoryNotFound, NotFound)):
        svc.link(a, "missing-id")
    with pytest.raises(MemoryNotFound):
        svc.neighbors("missing-id")
    with pytest.raises((ValueError, BadRequest)):
        svc.link(a, b, "likes")


def test_history_and_journal_tools(svc):
    needs("history", "journal_tail", "state_at", "get_at", "undo")
    before = time.time()
    mid = svc.remember("first version")["id"]
    svc.edit(mid, text="second version")
    assert [e["op"] for e in svc.history(mid)] == ["remember", "edit"]
    assert svc.journal_tail(n=1)[0]["op"] == "edit"
    assert svc.get_at(mid, before - 10)["ok"] is False
    assert svc.state_at(time.time())["count"] == 1
    undone = svc.undo(memory_id=mid)
    assert undone["op"] == "edit" and svc.get(mid)["text"] == "first version"
    with pytest.raises(MemoryNotFound):
        svc.history("never-existed")


def test_undo_after_undo_walks_back_through_the_history(svc):
    """Undo with no reference reverses the newest change an undo has not reversed yet,
    as an editor's undo does: not the undo itself, nor the forget it journaled."""
    a = svc.remember("the first note")["id"]
    b = svc.remember("the second note")["id"]
    svc.link(a, b, "related")
    svc.edit(a, text="the first note, edited")
    steps = [svc.undo() for _ in range(4)]
    assert [(u["op"], u["id"]) for u in steps] == [
        ("edit", a),
        ("link", a),
        ("remember", b),
        ("remember", a),
    ]
    assert svc.store().count() == 0
    with pytest.raises(NotFound, match="no journal entry to undo"):
        svc.undo()


def test_undo_after_undoing_an_unlink_of_several_relations(svc):
    """Undoing an unlink that removed two relations journals two links; the next undo
    skips both (they are that undo's doing) and reverses the change before the unlink."""
    a = svc.remember("the parent note")["id"]
    b = svc.remember("the child note")["id"]
    svc.link(a, b, "related")
    svc.link(a, b, "refines")
    svc.unlink(a, b)
    assert svc.undo()["op"] == "unlink"
    assert {n["rel"] for n in svc.neighbors(a)} == {"related", "refines"}
    second = svc.undo()
    assert (second["op"], second["id"]) == ("link", a)
    assert {n["rel"] for n in svc.neighbors(a)} == {"related"}


def test_history_reads_say_times_and_ops_as_people_do(svc):
    mid = svc.remember("a note")["id"]
    gone = svc.get_at(mid, "2001-02-03T04:05:06Z")
    assert gone == {"ok": False, "error": f"memory {mid!r} did not exist at 2001-02-03T04:05:06Z"}
    far = svc.get_at("never-was", 1e20)  # past year 9999: said as the number it is
    assert far == {"ok": False, "error": "memory 'never-was' did not exist at 1e+20"}
    with pytest.raises(BadRequest, match="op must be one of remember, forget"):
        svc.journal_tail(op="bogus")
    assert [e["op"] for e in svc.journal_tail(op="remember")] == ["remember"]


def test_ttl_purge_tool(svc):
    needs("purge_expired")
    mem = svc.store().remember("short lived", expires_at=time.time() - 1)
    out = svc.purge_expired(dry_run=True)
    assert out == {"purged": 1, "dry_run": True, "ids": [mem.id]}
    assert svc.purge_expired()["purged"] == 1


def test_pack_tools(svc):
    needs("recall_pack", "auto_context_pack")
    svc.remember("Deploys go through the blue-green pipeline")
    pack = svc.recall_pack("how do deploys work", token_budget="200")
    assert pack["items"] and pack["used_tokens"] <= 200
    ctx = svc.auto_context("deploy the API to production")
    assert ctx["queries"][0] == "deploy the API to production"


# ---------------------------------------------------------------- bound to the registry
def test_each_method_is_its_operations_signature_and_checks_once():
    """The service's parameter lists are the registry's models (no second list to edit),
    and a call is checked once, with the registry's words, before the body runs."""
    import inspect

    from houkai.app import operations

    for op in operations.OPERATIONS:
        method = getattr(MemoryService, op.service_method, None)
        if method is None or op.name in ("readiness", "health", "collections", "whoami"):
            continue
        if op.name in ("browse", "facets", "growth", "pipeline_status", "import_stream"):
            continue  # dashboard functions / the upload wrapper, not bound methods
        names = [p for p in inspect.signature(method).parameters if p != "self"]
        assert set(names) - {"collection"} == set(op.fields()), op.name
        assert names[: len(op.required())] == op.required(), op.name  # positionals first
    recall = inspect.signature(MemoryService.recall).parameters
    assert recall["k"].default == 5 and recall["mode"].default == "semantic"

    service = MemoryService(store_factory=lambda name: pytest.fail("the check runs first"))
    with pytest.raises(BadRequest) as info:
        service.recall("x", k=0)
    assert str(info.value) == "k: must be >= 1, got 0"  # the words of every door
    with pytest.raises(BadRequest, match="unknown argument"):
        service.recall("x", kk=3)
    with pytest.raises(BadRequest, match="missing required"):
        service.link(src_id="a")
    with pytest.raises(BadRequest, match="at least one of add or remove"):
        service.retag("some-id")
