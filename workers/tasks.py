"""Celery tasks: thin, idempotent adapters over :mod:`houkai.pipeline.write` and
:mod:`houkai.pipeline.maintenance`, plus the worker's model warm-up and liveness heartbeat.

The tasks are defined at module level (``shared_task``: every app that is
finalized after this import gets them) under the names of
:mod:`houkai.pipeline.dispatch`; the worker app imports this module on start.
Path ingestion runs in the front door that can read the path and sends embed
batches; there is no separate ingest task.

Idempotency: ``embed_batch`` only changes memories still ``pending`` with the
text it embedded and counts each item position once (see :mod:`houkai.pipeline.jobs`);
``maintenance_tick`` is gated by per-job schedule state and a lock in Redis.
Running any of them twice changes nothing more than running it once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from celery import Celery, Task, shared_task, signals

from houkai.domain.config import get_settings
from houkai.pipeline.dispatch import EMBED_BATCH, MAINTENANCE_TICK
from houkai.pipeline.jobs import HEARTBEAT_TTL

log = logging.getLogger(__name__)

MAX_RETRIES = 8
TRANSIENT = (redis.ConnectionError, redis.TimeoutError, ConnectionError, TimeoutError)
HEARTBEAT_EVERY = 10.0
T = TypeVar("T")

_stores: OrderedDict[tuple[str, str], Any] = OrderedDict()
_stores_lock = threading.Lock()


def worker_store(prefix: str, collection: str):
    """A cached MemoryStore for (prefix, collection) in this worker process."""
    from houkai.store import MemoryStore

    key = (prefix, collection)
    with _stores_lock:
        store = _stores.get(key)
        if store is not None:
            _stores.move_to_end(key)
            return store
    settings = get_settings()
    if prefix != settings.key_prefix:
        settings = settings.replace(key_prefix=prefix)
    store = MemoryStore(collection=collection, settings=settings, actor="worker")
    with _stores_lock:
        _stores[key] = store
        while len(_stores) > 64:
            _stores.popitem(last=False)
    return store


def _backoff(retries: int) -> float:
    return float(min(2**retries, 300))


REDIS_WAIT = 300.0  # how long a running task waits for Redis to come back


def until_redis_is_back(fn: Callable[[], T], what: str, wait: float = REDIS_WAIT) -> T:
    """Run *fn*; while Redis is unreachable, wait with backoff (0.5 s doubling to 10 s)
    and run it again. A task that hits a Redis restart so finishes once Redis is
    back, instead of failing while its retry cannot even be published (the broker is
    that same Redis) and leaving its batch to the hour-long visibility timeout.
    Safe because every task is idempotent."""
    deadline = time.monotonic() + wait
    delay = 0.5
    while True:
        try:
            return fn()
        except TRANSIENT as exc:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("%s: Redis unavailable (%s); retrying in %.1fs", what, exc, delay)
            time.sleep(delay)
            delay = min(delay * 2, 10.0)


@shared_task(
    name=EMBED_BATCH,
    bind=True,
    max_retries=MAX_RETRIES,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_backoff_max=300,
    retry_jitter=True,
)
def embed_batch(
    self: Task,
    prefix: str,
    collection: str,
    job_id: str,
    ids: list[str],
    positions: list[int],
    on_conflict: str = "ignore",
) -> dict[str, int]:
    """Embed one batch; a batch where *every* item fails is retried with backoff first."""
    from houkai.pipeline.write import TransientEmbedError, process_batch

    final = self.request.retries >= MAX_RETRIES

    def run() -> dict[str, int]:
        store = worker_store(prefix, collection)
        return process_batch(store, job_id, ids, positions, on_conflict, final_attempt=final)

    try:
        return until_redis_is_back(run, f"embed batch of job {job_id}")
    except TransientEmbedError as exc:
        log.warning(
            "embed batch of job %s failed entirely (%s); retry %d/%d",
            job_id,
            exc,
            self.request.retries + 1,
            MAX_RETRIES,
        )
        raise self.retry(exc=exc, countdown=_backoff(self.request.retries)) from None


@shared_task(
    name=MAINTENANCE_TICK,
    bind=True,
    max_retries=3,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
)
def maintenance_tick(self: Task, prefix: str | None = None, force: bool = False) -> dict[str, Any]:
    """Run each due maintenance job once, for every collection under the prefix."""
    from houkai.pipeline.maintenance import tick_all

    settings = get_settings()
    if prefix and prefix != settings.key_prefix:
        settings = settings.replace(key_prefix=prefix)
    return tick_all(settings, force=force)


# ---------------------------------------------------------------------- worker process
WORKER_ID_ENV = "HOUKAI_WORKER_ID"
# Tasks whose in-flight record lets another worker re-queue them when this one is
# lost (see houkai.pipeline.jobs.track_task); beat re-sends maintenance ticks by itself.
TRACKED_TASKS = (EMBED_BATCH,)


def _connection():
    from houkai.db.connection import connect

    s = get_settings()
    return connect(s.redis_url, s.data_dir if not s.redis_url else None), s.key_prefix


def requeue_lost(app: Celery, client: Any, prefix: str) -> int:
    """Send again the in-flight tasks of workers that stopped sending heartbeats.

    First the lost workers' own records are claimed; then the broker's unacked
    messages that no live worker records (delivered to a worker that died before
    it could record them) are sent again and removed, so neither waits for the
    hour-long visibility timeout.
    """
    from houkai.pipeline.jobs import claim_lost_tasks, lost_workers, restore_claimed

    lost = lost_workers(client, prefix)
    if not lost:
        return 0
    claimed: dict[str, tuple[str, dict]] = {}
    for worker in lost:
        for task in claim_lost_tasks(client, prefix, worker):
            claimed[task["id"]] = (worker, task)
    resent = requeue_unacked(app, client, prefix)
    count = len(resent)
    pending = [(w, t) for tid, (w, t) in claimed.items() if tid not in resent]
    for i, (_worker, task) in enumerate(pending):
        try:
            app.send_task(task["name"], args=task["args"], kwargs=task["kwargs"])
        except Exception:
            for w, t in pending[i:]:
                restore_claimed(client, prefix, w, [t])
            raise
        count += 1
    log.warning(
        "worker(s) %s sent no heartbeat for %.0fs: re-queued %d in-flight task(s)",
        ", ".join(lost),
        HEARTBEAT_TTL,
        count,
    )
    return count


def requeue_unacked(app: Celery, client: Any, prefix: str) -> set[str]:
    """Re-send tracked-kind tasks whose broker message sits unacked, older than a dead
    worker's last possible receipt, and that no live worker records as in flight.
    Returns the ids sent. Only when the broker is the storage Redis (same client)."""
    from houkai.pipeline.jobs import live_task_ids

    settings = get_settings()
    if settings.broker_url and settings.broker_url != settings.redis_url:
        return set()
    namespace = f"{prefix}:celery:"
    unacked, index = namespace + "unacked", namespace + "unacked_index"
    cutoff = time.time() - (HEARTBEAT_TTL - HEARTBEAT_EVERY)
    tags = client.zrangebyscore(index, "-inf", cutoff)
    if not tags:
        return set()
    live = live_task_ids(client, prefix)
    sent: set[str] = set()
    for tag in tags:
        parsed = _unacked_task(client.hget(unacked, tag))
        if parsed is None:
            continue
        task_id, name, args, kwargs = parsed
        if task_id in live or task_id in sent:
            continue
        if not client.hdel(unacked, tag):  # another sweeper took it
            continue
        client.zrem(index, tag)
        app.send_task(name, args=args, kwargs=kwargs)
        sent.add(task_id)
    return sent


def _unacked_task(raw: Any) -> tuple[str, str, list, dict] | None:
    """``(id, name, args, kwargs)`` of a kombu unacked entry for a tracked task, or None
    (another task, a delayed retry, or an unreadable entry)."""
    import base64
    import json

    if raw is None:
        return None
    try:
        message = json.loads(raw)[0]
        headers = message.get("headers") or {}
        name, task_id = headers.get("task"), headers.get("id")
        if name not in TRACKED_TASKS or headers.get("eta"):
            return None
        body = message["body"]
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args, kwargs, _embed = json.loads(body)
        return str(task_id), str(name), list(args), dict(kwargs)
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def requeue_interrupted(app: Celery, client: Any, prefix: str, worker: str) -> int:
    """Send again this worker's recorded tasks that no longer run here.

    A task that hit a Redis outage fails (its retry cannot be published) and its
    end cannot be recorded, so its batch would wait for the broker's visibility
    timeout (an hour) or reconcile (ten minutes). Re-sending is safe: tasks are
    idempotent. Records younger than a heartbeat period are left alone (a task
    just received may not be listed as reserved yet).
    """
    from celery.worker import state as worker_state

    from houkai.pipeline.jobs import running_tasks, untrack_task

    active = {r.id for r in [*worker_state.active_requests, *worker_state.reserved_requests]}
    cutoff = time.time() - HEARTBEAT_EVERY
    count = 0
    for task in running_tasks(client, prefix, worker):
        if task["id"] in active or float(task.get("at") or 0) > cutoff:
            continue
        app.send_task(task["name"], args=task["args"], kwargs=task["kwargs"])
        untrack_task(client, prefix, worker, task["id"])
        count += 1
    if count:
        log.warning("re-queued %d task(s) interrupted by a Redis outage", count)
    return count


class _Heartbeat:
    """Tells front doors (``pipeline_mode="auto"``) an embedding worker is alive, and
    re-queues the in-flight tasks of workers that stopped beating."""

    def __init__(self, name: str, app: Celery | None = None) -> None:
        self.name = name
        self.app = app
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def run(self) -> None:
        from houkai.pipeline.jobs import heartbeat

        failures = 0
        while not self.stop.is_set():
            try:
                client, prefix = _connection()
                heartbeat(client, prefix, self.name)
                if failures:
                    log.warning("worker heartbeat: Redis reachable again; resuming")
                failures = 0
                if self.app is not None:
                    requeue_interrupted(self.app, client, prefix, self.name)
                    requeue_lost(self.app, client, prefix)
            except Exception as exc:  # keep beating through Redis blips
                failures += 1
                log.warning("worker heartbeat failed (%s); retrying in %.0fs", exc, HEARTBEAT_EVERY)
            self.stop.wait(HEARTBEAT_EVERY)

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="houkai-heartbeat", daemon=True)
        self.thread.start()

    def close(self) -> None:
        from houkai.pipeline.jobs import clear_heartbeat

        self.stop.set()
        try:
            client, prefix = _connection()
            clear_heartbeat(client, prefix, self.name)
        except Exception as exc:
            log.debug("heartbeat cleanup failed: %s", exc)


_heartbeat: _Heartbeat | None = None


def _consumes_embed(sender: Any) -> bool:
    try:
        queues = sender.app.amqp.queues.consume_from or {}
        return not queues or "embed" in queues
    except AttributeError:
        return True


def _warm_model() -> None:
    """Load the model once, in the process that will use it (never before a fork)."""
    from houkai.engines.embeddings import get_embedder

    embedder = get_embedder()
    embedder.encode(["warm up"])
    log.info("embedder %s ready in pid %d", embedder.name, os.getpid())


@signals.worker_init.connect
def _on_init(sender: Any = None, **_kwargs: Any) -> None:
    """Name this worker before its pool forks, so children record tasks under it."""
    if _consumes_embed(sender):
        host = getattr(sender, "hostname", None) or socket.gethostname()
        os.environ[WORKER_ID_ENV] = f"{host}:{os.getpid()}"


@signals.worker_process_init.connect
def _child_init(**_kwargs: Any) -> None:
    from houkai.db.connection import reset_clients

    reset_clients()  # never share a socket with the parent after fork
    _warm_model()


@signals.worker_ready.connect
def _on_ready(sender: Any = None, **_kwargs: Any) -> None:
    global _heartbeat
    pool = type(getattr(sender, "pool", None)).__module__
    if not pool.endswith("prefork"):  # solo / threads: the model lives in this process
        _warm_model()
    name = os.environ.get(WORKER_ID_ENV)
    if name:
        _heartbeat = _Heartbeat(name, getattr(sender, "app", None))
        _heartbeat.start()


@signals.task_received.connect
def _track(request: Any = None, **_: Any) -> None:
    """Record a task as soon as this worker holds its message (running or about to)."""
    worker = os.environ.get(WORKER_ID_ENV)
    if not worker or request is None or request.name not in TRACKED_TASKS or request.eta:
        return  # a delayed retry is held on purpose: its backoff must not be cut short
    from houkai.pipeline.jobs import track_task

    try:
        client, prefix = _connection()
        track_task(client, prefix, worker, request.id, request.name, request.args, request.kwargs)
    except Exception as exc:  # the broker's visibility timeout still covers this task
        log.warning("could not record in-flight task %s: %s", request.id, exc)


@signals.task_postrun.connect
def _untrack(task_id: str = "", task: Any = None, **_: Any) -> None:
    worker = os.environ.get(WORKER_ID_ENV)
    if not worker or task is None or task.name not in TRACKED_TASKS:
        return
    from houkai.pipeline.jobs import untrack_task

    try:
        client, prefix = _connection()
        untrack_task(client, prefix, worker, task_id)
    except Exception as exc:
        log.debug("could not clear in-flight task %s: %s", task_id, exc)


@signals.worker_shutdown.connect
def _on_shutdown(**_kwargs: Any) -> None:
    if _heartbeat is not None:
        _heartbeat.close()
