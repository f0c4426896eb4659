"""The beat schedule: one frequent ``maintenance_tick`` trigger.

Beat does not know the individual jobs. It sends ``houkai.maintenance_tick``
every ``tick interval`` (the smallest of ``maintenance_tick_interval`` and every
enabled job's interval); the tick decides per job whether it is due from the
last *successful* run recorded in Redis (:mod:`houkai.maintenance`). So:

* a failed job does not advance its schedule: the next trigger retries it;
* two beat processes never double-run a job: redbeat's Redis lock lets only
  one of them send triggers, and even duplicated triggers are harmless because
  each tick re-checks due-ness under a per-collection lock;
* beat's own schedule state (last trigger) lives in Redis too (redbeat), so a
  restarted or moved beat process continues where the old one stopped.
"""

from __future__ import annotations

from typing import Any

from houkai.config import Settings, parse_duration

TICK_ENTRY = "houkai-maintenance-tick"


def tick_interval(settings: Settings) -> float:
    """Seconds between triggers: often enough for the most frequent enabled job."""
    from houkai.maintenance import JOB_NAMES, job_interval

    candidates = [parse_duration(settings.maintenance_tick_interval)]
    candidates += [i for i in (job_interval(settings, j) for j in JOB_NAMES) if i]
    return max(1.0, min(c for c in candidates if c > 0))


def beat_schedule(settings: Settings) -> dict[str, dict[str, Any]]:
    interval = tick_interval(settings)
    return {
        TICK_ENTRY: {
            "task": "houkai.maintenance_tick",
            "schedule": interval,
            "kwargs": {"prefix": settings.key_prefix},
            # A trigger nobody consumed within one interval is stale: drop it
            # rather than let a backlog of ticks pile up while workers are down.
            "options": {"queue": "maintenance", "expires": interval},
        }
    }
