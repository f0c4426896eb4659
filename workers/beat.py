"""The beat schedule: one frequent ``maintenance_tick`` trigger.

Beat does not know the individual jobs. It sends ``houkai.maintenance_tick``
every ``tick interval`` (the smallest of ``maintenance_tick_interval`` and every
enabled job's interval); the tick decides per job whether it is due from the
last *successful* run recorded in Redis (:mod:`houkai.pipeline.maintenance`). So:

* a failed job does not advance its schedule: the next trigger retries it;
* two beat processes never double-run a job: redbeat's Redis lock lets only
  one of them send triggers, and even duplicated triggers are harmless because
  each tick re-checks due-ness under a per-collection lock;
* beat's own schedule state (last trigger) lives in Redis too (redbeat), so a
  restarted or moved beat process continues where the old one stopped.
"""

from __future__ import annotations

import logging
from typing import Any

from houkai.domain.config import Settings, parse_duration
from houkai.pipeline.dispatch import MAINTENANCE_TICK, TASK_QUEUES

log = logging.getLogger(__name__)
SCHEDULER = "houkai.workers.beat:ResilientScheduler"

TICK_ENTRY = "houkai-maintenance-tick"


def tick_interval(settings: Settings) -> float:
    """Seconds between triggers: often enough for the most frequent enabled job."""
    from houkai.pipeline.maintenance import JOB_NAMES, job_interval

    candidates = [parse_duration(settings.maintenance_tick_interval)]
    candidates += [i for i in (job_interval(settings, j) for j in JOB_NAMES) if i]
    return max(1.0, min(c for c in candidates if c > 0))


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    interval = tick_interval(settings)
    return {
        TICK_ENTRY: {
            "task": MAINTENANCE_TICK,
            "schedule": interval,
            "kwargs": {"prefix": settings.key_prefix},
            # A trigger nobody consumed within one interval is stale: drop it
            # rather than let a backlog of ticks pile up while workers are down.
            "options": {"queue": TASK_QUEUES[MAINTENANCE_TICK], "expires": interval},
        }
    }


# ------------------------------------------------------------------ scheduler
def _scheduler_base() -> type:
    from redbeat import RedBeatScheduler

    return RedBeatScheduler


class ResilientScheduler(_scheduler_base()):  # type: ignore[misc]
    """redbeat's scheduler, made to outlive a Redis restart.

    redbeat lets a ``ConnectionError`` (or a lock that vanished with the data)
    escape ``tick``, which ends the beat process: maintenance then never runs
    again. Here a tick that cannot reach Redis logs one line, waits with
    exponential backoff (1 s doubling to 30 s) and tries again; when Redis is
    back the beat lock is re-taken (only if no other beat holds it) and the
    schedule resumes where redbeat's Redis state left it.
    """

    MAX_BACKOFF = 30.0
    _failures = 0
    lock: Any  # redbeat's beat lock (the base class is resolved at import time)
    lock_timeout: float

    def tick(self, *args: Any, **kwargs: Any) -> float:
        import redis
        from kombu.exceptions import OperationalError

        try:
            if self.lock_key and not self._hold_lock():
                return float(self.max_interval)  # another beat is active: stand by
            interval = super().tick(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError, OperationalError, OSError) as exc:
            self._failures += 1
            delay = min(self.MAX_BACKOFF, 2.0 ** (self._failures - 1))
            log.warning("beat: Redis unavailable (%s); retrying in %.0fs", exc, delay)
            return delay
        if self._failures:
            log.warning(
                "beat: Redis reachable again after %d failed ticks; resuming", self._failures
            )
            self._failures = 0
        return interval

    def _hold_lock(self) -> bool:
        """True when this beat holds (or just re-took) redbeat's lock."""
        from redbeat.schedulers import LUA_EXTEND_TO_SCRIPT, get_redis
        from redis.exceptions import LockError

        if self.lock is not None:
            try:
                self.lock.extend(int(self.lock_timeout))
                return True
            except LockError:
                log.warning("beat: lost the beat lock (Redis restarted or lock expired)")
                self.lock = None
        client = get_redis(self.app)
        lock = client.lock(self.lock_key, timeout=self.lock_timeout, sleep=self.max_interval)
        lock.lua_extend = client.register_script(LUA_EXTEND_TO_SCRIPT)
        if not lock.acquire(blocking=False):
            return False
        log.warning("beat: acquired the beat lock")
        self.lock = lock
        return True
