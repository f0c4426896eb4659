"""Job records and per-memory embedding state transitions, kept in Redis.

A job is a HASH of counters (``total``, ``done``, ``failed``, ``rejected``,
``skipped``) plus a LIST of its memory ids, a bitmap with one bit per item
position, and capped LISTs of errors and conflicts. Everything lives in the
storage Redis, so progress survives worker restarts and is visible from every
process. Which job (and item position) a memory belongs to lives in the
collection's *inflight* hash only while the memory is pending or failed: a
ready memory carries no pipeline bookkeeping (ADR 0001's bytes per memory).

Every state change of a memory (pending → ready / failed / deleted) runs in one
Lua script together with its job accounting. The script only acts on a memory
that still exists, is still ``pending`` and still has the text the worker
embedded (content-hash compare), so a late or duplicate task can neither
resurrect a forgotten memory nor overwrite a newer edit. The position bit makes
accounting idempotent: whichever path settles an item first counts it, every
later attempt (a redelivered task, a reconcile, a cancel) counts nothing.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import redis

from ..db.decode import as_float, as_int, as_text
from ..db.keys import GlobalKeys, Keys, prefix_pattern
from ..store.access import mirror_lua
from ..store.scripts import delete_memory_lua

JOB_TTL = 7 * 86400  # settled jobs are kept a week, then expire
LIST_CAP = 1000  # errors / conflicts kept per job
MEMORY_IDS_SHOWN = 1000  # JobStatus.memory_ids is truncated beyond this
JOB_STATES: tuple[str, ...] = ("queued", "running", "done", "failed", "cancelled")

# KEYS: memory, job, bits, errors, BM25 stats, inflight, access document.
# ARGV: action, chash, pos, now, payload, error json, memory id, incoming-set prefix.
_SETTLE_LUA = (
    """
local st = redis.call('HGET', KEYS[1], 'state')
local outcome
if not st then
  outcome = 'skipped'
elseif st ~= 'pending' then
  if st == 'ready' then outcome = 'done' else outcome = 'failed' end
elseif redis.call('HGET', KEYS[1], 'chash') ~= ARGV[2] then
  return 'stale'
elseif ARGV[1] == 'ready' then
  if redis.call('HEXISTS', KEYS[1], 'error') == 1 then
    redis.call('HSET', KEYS[1], 'vec', ARGV[5], 'state', 'ready', 'error', '')
  else
    redis.call('HSET', KEYS[1], 'vec', ARGV[5], 'state', 'ready')
  end
  outcome = 'done'
elseif ARGV[1] == 'failed' then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'error', ARGV[5])
  outcome = 'failed'
else
"""
    + delete_memory_lua("KEYS[1]", "KEYS[5]", "ARGV[8]", "ARGV[7]", "KEYS[7]")
    + """
  outcome = 'rejected'
end
if outcome ~= 'rejected' and outcome ~= 'skipped' then
"""
    + mirror_lua("KEYS[1]", "KEYS[7]", "'0'")
    + """end
if outcome ~= 'failed' then
  redis.call('HDEL', KEYS[6], ARGV[7])
end
if redis.call('EXISTS', KEYS[2]) == 1
   and redis.call('SETBIT', KEYS[3], tonumber(ARGV[3]), 1) == 0 then
  redis.call('HINCRBY', KEYS[2], outcome, 1)
  redis.call('HSET', KEYS[2], 'updated_at', ARGV[4])
  if outcome == 'failed' and ARGV[6] ~= '' then
    redis.call('RPUSH', KEYS[4], ARGV[6])
    redis.call('LTRIM', KEYS[4], 0, LIST_LAST)
  end
end
return outcome
"""
).replace("LIST_LAST", str(LIST_CAP - 1))

# KEYS: memory, job, bits, access document. ARGV: pos, now. failed → pending,
# un-counting the failure.
_RESET_LUA = (
    """
if redis.call('HGET', KEYS[1], 'state') ~= 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'pending', 'error', '')
"""
    + mirror_lua("KEYS[1]", "KEYS[4]", "'0'")
    + """if redis.call('EXISTS', KEYS[2]) == 1
   and redis.call('SETBIT', KEYS[3], tonumber(ARGV[1]), 0) == 1 then
  redis.call('HINCRBY', KEYS[2], 'failed', -1)
  redis.call('HSET', KEYS[2], 'updated_at', ARGV[2])
end
return 1
"""
)

# KEYS: memory, inflight. ARGV: memory id, job id, pos. Re-home a memory in another job.
_ADOPT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
return 1
"""


def inflight_entry(job_id: str, pos: int) -> str:
    """The inflight hash value for a memory at item *pos* of *job_id*."""
    return f"{job_id}:{int(pos)}"


def parse_inflight(raw: bytes | str | None) -> tuple[str, int]:
    """``(job id, pos)`` from an inflight value; ``("", 0)`` when absent or malformed."""
    text = as_text(raw)
    job_id, _, pos = text.rpartition(":")
    try:
        return job_id, int(pos)
    except ValueError:
        return "", 0


def new_job_id() -> str:
    return uuid.uuid4().hex[:16]


@dataclass
class Job:
    """What ``submit`` returns: the job id and the new memories' ids in item order."""

    id: str
    memory_ids: list[str]
    total: int


@dataclass
class JobStatus:
    """Progress of a job, read from Redis."""

    id: str
    kind: str
    state: str
    total: int
    done: int
    failed: int
    rejected: int
    rate: float
    eta_seconds: float | None
    errors: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    memory_ids: list[str] = field(default_factory=list)
    created_at: float = 0.0
    updated_at: float = 0.0
    collection: str = ""
    skipped: int = 0
    on_conflict: str = "ignore"

    @property
    def processed(self) -> int:
        return self.done + self.failed + self.rejected + self.skipped

    @property
    def settled(self) -> bool:
        """Nothing left to do: every item is ready, failed, rejected or gone (or cancelled)."""
        return self.state in ("done", "failed", "cancelled")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class JobKeys:
    """Redis keys of one job: under its collection's hash tag, because the settle
    script touches them together with the collection's memory keys (ADR 0079)."""

    def __init__(self, keys: Keys, job_id: str) -> None:
        self.hash = keys.job(job_id)
        self.ids = self.hash + ":ids"
        self.bits = self.hash + ":bits"
        self.errors = self.hash + ":errors"
        self.conflicts = self.hash + ":conflicts"

    def all(self) -> tuple[str, ...]:
        return (self.hash, self.ids, self.bits, self.errors, self.conflicts)


class JobStore:
    """Create, read, account and expire the job records of one collection.

    A job id is only ever looked up inside its collection (every door names the
    collection), so the job's keys carry the collection's hash tag and no global
    id → collection map is needed.
    """

    def __init__(self, client: redis.Redis, prefix: str, collection: str) -> None:
        self.client = client
        self.prefix = prefix
        self.collection = collection
        self._coll_keys = Keys(prefix, collection)
        self._settle = client.register_script(_SETTLE_LUA)
        self._reset = client.register_script(_RESET_LUA)
        self._adopt = client.register_script(_ADOPT_LUA)

    def _for(self, collection: str | None) -> Keys:
        if collection is None or collection == self.collection:
            return self._coll_keys
        return Keys(self.prefix, collection)

    def keys(self, job_id: str, collection: str | None = None) -> JobKeys:
        return JobKeys(self._for(collection), job_id)

    def index_key(self, collection: str | None = None) -> str:
        return self._for(collection).jobs

    # ------------------------------------------------------------------ lifecycle
    def create(
        self, collection: str, kind: str, total: int, on_conflict: str, job_id: str | None = None
    ) -> str:
        job_id = job_id or new_job_id()
        now = time.time()
        k = self.keys(job_id, collection)
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(
            k.hash,
            mapping={
                "id": job_id,
                "kind": kind,
                "collection": collection,
                "total": total,
                "done": 0,
                "failed": 0,
                "rejected": 0,
                "skipped": 0,
                "cancelled": 0,
                "on_conflict": on_conflict,
                "created_at": repr(now),
                "updated_at": repr(now),
                "requeued_at": 0,
            },
        )
        pipe.zadd(self.index_key(collection), {job_id: now})
        pipe.execute()
        return job_id

    def add_ids(self, job_id: str, ids: Sequence[str], pipe: Any = None) -> None:
        if ids:
            (pipe or self.client).rpush(self.keys(job_id).ids, *ids)

    def set_fields(self, job_id: str, **fields: Any) -> None:
        self.client.hset(self.keys(job_id).hash, mapping=fields)

    def exists(self, job_id: str) -> bool:
        return bool(job_id) and bool(self.client.exists(self.keys(job_id).hash))

    def expire_if_settled(self, job_id: str) -> None:
        """Give a settled job's keys a TTL (idempotent)."""
        status = self.status(job_id, with_lists=False)
        if status is not None and status.settled:
            pipe = self.client.pipeline(transaction=False)
            for key in self.keys(job_id).all():
                pipe.expire(key, JOB_TTL)
            pipe.execute()

    def reopen(self, job_id: str) -> None:
        """A retried job lives again: drop its TTL and cancelled flag."""
        pipe = self.client.pipeline(transaction=False)
        for key in self.keys(job_id).all():
            pipe.persist(key)
        pipe.hset(self.keys(job_id).hash, "cancelled", 0)
        pipe.execute()

    # ------------------------------------------------------------------ transitions
    def settle(
        self,
        pipe: Any,
        keys: Keys,
        memory_id: str,
        job_id: str,
        pos: int,
        action: str,
        chash: str,
        payload: bytes | str = b"",
        error_entry: dict | None = None,
    ) -> None:
        """Queue one settle script call on *pipe* (action: ready | failed | reject).

        *keys* are the collection's: the BM25 statistics a rejected (deleted)
        memory must leave exact, and the inflight entry a settled one drops.
        """
        k = JobKeys(keys, job_id or "none")
        err = json.dumps(error_entry, ensure_ascii=False) if error_entry else ""
        self._settle(
            keys=[
                keys.memory(memory_id),
                k.hash,
                k.bits,
                k.errors,
                keys.lexstats,
                keys.inflight,
                keys.access_doc(memory_id),
            ],
            args=[
                action,
                chash,
                int(pos),
                repr(time.time()),
                payload,
                err,
                memory_id,
                keys.incoming_prefix,
            ],
            client=pipe,
        )

    def reset(self, pipe: Any, keys: Keys, memory_id: str, job_id: str, pos: int) -> None:
        k = JobKeys(keys, job_id or "none")
        self._reset(
            keys=[keys.memory(memory_id), k.hash, k.bits, keys.access_doc(memory_id)],
            args=[int(pos), repr(time.time())],
            client=pipe,
        )

    def adopt(self, pipe: Any, keys: Keys, memory_id: str, job_id: str, pos: int) -> None:
        self._adopt(
            keys=[keys.memory(memory_id), keys.inflight],
            args=[memory_id, job_id, int(pos)],
            client=pipe,
        )

    def add_conflicts(self, job_id: str, conflicts: Sequence[dict]) -> None:
        if not conflicts:
            return
        key = self.keys(job_id).conflicts
        pipe = self.client.pipeline(transaction=False)
        pipe.rpush(key, *(json.dumps(c, ensure_ascii=False) for c in conflicts))
        pipe.ltrim(key, 0, LIST_CAP - 1)
        pipe.execute()

    def clear_errors(self, job_id: str) -> None:
        self.client.delete(self.keys(job_id).errors)

    # ------------------------------------------------------------------ reads
    def iter_ids(self, job_id: str, batch: int = 1000) -> Iterator[tuple[int, list[str]]]:
        """``(start_position, ids)`` chunks of the job's memory ids, in item order."""
        key = self.keys(job_id).ids
        start = 0
        while True:
            chunk = self.client.lrange(key, start, start + batch - 1)
            if not chunk:
                return
            yield start, [as_text(x) for x in chunk]
            start += len(chunk)

    def status(
        self, job_id: str, *, with_lists: bool = True, collection: str | None = None
    ) -> JobStatus | None:
        """The job's progress; ``None`` when it does not exist or, with *collection*,
        belongs to another collection (a job is visible only inside its own)."""
        if not isinstance(job_id, str) or not job_id:
            return None
        k = self.keys(job_id, collection)
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(k.hash)
        if with_lists:
            pipe.lrange(k.errors, 0, -1)
            pipe.lrange(k.conflicts, 0, -1)
            pipe.lrange(k.ids, 0, MEMORY_IDS_SHOWN - 1)
        replies = pipe.execute()
        raw = {as_text(a): b for a, b in replies[0].items()}
        if not raw or (collection is not None and as_text(raw.get("collection")) != collection):
            return None
        total, done, failed = (
            as_int(raw.get("total")),
            as_int(raw.get("done")),
            as_int(raw.get("failed")),
        )
        rejected, skipped = as_int(raw.get("rejected")), as_int(raw.get("skipped"))
        processed = done + failed + rejected + skipped
        created, updated = as_float(raw.get("created_at")), as_float(raw.get("updated_at"))
        if as_int(raw.get("cancelled")):
            state = "cancelled"
        elif processed >= total:
            state = "failed" if failed else "done"
        elif processed == 0:
            state = "queued"
        else:
            state = "running"
        elapsed = max(updated - created, 1e-6)
        rate = processed / elapsed if processed else 0.0
        remaining = max(total - processed, 0)
        if state in ("done", "failed", "cancelled"):
            eta: float | None = 0.0
        else:
            eta = remaining / rate if rate > 0 else None
        status = JobStatus(
            id=job_id,
            kind=as_text(raw.get("kind")),
            state=state,
            total=total,
            done=done,
            failed=failed,
            rejected=rejected,
            rate=round(rate, 3),
            eta_seconds=None if eta is None else round(eta, 1),
            created_at=created,
            updated_at=updated,
            collection=as_text(raw.get("collection")),
            skipped=skipped,
            on_conflict=as_text(raw.get("on_conflict"), "ignore"),
        )
        if with_lists:
            status.errors = [json.loads(x) for x in replies[1]]
            status.conflicts = [json.loads(x) for x in replies[2]]
            status.memory_ids = [as_text(x) for x in replies[3]]
        return status

    def raw_field(self, job_id: str, name: str) -> str:
        return as_text(self.client.hget(self.keys(job_id).hash, name))

    def ids_starting(self, collection: str, prefix: str, limit: int = 5) -> list[str]:
        """Ids of the collection's live jobs that start with *prefix* (at most *limit*):
        one ``ZSCAN MATCH`` of the collection's job index, no job record loaded."""
        out: list[str] = []
        index = self.index_key(collection)
        for raw, _score in self.client.zscan_iter(index, match=prefix_pattern(prefix)):
            job_id = as_text(raw)
            if self.client.exists(self.keys(job_id, collection).hash):
                out.append(job_id)
                if len(out) >= limit:
                    break
        return out

    def list(self, collection: str, limit: int = 20) -> list[JobStatus]:
        """Newest jobs first; index entries of expired jobs are dropped on the way."""
        out: list[JobStatus] = []
        index = self.index_key(collection)
        offset = 0
        while len(out) < limit:
            ids = self.client.zrevrange(index, offset, offset + limit - 1)
            if not ids:
                break
            offset += len(ids)
            for raw in ids:
                job_id = as_text(raw)
                status = self.status(job_id, with_lists=False, collection=collection)
                if status is None:
                    self.client.zrem(index, job_id)
                    offset -= 1
                    continue
                out.append(status)
                if len(out) >= limit:
                    break
        return out


def workers_key(prefix: str) -> str:
    """ZSET of embedding workers → last heartbeat (unix seconds)."""
    return GlobalKeys(prefix).workers


HEARTBEAT_TTL = 30.0


def heartbeat(client: redis.Redis, prefix: str, name: str) -> None:
    client.zadd(workers_key(prefix), {name: time.time()})


def clear_heartbeat(client: redis.Redis, prefix: str, name: str) -> None:
    client.zrem(workers_key(prefix), name)


def workers_alive(client: redis.Redis, prefix: str) -> int:
    """How many embedding workers sent a heartbeat within :data:`HEARTBEAT_TTL`."""
    cutoff = time.time() - HEARTBEAT_TTL
    return int(client.zcount(workers_key(prefix), cutoff, "+inf"))


# ------------------------------------------------------------- in-flight tasks per worker
# A worker records each task it runs (name + arguments) while it runs it, under
# its own name. When a worker stops sending heartbeats (SIGKILL, OOM, power
# loss) for HEARTBEAT_TTL, any live worker claims that record and sends the
# tasks again: they are back in work within about HEARTBEAT_TTL + HEARTBEAT
# period instead of the broker's visibility timeout (an hour). Tasks are
# idempotent, so the late redelivery of the original message changes nothing.
def running_key(prefix: str, worker: str) -> str:
    """HASH task id → JSON ``{name, args, kwargs}`` of the tasks *worker* is running."""
    return GlobalKeys(prefix).running(worker)


def running_workers_key(prefix: str) -> str:
    """SET of workers that may hold in-flight task records."""
    return GlobalKeys(prefix).running_workers


def track_task(
    client: redis.Redis, prefix: str, worker: str, task_id: str, name: str, args: Any, kwargs: Any
) -> None:
    payload = json.dumps(
        {"name": name, "args": list(args or ()), "kwargs": dict(kwargs or {}), "at": time.time()}
    )
    pipe = client.pipeline(transaction=True)
    pipe.hset(running_key(prefix, worker), task_id, payload)
    pipe.sadd(running_workers_key(prefix), worker)
    pipe.execute()


def untrack_task(client: redis.Redis, prefix: str, worker: str, task_id: str) -> None:
    client.hdel(running_key(prefix, worker), task_id)


def lost_workers(client: redis.Redis, prefix: str, now: float | None = None) -> list[str]:
    """Workers with in-flight records whose heartbeat is older than HEARTBEAT_TTL (or gone)."""
    cutoff = (time.time() if now is None else now) - HEARTBEAT_TTL
    names = {as_text(n) for n in client.smembers(running_workers_key(prefix))}
    names |= {as_text(n) for n in client.zrangebyscore(workers_key(prefix), "-inf", f"({cutoff!r}")}
    if not names:
        return []
    ordered = sorted(names)
    scores = client.zmscore(workers_key(prefix), ordered)
    return [n for n, score in zip(ordered, scores, strict=True) if score is None or score < cutoff]


def live_task_ids(client: redis.Redis, prefix: str) -> set[str]:
    """Ids of every task some worker has recorded as in flight."""
    out: set[str] = set()
    for worker in client.smembers(running_workers_key(prefix)):
        out.update(as_text(k) for k in client.hkeys(running_key(prefix, as_text(worker))))
    return out


# KEYS: running hash, running-workers set, workers zset. ARGV: worker, cutoff.
# Claim a lost worker's records once: the first sweeper gets them, later ones none;
# a worker that beat again in the meantime is left alone.
_CLAIM_LUA = """
local score = redis.call('ZSCORE', KEYS[3], ARGV[1])
if score and tonumber(score) >= tonumber(ARGV[2]) then return {} end
local entries = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return entries
"""


def _records(raw: Sequence[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for task_id, payload in zip(raw[::2], raw[1::2], strict=True):
        try:
            record = json.loads(payload)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("name"), str):
            out.append({"id": as_text(task_id), **record})
    return out


def claim_lost_tasks(client: redis.Redis, prefix: str, worker: str) -> list[dict[str, Any]]:
    """Take a lost *worker*'s in-flight task records (each ``{id, name, args, kwargs}``)."""
    raw = client.eval(
        _CLAIM_LUA,
        3,
        running_key(prefix, worker),
        running_workers_key(prefix),
        workers_key(prefix),
        worker,
        repr(time.time() - HEARTBEAT_TTL),
    )
    return _records(raw)


def running_tasks(client: redis.Redis, prefix: str, worker: str) -> list[dict[str, Any]]:
    """*worker*'s own in-flight records (a record whose task no longer runs was left
    by a Redis outage: the task's end could not be written)."""
    flat: list[Any] = []
    for task_id, payload in client.hgetall(running_key(prefix, worker)).items():
        flat += [task_id, payload]
    return _records(flat)


def restore_claimed(client: redis.Redis, prefix: str, worker: str, tasks: Sequence[dict]) -> None:
    """Put back claimed records whose re-send failed (the next sweep retries them)."""
    if not tasks:
        return
    pipe = client.pipeline(transaction=True)
    for task in tasks:
        body = {k: task[k] for k in ("name", "args", "kwargs", "at") if k in task}
        pipe.hset(running_key(prefix, worker), task["id"], json.dumps(body))
    pipe.sadd(running_workers_key(prefix), worker)
    pipe.execute()
