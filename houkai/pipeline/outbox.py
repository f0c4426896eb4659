"""The outbox: every embed task the pipeline sends, until a worker has run it.

kombu's Redis transport pops a message from its queue (``BRPOP``) and only then
copies it into the *unacked* set. A worker killed between the two loses that
message: it is in no queue, in no unacked set and in no in-flight record, so
neither the broker's visibility timeout nor houkai's lost-worker sweep can
bring it back, and its batch waited for ``reconcile`` (ten minutes after the
job stopped progressing). The same holds for a front door that dies between
recording a job and publishing its batches.

So the sender writes each task here (id, name, arguments) *before* publishing
it, with the task's own Celery id, and the worker removes the entry when the
task has run (a retry keeps it: the retry is the same task id, published
again). An entry that is old enough and that no queue, unacked set or
in-flight record holds was lost; :func:`houkai.workers.recovery.resend_missing`
sends it again under the same id, after seeing it missing twice (a message
being handed from the queue to a live worker's unacked set is missing for
microseconds). Tasks are idempotent, so a rare duplicate changes nothing.

Keys (storage Redis, under the global hash tag ``{<prefix>}``, so the record
transaction stays in one slot on a cluster): ``{<prefix>}:outbox`` ZSET id → sent
at; ``…:outbox:tasks`` HASH id → JSON ``{name, kwargs}``; ``…:outbox:suspects``
HASH id → when it was first seen missing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

import redis

from ..db.decode import as_text
from ..db.keys import GlobalKeys


def outbox_key(prefix: str) -> str:
    return GlobalKeys(prefix).outbox


def tasks_key(prefix: str) -> str:
    return GlobalKeys(prefix).outbox_tasks


def suspects_key(prefix: str) -> str:
    return GlobalKeys(prefix).outbox_suspects


def record(
    client: redis.Redis, prefix: str, task_id: str, name: str, kwargs: dict[str, Any]
) -> None:
    """Write a task to the outbox (before it is published)."""
    pipe = client.pipeline(transaction=True)
    pipe.hset(tasks_key(prefix), task_id, json.dumps({"name": name, "kwargs": kwargs}))
    pipe.zadd(outbox_key(prefix), {task_id: time.time()})
    pipe.execute()


def settle(client: redis.Redis | Any, prefix: str, task_id: str) -> None:
    """The task has run (or was never published): forget it. *client* may be a pipeline."""
    client.zrem(outbox_key(prefix), task_id)
    client.hdel(tasks_key(prefix), task_id)
    client.hdel(suspects_key(prefix), task_id)


def touch(client: redis.Redis, prefix: str, task_id: str, now: float | None = None) -> None:
    """The task was sent again: its age starts over."""
    client.zadd(outbox_key(prefix), {task_id: time.time() if now is None else now}, xx=True)


def overdue(client: redis.Redis, prefix: str, sent_before: float) -> list[str]:
    """Ids of outbox tasks sent before *sent_before* and not yet run."""
    return [as_text(t) for t in client.zrangebyscore(outbox_key(prefix), "-inf", sent_before)]


def size(client: redis.Redis, prefix: str) -> int:
    return int(client.zcard(outbox_key(prefix)))


def task(client: redis.Redis, prefix: str, task_id: str) -> tuple[str, dict[str, Any]] | None:
    """``(name, kwargs)`` of an outbox task, or None when it has run meanwhile."""
    raw = client.hget(tasks_key(prefix), task_id)
    if raw is None:
        return None
    try:
        body = json.loads(raw)
        return str(body["name"]), dict(body["kwargs"])
    except (ValueError, KeyError, TypeError):
        return None


def confirm_missing(
    client: redis.Redis, prefix: str, missing: Iterable[str], now: float, confirm_after: float
) -> list[str]:
    """Record this look's *missing* ids; return those also missing in a look at least
    *confirm_after* seconds earlier. Ids no longer missing stop being suspects."""
    key = suspects_key(prefix)
    missing = set(missing)
    seen = {as_text(k): float(v) for k, v in client.hgetall(key).items()}
    cleared = [t for t in seen if t not in missing]
    confirmed = [t for t in missing if t in seen and now - seen[t] >= confirm_after]
    new = {t: repr(now) for t in missing if t not in seen}
    pipe = client.pipeline(transaction=False)
    if cleared:
        pipe.hdel(key, *cleared)
    if new:
        pipe.hset(key, mapping=new)
    if confirmed:
        pipe.hdel(key, *confirmed)
    pipe.execute()
    return sorted(confirmed)


def has_suspects(client: redis.Redis, prefix: str) -> bool:
    return bool(client.hlen(suspects_key(prefix)))
