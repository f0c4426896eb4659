"""Seed-compatible surfaces: the eval module, MaintenanceScheduler, store signatures and errors."""

from __future__ import annotations

import threading
import time

import pytest

from houkai.bench.eval import (
    EvalCase,
    average_precision,
    dcg_at_k,
    evaluate,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from houkai.pipeline.scheduler import MaintenanceScheduler


# --------------------------------------------------------------------------- eval
def test_metrics_on_ranked_ids():
    assert recall_at_k(["a", "b", "c"], ["c"], 2) == 0.0
    assert recall_at_k(["a", "b"], ["a", "x"], 2) == 0.5
    assert precision_at_k(["a", "b"], ["a"], 2) == 0.5 and precision_at_k([], ["a"], 2) == 0.0
    assert reciprocal_rank(["a", "b", "c"], ["b"]) == 0.5
    assert average_precision(["a", "x", "c"], ["a", "c"]) == pytest.approx((1 + 2 / 3) / 2)
    assert ndcg_at_k(["b", "a"], ["b"], 2) == pytest.approx(1.0)
    assert 0 < ndcg_at_k(["a", "b"], ["b"], 2) < 1
    assert dcg_at_k(["b", "a"], ["b"], 2) > dcg_at_k(["a", "b"], ["b"], 2)
    # a duplicated relevant id never lifts a metric above 1
    assert recall_at_k(["a", "a"], ["a"], 5) == 1.0
    assert ndcg_at_k(["a", "a"], ["a"], 5) == pytest.approx(1.0)
    assert average_precision(["a", "a"], ["a"]) == 1.0
    assert recall_at_k(["a"], [], 5) == 0.0 and ndcg_at_k(["a"], [], 2) == 0.0


def test_evaluate_is_read_only_and_labels_k(store):
    deploy = store.remember("Deploy the service with make release", type="procedural")
    tests = store.remember("Run pytest with tmp_path isolation", type="procedural")
    result = evaluate(
        store,
        [EvalCase("how do we deploy", [deploy.id]), EvalCase("test isolation", [tests.id], k=2)],
        default_k=3,
        fusion="rrf",
    )
    assert result.n == 2 and result.k == -1 and "mixed" in result.summary()
    assert result.mrr == pytest.approx(1.0) and result.per_case[0]["k"] == 3
    assert all(store.get(i).access_count == 0 for i in (deploy.id, tests.id))
    one = evaluate(store, [EvalCase("deploy", [deploy.id])], default_k=3, default_mode="semantic")
    assert one.k == 3 and "recall@3" in one.summary()


# --------------------------------------------------------------------------- scheduler
def _scheduler(store, **kw):
    options = dict(decay_every=None, reflect_every=None, purge_every=None, lock_wait=5.0)
    return MaintenanceScheduler(store, **{**options, **kw})


def test_scheduler_runs_due_jobs_once_and_honours_disabled_ones(store, tmp_path):
    store.remember("an expired note", expires_at=1.0)
    store.remember("a live note about the release process")
    nothing = _scheduler(store).tick()
    assert not (nothing.ran_decay or nothing.ran_reflect or nothing.ran_purge)
    sched = _scheduler(store, purge_every=3600, state_path=str(tmp_path / "state.json"))
    first = sched.tick()
    assert first.ran_purge and first.purged == 1 and "purge removed 1" in first.summary()
    assert sched.tick().ran_purge is False  # stamped in Redis: not due again yet
    assert sched.tick(now=time.time() + 3700).ran_purge is True


def test_scheduler_reflection_dry_run_then_consolidating_apply(store):
    for day in ("Monday", "Tuesday", "Wednesday"):
        store.remember(
            f"Deployed the billing service to production on {day}.",
            type="episodic",
            importance=0.5,
        )
    sched = _scheduler(store, reflect_every=3600, min_cluster_size=2)
    t0 = time.time()
    dry = sched.tick(now=t0)
    assert dry.ran_reflect and not dry.reflect_applied and dry.reflected >= 1
    assert store.count() == 3 and "dry-run" in dry.summary()
    assert sched.tick(now=t0 + 10).ran_reflect is False
    sched.reflect_apply = True
    applied = sched.tick(now=t0 + 3601)
    assert applied.reflect_applied and applied.reflected >= 1
    # the sources were superseded (soft consolidation): nothing is summarised twice
    again = sched.tick(now=t0 + 7300)
    assert again.ran_reflect and again.reflected == 0


def test_run_forever_stops_on_the_event(store):
    stop = threading.Event()
    stop.set()
    started = time.monotonic()
    _scheduler(store, tick_interval=60).run_forever(stop)
    assert time.monotonic() - started < 5


# --------------------------------------------------------------------------- store surface
def test_remember_many_rejects_a_non_item_with_type_error(store):
    with pytest.raises(TypeError):
        store.remember_many([123])
    with pytest.raises(ValueError):
        store.remember_many([{"text": "x", "bogus": 1}])
    assert store.count() == 0


def test_state_at_and_get_at_take_the_seeds_timestamp_keyword(store):
    memory = store.remember("a fact about the old office")
    time.sleep(0.01)
    t = time.time()
    store.forget(memory.id)
    assert [m.id for m in store.state_at(timestamp=t)] == [memory.id]
    assert store.get_at(memory.id, timestamp=t).text == "a fact about the old office"
    assert store.get_at(memory.id, ts=t) is not None  # houkai's earlier spelling still works
    assert store.state_at(t, include_archives=False)[0].id == memory.id
    assert [e.op for e in store.history(memory.id, include_archives=False)] == [
        "remember",
        "forget",
    ]
    with pytest.raises(TypeError):
        store.state_at()
    with pytest.raises(TypeError):
        store.get_at(memory.id, when=t)


def test_constructor_maps_the_seeds_journal_arguments(make_store, tmp_path):
    store = make_store(
        journal_path=str(tmp_path / "logs" / "journal.log"),
        journal_rotate_mb=2,
        journal_keep_days=30,
    )
    assert store.settings.journal_archive_dir == str(tmp_path / "logs")
    assert store.settings.journal_maxlen == 2048
    assert store.journal.maxlen == 2048 and store.journal.keep_days == 30
    with pytest.raises(ValueError, match="journal_rotate_mb"):
        make_store(journal_rotate_mb=0)


def test_journal_keep_days_expires_old_archives(make_store, tmp_path):
    store = make_store(journal_path=str(tmp_path / "j" / "journal.log"), journal_keep_days=1)
    for i in range(3):
        store.remember(f"note number {i} for the archive")
    assert store.journal.archive(keep=2) == 1  # the first archive: always kept
    store.remember("one more note for a second archive")
    old = store.journal.archives()[0]
    parts = old.name.split("~")
    stale = old.with_name("~".join([parts[0], parts[1], "20000101T000000Z", *parts[3:]]))
    old.rename(stale)
    assert store.journal.archive(keep=2) == 1
    names = [p.name for p in store.journal.archives()]
    assert stale.name not in names and len(names) == 1


# --------------------------------------------------------------------------- MCP shapes
@pytest.fixture()
def mcp(store, settings):
    from houkai.api import mcp_server

    from houkai.app.service import MemoryService

    service = MemoryService(
        settings.replace(collection=store.collection_name),
        actor="mcp",
        store_factory=lambda name: store,
    )
    mcp_server.set_service(service)
    yield lambda name, **args: mcp_server.to_jsonable(mcp_server.call_tool(name, args))
    mcp_server.set_service(None)


def test_mcp_tools_answer_the_seeds_failure_shapes(mcp, tmp_path):
    created = mcp("remember", text="sourced fact", source="unit-test")
    cleared = mcp("edit", memory_id=created["id"], clear_source=True)
    assert cleared["ok"] is True and cleared["source"] is None
    both = mcp("edit", memory_id=created["id"], source="x", clear_source=True)
    assert both == {"ok": False, "error": "pass either source or clear_source, not both"}
    missing = mcp("edit", memory_id="00000000-0000-4000-8000-000000000000", text="nope")
    assert missing["ok"] is False and "no memory" in missing["error"]
    assert mcp("edit", memory_id=created["id"], type="sematic")["ok"] is False
    bad_batch = mcp("remember_many", items=[{"bogus": 1}])
    assert bad_batch["stored"] == 0 and "error" in bad_batch
    dangling = mcp("link", src_id=created["id"], dst_id="00000000-0000-4000-8000-000000000000")
    assert dangling["ok"] is False and "dst_id" in dangling["error"]
    path = str(tmp_path / "c.ahkai")
    mcp("export", path=path)
    collided = mcp("import", path=path, on_conflict="error")
    assert collided["ok"] is False and "collision" in collided["error"]
    tick = mcp("maintenance_tick")
    assert tick["enabled"] is True and "summary" in tick


def test_scheduler_keeps_the_seeds_state_file(store, tmp_path):
    from houkai.pipeline.maintenance import MaintenanceState

    path = tmp_path / "state.json"
    store.remember("an expired note", expires_at=1.0)
    MaintenanceState(last_purge_at=time.time()).save(path)  # the file says: purged just now
    sched = _scheduler(store, purge_every=3600, state_path=str(path))
    assert sched.tick().ran_purge is False and (tmp_path / "state.lock").exists()
    later = time.time() + 3700
    assert sched.tick(now=later).purged == 1
    saved = MaintenanceState.load(path)
    assert saved.last_purge_at == later and saved.total_purged == 1
    assert MaintenanceState.load(tmp_path / "missing.json").total_purged == 0
    assert MaintenanceState(store).load() != {}  # houkai's Redis state, same class


# --------------------------------------------------------------------------- store.collection
def test_collection_is_the_name_and_reads_the_seeds_metadata(store):
    import json
    import pickle

    a = store.remember("alpha note about deploys", type="episodic", tags=["ops", "ci"])
    b = store.remember("beta note about tests", type="semantic", source="agent")
    name = store.collection_name
    assert store.collection == name and hash(store.collection) == hash(name)
    assert json.dumps({"c": store.collection}) == json.dumps({"c": name})
    assert type(pickle.loads(pickle.dumps(store.collection))) is str
    assert store.collection.name == name and store.collection.count("t") == name.count("t")
    assert store.collection.count() == 2
    got = store.collection.get(ids=[b.id, "missing", a.id])
    assert got["ids"] == [b.id, a.id] and got["documents"][1] == a.text
    assert got["metadatas"][1]["tags"] == "ops,ci" and got["metadatas"][0]["source"] == "agent"
    episodic = store.collection.get(
        where={"$and": [{"type": "episodic"}, {"importance": {"$gte": 0.5}}]}
    )
    assert episodic["ids"] == [a.id]
    assert (
        store.collection.get(where={"type": {"$in": ["semantic"]}}, include=["metadatas"])[
            "documents"
        ]
        is None
    )
    with pytest.raises(ValueError, match="operator"):
        store.collection.get(where={"type": {"$regex": "x"}})


def test_collection_update_ages_a_memory_through_journaled_writes(store):
    from houkai.domain.model import Memory

    mem = store.remember("an old stale note", importance=0.4, type="episodic")
    other = store.remember("a fresh note about something else")
    old = time.time() - 60 * 86_400
    mem.created_at = mem.last_accessed = old
    mem.tags = ["aged"]
    store.collection.update(ids=[mem.id], metadatas=[mem.to_metadata()])
    stored = store.get(mem.id)
    assert stored.created_at == old and stored.last_accessed == old and stored.tags == ["aged"]
    assert store.vectors([mem.id])[mem.id] is not None  # kept, not re-embedded away
    ops = [e.op for e in store.history(mem.id)]
    assert ops == ["remember", "edit", "import"]  # tags by edit, timestamps by import
    meta = store.collection.get(ids=[mem.id])["metadatas"][0]
    assert Memory.from_record(mem.id, stored.text, meta).created_at == old
    store.collection.update(ids=mem.id, documents="a rewritten note")
    assert store.get(mem.id).text == "a rewritten note"
    with pytest.raises(KeyError):
        store.collection.update(ids=["nope"], metadatas=[{"importance": 0.1}])
    with pytest.raises(ValueError, match="one entry per id"):
        store.collection.update(ids=[mem.id], metadatas=[{}, {}])
    with pytest.raises(ValueError):
        store.collection.update(
            ids=[other.id, mem.id], metadatas=[{"importance": 0.9}, {"created_at": "yesterday"}]
        )
    assert store.get(mem.id).created_at == old  # a refused update wrote nothing
    assert store.get(other.id).importance == 0.5


def test_extractive_spec_with_a_model_part_is_the_seeds_default_summarizer():
    from houkai.engines.summarizers import build_summarizer
    from houkai.store.reflection import _default_summarizer

    assert build_summarizer("extractive:whatever") is _default_summarizer
    assert build_summarizer(None) is _default_summarizer


def test_loading_the_store_binds_the_whole_public_api():
    """Tools that read ``vars(houkai)`` (the seed kit's shim) see every name once the store
    loads; a light import (``houkai.Memory``) still does not load the store."""
    import subprocess
    import sys

    code = (
        "import sys, houkai\n"
        "houkai.Memory\n"
        "assert 'houkai.store' not in sys.modules and 'ReflectionEngine' not in vars(houkai)\n"
        "houkai.MemoryStore\n"
        "print(sorted(set(houkai.__all__) - set(vars(houkai))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
