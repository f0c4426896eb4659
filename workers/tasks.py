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
from celery import Task, shared_task, signals

from houkai.domain.config import get_settings
from houkai.pipeline.dispatch import EMBED_BATCH, EXTRACT_SESSION, MAINTENANCE_TICK

from .recovery import TRACKED_TASKS, Heartbeat, connection

log = logging.getLogger(__name__)

MAX_RETRIES = 8
# NoScriptError: Redis restarted between a pipeline's script load and its EVALSHA (the
# restarted server has no scripts); running the task body again loads them again.
TRANSIENT = (
    redis.ConnectionError,
    redis.TimeoutError,
    redis.exceptions.NoScriptError,
    ConnectionError,
    TimeoutError,
)
T = TypeVar("T")
#: How the data tasks retry a Redis blip: with backoff and jitter, at most MAX_RETRIES times.
RETRYING: dict[str, Any] = {
    "bind": True,
    "max_retries": MAX_RETRIES,
    "autoretry_for": TRANSIENT,
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "retry_jitter": True,
}

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


@shared_task(name=EMBED_BATCH, **RETRYING)
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


@shared_task(name=EXTRACT_SESSION, **RETRYING)
def extract_session(
    self: Task, prefix: str, collection: str, session_id: str, due: float = 0.0
) -> dict[str, Any]:
    """Turn a session's not-yet-extracted messages into memories (idempotent: see
    :mod:`houkai.sessions.extract`). An extractor failure (a provider down, a rate limit)
    is retried with backoff; the messages stay pending meanwhile, nothing is lost."""
    from houkai.sessions import jobs as extraction_jobs
    from houkai.sessions.extract import run_extraction

    job_id = self.request.id or ""

    def run() -> dict[str, Any]:
        store = worker_store(prefix, collection)
        report = run_extraction(store, session_id, due=due, job_id=job_id).to_dict()
        if report.get("status") == "done":  # a debounced or idle run is no job of its own
            extraction_jobs.begin(store, job_id, session_id)
            extraction_jobs.finish(store, job_id, report)
        return report

    try:
        return until_redis_is_back(run, f"extraction of session {session_id}")
    except TRANSIENT:
        raise
    except Exception as exc:
        return _extraction_failed(self, exc, prefix, collection, session_id, job_id)


def _extraction_failed(
    task: Task, exc: Exception, prefix: str, collection: str, session_id: str, job_id: str
) -> dict[str, Any]:
    """Retry with backoff (a provider's 429/5xx, a timeout, our own limits) or, once that
    cannot help or retries are spent, dead-letter: the job fails visibly and the session's
    messages stay pending (houkai.sessions.jobs)."""
    from houkai.extraction.llm.errors import LLMError, disposition
    from houkai.extraction.usage import record_usage
    from houkai.sessions import jobs as extraction_jobs

    store = worker_store(prefix, collection)
    retries = task.request.retries
    if isinstance(exc, LLMError):
        # tokens spent before the failure are still spent
        record_usage(store.client, store.keys, job_id, exc.usage, once=f"{job_id}:{retries}")
        verdict, countdown = disposition(exc, retries, MAX_RETRIES, default_delay=_backoff(retries))
    else:
        verdict = "retry" if retries < MAX_RETRIES else "dead"
        countdown = _backoff(retries)
    extraction_jobs.begin(store, job_id, session_id)
    if verdict == "retry":
        log.warning(
            "extraction of session %s failed (%s); retry %d/%d in %.0f s",
            session_id, exc, retries + 1, MAX_RETRIES, countdown,
        )  # fmt: skip
        extraction_jobs.note_retry(store, job_id, exc, countdown)
        raise task.retry(exc=exc, countdown=countdown) from None
    extraction_jobs.dead_letter(store, job_id, session_id, exc)
    return {"session_id": session_id, "status": "dead_letter", "error": str(exc)[:500]}


# ---------------------------------------------------------------------- worker process
WORKER_ID_ENV = "HOUKAI_WORKER_ID"

_heartbeat: Heartbeat | None = None


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
        _heartbeat = Heartbeat(name, getattr(sender, "app", None))
        _heartbeat.start()


@signals.task_received.connect
def _track(request: Any = None, **_: Any) -> None:
    """Record a task as soon as this worker holds its message (running or about to)."""
    worker = os.environ.get(WORKER_ID_ENV)
    if not worker or request is None or request.name not in TRACKED_TASKS or request.eta:
        return  # a delayed retry is held on purpose: its backoff must not be cut short
    from houkai.pipeline.jobs import track_task

    try:
        client, prefix = connection()
        track_task(client, prefix, worker, request.id, request.name, request.args, request.kwargs)
    except Exception as exc:  # the broker's visibility timeout still covers this task
        log.warning("could not record in-flight task %s: %s", request.id, exc)


@signals.task_postrun.connect
def _untrack(
    task_id: str = "", task: Any = None, kwargs: Any = None, state: str = "", **_: Any
) -> None:
    """The task has run: drop its in-flight record and its outbox entry (a retry keeps
    the outbox entry: the retry is the same task, published again)."""
    if task is None or task.name not in TRACKED_TASKS:
        return
    from houkai.pipeline import outbox
    from houkai.pipeline.jobs import untrack_task

    worker = os.environ.get(WORKER_ID_ENV)
    try:
        client, prefix = connection()
        pipe = client.pipeline(transaction=False)
        if worker:
            untrack_task(pipe, prefix, worker, task_id)
        if state != "RETRY":
            outbox.settle(pipe, (kwargs or {}).get("prefix") or prefix, task_id)
        pipe.execute()
    except Exception as exc:  # a left-over outbox entry only costs a harmless re-send
        log.debug("could not clear in-flight task %s: %s", task_id, exc)


@signals.worker_shutdown.connect
def _on_shutdown(**_kwargs: Any) -> None:
    if _heartbeat is not None:
        _heartbeat.close()
