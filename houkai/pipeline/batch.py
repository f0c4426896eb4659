"""The embed step of the write pipeline: one batch of pending memories encoded and each
settled ``ready``/``failed``/rejected atomically. A worker task and the inline path both
run :func:`process_batch`, so their semantics cannot drift."""

from __future__ import annotations

import logging
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..db.decode import as_text
from ..recall.statements import says_update
from ..store.codec import F
from ..store.updates import link_updates
from .jobs import JobStore

if TYPE_CHECKING:
    from ..store import MemoryStore

log = logging.getLogger(__name__)

MAX_ERROR_CHARS = 500


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]


def _encode_isolating(
    store: MemoryStore, texts: list[str]
) -> tuple[dict[int, np.ndarray], dict[int, str]]:
    """Encode *texts*; if the batch fails, encode one by one so one bad text fails alone."""
    try:
        matrix = store.encode(texts)
        return {i: matrix[i] for i in range(len(texts))}, {}
    except Exception as exc:  # any embedder error: isolate the culprit
        if len(texts) == 1:
            return {}, {0: _error_text(exc)}
        log.warning("batch of %d failed to embed (%s); isolating items", len(texts), exc)
    vectors: dict[int, np.ndarray] = {}
    errors: dict[int, str] = {}
    for i, text in enumerate(texts):
        try:
            vectors[i] = store.encode([text])[0]
        except Exception as exc:
            errors[i] = _error_text(exc)
    return vectors, errors


class TransientEmbedError(RuntimeError):
    """Every item of a batch failed: more likely the embedder is down than the data bad."""


def process_batch(
    store: MemoryStore,
    job_id: str,
    ids: Sequence[str],
    positions: Sequence[int],
    on_conflict: str = "ignore",
    *,
    jobs: JobStore | None = None,
    final_attempt: bool = True,
    max_rounds: int = 3,
) -> dict[str, int]:
    """Embed the still-pending memories among *ids* and settle each one (idempotent).

    Memories already ready/failed/deleted are only counted (once, by position).
    When every item fails and *final_attempt* is False, raise
    :class:`TransientEmbedError` instead of marking them failed, so the caller
    (a Celery task) can retry with backoff.
    """
    jobs = jobs or JobStore(store.client, store.keys.prefix, store.collection_name)
    counts: Counter[str] = Counter()
    if jobs.raw_field(job_id, "cancelled") == "1":
        counts["cancelled"] = len(ids)
        return dict(counts)
    todo = list(zip(ids, positions, strict=True))
    written: list[str] = []
    for _round in range(max_rounds):
        if not todo:
            break
        rows = store.fields_of([m for m, _pos in todo], F.STATE, F.TEXT, F.CHASH)
        pending: list[tuple[str, int, str, str]] = []
        settled_elsewhere: list[tuple[str, int]] = []
        for (memory_id, pos), (state, text, chash) in zip(todo, rows, strict=True):
            if state == "pending":
                pending.append((memory_id, pos, text, chash))
            else:
                settled_elsewhere.append((memory_id, pos))
        vectors, errors = _encode_isolating(store, [p[2] for p in pending])
        if pending and not vectors and not final_attempt:
            raise TransientEmbedError(next(iter(errors.values())))
        rejected: set[int] = set()
        if on_conflict == "raise" and vectors:
            rejected = _raise_check(store, jobs, job_id, pending, vectors)
        pipe = store.client.pipeline(transaction=False)
        actions: list[tuple[str, int]] = []
        for memory_id, pos in settled_elsewhere:  # account only; the script changes nothing
            jobs.settle(pipe, store.keys, memory_id, job_id, pos, "ready", "")
            actions.append((memory_id, pos))
        for i, (memory_id, pos, _text, chash) in enumerate(pending):
            if i in rejected:
                jobs.settle(pipe, store.keys, memory_id, job_id, pos, "reject", chash)
            elif i in vectors:
                payload = store.vector_blob(vectors[i])
                jobs.settle(pipe, store.keys, memory_id, job_id, pos, "ready", chash, payload)
            else:
                entry = {"position": pos, "id": memory_id, "error": errors[i]}
                jobs.settle(
                    pipe, store.keys, memory_id, job_id, pos, "failed", chash, errors[i], entry
                )
            actions.append((memory_id, pos))
        outcomes = [as_text(r) for r in pipe.execute()]
        todo = []
        n_elsewhere = len(settled_elsewhere)
        for j, ((memory_id, pos), outcome) in enumerate(zip(actions, outcomes, strict=True)):
            if outcome == "stale":  # edited while we encoded: read the new text again
                todo.append((memory_id, pos))
                continue
            counts[outcome] += 1
            if j >= n_elsewhere and outcome == "done" and (j - n_elsewhere) in vectors:
                written.append(memory_id)
            if outcome == "rejected":
                store.journal_append(
                    "forget", memory_id, meta={"reason": "conflict", "job": job_id}
                )
    if todo:
        log.warning("%d memories kept changing while embedding; left pending", len(todo))
        counts["stale"] = len(todo)
    if written:
        _link_updates(store, written)
    if written and on_conflict in ("warn", "supersede"):
        _apply_policy(store, jobs, job_id, written, on_conflict)
    jobs.expire_if_settled(job_id)
    return dict(counts)


def _link_updates(store: MemoryStore, ids: list[str]) -> None:
    """The update links of the freshly embedded memories *ids* that say they are one
    (:mod:`houkai.store.updates`): their texts read, those read again with their
    vectors, then linked."""
    rows = store.fields_of(ids, F.TEXT)
    ids = [i for i, (text,) in zip(ids, rows, strict=True) if says_update(text)]
    if not ids:
        return
    found = store.get_many(ids, with_vector=True)
    link_updates(store.core, [found[i] for i in ids if i in found])


def _conflict_dicts(conflicts: Iterable[Any]) -> list[dict]:
    return [c.to_dict() if hasattr(c, "to_dict") else dict(c) for c in conflicts]


def _raise_check(
    store: MemoryStore,
    jobs: JobStore,
    job_id: str,
    pending: list[tuple[str, int, str, str]],
    vectors: dict[int, np.ndarray],
) -> set[int]:
    """``on_conflict='raise'``: positions (in *pending*) whose memory conflicts → rejected."""
    rejected: set[int] = set()
    found = store.get_many([p[0] for p in pending])
    for i, (memory_id, _pos, _text, _chash) in enumerate(pending):
        memory = found.get(memory_id)
        if memory is None or i not in vectors:
            continue
        memory.embedding = vectors[i].tolist()
        conflicts = store.check_conflicts(memory, store.conflict_threshold, store.contradiction_fn)
        if conflicts:
            rejected.add(i)
            jobs.add_conflicts(job_id, _conflict_dicts(conflicts))
    return rejected


def _apply_policy(
    store: MemoryStore, jobs: JobStore, job_id: str, ids: list[str], policy: str
) -> None:
    """Run warn/supersede for freshly embedded memories; record what was found on the job."""
    found = store.get_many(ids, with_vector=True)
    memories = [found[i] for i in ids if i in found]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the outcome is recorded on the job instead
            conflicts = store.apply_conflict_policy_many(memories, policy, store.contradiction_fn)
    except Exception as exc:  # the memories are stored; report, don't fail
        log.warning("conflict policy %s failed for job %s: %s", policy, job_id, exc)
        conflicts = []
    jobs.add_conflicts(job_id, _conflict_dicts(conflicts or []))
