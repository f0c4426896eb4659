"""Access documents (ADR 0075): folds never write a memory's vector-bearing hash, every
writer keeps the access document in step with its memory, and the aggregates that read
access counts (stale, decay, never-recalled, browse by decay or last access) see them."""

from __future__ import annotations

import time

import pytest

from houkai.db.schema import await_scan
from houkai.engines.embeddings import HashEmbedder
from houkai.pipeline.write import Pipeline
from houkai.store import access

DAY = 86400.0


def _doc(store, memory_id: str) -> dict[str, str]:
    raw = store.client.hgetall(store.keys.access_doc(memory_id))
    return {k.decode(): v.decode() for k, v in raw.items()}


def assert_in_step(store) -> None:
    """Every memory has an access document mirroring it, and no document is an orphan."""
    memory_ids = {
        k.decode()[len(store.keys.memory_prefix) :]
        for k in store.client.scan_iter(match=store.keys.memory_prefix + "*", count=1000)
    }
    doc_ids = {
        k.decode()[len(store.keys.access_doc_prefix) :]
        for k in store.client.scan_iter(match=store.keys.access_doc_prefix + "*", count=1000)
    }
    assert doc_ids == memory_ids, "an orphaned or missing access document"
    for memory_id in memory_ids:
        fields = store.client.hmget(store.keys.memory(memory_id), *access.MIRRORED)
        mirror = _doc(store, memory_id)
        for name, value in zip(access.MIRRORED, fields, strict=True):
            assert mirror.get(name) == (value.decode() if value is not None else None), (
                memory_id,
                name,
            )
        assert {"last_accessed", "access_count"} <= set(mirror)


def test_a_fold_never_writes_the_memory_hash(store):
    m = store.remember("the staging database listens on port 5433", tags=["db"])
    before = store.client.hgetall(store.keys.memory(m.id))
    for _ in range(3):
        store.recall("staging database port", k=1)
    assert store.flush_access() == 1
    # 0.1 folded into the memory hash, so RediSearch re-inserted its vector (ADR 0075)
    assert store.client.hgetall(store.keys.memory(m.id)) == before
    assert _doc(store, m.id)["access_count"] == "3"
    got = store.get(m.id)
    assert got.access_count == 3 and got.last_accessed > m.created_at - 1
    assert store.list_recent(sort="accessed")[0].access_count == 3


def test_every_writer_keeps_the_access_documents_in_step(make_store, tmp_path):
    store = make_store()
    a = store.remember("alpha: the build runs on python 3.11", tags=["build"], importance=0.4)
    b, c, d = store.remember_many(
        [
            {"text": "beta: deploys happen on fridays", "type": "episodic"},
            {"text": "gamma: the api key rotates monthly", "tags": ["sec"]},
            {"text": "delta: this note expires soon", "ttl_seconds": 3600},
        ]
    )
    assert_in_step(store)
    store.recall("alpha build python", k=2)
    store.flush_access()
    store.edit(a.id, tags=["build", "ci"], importance=0.9)
    store.edit(b.id, text="beta: deploys happen on thursdays now")
    store.edit(c.id, type="procedural", source="wiki")
    assert _doc(store, a.id)["access_count"] == "1"  # a partial update keeps the counts
    assert_in_step(store)
    store.supersede(b.id, a.id)
    assert _doc(store, b.id)["sup"] == "1"
    assert_in_step(store)
    store.restore(b.id)
    assert_in_step(store)
    assert store.forget(c.id)
    assert not store.client.exists(store.keys.access_doc(c.id))
    assert store.undo(next(e for e in store.history(c.id) if e.op == "forget"))
    assert_in_step(store)
    store.set_raw_fields({d.id: {"expires_at": repr(time.time() - 5)}})
    assert [m.id for m in store.purge_expired()] == [d.id]
    assert_in_step(store)

    path = store.export(tmp_path / "all.ahkai", include_superseded=True).path
    other = make_store()
    other.import_(path)
    assert_in_step(other)
    assert other.get(a.id).access_count == 1  # the folded count travelled
    other.import_(path, on_conflict="overwrite")
    assert_in_step(other)
    other.nuke()
    assert_in_step(other)


def test_pipeline_writes_keep_the_access_documents_in_step(make_store):
    store = make_store(embedder=HashEmbedder(fail="POISON"))
    p = Pipeline(store, mode="inline")
    job = p.submit(["healthy one", "this is POISON", "healthy two"], batch_size=10)
    assert_in_step(store)
    bad = job.memory_ids[1]
    assert store.get(bad).state == "failed"
    store.embedder.fail = ""
    assert p.retry_failed(job.id) == 1
    assert store.get(bad).state == "ready"
    assert_in_step(store)


def test_aggregates_read_the_folded_access(store):
    old = repr(time.time() - 400 * DAY)
    kept = store.remember("the quarterly report template lives in the wiki", importance=0.3)
    idle = store.remember("an idle note nobody reads", importance=0.3)
    store.set_raw_fields({m.id: {"last_accessed": old} for m in (kept, idle)})
    before = store.stats()["health"]
    assert before["stale_count"] == 2 and before["never_recalled_count"] == 2
    store.recall("quarterly report template", k=1)
    store.flush_access()
    after = store.stats()["health"]
    assert after["stale_count"] == 1  # the recall, folded into the access document, counts
    assert after["never_recalled_count"] == 1
    from houkai import DecayEngine

    assert [m.id for m in DecayEngine(store).prune(dry_run=True)] == [idle.id]


def test_a_collection_from_before_access_documents_is_backfilled(make_store):
    store = make_store()
    memories = store.remember_many([f"note number {i} about the backlog" for i in range(30)])
    # as 0.1 left it: no access documents, no marker, access counts in the memory hashes
    for key in store.client.scan_iter(match=store.keys.access_doc_prefix + "*"):
        store.client.delete(key)
    store.client.hdel(store.keys.meta, access.READY_FIELD)
    store.client.hset(store.keys.memory(memories[0].id), "access_count", 7)
    legacy = make_store(collection=store.collection_name)
    assert legacy.aggregate_index == legacy.keys.index  # not complete: the memory index
    assert legacy.get(memories[0].id).access_count == 7
    legacy.flush_access()  # a maintenance tick backfills
    assert legacy.aggregate_index == legacy.keys.access_index
    assert_in_step(legacy)
    assert _doc(legacy, memories[0].id)["access_count"] == "7"


@pytest.mark.parametrize("sort", ["decay", "created"])
def test_browse_pages_through_the_right_index(store, sort):
    from houkai.app import dashboard
    from houkai.app.service import MemoryService

    store.remember_many([f"browse note {i}" for i in range(7)])
    service = MemoryService(store.settings, actor="http")
    service._stores[store.collection_name] = store
    seen, after = [], None
    while True:
        page = dashboard.browse(
            service, sort=sort, limit=3, after=after, collection=store.collection_name
        )
        seen += [m["id"] for m in page["memories"]]
        after = page["next"]
        if not after:
            break
    assert len(seen) == 7 and len(set(seen)) == 7


def test_scope_filters_reach_the_access_index_and_an_older_one_gains_them(make_store):
    store = make_store()
    alice = store.remember("alice keeps her notes in the blue folder", user_id="alice")
    store.remember("bob keeps his notes in the red folder", user_id="bob")
    store.recall("notes folder", k=2)
    store.flush_access()
    got = store.list_recent(sort="accessed", user_id="alice")
    assert [m.id for m in got] == [alice.id]
    # an access index from before the scope fields: reopening the store adds them in place
    access.drop_access_index(store.client, store.keys)
    args = access.schema_args(store.keys)
    old = args[: args.index("access_count") + 2]  # … "access_count", "NUMERIC": no scope
    store.client.execute_command(*old)
    store.client.hdel(store.keys.meta, access.SCOPE_FIELD)  # as that release left it
    again = make_store(collection=store.collection_name)
    assert await_scan(again.client, again.keys.access_index, 10)  # FT.ALTER indexes behind
    assert [m.id for m in again.list_recent(sort="accessed", user_id="alice")] == [alice.id]


def _script_calls(store) -> tuple[int, int]:
    """How often the server was asked whether it holds a script, and to run one by hash."""
    stats = store.client.info("commandstats")
    exists = stats.get("cmdstat_script|exists", {}).get("calls", 0)
    return exists, stats.get("cmdstat_evalsha", {}).get("calls", 0)


def test_a_recall_reads_and_counts_its_hits_in_one_round_trip(store):
    m = store.remember("the staging database listens on port 5433", tags=["db"])
    store.remember("the office plants are watered on Mondays")
    got = [store.recall("staging database port", k=1)[0][0] for _ in range(2)]
    # each result shows the count it had, then this recall's hit
    assert [g.id for g in got] == [m.id, m.id]
    assert [g.access_count for g in got] == [1, 2]
    before = _script_calls(store)
    store.recall("staging database port", k=1)
    exists, evalsha = (b - a for a, b in zip(before, _script_calls(store), strict=True))
    assert (exists, evalsha) == (0, 1)  # run by hash, not asked about first
    # a server that lost its scripts (a restart, SCRIPT FLUSH) still counts every hit
    store.client.script_flush()
    again = store.recall("staging database port", k=1)[0][0]
    assert again.access_count == 4
    assert store.flush_access() == 1
    assert _doc(store, m.id)["access_count"] == "4"
    assert store.recall("staging database port", k=1, touch=False)[0][0].access_count == 4
