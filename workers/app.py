"""The Celery app: Redis broker and result backend, named queues, reliability settings.

``app`` (for ``celery -A houkai.workers.app``) is configured lazily from
:func:`houkai.domain.config.get_settings`, so importing this module never connects to
Redis or starts the embedded server. :func:`get_app` builds (and caches) an app
for explicit settings; front doors send through it
(:func:`houkai.pipeline.dispatch.default_enqueue`).

This module imports neither the tasks nor the pipeline: a worker imports
:mod:`houkai.workers.tasks` on start (Celery's ``include``), where the tasks are
defined at module level under the names of :mod:`houkai.pipeline.dispatch`.

Queues, so each kind of work scales and is prioritised apart:

* ``embed`` — embedding batches (CPU-bound: the model is the bottleneck);
* ``maintenance`` — the beat-triggered maintenance tick (decay, purge,
  reconcile, reflection, journal archival).
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import Celery
from kombu import Queue

from houkai.db.keys import GlobalKeys
from houkai.domain.config import Settings, get_settings, parse_duration
from houkai.domain.model import ValidationError
from houkai.pipeline.dispatch import QUEUES, TASK_QUEUES

log = logging.getLogger(__name__)

TASKS_MODULE = "houkai.workers.tasks"
TASK_ROUTES: dict[str, dict[str, str]] = {
    name: {"queue": queue} for name, queue in TASK_QUEUES.items()
}
# The longest task is one maintenance tick over a large collection; an embed batch
# of 256 short texts takes about a second on 2 cores. Hard limit well above both.
TASK_SOFT_TIME_LIMIT = 1800
TASK_TIME_LIMIT = 2100
UNACKED_MUTEX_EXPIRE = 30


MAX_NICE = 19


def lower_priority(increment: int) -> int:
    """Lower this process's CPU priority by *increment* (``worker_nice``); the new niceness.

    Embedding is bulk work: on a machine it shares with the API, the scheduler
    then gives a waiting recall the cores first and the worker the rest (ADR 0073).
    Threads and children started afterwards inherit it.
    """
    if isinstance(increment, bool) or not isinstance(increment, int):
        raise ValidationError(f"worker_nice must be an integer 0-{MAX_NICE} — got {increment!r}")
    if not 0 <= increment <= MAX_NICE:
        raise ValidationError(f"worker_nice must be 0-{MAX_NICE} — got {increment}")
    if not increment or not hasattr(os, "nice"):
        return os.nice(0) if hasattr(os, "nice") else 0
    niceness = os.nice(increment)
    log.info("worker CPU priority lowered: nice %d (worker_nice)", niceness)
    return niceness


def broker_url(settings: Settings) -> str:
    """The broker: ``broker_url``, else the storage Redis (the embedded one if unset).

    kombu has no Redis Cluster transport (redis and sentinel only), so storage on a
    cluster needs a broker of its own: said in one sentence at start (ADR 0079)."""
    from houkai.db.cluster_client import is_cluster_url

    if settings.broker_url:
        if is_cluster_url(settings.broker_url):
            raise ValidationError(
                "HOUKAI_BROKER_URL cannot be a Redis Cluster (Celery has no cluster "
                "transport): point it at a plain Redis or a Sentinel"
            )
        return settings.broker_url
    if is_cluster_url(settings.redis_url):
        raise ValidationError(
            "REDIS_URL points at a Redis Cluster, which Celery cannot use as its broker: "
            "set HOUKAI_BROKER_URL to a separate Redis (or Sentinel) URL"
        )
    from houkai.db.server import resolve_url

    return resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)


def _plain_redis(url: str) -> bool:
    return url.split("://", 1)[0] in ("redis", "rediss", "unix")


def celery_config(settings: Settings) -> dict[str, Any]:
    """Every Celery setting houkai relies on, each with the reason it is set."""
    from .beat import SCHEDULER, beat_schedule
    from .transport import TRANSPORT

    broker = broker_url(settings)
    visibility = parse_duration(settings.broker_visibility_timeout)
    if visibility <= TASK_TIME_LIMIT:
        log.warning(
            "broker_visibility_timeout %ss is shorter than the task time limit %ss: a "
            "slow task may be delivered twice (harmless: tasks are idempotent)",
            visibility,
            TASK_TIME_LIMIT,
        )
    restore_every = max(1, min(60, int(visibility // 2)))
    namespace = GlobalKeys(settings.key_prefix).celery_namespace
    return {
        "broker_url": broker,
        # kombu's Redis transport with a restore that cannot end the worker when
        # Redis restarts under it (see transport.py); redis:// URLs only.
        **({"broker_transport": TRANSPORT} if _plain_redis(broker) else {}),
        "result_backend": settings.result_backend or broker,
        "broker_transport_options": {
            # A message delivered to a worker that dies without acking comes back
            # after this long; it must exceed the longest task or live tasks get
            # redelivered while still running.
            "visibility_timeout": visibility,
            # Sweep for such messages every half timeout (at most a minute):
            # kombu's default scans only every ~100 s.
            "unacked_restore_interval": restore_every,
            "unacked_restore_throttle": 1,
            # The sweep's lock: a worker killed mid-sweep must not block every
            # other worker's sweeps for kombu's default 5 minutes. A sweep takes
            # milliseconds; two overlapping ones only redeliver (tasks are idempotent).
            "unacked_mutex_expire": UNACKED_MUTEX_EXPIRE,
            # Celery's keys live under the houkai prefix: two deployments (or
            # test sessions) sharing a Redis never consume each other's tasks.
            "global_keyprefix": namespace,
        },
        "result_backend_transport_options": {"global_keyprefix": namespace},
        "broker_connection_retry_on_startup": True,
        "task_queues": tuple(Queue(name) for name in QUEUES),
        "task_default_queue": "embed",
        "task_routes": TASK_ROUTES,
        # Ack after the task finished, not when received: a worker killed
        # mid-task leaves the message in Redis for another worker.
        "task_acks_late": True,
        # ...and when a pool child dies (OOM, SIGKILL), re-queue instead of failing.
        "task_reject_on_worker_lost": True,
        # Heavy tasks: a worker reserves one message per process, so a slow
        # worker never sits on a backlog that idle workers could take.
        "worker_prefetch_multiplier": 1,
        # Progress lives in houkai's job records; results would only fill Redis.
        "task_ignore_result": True,
        "task_soft_time_limit": TASK_SOFT_TIME_LIMIT,
        "task_time_limit": TASK_TIME_LIMIT,
        "task_serializer": "json",
        "accept_content": ["json"],
        "worker_hijack_root_logger": False,
        "worker_send_task_events": False,
        # Beat: redbeat keeps the schedule and a lock in Redis, so a second beat
        # process waits instead of double-sending ticks.
        # (wrapped so a Redis restart never ends the beat process: see beat.py)
        "beat_scheduler": SCHEDULER,
        "redbeat_redis_url": broker,
        "redbeat_redis_options": {},
        "redbeat_key_prefix": GlobalKeys(settings.key_prefix).redbeat,
        "redbeat_lock_timeout": 300,
        "beat_max_loop_interval": 60,
        "beat_schedule": beat_schedule(settings),
        "houkai_key_prefix": settings.key_prefix,
    }


def create_app(settings: Settings | None = None) -> Celery:
    """A Celery app whose configuration is resolved on first use (never at import)."""
    app = Celery("houkai", set_as_current=False, include=[TASKS_MODULE])
    app.add_defaults(lambda: celery_config(settings or get_settings()))
    return app


_apps: dict[tuple[str, str, str, str, str], Celery] = {}
_lock = threading.Lock()


def get_app(settings: Settings | None = None) -> Celery:
    """The cached app for *settings* (the process-wide settings when None)."""
    s = settings or get_settings()
    key = (s.broker_url, s.redis_url, s.data_dir, s.key_prefix, s.broker_visibility_timeout)
    with _lock:
        found = _apps.get(key)
        if found is None:
            found = create_app(s)
            _apps[key] = found
        return found


app = create_app()
