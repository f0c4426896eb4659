"""The durable write path in-process: pending → ready, job accounting, idempotency.

Tasks are "delivered" by calling :func:`houkai.pipeline.write.process_batch` with the
exact arguments the pipeline tried to enqueue (a capturing app stands in for the
broker), so duplicate and late deliveries can be replayed deterministically.
The real-worker tests live in ``test_workers.py``.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from houkai.domain.errors import NotFound
from houkai.engines.embeddings import HashEmbedder
from houkai.pipeline import outbox
from houkai.pipeline.write import EMBED_TASK, Pipeline, process_batch
from houkai.store.search import search


class CapturingApp:
    """Stands in for Celery: records what would have been enqueued."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send_task(self, name: str, kwargs: dict, queue: str, task_id: str) -> None:
        assert name == EMBED_TASK and queue == "embed"
        self.sent.append({**kwargs, "task_id": task_id})

    def deliver(self, store, index: int | None = None) -> list[dict]:
        tasks = self.sent if index is None else [self.sent[index]]
        out = []
        for kw in tasks:
            out.append(
                process_batch(store, kw["job_id"], kw["ids"], kw["positions"], kw["on_conflict"])
            )
            outbox.settle(store.client, store.keys.prefix, kw["task_id"])  # as the worker does
        return out


def queued(store, **kwargs) -> tuple[Pipeline, CapturingApp]:
    app = CapturingApp()
    return Pipeline(store, mode="celery", app=app, **kwargs), app


def test_validation_is_all_or_nothing(store):
    p = Pipeline(store, mode="inline")
    with pytest.raises(ValueError, match="item 1"):
        p.submit(["fine", "   ", "also fine"])
    with pytest.raises(ValueError, match="type"):
        p.submit([{"text": "x", "type": "nope"}])
    with pytest.raises(ValueError, match="unknown"):
        p.submit([{"text": "x", "colour": "red"}])
    with pytest.raises(ValueError, match="single item"):
        p.submit(["a", "b"], on_conflict="raise")
    with pytest.raises(ValueError, match="batch_size"):
        p.submit(["a"], batch_size=0)
    assert store.count() == 0
    assert p.jobs() == []


def test_pending_is_durable_and_keyword_searchable_before_embedding(store):
    p, app = queued(store)
    job = p.submit(
        ["the zebra crossing policy changed", {"text": "giraffes eat acacia", "tags": ["zoo"]}],
        batch_size=1,
    )
    assert len(app.sent) == 2 and job.total == 2
    first = store.get(job.memory_ids[0])
    assert first is not None and first.state == "pending"
    assert store.vectors(job.memory_ids) == {}
    total, hits = search(store.client, store.keys.index, "@lex:(zebra)", limit=5)
    assert total == 1 and hits[0].key.endswith(job.memory_ids[0])
    status = p.job(job.id)
    assert (status.state, status.total, status.done) == ("queued", 2, 0)
    assert status.memory_ids == job.memory_ids

    app.deliver(store)
    status = p.job(job.id)
    assert (status.state, status.done, status.failed) == ("done", 2, 0)
    assert all(m.state == "ready" for m in store.get_many(job.memory_ids).values())
    hits = store.recall("zebra crossing", k=1)
    assert hits and hits[0][0].id == job.memory_ids[0]


def test_duplicate_delivery_counts_once(store):
    p, app = queued(store)
    job = p.submit([f"fact number {i} about ducks" for i in range(5)])
    app.deliver(store)
    vec_before = store.vectors(job.memory_ids)
    again = app.deliver(store)
    status = p.job(job.id)
    assert (status.done, status.failed, status.skipped) == (5, 0, 0)
    assert again == [{"done": 5}]
    after = store.vectors(job.memory_ids)
    assert all(np.array_equal(vec_before[i], after[i]) for i in job.memory_ids)
    assert store.count() == 5


def test_late_task_never_resurrects_or_overwrites(store):
    p, app = queued(store)
    job = p.submit(["alpha original text", "beta original text", "gamma stays"])
    a, b, _c = job.memory_ids
    assert store.forget(a)
    edited = store.edit(b, text="beta was rewritten entirely")
    app.deliver(store)
    assert store.get(a) is None
    vec_b = store.vectors([b])[b]
    expected = store.encode(["beta was rewritten entirely"])[0]
    assert np.allclose(vec_b, expected, atol=1e-3)  # FLOAT16 storage: ~3 digits
    assert store.get(b).text == edited.text
    status = p.job(job.id)
    assert (status.state, status.done, status.skipped) == ("done", 2, 1)


def test_inline_mode_embeds_before_returning(store):
    p = Pipeline(store, mode="inline")
    job = p.submit(["Our deploys happen on Tuesdays after standup"])
    memory = store.get(job.memory_ids[0])
    assert memory.state == "ready"
    assert store.recall("when do we deploy", k=1)[0][0].id == memory.id
    assert p.wait(job, timeout=0).state == "done"


def test_a_jobs_memories_are_dated_in_the_callers_order(store):
    # recall's current stage reads a batch's order as its history (ADR 0093)
    p = Pipeline(store, mode="inline")
    job = p.submit([f"Runbook step {i}: check the queue depth" for i in range(6)], batch_size=2)
    by_position = [store.get(i).created_at for i in job.memory_ids]
    assert len(by_position) == 6
    assert all(b - a >= 1e-5 for a, b in itertools.pairwise(by_position))  # none tied


def test_wait_timeout_names_pending_memories(store):
    p, _app = queued(store)
    job = p.submit(["never delivered"])
    with pytest.raises(TimeoutError, match=job.memory_ids[0]):
        p.wait(job, timeout=0.2)
    with pytest.raises(NotFound):
        p.wait("no-such-job", timeout=0.1)
    with pytest.raises(ValueError):
        p.wait(job, timeout=-1)


def test_poisoned_item_fails_alone_and_retries(make_store):
    store = make_store(embedder=HashEmbedder(fail="POISON"))
    p = Pipeline(store, mode="inline")
    texts = [f"healthy item {i}" for i in range(6)]
    texts[3] = "this one is POISON for the embedder"
    job = p.submit(texts, batch_size=10)
    status = p.job(job.id)
    assert (status.state, status.done, status.failed) == ("failed", 5, 1)
    assert status.errors[0]["position"] == 3 and status.errors[0]["id"] == job.memory_ids[3]
    assert "POISON" in status.errors[0]["error"]
    bad = store.get(job.memory_ids[3])
    assert bad.state == "failed" and "refusing" in bad.error
    assert all(store.get(i).state == "ready" for i in job.memory_ids if i != bad.id)

    store.embedder.fail = ""  # the embedder got fixed: retry lands it
    assert p.retry_failed(job.id) == 1
    status = p.job(job.id)
    assert (status.state, status.done, status.failed, status.errors) == ("done", 6, 0, [])
    assert store.get(bad.id).state == "ready"


def test_cancel_then_retry(store):
    p, app = queued(store)
    job = p.submit(["one thing", "another thing", "third thing"], batch_size=2)
    app.deliver(store, 0)  # first batch lands
    assert p.cancel(job.id) is True
    status = p.job(job.id)
    assert (status.state, status.done, status.failed) == ("cancelled", 2, 1)
    assert store.get(job.memory_ids[2]).error == "cancelled"
    app.deliver(store, 1)  # a late task of a cancelled job changes nothing
    assert store.get(job.memory_ids[2]).state == "failed"
    assert p.cancel(job.id) is False
    assert p.retry_failed(job.id) == 1
    app.deliver(store, 2)
    status = p.job(job.id)
    assert (status.state, status.done, status.failed) == ("done", 3, 0)


def test_reconcile_recovers_lost_tasks_and_orphans(store):
    p, app = queued(store)
    job = p.submit([f"lost memory {i}" for i in range(4)])
    app.sent.clear()  # the broker lost the task
    assert p.reconcile(older_than="1h") == 0  # too young to be considered lost
    assert p.reconcile(older_than=0) == 4
    assert len(app.sent) == 1 and app.sent[0]["job_id"] == job.id
    # an orphan: its job record is gone (expired) → adopted by a new job
    orphan_job = p.submit(["an orphaned pending memory"])
    store.client.delete(*p.jobs_store.keys(orphan_job.id).all())
    inline = Pipeline(store, mode="inline")
    assert inline.reconcile(older_than=0) == 5
    assert all(
        m.state == "ready"
        for m in store.get_many([*job.memory_ids, *orphan_job.memory_ids]).values()
    )
    assert p.job(job.id).state == "done"
    kinds = [s.kind for s in p.jobs()]
    assert "reconcile" in kinds


def test_raise_policy_rejects_a_duplicate(store):
    original = store.remember("The staging database password rotates every 30 days")
    p = Pipeline(store, mode="inline")
    job = p.submit(["The staging database password rotates every 30 days"], on_conflict="raise")
    status = p.job(job.id)
    assert (status.rejected, status.done, status.state) == (1, 0, "done")
    assert status.conflicts and status.conflicts[0]["b"]["id"] == original.id
    assert store.get(job.memory_ids[0]) is None
    ok = p.submit(["Completely unrelated: penguins live in Antarctica"], on_conflict="raise")
    assert p.job(ok.id).done == 1


def test_supersede_policy_runs_after_embedding(store):
    old = store.remember("The office wifi password is hunter2")
    p = Pipeline(store, mode="inline")
    job = p.submit(["The office wifi password is hunter2"], on_conflict="supersede")
    status = p.job(job.id)
    assert status.done == 1 and status.conflicts
    assert store.get(old.id).superseded_by == job.memory_ids[0]


def test_ingest_documents_and_paths(store, tmp_path):
    p = Pipeline(store, mode="inline")
    job = p.ingest_documents(
        [
            {
                "text": "# Title\n\nFirst paragraph about cats.\n\nSecond paragraph about dogs.",
                "source": "notes.md",
                "tags": ["pets"],
            }
        ],
        max_chars=40,
        min_chars=0,
    )
    memories = store.get_many(job.memory_ids)
    assert job.total >= 2 and len(memories) == job.total
    assert {m.source for m in memories.values()} == {"notes.md"}
    assert all(m.tags == ["pets"] and m.state == "ready" for m in memories.values())
    with pytest.raises(ValueError, match="unknown"):
        p.ingest_documents([{"text": "x", "bogus": 1}])

    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("Kubernetes runs all of our workloads.\n")
    (folder / "b.txt").write_text("Postgres holds every one of the orders.\n")
    (folder / "c.jsonl").write_text(
        json.dumps({"text": "Redis caches sessions", "tags": ["cache"]})
        + "\n"
        + json.dumps("Kafka carries events")
        + "\n"
    )
    (folder / "skip.bin").write_bytes(b"\x00\x01")
    job = p.ingest_path(str(folder), type="procedural")
    memories = list(store.get_many(job.memory_ids).values())
    assert sorted(m.text for m in memories) == [
        "Kafka carries events",
        "Kubernetes runs all of our workloads.",
        "Postgres holds every one of the orders.",
        "Redis caches sessions",
    ]
    assert all(m.type == "procedural" for m in memories)
    # the seed's source label: ingest:<file name>; short JSONL items are never dropped
    assert any(m.source == "ingest:c.jsonl" and m.tags == ["cache"] for m in memories)
    assert {m.source for m in memories} == {"ingest:a.md", "ingest:b.txt", "ingest:c.jsonl"}
    journaled = {e.id: e.actor for e in store.journal_tail(20, op="remember")}
    assert all(journaled[m.id] == "ingest" for m in memories)
    with pytest.raises(ValueError, match="no such file"):
        p.ingest_path(str(tmp_path / "missing"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{not json\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        p.ingest_path(str(bad))
    assert store.count() == job.total + 2  # nothing from the rejected file


def test_job_listing_and_progress_fields(store):
    p = Pipeline(store, mode="inline")
    a = p.submit(["first job item"])
    b = p.submit(["second job item", "and another"])
    listed = p.jobs(limit=10)
    assert [s.id for s in listed] == [b.id, a.id]
    status = p.job(b.id)
    d = status.to_dict()
    assert d["total"] == 2 and d["done"] == 2 and d["eta_seconds"] == 0.0
    assert d["rate"] > 0 and d["updated_at"] >= d["created_at"]
    assert p.job("missing") is None
    with pytest.raises(ValueError):
        p.jobs(limit=0)
    empty = p.submit([])
    assert p.job(empty.id).state == "done"


def test_ready_memories_carry_no_pipeline_bookkeeping(make_store):
    """Job and position live in the inflight hash only while a memory is pending or
    failed; a ready memory's hash holds no bookkeeping and no default-valued fields."""
    store = make_store(embedder=HashEmbedder(fail="POISON"))
    p, app = queued(store)
    job = p.submit(["plain fact one", "POISON fact", "plain fact three"], batch_size=3)
    inflight = store.client.hgetall(store.keys.inflight)
    assert {k.decode(): v.decode() for k, v in inflight.items()} == {
        mid: f"{job.id}:{pos}" for pos, mid in enumerate(job.memory_ids)
    }
    app.deliver(store)
    ready, failed = job.memory_ids[0], job.memory_ids[1]
    fields = set(store.client.hkeys(store.keys.memory(ready)))
    assert not fields & {b"job", b"pos", b"error", b"source", b"srck", b"tagk", b"links"}
    assert store.get(ready).source is None and store.get(ready).tags == []
    # the failed one keeps its entry, so a retry knows its job and position
    assert store.client.hkeys(store.keys.inflight) == [failed.encode()]
    assert p._group_by_job("@state:{failed}") == {job.id: [(failed, 1)]}
    store.embedder.fail = ""
    assert p.retry_failed() == 1
    app.deliver(store)  # the first task again (a no-op) and the retry's
    assert store.get(failed).state == "ready" and p.job(job.id).done == 3
    assert store.client.exists(store.keys.inflight) == 0


def test_reconcile_sweeps_entries_of_memories_deleted_while_pending(store):
    p, _app = queued(store)
    job = p.submit(["forgotten before its task ran", "still waiting"])
    store.forget(job.memory_ids[0])
    assert p.sweep_inflight() == 1
    assert store.client.hkeys(store.keys.inflight) == [job.memory_ids[1].encode()]
    assert p.reconcile(older_than=0) == 1


def test_a_full_rewrite_clears_fields_a_sparse_hash_leaves_out(store):
    """Undo of an edit rewrites the whole memory: values the older version did not
    have (source, tags) must not survive in the hash or the index."""
    memory = store.remember("the billing export runs nightly")
    store.edit(memory.id, source="wiki/billing", tags=["ops"])

    def found(**filters) -> bool:
        hits = store.recall("billing export", k=5, touch=False, **filters)
        return [m.id for m, _score in hits] == [memory.id]

    assert found(tag="ops") and found(source="wiki/billing")
    assert store.undo(store.journal_tail(1, op="edit")[0]) is True
    restored = store.get(memory.id)
    assert restored.source is None and restored.tags == []
    raw = store.client.hgetall(store.keys.memory(memory.id))
    assert raw.get(b"source", b"") == b"" and raw.get(b"tagk", b"") == b""
    assert not found(tag="ops") and not found(source="wiki/billing") and found()
