"""Bringing back the work of workers that died, and of messages that vanished.

Three sweeps run in every embedding worker's heartbeat thread (every
:data:`HEARTBEAT_EVERY` seconds); each is idempotent and safe to run in several
workers at once because every task is:

* :func:`requeue_lost` — a worker that stopped sending heartbeats for
  :data:`~houkai.pipeline.jobs.HEARTBEAT_TTL`: its in-flight records are claimed
  and sent again, then the broker's unacked messages that no live worker
  records (:func:`requeue_unacked`), so neither waits for the hour-long
  visibility timeout;
* :func:`requeue_interrupted` — this worker's own records of tasks that no
  longer run here (a Redis outage ended them before their end was written);
* :func:`resend_missing` — outbox tasks (:mod:`houkai.pipeline.outbox`) that are
  in no queue, unacked set or in-flight record: lost between kombu's ``BRPOP``
  and its unacked copy when a worker died, or never published. Run when a lost
  worker is found, while suspects wait for confirmation, and every
  :data:`OUTBOX_SWEEP_EVERY` seconds otherwise.

Every re-send keeps the task's id, so its outbox entry follows it.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from collections.abc import Iterable
from typing import Any

from celery import Celery

from houkai.db.keys import GlobalKeys
from houkai.domain.config import get_settings
from houkai.pipeline import outbox
from houkai.pipeline.dispatch import EMBED_BATCH, EXTRACT_SESSION, QUEUES
from houkai.pipeline.jobs import HEARTBEAT_TTL

log = logging.getLogger(__name__)

HEARTBEAT_EVERY = 10.0
# Tasks whose in-flight record lets another worker re-queue them when this one is
# lost (see houkai.pipeline.jobs.track_task); beat re-sends maintenance ticks by itself.
TRACKED_TASKS = (EMBED_BATCH, EXTRACT_SESSION)
OUTBOX_GRACE = 5.0  # an entry younger than this may still be on its way to the queue
OUTBOX_CONFIRM = 5.0  # missing in two looks at least this far apart: lost
OUTBOX_SWEEP_EVERY = 120.0  # the sweep's period when nothing prompts it
OUTBOX_SWEEP_LOCK = 60  # seconds: one sweeper at a time per prefix
QUEUE_SCAN_CHUNK = 200  # messages read per LRANGE while looking for task ids
PRIORITY_SEPARATOR = "\x06\x16"  # kombu's Redis transport: queue name + sep + priority


def connection() -> tuple[Any, str]:
    """The storage Redis and the key prefix of this process's settings."""
    from houkai.db.connection import connect

    s = get_settings()
    return connect(s.redis_url, s.data_dir if not s.redis_url else None), s.key_prefix


def broker_is_storage() -> bool:
    """The sweeps read Celery's keys through the storage client: only when they are one."""
    settings = get_settings()
    return not settings.broker_url or settings.broker_url == settings.redis_url


# ------------------------------------------------------------------ lost workers
def requeue_lost(app: Celery, client: Any, prefix: str) -> int:
    """Send again the in-flight tasks of workers that stopped sending heartbeats.

    First the lost workers' own records are claimed; then the broker's unacked
    messages that no live worker records (delivered to a worker that died before
    it could record them) are sent again and removed, so neither waits for the
    hour-long visibility timeout. Returns the number of tasks sent.
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
            app.send_task(
                task["name"], args=task["args"], kwargs=task["kwargs"], task_id=task["id"]
            )
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


def _unacked_keys(prefix: str) -> tuple[str, str]:
    namespace = GlobalKeys(prefix).celery_namespace
    return namespace + "unacked", namespace + "unacked_index"


def requeue_unacked(app: Celery, client: Any, prefix: str) -> set[str]:
    """Re-send tracked-kind tasks whose broker message sits unacked, older than a dead
    worker's last possible receipt, and that no live worker records as in flight.
    Returns the ids sent. Only when the broker is the storage Redis (same client)."""
    from houkai.pipeline.jobs import live_task_ids

    if not broker_is_storage():
        return set()
    unacked, index = _unacked_keys(prefix)
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
        app.send_task(name, args=args, kwargs=kwargs, task_id=task_id)
        sent.add(task_id)
    return sent


def _headers(message: Any) -> dict[str, Any]:
    """The Celery headers of a kombu message envelope (a dict), or {}."""
    headers = message.get("headers") if isinstance(message, dict) else None
    return headers if isinstance(headers, dict) else {}


def _unacked_task(raw: Any) -> tuple[str, str, list, dict] | None:
    """``(id, name, args, kwargs)`` of a kombu unacked entry for a tracked task, or None
    (another task, a delayed retry, or an unreadable entry)."""
    if raw is None:
        return None
    try:
        message = json.loads(raw)[0]
        headers = _headers(message)
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
        app.send_task(task["name"], args=task["args"], kwargs=task["kwargs"], task_id=task["id"])
        untrack_task(client, prefix, worker, task["id"])
        count += 1
    if count:
        log.warning("re-queued %d task(s) interrupted by a Redis outage", count)
    return count


# ------------------------------------------------------------------ vanished messages
def unacked_task_ids(client: Any, prefix: str) -> set[str]:
    """Ids of the tasks in the broker's unacked set that its sweep can restore (listed
    in its index), delayed retries included."""
    unacked, index = _unacked_keys(prefix)
    tags = client.zrange(index, 0, -1)
    out: set[str] = set()
    for start in range(0, len(tags), QUEUE_SCAN_CHUNK):
        for raw in client.hmget(unacked, tags[start : start + QUEUE_SCAN_CHUNK]):
            if raw is None:
                continue
            try:
                task_id = _headers(json.loads(raw)[0]).get("id")
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if task_id:
                out.add(str(task_id))
    return out


def queued_task_ids(client: Any, prefix: str, wanted: Iterable[str]) -> set[str]:
    """Which of *wanted* have a message waiting in one of houkai's queues (any priority)."""
    wanted = set(wanted)
    found: set[str] = set()
    namespace = GlobalKeys(prefix).celery_namespace
    keys: list[Any] = []
    for queue in QUEUES:
        keys.append(namespace + queue)
        keys.extend(client.scan_iter(match=f"{namespace}{queue}{PRIORITY_SEPARATOR}*"))
    for key in keys:
        start = 0
        while wanted - found:
            chunk = client.lrange(key, start, start + QUEUE_SCAN_CHUNK - 1)
            if not chunk:
                break
            start += len(chunk)
            for raw in chunk:
                try:
                    task_id = _headers(json.loads(raw)).get("id")
                except (ValueError, TypeError):
                    continue
                if task_id in wanted:
                    found.add(str(task_id))
    return found


def resend_missing(app: Celery, client: Any, prefix: str, now: float | None = None) -> int:
    """Send again the outbox tasks that vanished (see the module docstring); returns how
    many. One sweeper at a time per prefix; a task is re-sent only after being
    missing from every queue, unacked set and in-flight record in two looks at
    least :data:`OUTBOX_CONFIRM` seconds apart."""
    from houkai.pipeline.jobs import live_task_ids

    if not broker_is_storage():
        return 0
    now = time.time() if now is None else now
    lock = f"{outbox.outbox_key(prefix)}:sweeping"
    if not client.set(lock, "1", nx=True, ex=OUTBOX_SWEEP_LOCK):
        return 0
    try:
        candidates = set(outbox.overdue(client, prefix, now - OUTBOX_GRACE))
        # Read where a message may be in the order it moves (queue → unacked → in-flight
        # record → done), so one that moves during the look is still seen once.
        if candidates:
            candidates -= queued_task_ids(client, prefix, candidates)
        if candidates:
            candidates -= unacked_task_ids(client, prefix)
        if candidates:
            candidates -= live_task_ids(client, prefix)
        lost = outbox.confirm_missing(client, prefix, candidates, now, OUTBOX_CONFIRM)
        sent = 0
        for task_id in lost:
            task = outbox.task(client, prefix, task_id)
            if task is None:  # it ran meanwhile
                continue
            name, kwargs = task
            app.send_task(name, kwargs=kwargs, task_id=task_id)
            outbox.touch(client, prefix, task_id, now)
            sent += 1
        if sent:
            log.warning(
                "re-sent %d task(s) whose message vanished (a worker died while taking "
                "it from the queue, or it was never published)",
                sent,
            )
        return sent
    finally:
        client.delete(lock)


def outbox_sweep_due(client: Any, prefix: str, found_lost_worker: bool) -> bool:
    """Whether this heartbeat should run :func:`resend_missing`."""
    if found_lost_worker or outbox.has_suspects(client, prefix):
        return True
    gate = f"{outbox.outbox_key(prefix)}:swept"
    return bool(client.set(gate, "1", nx=True, ex=int(OUTBOX_SWEEP_EVERY)))


def sweep_sessions(app: Celery, client: Any, prefix: str) -> int:
    """Send the extraction of sessions overdue (see :func:`houkai.sessions.trigger.sweep_due`);
    one sweeper per prefix at a time."""
    from houkai.sessions.trigger import sweep_due

    if not client.set(
        GlobalKeys(prefix).sessdue_marker("swept"), "1", nx=True, ex=int(HEARTBEAT_EVERY)
    ):
        return 0
    settings = get_settings()
    if settings.key_prefix != prefix:
        settings = settings.replace(key_prefix=prefix)
    return sweep_due(client, settings, app=app)


#: How often a worker looks for idle sessions whose extraction is due (one worker a tick).
DUE_SWEEP_EVERY = 1.0


def sweep_idle_sessions(app: Celery, client: Any, prefix: str) -> int:
    """Send the extraction of sessions that went idle (due now, no grace): the debounce
    of ``extract_after_idle`` without a delayed task per message. One worker a tick."""
    from houkai.sessions.trigger import sweep_due

    if not client.set(
        GlobalKeys(prefix).sessdue_marker("idle"), "1", nx=True, px=int(DUE_SWEEP_EVERY * 900)
    ):
        return 0
    settings = get_settings()
    if settings.key_prefix != prefix:
        settings = settings.replace(key_prefix=prefix)
    return sweep_due(client, settings, app=app, grace=0.0)


# ------------------------------------------------------------------ heartbeat
class Heartbeat:
    """Tells front doors (``pipeline_mode="auto"``) an embedding worker is alive, and
    runs the sweeps above."""

    def __init__(self, name: str, app: Celery | None = None) -> None:
        self.name = name
        self.app = app
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def beat_once(self, first: bool = False) -> None:
        from houkai.pipeline.jobs import heartbeat, lost_workers

        client, prefix = connection()
        heartbeat(client, prefix, self.name)
        if self.app is None:
            return
        requeue_interrupted(self.app, client, prefix, self.name)
        found = bool(lost_workers(client, prefix))
        requeue_lost(self.app, client, prefix)
        if first or outbox_sweep_due(client, prefix, found):
            resend_missing(self.app, client, prefix)
        sweep_sessions(self.app, client, prefix)

    def run(self) -> None:
        failures = 0
        first = True
        while not self.stop.is_set():
            try:
                self.beat_once(first)
                if failures:
                    log.warning("worker heartbeat: Redis reachable again; resuming")
                failures = 0
                first = False
            except Exception as exc:  # keep beating through Redis blips
                failures += 1
                log.warning("worker heartbeat failed (%s); retrying in %.0fs", exc, HEARTBEAT_EVERY)
            self.stop.wait(HEARTBEAT_EVERY)

    def sweep_idle(self) -> None:
        """Every :data:`DUE_SWEEP_EVERY` seconds, send the extraction of idle sessions."""
        while not self.stop.wait(DUE_SWEEP_EVERY):
            try:
                client, prefix = connection()
                sweep_idle_sessions(self.app, client, prefix)
            except Exception as exc:  # Redis away: the heartbeat says so; try again
                log.debug("idle-session sweep failed: %s", exc)

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name="houkai-heartbeat", daemon=True)
        self.thread.start()
        if self.app is not None:
            threading.Thread(
                target=self.sweep_idle, name="houkai-idle-sessions", daemon=True
            ).start()

    def close(self) -> None:
        from houkai.pipeline.jobs import clear_heartbeat

        self.stop.set()
        try:
            client, prefix = connection()
            clear_heartbeat(client, prefix, self.name)
        except Exception as exc:
            log.debug("heartbeat cleanup failed: %s", exc)
