"""The pipeline with real Celery worker subprocesses on the session's Redis Stack.

Each worker family gets its own key prefix (and so its own Celery namespace):
the real-model worker serves the session prefix; a hash-embedder worker (fast,
deterministic, with a poison marker) serves the volume, poison, reconcile and
beat tests; a deliberately slow hash worker is killed with SIGKILL mid-job.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from _childenv import child_env
from _redis_mode import single_node_only

from houkai.pipeline import jobs as J
from houkai.pipeline.jobs import workers_alive
from houkai.pipeline.write import Pipeline
from houkai.store.search import total

HOUKAI = str(Path(sys.executable).parent / "houkai")
FAST_HNSW = {"hnsw_m": 8, "hnsw_ef_construction": 40}


def _env(settings, prefix: str, embedder: str, **extra: str) -> dict[str, str]:
    env = child_env()
    env.update(
        {
            "HOUKAI_CONFIG": "/nonexistent/houkai.toml",
            "HOUKAI_REDIS_URL": settings.redis_url,
            "HOUKAI_DATA_DIR": settings.data_dir,
            "HOUKAI_KEY_PREFIX": prefix,
            "HOUKAI_EMBEDDER": embedder,
            "HOUKAI_BROKER_VISIBILITY_TIMEOUT": "2s",
            "HOUKAI_MAINTENANCE_DECAY_ENABLED": "false",
            "HOUKAI_MAINTENANCE_PURGE_ENABLED": "false",
            "HOUKAI_MAINTENANCE_REFLECT_ENABLED": "false",
            "HOUKAI_MAINTENANCE_ARCHIVE_EVERY": "0",
            "HOUKAI_MAINTENANCE_RECONCILE_EVERY": "3s",
            "HOUKAI_MAINTENANCE_TICK_INTERVAL": "1s",
        }
    )
    env.update({f"HOUKAI_{k.upper()}": str(v) for k, v in extra.items()})
    return env


class Procs:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []

    def start(self, env: dict[str, str], *args: str) -> subprocess.Popen:
        log = open(self.tmp / f"{args[0]}-{uuid.uuid4().hex[:6]}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [HOUKAI, *args], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def close(self) -> None:
        for proc in self.procs:
            self.kill(proc)

    def logs(self, proc: subprocess.Popen, tail: int = 60) -> str:
        """The last lines each process started like *proc* wrote (for failure messages)."""
        name = Path(proc.args[1]).name  # type: ignore[index]
        out = []
        for path in sorted(self.tmp.glob(f"{name}-*.log")):
            lines = path.read_text(errors="replace").splitlines()[-tail:]
            out.append(f"--- {path.name}\n" + "\n".join(lines))
        return "\n".join(out)


def _wait_alive(client, prefix: str, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while workers_alive(client, prefix) == 0:
        assert proc.poll() is None, "worker exited during start-up"
        assert time.monotonic() < deadline, "worker did not become ready"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def procs(tmp_path_factory) -> Iterator[Procs]:
    p = Procs(tmp_path_factory.mktemp("worker-logs"))
    yield p
    p.close()


@pytest.fixture(scope="module")
def model_worker(procs, settings, embedder):
    proc = procs.start(_env(settings, settings.key_prefix, "minilm"), "worker", "-c", "2")
    from houkai.db.connection import get_client

    _wait_alive(get_client(settings.redis_url), settings.key_prefix, proc)
    return proc


@pytest.fixture(scope="module")
def hash_settings(settings):
    return settings.replace(
        key_prefix=settings.key_prefix + "-h", embedder="hash:384:fail=POISON", **FAST_HNSW
    )


@pytest.fixture(scope="module")
def hash_worker(procs, hash_settings):
    env = _env(hash_settings, hash_settings.key_prefix, hash_settings.embedder, **FAST_HNSW)
    proc = procs.start(env, "worker", "-c", "2")
    from houkai.db.connection import get_client

    _wait_alive(get_client(hash_settings.redis_url), hash_settings.key_prefix, proc)
    return proc


@pytest.fixture()
def hash_store(hash_settings):
    from houkai import MemoryStore
    from houkai.engines.embeddings import HashEmbedder

    store = MemoryStore(
        collection=f"w-{uuid.uuid4().hex[:8]}", settings=hash_settings, embedder=HashEmbedder(384)
    )
    yield store
    store.drop()


# --------------------------------------------------------------------------- real model
def test_write_becomes_ready_and_recallable(model_worker, store):
    p = Pipeline(store, mode="celery")
    job = p.submit(["The billing service retries failed card payments three times"])
    memory_id = job.memory_ids[0]
    deadline = time.monotonic() + 60
    while store.get(memory_id).state != "ready":
        assert time.monotonic() < deadline, "memory never became ready"
        time.sleep(0.05)
    hits = store.recall("how often are card payments retried?", k=1)
    assert hits[0][0].id == memory_id
    assert p.job(job.id).state == "done"


def test_wait_returns_only_once_recallable(model_worker, store):
    p = Pipeline(store)  # auto mode: the worker heartbeat routes the batch to it
    assert p.use_workers()
    job = p.submit(
        [
            "Ana from accounting prefers invoices as PDF attachments",
            "The VPN certificate expires every ninety days",
        ]
    )
    status = p.wait(job, timeout=60)
    assert (status.state, status.done) == ("done", 2)
    memories = store.get_many(job.memory_ids)
    assert all(m.state == "ready" for m in memories.values())
    hits = store.recall("what format does accounting want invoices in", k=1)
    assert hits[0][0].id == job.memory_ids[0]


# --------------------------------------------------------------------------- volume
def test_ten_thousand_items_exact_counts_and_progress(hash_worker, hash_store):
    p = Pipeline(hash_store, mode="celery")
    n = 10_000
    job = p.submit([f"bulk item {i} about topic {i % 97}" for i in range(n)], batch_size=250)
    assert job.total == n and len(set(job.memory_ids)) == n
    seen: list[int] = []
    deadline = time.monotonic() + 240
    while True:
        status = p.job(job.id)
        seen.append(status.processed)
        assert status.total == n
        if status.state in ("running", "queued"):
            assert status.eta_seconds is None or status.eta_seconds >= 0
        if status.settled:
            break
        assert time.monotonic() < deadline, f"job stuck at {status.processed}/{n}"
        time.sleep(0.2)
    assert seen == sorted(seen), "progress went backwards"
    assert (status.state, status.done, status.failed, status.rejected) == ("done", n, 0, 0)
    assert status.rate > 0 and status.eta_seconds == 0.0
    assert hash_store.count() == n
    assert total(hash_store.client, hash_store.keys.index, "@state:{ready}") == n


def test_poisoned_item_fails_while_its_batch_lands(hash_worker, hash_store):
    p = Pipeline(hash_store, mode="celery")
    texts = [f"ordinary note {i}" for i in range(20)]
    texts[7] = "a POISON text the embedder rejects"
    job = p.submit(texts, batch_size=20)
    status = p.wait(job, timeout=60)
    assert (status.state, status.done, status.failed) == ("failed", 19, 1)
    assert status.errors == [
        {"position": 7, "id": job.memory_ids[7], "error": status.errors[0]["error"]}
    ]
    assert "POISON" in status.errors[0]["error"]
    assert hash_store.get(job.memory_ids[7]).state == "failed"
    assert all(
        m.state == "ready"
        for i, m in hash_store.get_many(job.memory_ids).items()
        if i != job.memory_ids[7]
    )


def test_reconcile_recovers_memories_whose_task_vanished(hash_worker, hash_store):
    class Blackhole:
        def send_task(self, *args, **kwargs):
            return None  # accepted, then lost (a broker flush)

    lost = Pipeline(hash_store, mode="celery", app=Blackhole())
    job = lost.submit([f"memory whose task vanished {i}" for i in range(30)], batch_size=8)
    assert lost.job(job.id).state == "queued"
    p = Pipeline(hash_store, mode="celery")
    assert p.reconcile(older_than=0) == 30
    status = p.wait(job, timeout=60)
    assert (status.state, status.done, status.failed) == ("done", 30, 0)
    assert hash_store.count() == 30


def test_path_ingest_of_a_directory_runs_on_the_worker(hash_worker, hash_store, tmp_path):
    """``ingest_path`` of a folder in celery mode: the worker embeds every chunk (on a
    cluster session too, where the store is sharded and the broker a separate node)."""
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("Kubernetes runs all of our workloads.\n")
    (folder / "b.txt").write_text("Postgres holds every one of the orders.\n")
    (folder / "c.jsonl").write_text('{"text": "Redis caches sessions", "tags": ["cache"]}\n')
    p = Pipeline(hash_store, mode="celery")
    status = p.wait(p.ingest_path(str(folder), type="procedural"), timeout=60)
    assert (status.state, status.done, status.failed) == ("done", 3, 0)
    memories = hash_store.get_many(p.job(status.id).memory_ids).values()
    assert {m.source for m in memories} == {"ingest:a.md", "ingest:b.txt", "ingest:c.jsonl"}
    assert all(m.state == "ready" and m.type == "procedural" for m in memories)
    assert total(hash_store.client, hash_store.keys.index, "@state:{ready}") == 3


def test_two_beats_never_double_run_a_job(procs, hash_worker, hash_settings, hash_store):
    from houkai.pipeline.maintenance import MaintenanceState

    env = _env(hash_settings, hash_settings.key_prefix, hash_settings.embedder, **FAST_HNSW)
    beats = [procs.start(env, "beat", "-l", "info") for _ in range(2)]
    state = MaintenanceState(hash_store)
    deadline = time.monotonic() + 60
    runs: list[dict] = []
    while len(runs) < 3:
        assert all(b.poll() is None for b in beats), "a beat process died"
        assert time.monotonic() < deadline, f"only {len(runs)} reconcile runs recorded"
        time.sleep(0.5)
        runs = [r for r in state.runs(100) if r["job"] == "reconcile"]
    for b in beats:
        procs.kill(b)
    starts = sorted(r["started_at"] for r in runs)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert all(g >= 2.9 for g in gaps), f"a job ran twice within its 3s interval: {gaps}"
    assert all(r["ok"] for r in runs)
    lock = hash_store.client.get(f"{hash_settings.key_prefix}:redbeat::lock")
    assert lock is None or lock  # redbeat's lock lives under our prefix while a beat runs


# --------------------------------------------------------------------------- crash
def test_sigkilled_worker_loses_nothing(procs, settings, tmp_path):
    from houkai import MemoryStore
    from houkai.db.connection import get_client
    from houkai.engines.embeddings import HashEmbedder

    prefix = settings.key_prefix + "-k"
    slow = settings.replace(key_prefix=prefix, embedder="hash:384:delay=0.15", **FAST_HNSW)
    env = _env(slow, prefix, slow.embedder, **FAST_HNSW)
    store = MemoryStore(collection="killed", settings=slow, embedder=HashEmbedder(384))
    client = get_client(settings.redis_url)
    try:
        first = procs.start(env, "worker", "-c", "2")
        _wait_alive(client, prefix, first)
        p = Pipeline(store, mode="celery")
        n = 1500
        job = p.submit([f"crash test item {i}" for i in range(n)], batch_size=50)
        deadline = time.monotonic() + 120
        while p.job(job.id).processed < 150:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        procs.kill(first, signal.SIGKILL)
        client.zrem(J.workers_key(prefix), *client.zrange(J.workers_key(prefix), 0, -1))
        mid = p.job(job.id)
        assert 0 < mid.processed < n, "the worker was not killed mid-job"
        time.sleep(2.5)  # past the broker visibility timeout: unacked tasks return
        # The worst moment to die: in the middle of kombu's sweep for such tasks,
        # holding its lock. The lock must expire in UNACKED_MUTEX_EXPIRE (30 s),
        # not kombu's default 5 minutes, or nothing is restored within the wait.
        from houkai.workers.app import UNACKED_MUTEX_EXPIRE

        client.set(f"{prefix}:celery:unacked_mutex", "dead-worker", ex=UNACKED_MUTEX_EXPIRE)
        second = procs.start(env, "worker", "-c", "2")
        _wait_alive(client, prefix, second)
        try:
            status = p.wait(job, timeout=180)
        except TimeoutError as exc:
            raise AssertionError(f"{exc}\n{procs.logs(second)}") from None
        assert (status.state, status.done, status.failed, status.skipped) == ("done", n, 0, 0)
        assert store.count() == n
        assert total(store.client, store.keys.index, "@state:{ready}") == n
        procs.kill(second)
    finally:
        store.drop()


@single_node_only("the outbox reads Celery's queue through the storage client (off on a cluster)")
def test_a_message_lost_on_its_way_to_a_worker_is_sent_again(procs, settings):
    """kombu pops a message before it copies it to the unacked set: a worker killed in
    between loses it. The outbox (houkai.pipeline.outbox) finds it and sends it again."""
    from houkai import MemoryStore
    from houkai.db.connection import get_client
    from houkai.engines.embeddings import HashEmbedder
    from houkai.pipeline import outbox

    prefix = settings.key_prefix + "-v"
    fast = settings.replace(key_prefix=prefix, embedder="hash:384", **FAST_HNSW)
    env = _env(fast, prefix, fast.embedder, **FAST_HNSW)
    store = MemoryStore(collection="vanished", settings=fast, embedder=HashEmbedder(384))
    client = get_client(settings.redis_url)
    n, batch = 200, 20
    try:
        p = Pipeline(store, mode="celery")
        job = p.submit([f"vanishing message item {i}" for i in range(n)], batch_size=batch)
        queue = f"{prefix}:celery:embed"
        assert client.llen(queue) == n // batch  # no worker yet: every batch waits
        assert client.rpop(queue)  # taken by a worker that died before its unacked copy
        client.zadd(J.workers_key(prefix), {"killed:1": time.time() - 120})  # its last beat
        started = time.monotonic()
        worker = procs.start(env, "worker", "-c", "1")
        try:
            status = p.wait(job, timeout=120)
        except TimeoutError as exc:
            raise AssertionError(f"{exc}\n{procs.logs(worker)}") from None
        took = time.monotonic() - started
        assert (status.state, status.done, status.failed) == ("done", n, 0)
        assert total(store.client, store.keys.index, "@state:{ready}") == n
        deadline = time.monotonic() + 10  # the last task's entry goes when it has run
        while outbox.size(client, prefix):
            assert time.monotonic() < deadline, "outbox entries left after the job"
            time.sleep(0.1)
        assert "whose message vanished" in procs.logs(worker, tail=10_000)
        print(f"\nmessage lost between queue and worker: lost 0 of {n}, done in {took:.1f}s")
        procs.kill(worker)
    finally:
        store.drop()
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)


def test_dead_workers_messages_are_swept_back_promptly(settings):
    """Reliability settings: kombu's sweep for unacked messages runs every half
    visibility timeout (≤ 60 s) and a dead sweeper's lock lapses in 30 s."""
    from houkai.workers.app import UNACKED_MUTEX_EXPIRE, celery_config

    options = celery_config(settings.replace(broker_visibility_timeout="1h"))[
        "broker_transport_options"
    ]
    assert options["visibility_timeout"] == 3600
    assert options["unacked_restore_interval"] == 60
    assert options["unacked_restore_throttle"] == 1
    assert options["unacked_mutex_expire"] == UNACKED_MUTEX_EXPIRE == 30
    fast = celery_config(settings.replace(broker_visibility_timeout="2s"))
    assert fast["broker_transport_options"]["unacked_restore_interval"] == 1
