"""Supersede / restore and conflict detection (README "Links, supersede, conflicts").

Conflict candidates come from the vector index, never from a Python loop over
the collection: each memory costs one KNN query (``KNN 12`` over the stored
vectors of the same type, excluding superseded and expired memories), and a
batch of memories sends its queries in one pipelined round trip. The global
scan streams the collection in batches, so it stays bounded at any size and
is O(n · KNN) rather than O(n²).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np

from ..db.decode import as_text
from ..db.filters import filter_expr
from ..db.schema import MEMORY_FIELDS
from ..domain.model import (
    CONFLICT_POLICIES,
    MEMORY_TYPES,
    Conflict,
    ConflictFn,
    Memory,
    MemoryNotFound,
    StateConflict,
    ValidationError,
    validate_choice,
)
from ..domain.text import negation_diff
from . import codec, lexstats
from .chains import read_chain
from .codec import F
from .core import CoreStore
from .export_rows import fetch_rows
from .graph import Graph
from .search import knn_query, queue_similarities, similarities

log = logging.getLogger(__name__)

CONFLICT_CANDIDATES = 12  # the seed's recall(a.text, n=12)
SCAN_BATCH = 256
SCAN_CURSOR_FIELD = "conflict_scan_at"  # in the meta hash: where the next incremental scan starts
SCAN_OVERLAP = 600.0  # seconds an incremental scan reaches back before the previous one began
PREFILTER_K = 32  # plain-KNN neighbours asked before falling back to a filtered KNN
#: Reads of a supersede chain before giving up while other supersedes keep changing it.
_SUPERSEDE_TRIES = 5


def _check_id(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{name} must be a non-empty memory id — got {value!r}")
    return value


def _check_threshold(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(f"threshold must be a number in [-1, 1] — got {value!r}")
    if not -1.0 <= value <= 1.0:
        raise ValidationError(f"threshold must be in [-1, 1] — got {value!r}")
    return float(value)


def classify(
    a: Memory, b: Memory, similarity: float, threshold: float, contradiction_fn: ConflictFn | None
) -> Conflict | None:
    """The seed's conflict rule for one candidate pair (type already matched), or None."""
    if similarity < threshold:
        return None
    if a.tags and b.tags and not set(a.tags) & set(b.tags):
        return None  # both tagged, nothing in common: different topics
    kind: Literal["duplicate", "contradiction"]
    if a.polarity and b.polarity and a.polarity != b.polarity:
        kind, reason = "contradiction", "polarity_diff"
    elif negation_diff(a.text, b.text):
        kind, reason = "contradiction", "negation_diff"
    elif contradiction_fn is not None and contradiction_fn(a, b):
        kind, reason = "contradiction", "custom_fn"
    else:
        kind, reason = "duplicate", "similarity"
    return Conflict(a=a, b=b, similarity=round(float(similarity), 4), kind=kind, reason=reason)


def _eligible(memory: Memory, mtype: str, now: float) -> bool:
    """What the filtered KNN would keep: the same type, not superseded, not expired."""
    if memory.type != mtype or memory.superseded_by:
        return False
    return not 0 < memory.expires_at <= now


def _describe(conflicts: Sequence[Conflict]) -> str:
    return ", ".join(f"{c.kind}({c.b.id!r})" for c in conflicts)


class Conflicts:
    """supersede, restore, find_conflicts and the remember-time conflict policies."""

    def __init__(self, core: CoreStore, graph: Graph) -> None:
        self.core = core
        self.graph = graph

    # ------------------------------------------------------------ supersede
    def _hset_if_exists(self, memory_id: str, fields: dict[str, str]) -> bool:
        script = self.core.scripts.hset_if_exists
        args: list[str] = []
        for name, value in fields.items():
            args += [name, value]
        keys = [self.core.keys.memory(memory_id), self.core.keys.access_doc(memory_id)]
        return bool(script(keys=keys, args=args))

    def supersede(self, old_id: str, new_id: str) -> None:
        """Mark *old_id* as superseded by *new_id* and add a ``supersedes`` link new → old.

        A superseded memory is hidden from default recall / list_recent. Idempotent
        when *old_id* is already superseded by *new_id*; rejects self-supersede and
        any cycle (when *new_id* is itself, directly or through a chain, superseded
        by *old_id*). Journaled as op ``supersede`` on *old_id*.
        """
        _check_id(old_id, "old_id")
        _check_id(new_id, "new_id")
        if old_id == new_id:
            if not self.core.exists(old_id):
                raise MemoryNotFound(old_id)  # an unknown id is a 404 whatever else is wrong
            raise ValidationError("cannot supersede a memory with itself")
        for _ in range(_SUPERSEDE_TRIES):
            found = self.core.get_many([old_id, new_id])
            old, new = found.get(old_id), found.get(new_id)
            if old is None:
                raise MemoryNotFound(old_id)
            if new is None:
                raise MemoryNotFound(new_id)
            if old.superseded_by == new_id:
                return
            chain = read_chain(self.core.get, old_id, new)
            before = old.to_dict()
            old.superseded_by = new_id
            old.superseded_at = time.time()
            keys = self.core.keys
            written = self.core.scripts.supersede(
                keys=[
                    keys.memory(old_id),
                    keys.access_doc(old_id),
                    *(keys.memory(m.id) for m in chain),
                ],
                args=[
                    old_id,
                    len(chain),
                    *(m.superseded_by or "" for m in chain),
                    F.SUPERSEDED_BY,
                    new_id,
                    F.SUP,
                    "1",
                    F.SUPERSEDED_AT,
                    repr(old.superseded_at),
                ],
            )
            if written == 1:
                break
            if written == 0:
                raise MemoryNotFound(old_id)
            if written == -3:
                raise MemoryNotFound(new_id)
            if written == -1:  # another supersede closed the loop first
                raise ValidationError(
                    f"supersede cycle: {new_id!r} is now superseded by {old_id!r}"
                )
        else:  # the chain kept changing under us
            raise StateConflict(f"cannot supersede {old_id!r}: its superseders keep changing")
        lexstats.mark_superseded(self.core.client, self.core.keys.lexstats)
        self.graph.link_raw(new_id, old_id, "supersedes")
        self.core.count_call("supersede")
        self.core.journal_append(
            "supersede",
            old_id,
            before=before,
            after=old.to_dict(),
            meta={"old_id": old_id, "new_id": new_id},
        )

    def restore(self, memory_id: str) -> bool:
        """Undo a supersede: clear the marker and drop the superseder's ``supersedes`` edge.

        False when the memory is not superseded; ``MemoryNotFound`` when it does
        not exist. Journaled as op ``restore`` with meta ``superseder_id``.
        """
        _check_id(memory_id, "memory_id")
        memory = self.core.get(memory_id)
        if memory is None:
            raise MemoryNotFound(memory_id)
        if not memory.superseded_by:
            return False
        before = memory.to_dict()
        superseder_id = memory.superseded_by
        memory.superseded_by = ""
        memory.superseded_at = 0.0
        if not self._hset_if_exists(
            memory_id,
            {
                F.SUPERSEDED_BY: "",
                F.SUP: "0",
                F.SUPERSEDED_AT: repr(0.0),
            },
        ):
            raise MemoryNotFound(memory_id)
        self.graph.unlink_raw(superseder_id, memory_id, "supersedes")
        self.core.count_call("restore")
        self.core.journal_append(
            "restore",
            memory_id,
            before=before,
            after=memory.to_dict(),
            meta={"superseder_id": superseder_id},
        )
        return True

    # ------------------------------------------------------------ candidates
    def _knn_many(
        self, queries: Sequence[tuple[np.ndarray, str | None]], k: int, now: float
    ) -> list[list[tuple[str, float]]]:
        """For each ``(vector, type)``: the ids of the *k* nearest live memories of
        that type and their cosine similarity, nearest first.

        Superseded and expired memories are excluded in the query itself. All
        queries go out in one pipelined round trip, and each returns only the
        distance: the few candidates above the threshold are read afterwards
        (:meth:`_check_conflicts_many`), not thirteen whole memories per query.
        """
        if not queries:
            return []
        exact = self.core.knn_exact()
        pipe = self.core.client.pipeline(transaction=False)
        for vector, mtype in queries:
            if mtype is None:  # the plain KNN: no filter
                where = "*"
            else:
                validate_choice(mtype, MEMORY_TYPES, "type")
                where = filter_expr(type=mtype, now=now)
            query = knn_query(where, k, self.core.index_params.ef_runtime, exact=exact)
            queue_similarities(pipe, self.core.keys.index, query, k, self.core.vector_blob(vector))
        return [
            [(codec.memory_id_from_key(self.core.keys, key), sim) for key, sim in similarities(r)]
            for r in pipe.execute()
        ]

    def _vector_of(self, memory: Memory) -> np.ndarray:
        """The memory's embedding: in hand, stored, or (still pending) encoded now."""
        if memory.embedding is not None:
            return np.asarray(memory.embedding, dtype=np.float32)
        stored = self.core.vectors([memory.id]).get(memory.id)
        if stored is not None:
            return stored
        return self.core.encode([memory.text])[0]

    def _check_conflicts_many(
        self,
        memories: Sequence[Memory],
        threshold: float,
        contradiction_fn: ConflictFn | None,
        known: Mapping[str, set[str]] | None = None,
        plain_hits: Sequence[list[tuple[str, float]]] | None = None,
    ) -> list[list[Conflict]]:
        """Conflicts of each memory with the stored collection.

        The candidates are the seed's: the :data:`CONFLICT_CANDIDATES` nearest live
        memories of the same type, kept when at least *threshold* similar. A
        filtered KNN (type, not superseded, not expired) costs RediSearch about
        60x a plain one (23 ms against 0.4 ms of Redis CPU at 100k; ADR 0045), so
        each memory first asks a plain KNN for :data:`PREFILTER_K` neighbours and
        keeps the eligible ones at or above *threshold*. That is exact whenever
        it found enough of them or its farthest neighbour is already below
        *threshold* (nothing eligible and similar enough lies further out); only
        the other memories, in dense neighbourhoods, ask the filtered query.

        *known* maps a memory id to partners already reported with it (the scan's
        earlier half of each pair): they keep their place among the candidates but
        are neither read again nor reported (ADR 0053: half the candidate reads).
        *plain_hits*, when the caller already ran the plain KNN of each memory
        (the scan's read-ahead), are used instead of asking again.
        """
        now = time.time()
        known = known or {}
        out: list[list[Conflict]] = []
        for start in range(0, len(memories), SCAN_BATCH):
            chunk = memories[start : start + SCAN_BATCH]
            vectors = [self._vector_of(m) for m in chunk]
            plain = (
                plain_hits[start : start + SCAN_BATCH]
                if plain_hits is not None
                else self._knn_many([(v, None) for v in vectors], PREFILTER_K, now)
            )
            near = [
                [(bid, sim) for bid, sim in hits if bid != m.id and sim >= threshold]
                for m, hits in zip(chunk, plain, strict=True)
            ]
            fetched = self._fetch_candidates(
                [
                    [(b, s) for b, s in hits if b not in known.get(m.id, ())]
                    for m, hits in zip(chunk, near, strict=True)
                ]
            )
            picked: list[list[tuple[Memory | None, float]]] = []
            retry: list[int] = []
            for i, (memory, hits) in enumerate(zip(chunk, plain, strict=True)):
                seen = known.get(memory.id, set())
                eligible: list[tuple[Memory | None, float]] = [
                    (None, sim) if bid in seen else (fetched[bid], sim)
                    for bid, sim in near[i]
                    if bid in seen or (bid in fetched and _eligible(fetched[bid], memory.type, now))
                ]
                if (
                    len(eligible) >= CONFLICT_CANDIDATES
                    or len(hits) < PREFILTER_K
                    or (hits and hits[-1][1] < threshold)
                ):
                    picked.append(eligible[:CONFLICT_CANDIDATES])
                else:
                    picked.append([])
                    retry.append(i)
            if retry:
                # One extra slot: a stored memory finds itself first.
                filtered = self._knn_many(
                    [(vectors[i], chunk[i].type) for i in retry], CONFLICT_CANDIDATES + 1, now
                )
                close = [
                    [(bid, sim) for bid, sim in hits if bid != chunk[i].id][:CONFLICT_CANDIDATES]
                    for i, hits in zip(retry, filtered, strict=True)
                ]
                more = self._fetch_candidates(
                    [
                        [(b, s) for b, s in hits if s >= threshold and b not in known.get(m, ())]
                        for m, hits in zip((chunk[i].id for i in retry), close, strict=True)
                    ]
                )
                for i, hits in zip(retry, close, strict=True):
                    picked[i] = [(more[b], s) for b, s in hits if s >= threshold and b in more]
            for memory, candidates in zip(chunk, picked, strict=True):
                found: list[Conflict] = []
                for b, sim in candidates:
                    if b is None:  # reported already, from the other side
                        continue
                    conflict = classify(memory, b, sim, threshold, contradiction_fn)
                    if conflict is not None:
                        found.append(conflict)
                out.append(found)
        return out

    def _fetch_candidates(self, lists: Sequence[Sequence[tuple[str, float]]]) -> dict[str, Memory]:
        """The memories named in *lists*, in one round trip (missing ones left out)."""
        wanted = sorted({bid for hits in lists for bid, _ in hits})
        if not wanted:
            return {}
        # HMGET of the Memory fields only: no vector, no indexed copy of the text, no
        # term list (HGETALL moved about 3x the bytes; ADR 0053).
        keys = [self.core.keys.memory(mid) for mid in wanted]
        out: dict[str, Memory] = {}
        for mid, values in zip(
            wanted, fetch_rows(self.core.client, keys, MEMORY_FIELDS), strict=True
        ):
            if any(v is not None for v in values):
                out[mid] = codec.from_hash(dict(zip(MEMORY_FIELDS, values, strict=True)))
        self.core.overlay_access(list(out.values()))
        return out

    def check_conflicts(
        self, memory: Memory, threshold: float, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Conflicts of *memory* (stored or not yet stored) with the stored collection."""
        return self._check_conflicts_many([memory], threshold, contradiction_fn)[0]

    # ------------------------------------------------------------ public scan
    def find_conflicts(
        self, memory_id: str | None = None, threshold: float | None = None
    ) -> list[Conflict]:
        """Duplicate / contradiction pairs (README "Links, supersede, conflicts").

        With *memory_id*: that memory against the collection (``MemoryNotFound``
        if unknown). Without: every live memory, streamed in batches with one
        KNN per memory, each pair reported once (``a`` is the older memory).
        Superseded and expired memories never take part.
        """
        thr = self.core.conflict_threshold if threshold is None else _check_threshold(threshold)
        fn = self.core.contradiction_fn
        if memory_id is not None:
            _check_id(memory_id, "memory_id")
            memory = self.core.get(memory_id, with_vector=True)
            if memory is None:
                raise MemoryNotFound(memory_id)
            return self.check_conflicts(memory, thr, fn)
        return list(self.iter_conflicts(thr))

    def iter_conflicts(
        self, threshold: float | None = None, *, since: float | None = None
    ) -> Iterator[Conflict]:
        """Every conflict pair of the collection, streamed (``find_conflicts`` without an id).

        With *since* (epoch seconds) only memories created at or after it are
        scanned, each still against the whole collection: pairs between two
        older memories are left out. The scan runs in (created_at, id) order
        and holds one batch of memories at a time. A pair is reported once:
        when the earlier memory finds the later one, the pair is remembered
        only until the later one is scanned, so the bookkeeping drains as the
        scan moves on instead of growing with every pair of the collection.
        """
        thr = self.core.conflict_threshold if threshold is None else _check_threshold(threshold)
        if since is not None and (
            isinstance(since, bool)
            or not isinstance(since, int | float)
            or not math.isfinite(since)
        ):
            raise ValidationError(f"since must be a number (epoch seconds) — got {since!r}")
        fn = self.core.contradiction_fn
        ahead: dict[str, set[str]] = {}  # later id -> earlier ids already reported with it
        batches = self.core.iter_memories(
            filter_expr(since=since), batch_size=SCAN_BATCH, with_vector=True, sortby="created_at"
        )
        for embedded, plain in self._read_ahead(batches):
            known = {m.id: ahead[m.id] for m in embedded if m.id in ahead}
            for memory, found in zip(
                embedded,
                self._check_conflicts_many(embedded, thr, fn, known, plain_hits=plain),
                strict=True,
            ):
                reported = ahead.pop(memory.id, set())
                here = (memory.created_at, self.core.keys.memory(memory.id))
                for conflict in found:
                    other = conflict.b
                    if other.id in reported:
                        continue
                    if (other.created_at, self.core.keys.memory(other.id)) > here:
                        ahead.setdefault(other.id, set()).add(memory.id)
                        yield conflict
                    else:  # an older memory the scan did not visit (since=): a stays the older
                        yield dataclasses.replace(conflict, a=other, b=memory)

    def _read_ahead(
        self, batches: Iterator[list[Memory]]
    ) -> Iterator[tuple[list[Memory], list[list[tuple[str, float]]]]]:
        """Each batch's embedded memories with their plain KNN; the next batch is read
        and searched in a thread while the caller classifies this one.

        The scan alternates between waiting on Redis (the batch, its KNN) and Python
        work (decoding candidates, classifying pairs): about 1,100 and 2,000 CPU-seconds
        of a full scan at 1M memories; overlapping them takes the Redis part off the
        wall time (ADR 0060). One batch ahead keeps memory bounded; the thread only
        ever advances *batches* itself.
        """

        def load() -> tuple[list[Memory], list[list[tuple[str, float]]]] | None:
            batch = next(batches, None)
            if batch is None:
                return None
            embedded = [m for m in batch if m.embedding is not None]
            queries = [(self._vector_of(m), None) for m in embedded]
            plain = self._knn_many(queries, PREFILTER_K, time.time())
            return embedded, plain

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="houkai-conflicts") as pool:
            pending = pool.submit(load)
            while (item := pending.result()) is not None:
                pending = pool.submit(load)
                yield item

    def iter_new_conflicts(
        self, threshold: float | None = None, *, full: bool = False
    ) -> Iterator[Conflict]:
        """The conflicts of memories created since the last completed scan (resumable
        incremental scan; ``full=True`` or no earlier scan: the whole collection).

        The cursor lives in the collection's meta hash (``conflict_scan_at``) and
        moves only when the scan runs to its end, to the scan's start less
        :data:`SCAN_OVERLAP` seconds, so a memory stored while a scan runs (or
        embedded late by a worker) is picked up by the next one; a pair in the
        overlap may be reported twice. Memories imported with old ``created_at``
        values or re-embedded by an edit are covered by the full scan only.
        """
        started = time.time()
        raw = None if full else self.core.client.hget(self.core.keys.meta, SCAN_CURSOR_FIELD)
        since = float(as_text(raw)) if raw else None
        yield from self.iter_conflicts(threshold, since=since)
        self.core.client.hset(self.core.keys.meta, SCAN_CURSOR_FIELD, repr(started - SCAN_OVERLAP))

    # ------------------------------------------------------------ policies
    def _supersede_quietly(self, old_id: str, new_id: str) -> bool:
        """Supersede for a conflict policy: a vanished or cyclic pair is logged, not raised."""
        try:
            self.supersede(old_id, new_id)
        except (ValueError, MemoryNotFound) as exc:
            log.warning("conflict policy could not supersede %s by %s: %s", old_id, new_id, exc)
            return False
        return True

    def apply_conflict_policy(
        self, memory: Memory, policy: str, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Run *policy* for a just-stored memory; returns the conflicts found.

        ``warn`` → one ``UserWarning`` listing them; ``supersede`` → each
        conflicting older memory is superseded by *memory*; ``raise`` only
        reports (the caller rejects the write); ``ignore`` does not scan.
        """
        validate_choice(policy, CONFLICT_POLICIES, "on_conflict")
        if policy == "ignore":
            return []
        conflicts = self.check_conflicts(memory, self.core.conflict_threshold, contradiction_fn)
        if not conflicts:
            return []
        if policy == "warn":
            warnings.warn(
                f"remember(): {len(conflicts)} conflict(s) detected for memory "
                f"{memory.id!r}: {_describe(conflicts)}",
                UserWarning,
                stacklevel=3,
            )
        elif policy == "supersede":
            for conflict in conflicts:
                self._supersede_quietly(conflict.b.id, memory.id)
        return conflicts

    def apply_conflict_policy_many(
        self, memories: Sequence[Memory], policy: str, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Run *policy* over a just-stored batch; returns every conflict found.

        ``warn`` emits ONE aggregated warning. ``supersede``: earlier items
        win — a later item conflicting with an earlier one of the same batch is
        superseded by it, and an item already superseded in this call neither
        supersedes nor is scanned, so no intra-batch cycle can form.
        """
        validate_choice(policy, CONFLICT_POLICIES, "on_conflict")
        if policy == "ignore" or not memories:
            return []
        found_all = self._check_conflicts_many(
            memories, self.core.conflict_threshold, contradiction_fn
        )
        position = {m.id: i for i, m in enumerate(memories)}
        superseded: set[str] = set()
        flagged: list[tuple[Memory, list[Conflict]]] = []
        everything: list[Conflict] = []
        for i, (memory, conflicts) in enumerate(zip(memories, found_all, strict=True)):
            if memory.id in superseded or not conflicts:
                continue
            everything.extend(conflicts)
            if policy in ("warn", "raise"):
                flagged.append((memory, conflicts))
                continue
            if policy != "supersede":
                continue
            winner = next(
                (
                    c.b
                    for c in conflicts
                    if position.get(c.b.id, i) < i and c.b.id not in superseded
                ),
                None,
            )
            if winner is not None:
                if self._supersede_quietly(memory.id, winner.id):
                    superseded.add(memory.id)
                continue
            for conflict in conflicts:
                if conflict.b.id in superseded:
                    continue
                if self._supersede_quietly(conflict.b.id, memory.id):
                    superseded.add(conflict.b.id)
        if policy == "warn" and flagged:
            detail = "; ".join(f"{m.id!r}: {_describe(cs)}" for m, cs in flagged)
            warnings.warn(
                f"remember_many(): {len(flagged)} item(s) with conflict(s): {detail}",
                UserWarning,
                stacklevel=3,
            )
        return everything
