"""The durable write path: accept → pending in Redis → embed (worker or inline) → ready.

``Pipeline.submit`` validates every item first (all-or-nothing), then writes the
memories in state ``pending`` (fetchable by id and found by keyword search at
once), records a job in Redis and enqueues one Celery embed task per batch; the
worker encodes the batch and flips each memory to ``ready`` atomically (see
:mod:`houkai.pipeline.jobs`). With ``pipeline_mode="inline"`` — or ``"auto"`` while no
worker heartbeat is fresh — the calling process embeds each batch right after
writing it instead. Either way :func:`~houkai.pipeline.batch.process_batch` does the work.

Failures are never silent: an item the embedder rejects becomes ``failed`` with
the error (the rest of its batch lands), counted on the job and retryable with
:meth:`Pipeline.retry_failed`. :meth:`Pipeline.reconcile` re-enqueues memories
left ``pending`` by a lost task.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import redis

from ..compat import EMBED_TASK as EMBED_TASK  # houkai 0.1's name
from ..db.decode import as_text
from ..db.filters import filter_expr
from ..domain.config import parse_duration
from ..domain.errors import NotFound, Unavailable
from ..domain.model import (
    CONFLICT_POLICIES,
    FOLLOWS,
    MEMORY_TYPES,
    Link,
    ValidationError,
    validate_choice,
)
from ..store.codec import F
from ..store.core import coerce_remember_item
from ..store.memories import date_after
from ..store.search import batched, iter_keys
from . import outbox
from .batch import MAX_ERROR_CHARS as MAX_ERROR_CHARS
from .batch import TransientEmbedError as TransientEmbedError
from .batch import process_batch
from .dispatch import EMBED_BATCH, Enqueue, app_enqueue, default_enqueue
from .documents import (
    Spool,
    chunk_sizes,
    defaults_of,
    documents_items,
    expand_path,
    files_items,
    thread_of,
)
from .jobs import Job, JobStatus, JobStore, inflight_entry, parse_inflight, workers_alive

if TYPE_CHECKING:
    from ..store import MemoryStore

log = logging.getLogger(__name__)

PIPELINE_MODES: tuple[str, ...] = ("auto", "celery", "inline")
#: How long a submission that failed part-way can be resumed by sending it again.
SUBMIT_ATTEMPT_TTL = 86_400


class PartlyWritten(Unavailable):
    """Redis failed after some batches of a submission were stored: the answer names
    them (the job and how many), and the same request sent again stores the rest."""

    def __init__(self, job_id: str, kept: int, total: int, cause: BaseException) -> None:
        super().__init__(
            f"Redis unavailable after {kept} of {total} item(s) were stored as pending in job "
            f"{job_id} (they will be embedded); send the same request again to store the "
            f"other {total - kept} without duplicates ({cause})"
        )
        self.job_id, self.kept, self.total = job_id, kept, total


__all__ = ["PIPELINE_MODES", "Job", "JobStatus", "Pipeline", "process_batch"]


class Pipeline:
    """Durable, queued writes and bulk ingestion for one collection."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        mode: str | None = None,
        enqueue: Enqueue | None = None,
        app: Any = None,
    ) -> None:
        """*enqueue* sends a task by name (see :mod:`houkai.pipeline.dispatch`);
        *app* (anything with Celery's ``send_task``) is the older way to say the
        same. Neither: the worker app configured for the store's settings."""
        self.store = store
        self.settings = store.settings
        self.client = store.client
        self.prefix = store.keys.prefix
        self.collection = store.collection_name
        self.mode = mode or self.settings.pipeline_mode
        validate_choice(self.mode, PIPELINE_MODES, "pipeline_mode")
        self.jobs_store = JobStore(self.client, self.prefix, self.collection)
        if enqueue is None and app is not None:
            enqueue = app_enqueue(app)
        self._enqueue_fn = enqueue

    # ------------------------------------------------------------------ plumbing
    @property
    def enqueue(self) -> Enqueue:
        """The task sender (built on first use: a front door that embeds inline never
        loads Celery)."""
        if self._enqueue_fn is None:
            self._enqueue_fn = default_enqueue(self.settings)
        return self._enqueue_fn

    def use_workers(self) -> bool:
        """Whether new batches go to Celery (else they are embedded in this process)."""
        if self.mode == "inline":
            return False
        if self.mode == "celery":
            return True
        return workers_alive(self.client, self.prefix) > 0

    def _enqueue(
        self, job_id: str, ids: Sequence[str], positions: Sequence[int], on_conflict: str
    ) -> bool:
        """Send one embed task; False when the broker refused (caller embeds inline).

        The task is written to the outbox first, so a message lost on its way to a
        worker is found and sent again (see :mod:`houkai.pipeline.outbox`)."""
        kwargs = {
            "prefix": self.prefix,
            "collection": self.collection,
            "job_id": job_id,
            "ids": list(ids),
            "positions": [int(p) for p in positions],
            "on_conflict": on_conflict,
        }
        task_id = str(uuid.uuid4())
        try:
            outbox.record(self.client, self.prefix, task_id, EMBED_BATCH, kwargs)
            self.enqueue(EMBED_BATCH, kwargs, task_id)
            return True
        except Exception as exc:  # the memories are durable; never lose them
            log.warning(
                "could not enqueue embed task for job %s (%s); embedding inline", job_id, exc
            )
            try:
                outbox.settle(self.client, self.prefix, task_id)
            except Exception:  # Redis is down: the entry's re-send is harmless
                log.debug("could not clear outbox entry %s", task_id)
            return False

    def _dispatch(
        self,
        job_id: str,
        ids: Sequence[str],
        positions: Sequence[int],
        on_conflict: str,
        queued: bool,
    ) -> None:
        if queued and self._enqueue(job_id, ids, positions, on_conflict):
            return
        process_batch(self.store, job_id, ids, positions, on_conflict, jobs=self.jobs_store)

    def _batch_size(self, batch_size: int | None) -> int:
        size = self.settings.ingest_batch_size if batch_size is None else batch_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValidationError(f"batch_size must be an integer >= 1 — got {batch_size!r}")
        return size

    # ------------------------------------------------------------------ submit
    def submit(
        self,
        items: Sequence[str | Mapping[str, Any]],
        *,
        on_conflict: str | None = None,
        batch_size: int | None = None,
    ) -> Job:
        """Accept *items* durably as one job (see the module docstring)."""
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise ValidationError("items must be a list of strings or mappings")
        return self._submit(
            lambda: iter(items), kind="remember", on_conflict=on_conflict, batch_size=batch_size
        )

    def _submit(
        self,
        make_items: Callable[[], Iterator[Any]],
        *,
        kind: str,
        on_conflict: str | None,
        batch_size: int | None,
    ) -> Job:
        policy = on_conflict or self.store.conflict_policy
        validate_choice(policy, CONFLICT_POLICIES, "on_conflict")
        size = self._batch_size(batch_size)
        total = 0
        digest = hashlib.sha256(f"{kind}\0{policy}\0{size}\0".encode())
        for position, item in enumerate(make_items()):  # pass 1: validate everything
            item, _thread = thread_of(item)
            try:
                fields = coerce_remember_item(item)
                self.store.build_memory(**fields)
            except ValueError as exc:
                raise ValidationError(f"item {position}: {exc}") from None
            digest.update(json.dumps(fields, sort_keys=True, default=str).encode() + b"\n")
            total += 1
        if policy == "raise" and total != 1:
            raise ValidationError(
                "on_conflict='raise' is only supported for a single item — bulk rollback is "
                "ill-defined; submit items one by one"
            )
        # A submission that fails part-way stays findable by its content for a day: the
        # same request sent again resumes that job instead of writing its items twice.
        attempt = self.store.keys.submit(digest.hexdigest())
        job_id = as_text(self.client.get(attempt) or b"") or None
        retry = job_id is not None
        ids: list[str] = []
        if job_id and self.jobs_store.exists(job_id):
            # A client's retry of a refused request: resume after the items already
            # written; their own batches were dispatched then (reconcile re-queues one
            # whose send failed).
            ids = [i for _start, chunk in self.jobs_store.iter_ids(job_id) for i in chunk]
        else:
            job_id = self.jobs_store.create(self.collection, kind, total, policy)
        self.client.set(attempt, job_id, ex=SUBMIT_ATTEMPT_TTL)
        done_before = len(ids)
        # A client's retry answers with every id of the request; a re-run task with its own.
        written = ids if retry else []
        try:
            self._write_items(make_items, job_id, kind, policy, size, done_before, written)
            self.client.delete(attempt)
        except (redis.RedisError, OSError) as exc:
            kept = len(written) if retry else done_before + len(written)
            if not kept:
                raise
            raise PartlyWritten(job_id, kept, total, exc) from exc
        if total == 0:
            self.jobs_store.expire_if_settled(job_id)
        return Job(id=job_id, memory_ids=written, total=total)

    def _write_items(
        self,
        make_items: Callable[[], Iterator[Any]],
        job_id: str,
        kind: str,
        policy: str,
        size: int,
        done_before: int,
        ids: list[str],
    ) -> None:
        """Pass 2: write the items from *done_before* on as pending batches, each one
        atomic and appended to *ids* as soon as it is stored, and dispatch each."""
        queued = self.use_workers()
        # Chunked documents are journaled as the seed's ingest actor ("import"
        # is the .ahkai importer's); plain item batches keep the caller's actor.
        actor = "ingest" if kind == "ingest" else None
        chunk: list[Any] = []
        start = done_before
        previous: tuple[Any, Any] = (None, None)  # (memory, thread)
        for position, item in enumerate(make_items()):  # pass 2: write pending, enqueue
            item, thread = thread_of(item)
            if position < done_before:
                continue
            memory = self.store.build_memory(**coerce_remember_item(item))
            if previous[0] is not None:  # the job's order is its history (ADR 0093)
                date_after(memory, previous[0].created_at)
            if thread is not None and previous[0] is not None and previous[1] == thread:
                # A document's chunks in order: recall's context stage reads these.
                memory.links.append(Link(to=previous[0].id, rel=FOLLOWS))
            previous = (memory, thread)
            chunk.append(memory)
            if len(chunk) >= size:
                self._write_chunk(job_id, start, chunk, policy, queued, actor, ids)
                start += len(chunk)
                chunk = []
        if chunk:
            self._write_chunk(job_id, start, chunk, policy, queued, actor, ids)

    def _write_chunk(
        self,
        job_id: str,
        start: int,
        memories: list,
        policy: str,
        queued: bool,
        actor: str | None,
        written: list[str],
    ) -> None:
        """Write one batch as pending (with its job position), journal it, add its ids to
        *written* (it is stored: a later failure must say so), then dispatch it."""
        store = self.store
        # One MULTI/EXEC per batch: the memories, their inflight entries and the
        # job's id list land together, so a resumed job knows where to continue.
        pipe = store.client.pipeline(transaction=True)
        store.write(memories, None, pipe)  # the store's own write path (BM25 stats)
        store.reindex_links(memories, pipe)  # ingest's ``follows`` links
        pipe.hset(
            store.keys.inflight,
            mapping={m.id: inflight_entry(job_id, start + i) for i, m in enumerate(memories)},
        )
        for memory in memories:  # the store's journal path: its archive check applies
            store.journal_append(
                "remember",
                memory.id,
                after=memory.to_dict(),
                meta={"job": job_id},
                actor=actor,
                pipe=pipe,
            )
        ids = [m.id for m in memories]
        self.jobs_store.add_ids(job_id, ids, pipe)
        pipe.execute()
        written.extend(ids)
        store.count_call("remember", len(memories))
        positions = list(range(start, start + len(memories)))
        self._dispatch(job_id, ids, positions, policy, queued)

    # ------------------------------------------------------------------ ingest
    def ingest_documents(
        self,
        documents: list[dict],
        *,
        max_chars: int | None = None,
        min_chars: int | None = None,
        on_conflict: str | None = None,
        batch_size: int | None = None,
        chunking: str | None = None,
        auto_importance: bool = False,
    ) -> Job:
        """Chunk each ``{"text", "source"?, "tags"?, "type"?}`` document into memories.

        ``chunking``: ``paragraph`` (default, the seed's) or ``pack``;
        ``auto_importance`` scores each chunk without an explicit importance.
        """
        if isinstance(documents, str | bytes) or not isinstance(documents, Sequence):
            raise ValidationError(
                "documents must be a list of {text, source?, tags?, type?} objects"
            )
        sizes = chunk_sizes(max_chars, min_chars, chunking, auto_importance)
        return self.ingest_items(
            lambda: documents_items(documents, sizes),
            on_conflict=on_conflict,
            batch_size=batch_size,
        )

    def ingest_path(
        self,
        path: str,
        *,
        glob: str | None = None,
        max_chars: int | None = None,
        min_chars: int | None = None,
        type: str | None = None,
        tags: list[str] | None = None,
        on_conflict: str | None = None,
        batch_size: int | None = None,
        chunking: str | None = None,
        source: str | None = None,
        importance: float | None = None,
        auto_importance: bool = False,
    ) -> Job:
        """Ingest a file, a folder or a glob: ``.md``/``.txt`` are chunked (see
        :func:`~houkai.pipeline.chunking.chunk_text`; ``chunking`` picks the mode), ``.jsonl`` is
        one memory item (or ``{"text", ...}`` document) per line. A chunk's source is
        *source*, else ``ingest:<file name>`` as in the seed. Each file is read and chunked
        once (:class:`~houkai.pipeline.documents.Spool`), in bounded memory."""
        sizes = chunk_sizes(max_chars, min_chars, chunking, auto_importance)
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
        files = expand_path(path, glob)
        extra = defaults_of(type, tags, importance)
        return self.ingest_items(
            lambda: files_items(files, extra, sizes, source),
            on_conflict=on_conflict,
            batch_size=batch_size,
        )

    def ingest_items(
        self,
        make_items: Callable[[], Iterator[dict]],
        *,
        on_conflict: str | None = None,
        batch_size: int | None = None,
    ) -> Job:
        """Ingest chunked items (:mod:`houkai.pipeline.documents` makes them) as one job:
        *make_items* is called once, its items spooled, so any source (a file, a stream)
        is read and chunked once whatever its size."""
        with Spool(make_items) as spool:
            return self._submit(
                spool, kind="ingest", on_conflict=on_conflict, batch_size=batch_size
            )

    # ------------------------------------------------------------------ jobs
    def job(self, job_id: str) -> JobStatus | None:
        """The job's progress, or ``None`` if unknown here: a job of another collection
        does not exist for this one (every door reads jobs through this)."""
        return self.jobs_store.status(job_id, collection=self.collection)

    def jobs(self, limit: int = 20) -> list[JobStatus]:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValidationError(f"limit must be an integer >= 1 — got {limit!r}")
        return self.jobs_store.list(self.collection, limit)

    def _require(self, job_id: str) -> JobStatus:
        status = self.jobs_store.status(job_id, with_lists=False, collection=self.collection)
        if status is None:
            raise NotFound(f"no job with id {job_id!r}")
        return status

    def wait(self, job: Job | str, timeout: float | None = None) -> JobStatus:
        """Block until every memory of the job is settled; ``TimeoutError`` names the rest."""
        job_id = job.id if isinstance(job, Job) else job
        if timeout is not None and (isinstance(timeout, bool) or timeout < 0):
            raise ValidationError(f"timeout must be >= 0 seconds — got {timeout!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = 0.01
        while True:
            status = self._require(job_id)
            if status.settled:
                return self.jobs_store.status(job_id, collection=self.collection) or status
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                waiting = self.pending_ids(job_id, limit=5)
                raise TimeoutError(
                    f"job {job_id}: {status.total - status.processed} of {status.total} "
                    f"memories still pending after {timeout:g}s (e.g. {', '.join(waiting)}); "
                    "is a worker running? (`houkai worker`)"
                )
            pause = delay if deadline is None else min(delay, max(deadline - now, 0.001))
            time.sleep(pause)
            delay = min(delay * 1.5, 0.25)

    def pending_ids(self, job_id: str, limit: int = 10) -> list[str]:
        """Ids of the job's memories still pending (first *limit*)."""
        out: list[str] = []
        for _start, ids in self.jobs_store.iter_ids(job_id):
            states = self.store.fields_of(ids, F.STATE)
            for memory_id, (state,) in zip(ids, states, strict=True):
                if state == "pending":
                    out.append(memory_id)
                    if len(out) >= limit:
                        return out
        return out

    def cancel(self, job_id: str) -> bool:
        """Stop a job: its still-pending memories become ``failed`` ("cancelled"), retryable.

        Returns False when the job was already settled.
        """
        status = self._require(job_id)
        if status.settled:
            return False
        self.jobs_store.set_fields(job_id, cancelled=1)
        for start, ids in self.jobs_store.iter_ids(job_id):
            rows = self.store.fields_of(ids, F.STATE, F.CHASH)
            pipe = self.client.pipeline(transaction=False)
            for offset, (memory_id, (state, chash)) in enumerate(zip(ids, rows, strict=True)):
                if as_text(state) == "pending":
                    pos = start + offset
                    entry = {"position": pos, "id": memory_id, "error": "cancelled"}
                    self.jobs_store.settle(
                        pipe,
                        self.store.keys,
                        memory_id,
                        job_id,
                        pos,
                        "failed",
                        as_text(chash),
                        "cancelled",
                        entry,
                    )
            pipe.execute()
        self.jobs_store.expire_if_settled(job_id)
        return True

    def retry_failed(self, job_id: str | None = None) -> int:
        """Re-queue failed memories (of one job, or of the whole collection); returns how many."""
        if job_id is not None:
            self._require(job_id)
            self.jobs_store.reopen(job_id)
            failed: list[tuple[str, int]] = []
            for start, ids in self.jobs_store.iter_ids(job_id):
                states = self.store.fields_of(ids, F.STATE)
                for offset, (memory_id, (state,)) in enumerate(zip(ids, states, strict=True)):
                    if state == "failed":
                        failed.append((memory_id, start + offset))
            self.jobs_store.clear_errors(job_id)
            groups = {job_id: failed} if failed else {}
        else:
            groups = self._group_by_job(
                filter_expr(state="failed", include_superseded=True, include_expired=True)
            )
        return self._requeue(groups, reset=True, kind="retry")

    def reconcile(self, older_than: float | str | None = None) -> int:
        """Re-enqueue memories pending longer than *older_than* whose job made no progress
        for that long (lost tasks, broker flush). Returns how many were re-enqueued."""
        age = parse_duration(self.settings.reconcile_after if older_than is None else older_than)
        cutoff = time.time() - age
        self.sweep_inflight()
        query = (
            filter_expr(state="pending", include_superseded=True, include_expired=True)
            + f" @created_at:[-inf {cutoff!r}]"
        )
        groups = self._group_by_job(query)
        stuck: dict[str, list[tuple[str, int]]] = {}
        for job_id, members in groups.items():
            if job_id and self.jobs_store.exists(job_id):
                status = self.jobs_store.status(job_id, with_lists=False)
                requeued = float(self.jobs_store.raw_field(job_id, "requeued_at") or 0)
                if status is None or status.state == "cancelled":
                    continue
                if max(status.updated_at, requeued) > cutoff and age > 0:
                    continue  # still making progress: its tasks are queued, not lost
                self.jobs_store.set_fields(job_id, requeued_at=repr(time.time()))
            stuck[job_id] = members
        return self._requeue(stuck, reset=False, kind="reconcile")

    def _group_by_job(self, query: str) -> dict[str, list[tuple[str, int]]]:
        """The memories matching *query*, grouped by the job (and position) they belong
        to; memories without an inflight entry come back under ``""`` (orphans)."""
        groups: dict[str, list[tuple[str, int]]] = {}
        start = len(self.store.keys.memory_prefix)
        for keys in iter_keys(self.client, self.store.keys.index, query, batch_size=1000):
            ids = [as_text(key)[start:] for key in keys]
            entries = self.client.hmget(self.store.keys.inflight, ids)
            for memory_id, raw in zip(ids, entries, strict=True):
                job_id, pos = parse_inflight(raw)
                groups.setdefault(job_id, []).append((memory_id, pos))
        return groups

    def sweep_inflight(self) -> int:
        """Drop inflight entries of memories that were settled or deleted by a path that
        bypassed the pipeline (e.g. forgotten while pending); returns how many."""
        key = self.store.keys.inflight
        stale: list[str] = []
        fields = (as_text(field) for field, _value in self.client.hscan_iter(key, count=1000))
        for ids in batched(fields, 1000):
            states = self.store.fields_of(list(ids), F.STATE)
            for memory_id, (state,) in zip(ids, states, strict=True):
                if state not in ("pending", "failed"):
                    stale.append(memory_id)
        for chunk in batched(stale, 1000):
            self.client.hdel(key, *chunk)
        return len(stale)

    def _requeue(self, groups: dict[str, list[tuple[str, int]]], *, reset: bool, kind: str) -> int:
        """Dispatch each job's members again; orphans (job gone) are adopted by a new job."""
        orphans: list[tuple[str, int]] = []
        count = 0
        queued = self.use_workers()
        size = self.settings.ingest_batch_size
        for job_id, members in groups.items():
            if not job_id or not self.jobs_store.exists(job_id):
                orphans.extend(members)
                continue
            count += self._redispatch(job_id, members, reset, queued, size)
        if orphans:
            job_id = self.jobs_store.create(self.collection, kind, len(orphans), "ignore")
            pipe = self.client.pipeline(transaction=False)
            adopted = []
            for pos, (memory_id, _old) in enumerate(orphans):
                self.jobs_store.adopt(pipe, self.store.keys, memory_id, job_id, pos)
                adopted.append((memory_id, pos))
            self.jobs_store.add_ids(job_id, [m for m, _ in orphans], pipe)
            pipe.execute()
            count += self._redispatch(job_id, adopted, reset, queued, size)
        return count

    def _redispatch(
        self, job_id: str, members: list[tuple[str, int]], reset: bool, queued: bool, size: int
    ) -> int:
        policy = self.jobs_store.raw_field(job_id, "on_conflict") or "ignore"
        if reset:
            pipe = self.client.pipeline(transaction=False)
            for memory_id, pos in members:
                self.jobs_store.reset(pipe, self.store.keys, memory_id, job_id, pos)
            results = pipe.execute()
            members = [m for m, ok in zip(members, results, strict=True) if int(ok)]
            self.jobs_store.reopen(job_id)
        for start in range(0, len(members), size):
            chunk = members[start : start + size]
            self._dispatch(job_id, [m for m, _ in chunk], [p for _, p in chunk], policy, queued)
        return len(members)


# ---------------------------------------------------------------------- helpers
