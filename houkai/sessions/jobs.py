"""Extraction runs as jobs: visible in ``jobs``, retried with backoff, dead-lettered.

Each ``houkai.extract_session`` task is a job of kind ``extract`` (its id the task's id)
in the collection's job list, beside ingest jobs: ``houkai jobs``, ``GET /jobs`` and the
dashboard's Jobs view show it with its session, its memories, its errors and its LLM
tokens and cost. A transient failure (a provider's 429/5xx, a timeout, our own rate
limit) is noted on the job and the task retried with backoff; a permanent one (or
retries spent) is a **dead letter**: the job is ``failed`` with the error, the session
leaves the due set so no sweep sends it again, and its messages stay pending, so nothing
is lost. ``job_retry`` (``houkai jobs retry ID``, ``POST /jobs/<id>/retry``) sends it again.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from ..db.decode import as_text
from ..pipeline.jobs import JobStore

log = logging.getLogger(__name__)

KIND = "extract"


def _jobs(store: Any) -> JobStore:
    return JobStore(store.client, store.keys.prefix, store.collection_name)


def begin(store: Any, job_id: str, session_id: str) -> None:
    """Record the run as a job of the collection (once: a retried task keeps its job)."""
    jobs = _jobs(store)
    if not job_id or jobs.exists(job_id):
        return
    jobs.create(store.collection_name, KIND, 1, "ignore", job_id)
    jobs.set_fields(job_id, session_id=session_id)


def finish(store: Any, job_id: str, report: dict[str, Any]) -> None:
    """The run committed: the job is done, with the memories it wrote or updated."""
    jobs = _jobs(store)
    if not job_id or not jobs.exists(job_id):
        return
    ids = [d["id"] for d in report.get("decisions", []) if d.get("action") in ("ADD", "UPDATE")]
    jobs.add_ids(job_id, ids)
    jobs.set_fields(job_id, done=1, failed=0, updated_at=repr(time.time()), total=1, dead_letter=0)
    jobs.expire_if_settled(job_id)


def _error(jobs: JobStore, job_id: str, entry: dict[str, Any]) -> None:
    key = jobs.keys(job_id).errors
    jobs.client.rpush(key, json.dumps(entry, ensure_ascii=False))
    jobs.client.ltrim(key, -100, -1)


def note_retry(store: Any, job_id: str, exc: BaseException, countdown: float) -> None:
    """A transient failure: say so on the job; the task runs again in *countdown* s."""
    jobs = _jobs(store)
    if job_id and jobs.exists(job_id):
        _error(jobs, job_id, {"error": str(exc)[:500], "retry_in": round(countdown, 1)})
        jobs.set_fields(job_id, updated_at=repr(time.time()))


def dead_letter(store: Any, job_id: str, session_id: str, exc: BaseException) -> None:
    """A permanent failure: the job fails with the error and the session stops being
    swept (its messages stay pending until a retry or a new message)."""
    jobs = _jobs(store)
    log.error("extraction of session %s dead-lettered (job %s): %s", session_id, job_id, exc)
    store.client.zrem(store.keys.sessions_due, session_id)
    store.client.delete(store.keys.session_queued(session_id))
    if job_id and jobs.exists(job_id):
        _error(jobs, job_id, {"error": str(exc)[:500], "dead_letter": True})
        jobs.set_fields(job_id, failed=1, done=0, dead_letter=1, updated_at=repr(time.time()))
        jobs.expire_if_settled(job_id)


def session_of(store: Any, job_id: str) -> str | None:
    """The session an extraction job ran for, or None for any other job."""
    jobs = _jobs(store)
    if jobs.raw_field(job_id, "kind") != KIND:
        return None
    return as_text(jobs.client.hget(jobs.keys(job_id).hash, "session_id")) or None


def retry(store: Any, job_id: str) -> bool:
    """Send a failed extraction job's session again (the same job id, reopened)."""
    from .trigger import send

    session_id = session_of(store, job_id)
    if session_id is None:
        return False
    jobs = _jobs(store)
    jobs.reopen(job_id)
    jobs.set_fields(job_id, failed=0, done=0, dead_letter=0)
    return send(store.client, store.settings, store.keys, session_id, task_id=job_id) is not None
