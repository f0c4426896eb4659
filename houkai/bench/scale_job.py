"""One maintenance job of ``houkai bench scale``, run in its own process.

``python -m houkai.bench.scale_job JOB COLLECTION WORKDIR`` runs *JOB* over the
whole collection the way the maintenance tick does, and writes its count to
``WORKDIR/job-JOB.json``; the parent measures wall time and peak RSS. Decay and
purge run as dry runs (the same scan, no deletions), so every step of the
benchmark measures the same collection.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

# The bench's memories span 730 days (houkai.bench.scale): the last 7.3 days hold about
# 1 % of them, what an incremental conflict scan sees after a day of heavy ingest.
NEW_SPAN = 7.3 * 86400


class _NoEncoder:
    """Stands in for the model: no maintenance job here encodes text, and loading torch
    would dominate both the job's time and its peak RSS (the bench reports the job's own)."""

    def __init__(self, name: str, dimension: int) -> None:
        self.name, self.dimension = name, dimension

    def encode(self, texts: list[str]) -> Any:
        raise RuntimeError("the scale bench's maintenance jobs do not encode")


def _stored_model(settings: Any, collection: str) -> _NoEncoder:
    from ..db.connection import connect
    from ..db.keys import Keys
    from ..db.schema import read_meta

    client = connect(settings.redis_url, settings.data_dir if not settings.redis_url else None)
    meta = read_meta(client, Keys(settings.key_prefix, collection))
    return _NoEncoder(meta.get("model", "unknown"), int(meta["dim"]))


def main(job: str, collection: str, workdir: str) -> dict[str, Any]:
    from ..domain.config import get_settings
    from ..pipeline.maintenance import RUNNERS
    from ..store import MemoryStore
    from .cpu import redis_cpu_seconds

    settings = get_settings()
    store = MemoryStore(
        collection=collection,
        settings=settings,
        actor="bench",
        embedder=_stored_model(settings, collection),
    )
    out: dict[str, Any] = {}
    now = time.time()
    redis_cpu0 = redis_cpu_seconds(store.client)
    t0 = time.perf_counter()
    if job == "open":  # baseline: the process and an open store, no job
        out["count"] = 0
    elif job == "stats":
        # Time the pass over the collection: a repeat run (``--job-runs``) would
        # otherwise read the aggregates the first run cached (0.8 s against 12 s at 100k).
        store.forget_aggregates()
        stats = store.stats()
        out["count"] = int(stats.get("total", 0) or 0)
    elif job in ("export", "export-base64"):  # the seed's format; version 2 (ADR 0053)
        path = Path(workdir) / "export.ahkai"
        summary = store.export(path, vector_format="base64" if job == "export-base64" else "json")
        out["count"] = int(getattr(summary, "count", 0) or 0)
        out["archive_mb"] = round(path.stat().st_size / 2**20, 1)
        path.unlink(missing_ok=True)
    elif job == "decay":
        from ..pipeline.maintenance import decay_engine

        engine = decay_engine(store, settings)
        out["count"] = len(engine.prune(dry_run=True, now=now))
        out["dry_run"] = True
    elif job == "purge":
        out["count"] = len(store.purge_expired(now=now, dry_run=True))
        out["dry_run"] = True
    elif job == "conflicts":
        out["count"] = sum(1 for _ in store.iter_conflicts())
    elif job == "conflicts-new":  # the incremental scan: memories of the last 1 % of the span
        since = now - NEW_SPAN
        out["count"] = sum(1 for _ in store.iter_conflicts(since=since))
        out["since_days"] = round(NEW_SPAN / 86400, 1)
    elif job in ("reconcile", "reflect"):
        out["count"] = int(RUNNERS[job](store, settings, now, False) or 0)
        if job == "reflect":
            out["dry_run"] = True
    else:
        raise SystemExit(f"unknown job {job!r}")
    out["job_seconds"] = round(time.perf_counter() - t0, 2)
    # CPU seconds of this process and of redis-server during the job: on a shared
    # machine they say what the job costs apart from waiting for a core.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["job_cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    out["redis_cpu_seconds"] = round(redis_cpu_seconds(store.client) - redis_cpu0, 2)
    # The 1-, 5- and 15-minute load averages at the job's end: on a shared machine the
    # wall time means little without them.
    out["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    hwm = _vm_hwm_mb()
    if hwm is not None:
        out["peak_rss_mb"] = hwm
        out["rss_source"] = "VmHWM"
    return out


def _vm_hwm_mb() -> float | None:
    """This process's own peak RSS. ``wait4``'s ``ru_maxrss`` cannot give it: Linux
    carries the parent's resident size across fork and exec into the child's figure,
    so a job spawned by a 400 MB benchmark never reports less than 400 MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


if __name__ == "__main__":
    job_name, coll, work = sys.argv[1:4]
    result = main(job_name, coll, work)
    Path(work, f"job-{job_name}.json").write_text(json.dumps(result))
