"""Scheduled maintenance: ``tick()`` runs each *due* job once (README "Scheduled maintenance").

Jobs: ``decay`` (prune), ``purge`` (expired memories), ``reconcile`` (re-enqueue
memories left pending by lost tasks), ``reflect`` (dry-run unless enabled) and
``archive`` (journal archival). Intervals and engine options come from
:class:`houkai.domain.config.Settings` (``maintenance_*``, file + env).

State lives in Redis per collection, so every caller — the beat-triggered
worker task, ``houkai maintenance tick`` from cron, the MCP/REST tool — shares
one schedule:

* ``tick`` holds a per-collection lease (:mod:`houkai.db.lease`: a lock that expires
  a minute after its holder dies) for the whole load → run → record cycle;
  a second ticker waits (``lock_wait``) or skips, then re-reads fresh state and
  sees the jobs as no longer due, so two tickers never double-run a job;
* the schedule gates the work: a job that ran (a reflection dry-run included)
  is stamped; a job that **failed is not stamped** and retries on the next tick;
* one job's failure never blocks the others; each run is recorded (start,
  duration, count, error) in a capped list.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..db.lease import Lease
from ..domain.config import Settings, format_duration, parse_duration

if TYPE_CHECKING:
    from ..store import MemoryStore

log = logging.getLogger(__name__)

JOB_NAMES: tuple[str, ...] = ("decay", "purge", "reconcile", "reflect", "archive", "findable")
RUNS_KEPT = 200
_COUNT_NAMES = {
    "decay": "decayed",
    "purge": "purged",
    "reconcile": "reconciled",
    "reflect": "reflected",
    "archive": "archived",
    "findable": "reinserted",
}


@dataclass
class TickResult:
    """What one tick did; ``to_dict()`` carries the seed's maintenance_tick keys."""

    collection: str = ""
    ran_decay: bool = False
    ran_reflect: bool = False
    ran_purge: bool = False
    ran_reconcile: bool = False
    ran_archive: bool = False
    ran_findable: bool = False
    decayed: int = 0
    reflected: int = 0
    purged: int = 0
    reconciled: int = 0
    archived: int = 0
    reinserted: int = 0  # memories the findability check wrote into the HNSW graph again
    access_flushed: int = 0  # memories whose pending access counts were folded in
    reflect_applied: bool = False
    decay_error: str | None = None
    reflect_error: str | None = None
    purge_error: str | None = None
    reconcile_error: str | None = None
    archive_error: str | None = None
    findable_error: str | None = None
    locked: bool = False  # another tick held the lock; nothing ran
    durations: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        if self.locked:
            return "skipped: another maintenance tick is running"
        parts: list[str] = []
        for job in JOB_NAMES:
            if not getattr(self, f"ran_{job}"):
                continue
            error = getattr(self, f"{job}_error")
            count = getattr(self, _COUNT_NAMES[job])
            if error:
                parts.append(f"{job} FAILED: {error}")
            elif job == "decay":
                parts.append(f"decay pruned {count}")
            elif job == "purge":
                parts.append(f"purge removed {count}")
            elif job == "reconcile":
                parts.append(f"reconcile re-enqueued {count}")
            elif job == "archive":
                parts.append(f"archive moved {count} journal entries")
            elif job == "findable":
                parts.append(f"findability check re-inserted {count}")
            elif self.reflect_applied:
                parts.append(f"reflect created {count}")
            else:
                parts.append(f"reflect would create {count} (dry-run)")
        return " | ".join(parts) if parts else "nothing to do"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"summary": self.summary()}
        for name in self.__dataclass_fields__:
            out[name] = getattr(self, name)
        out["durations"] = dict(self.durations)
        return out


# ---------------------------------------------------------------------- job runners
def decay_engine(store: MemoryStore, settings: Settings) -> Any:
    """The DecayEngine the maintenance settings describe (the tick and the scale bench)."""
    from ..store.decay import DecayEngine

    types = tuple(
        t.strip() for t in settings.maintenance_decay_protect_types.split(",") if t.strip()
    )
    return DecayEngine(
        store,
        decay_rate=settings.maintenance_decay_rate,
        min_score=settings.maintenance_decay_min_score,
        protect_types=types,
        frequency_weight=settings.maintenance_decay_frequency_weight,
    )


def _run_decay(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    engine = decay_engine(store, settings)
    with store.as_actor("decay"):
        return len(engine.prune(now=now))


def _run_purge(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    with store.as_actor("maintenance"):
        return len(store.purge_expired(now=now))


def _run_reconcile(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    from .write import Pipeline

    return Pipeline(store).reconcile()


def _run_reflect(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    from ..engines.summarizers import build_summarizer
    from ..store.reflection import ReflectionEngine

    engine = ReflectionEngine(
        store,
        similarity_threshold=settings.maintenance_reflect_similarity_threshold,
        min_cluster_size=settings.maintenance_reflect_min_cluster_size,
        summarizer=build_summarizer(settings.maintenance_reflect_summarizer),
    )
    with store.as_actor("reflection"):
        return len(engine.reflect(dry_run=not apply))


def _run_archive(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    return int(store.archive_journal() or 0)


def _run_findable(store: MemoryStore, settings: Settings, now: float, apply: bool) -> int:
    from ..store.findability import check

    with store.as_actor("maintenance"):
        report = check(
            store,
            sample=settings.maintenance_findable_sample,
            threshold=settings.maintenance_findable_threshold,
        )
    return report.repaired + report.unrepaired


Runner = Callable[["MemoryStore", Settings, float, bool], int]
RUNNERS: dict[str, Runner] = {
    "decay": _run_decay,
    "purge": _run_purge,
    "reconcile": _run_reconcile,
    "reflect": _run_reflect,
    "archive": _run_archive,
    "findable": _run_findable,
}


def job_interval(settings: Settings, job: str) -> float | None:
    """Seconds between runs of *job*, or None when it is disabled."""
    enabled = {
        "decay": settings.maintenance_decay_enabled,
        "purge": settings.maintenance_purge_enabled,
        "reflect": settings.maintenance_reflect_enabled,
        "findable": settings.maintenance_findable_enabled,
    }.get(job, True)
    if not enabled:
        return None
    every = parse_duration(getattr(settings, f"maintenance_{job}_every"))
    return every if every > 0 else None


# ---------------------------------------------------------------------- state
SEED_STATE_FIELDS: tuple[str, ...] = (
    "last_decay_at",
    "last_reflect_at",
    "last_purge_at",
    "total_decayed",
    "total_reflected",
    "total_purged",
)


class _ClassOrInstance:
    """``load``: the seed's ``MaintenanceState.load(path)`` on the class, Redis on an instance."""

    def __init__(self, on_class: Callable, on_instance: Callable) -> None:
        self.on_class, self.on_instance = on_class, on_instance

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            return self.on_class.__get__(owner, owner)
        return self.on_instance.__get__(obj, owner)


class MaintenanceState:
    """Per-collection schedule state, run history and lock in Redis.

    ``MaintenanceState(store)`` is houkai's Redis state. Without a store it is
    the seed's state-file record (``last_decay_at`` … ``total_purged``), read
    with ``MaintenanceState.load(path)`` and written with ``save(path)``;
    :class:`MaintenanceScheduler` keeps such a file in step when given a
    ``state_path``.
    """

    def __init__(
        self,
        store: MemoryStore | None = None,
        *,
        last_decay_at: float | None = None,
        last_reflect_at: float | None = None,
        last_purge_at: float | None = None,
        total_decayed: int = 0,
        total_reflected: int = 0,
        total_purged: int = 0,
    ) -> None:
        self.last_decay_at, self.last_reflect_at = last_decay_at, last_reflect_at
        self.last_purge_at = last_purge_at
        self.total_decayed, self.total_reflected = total_decayed, total_reflected
        self.total_purged = total_purged
        if store is None:
            return
        self.client = store.client
        base = store.keys.maintenance
        self.key = base
        self.runs_key = base + ":runs"
        self.lock_key = base + ":lock"
        self.lease = Lease(self.client, self.lock_key)

    def _load_redis(self) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.client.hgetall(self.key).items()}

    def _load_file(cls: type[MaintenanceState], path: str | Path) -> MaintenanceState:  # type: ignore[misc]
        """The seed's state file; a missing, empty or corrupt one gives fresh state."""
        p = Path(path).expanduser()
        try:
            data = json.loads(p.read_text()) if p.exists() else {}
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        return cls(**{k: v for k, v in data.items() if k in SEED_STATE_FIELDS})

    load = _ClassOrInstance(_load_file, _load_redis)

    def save(self, path: str | Path) -> None:
        """Write the seed's state file atomically (temp file, then rename)."""
        p = Path(path).expanduser()
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f"{p.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({k: getattr(self, k) for k in SEED_STATE_FIELDS}, indent=2))
        os.replace(tmp, p)

    def next_run_at(
        self, last_at: float | None, interval: float, now: float | None = None
    ) -> float:
        """When a job last run at *last_at* is due again (never ran: already due)."""
        if last_at is None:
            return (time.time() if now is None else now) - 1
        return last_at + interval

    def acquire(self, wait: float = 0.0) -> str | None:
        return self.lease.acquire(wait)

    def release(self, token: str) -> None:
        self.lease.release(token)

    def record(
        self,
        job: str,
        *,
        started: float,
        stamp: float,
        duration: float,
        count: int,
        error: str | None,
    ) -> None:
        fields: dict[str, Any] = {
            f"{job}:last_run": repr(started),
            f"{job}:last_duration": repr(duration),
            f"{job}:last_count": count,
            f"{job}:last_error": error or "",
        }
        if error is None:
            fields[f"{job}:last_success"] = repr(stamp)
        run = {
            "job": job,
            "started_at": started,
            "duration": round(duration, 4),
            "count": count,
            "error": error,
            "ok": error is None,
        }
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(self.key, mapping=fields)
        if error is None:
            pipe.hincrby(self.key, f"{job}:total", count)
        pipe.lpush(self.runs_key, json.dumps(run))
        pipe.ltrim(self.runs_key, 0, RUNS_KEPT - 1)
        pipe.execute()

    def runs(self, limit: int = 50) -> list[dict[str, Any]]:
        """Most recent runs first."""
        return [json.loads(x) for x in self.client.lrange(self.runs_key, 0, limit - 1)]


# ---------------------------------------------------------------------- tick
def tick(
    store: MemoryStore,
    settings: Settings | None = None,
    *,
    force: bool = False,
    reflect_apply: bool | None = None,
    now: float | None = None,
    lock_wait: float = 0.0,
    runners: dict[str, Runner] | None = None,
) -> TickResult:
    """Run every due (or, with *force*, every enabled) job once; see the module docstring.

    *runners* replaces some jobs' runner functions (:class:`MaintenanceScheduler`
    uses it for its own reflection engine options).
    """
    jobs = {**RUNNERS, **(runners or {})}
    settings = settings or store.settings
    apply = settings.maintenance_reflect_apply if reflect_apply is None else bool(reflect_apply)
    result = TickResult(collection=store.collection_name, reflect_applied=apply)
    state = MaintenanceState(store)
    with state.lease.holding(lock_wait) as token:
        if token is None:
            result.locked = True
            return result
        t = time.time() if now is None else now
        try:
            result.access_flushed = store.flush_access()
        except Exception as exc:  # never blocks the jobs below
            log.warning("access flush failed for %s: %s", store.collection_name, exc)
        current = state.load()
        for job in JOB_NAMES:
            interval = job_interval(settings, job)
            if interval is None:
                continue
            last = current.get(f"{job}:last_success")
            if not force and last and t < float(last) + interval:
                continue
            setattr(result, f"ran_{job}", True)
            started = time.time()
            error: str | None = None
            count = 0
            try:
                count = int(jobs[job](store, settings, t, apply) or 0)
            except Exception as exc:  # one job's failure never blocks others
                error = f"{type(exc).__name__}: {exc}"
                log.exception("maintenance %s failed for %s", job, store.collection_name)
            duration = time.time() - started
            result.durations[job] = round(duration, 4)
            setattr(result, _COUNT_NAMES[job], count)
            setattr(result, f"{job}_error", error)
            state.record(job, started=started, stamp=t, duration=duration, count=count, error=error)
    if any(getattr(result, f"ran_{j}") for j in JOB_NAMES):
        log.info("maintenance %s: %s", store.collection_name, result.summary())
    return result


def collections(settings: Settings, client: Any = None) -> list[str]:
    """Every collection registered under the settings' key prefix."""
    from ..db.connection import connect
    from ..db.keys import Keys

    client = client or connect(
        settings.redis_url, settings.data_dir if not settings.redis_url else None
    )
    return sorted(x.decode() for x in client.smembers(Keys.registry(settings.key_prefix)))


def tick_all(
    settings: Settings, *, force: bool = False, reflect_apply: bool | None = None
) -> dict[str, dict[str, Any]]:
    """Tick every collection under the prefix; one collection's error never stops the rest."""
    from ..store import MemoryStore

    out: dict[str, dict[str, Any]] = {}
    for name in collections(settings):
        try:
            store = MemoryStore(collection=name, settings=settings, actor="maintenance")
            out[name] = tick(store, settings, force=force, reflect_apply=reflect_apply).to_dict()
        except Exception as exc:
            log.exception("maintenance tick failed for collection %s", name)
            out[name] = {"summary": f"FAILED: {type(exc).__name__}: {exc}", "error": str(exc)}
    return out


def status(
    store: MemoryStore, settings: Settings | None = None, now: float | None = None
) -> dict[str, Any]:
    """Per job: enabled, interval, last run/success/error/count/duration, next due."""
    settings = settings or store.settings
    state = MaintenanceState(store)
    current = state.load()
    t = time.time() if now is None else now
    jobs: dict[str, Any] = {}
    for job in JOB_NAMES:
        interval = job_interval(settings, job)
        last_success = float(current.get(f"{job}:last_success") or 0) or None
        next_due = None
        if interval is not None:
            next_due = t if last_success is None else max(last_success + interval, t)
        jobs[job] = {
            "enabled": interval is not None,
            "every": format_duration(interval) if interval else None,
            "last_run": float(current.get(f"{job}:last_run") or 0) or None,
            "last_success": last_success,
            "last_error": current.get(f"{job}:last_error") or None,
            "last_count": int(current.get(f"{job}:last_count") or 0),
            "last_duration": float(current.get(f"{job}:last_duration") or 0),
            "total": int(current.get(f"{job}:total") or 0),
            "next_due": next_due,
        }
    return {
        "collection": store.collection_name,
        "jobs": jobs,
        "reflect_apply": settings.maintenance_reflect_apply,
        "locked": bool(store.client.exists(state.lock_key)),
        "runs": state.runs(20),
    }
