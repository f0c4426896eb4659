"""The core repository of one collection: connection, keys, scripts and primitives.

:class:`CoreStore` is what every collaborator of :class:`~houkai.store.MemoryStore`
(``Writer``, ``Graph``, ``Conflicts``, ``History``, ``Portability``, ``Stats``,
``Expiry``, ``Sessions``, recall) is constructed with, and all they may rely on:

- state: ``client``, ``keys``, ``settings``, ``collection_name``, ``embedder``,
  ``index_params``, ``journal``, ``scripts`` (:class:`~houkai.store.scripts.Scripts`),
  the store's conflict and recall options;
- build and embed: ``build_memory`` (validate, no write), ``encode``,
  ``query_vector``, ``knn_exact``; vectors: ``vector_blob``, ``vector_from_blob``,
  ``from_fields``;
- write and delete: ``write`` (whole or some fields, pipelined), ``delete``,
  ``set_raw_fields``; reads: ``get``, ``get_many``, ``vectors``, ``exists``, ``count``,
  ``fields_of`` (some fields of many), ``iter_memories`` (index query, streamed),
  ``scan_keys``;
- access tracking: ``touch_many``, ``overlay_access``, ``account_access``,
  ``flush_access``, ``fold_ids``, ``aggregate_index``;
- journal and counters: ``journal_append``, ``journal_append_many``,
  ``maybe_archive_journal``, ``as_actor``, ``count_call``.

The primitives skip conflict policy and (but for the journal calls) journaling on
purpose: the collaborators decide those. The core calls no collaborator, so it
imports none of them.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import redis

from ..db.connection import connect
from ..db.decode import as_text
from ..db.journal import Journal, JournalEntry
from ..db.keys import Keys, validate_collection
from ..db.schema import (
    EXACT_PENDING,
    IndexParams,
    ensure_index,
    exact_filled,
    validate_vector_type,
)
from ..domain.config import Settings, get_settings
from ..domain.model import (
    CONFLICT_POLICIES,
    ConflictFn,
    HybridWeights,
    ImportanceFn,
    Memory,
    Reranker,
    check_memory,
    validate_choice,
)
from ..engines.embeddings import DEFAULT_MODEL_NAME, Embedder, QueryCache, get_embedder, query_cache
from ..engines.importance import score_importance
from . import access, codec, lexstats
from .actors import acting, actor_of
from .options import (
    CallableEmbedder,
    coerce_remember_item,
    journal_archive_dir,
    journal_settings,
)
from .protocol import CALL_NAMES, PRIMITIVES
from .scripts import Scripts
from .search import batched, iter_keys, total

log = logging.getLogger(__name__)

# How many journal appends pass between two checks of the stream's length.
ARCHIVE_CHECK_EVERY = 256
#: How long a store trusts the collection size it read for :meth:`CoreStore.knn_exact`.
SIZE_RECHECK_S = 5.0


def exact_knn_state(client: redis.Redis, keys: Keys) -> tuple[int, bool]:
    """The collection's size (BM25's document count) and whether its exact KNN field is
    filled: one round trip, and an ``FT.INFO`` while a fill is pending (which clears it)."""
    pipe = client.pipeline(transaction=False)
    pipe.hget(keys.lexstats, lexstats.DOC_COUNT_FIELD)
    pipe.hget(keys.meta, EXACT_PENDING)
    size, pending = pipe.execute()
    return int(size or 0), not pending or exact_filled(client, keys)


class CoreStore:
    """Connection, validation and the primitive reads and writes of one collection."""

    def __init__(
        self,
        path: str | None = None,
        collection: str | None = None,
        embedding_model: str = DEFAULT_MODEL_NAME,
        *,
        embedder: Embedder | None = None,
        embedding_function: Callable[[list[str]], Any] | None = None,
        redis_url: str | None = None,
        key_prefix: str | None = None,
        conflict_policy: str | None = None,
        conflict_threshold: float | None = None,
        contradiction_fn: ConflictFn | None = None,
        hybrid_weights: HybridWeights | None = None,
        reranker: Reranker | None = None,
        importance_fn: ImportanceFn | None = None,
        actor: str = "lib",
        journal_enabled: bool | None = None,
        journal_path: str | os.PathLike[str] | None = None,
        journal_rotate_mb: int | None = None,
        journal_keep_days: float | None = None,
        settings: Settings | None = None,
        client: redis.Redis | None = None,
    ) -> None:
        self.settings = journal_settings(
            settings or get_settings(), journal_path, journal_rotate_mb
        )
        s = self.settings
        conflict_policy = conflict_policy or s.conflict_policy
        validate_choice(conflict_policy, CONFLICT_POLICIES, "conflict_policy")
        self.collection_name = validate_collection(collection or s.collection)
        self.path = path or s.data_dir
        self.embedding_model = embedding_model
        if client is None:
            url = redis_url if redis_url is not None else s.redis_url
            client = connect(url, self.path if not url else None)
        self.client: redis.Redis = client
        self.keys = Keys(key_prefix or s.key_prefix, self.collection_name)
        if embedder is None and embedding_function is not None:
            self.embedder: Embedder = CallableEmbedder(embedding_function)
        else:
            self.embedder = embedder or get_embedder()
        self.query_cache: QueryCache = query_cache(self.embedder)
        # vector_type applies to a new collection; an existing one keeps its own.
        self.index_params = ensure_index(
            self.client,
            self.keys,
            IndexParams(
                dim=self.embedder.dimension,
                m=s.hnsw_m,
                ef_construction=s.hnsw_ef_construction,
                ef_runtime=s.hnsw_ef_runtime,
                vector_type=validate_vector_type(s.vector_type),
                exact=s.exact_knn_max > 0,
            ),
            self.embedder.name,
            exact_upto=s.exact_knn_max,
        )
        self._size_seen, self._size_read_at, self._exact_filled = 0, -math.inf, False
        # access counts live in access documents (ADR 0075); a new collection needs no backfill
        new = not int(self.client.hget(self.keys.lexstats, lexstats.DOC_COUNT_FIELD) or 0)
        self._access_ready = access.ensure_access_index(self.client, self.keys, empty=new)
        self._conflict_policy = conflict_policy
        self._conflict_threshold = (
            s.conflict_threshold if conflict_threshold is None else float(conflict_threshold)
        )
        self._contradiction_fn = contradiction_fn
        self._hybrid_weights = hybrid_weights
        self._reranker = reranker
        self.importance_fn = importance_fn or (score_importance if s.auto_importance else None)
        self._actor = actor
        self._journal_enabled = s.journal_enabled if journal_enabled is None else journal_enabled
        self.journal = Journal(
            self.client,
            self.keys.journal,
            maxlen=s.journal_maxlen,
            keep_days=journal_keep_days,
            archive_dir=journal_archive_dir(s, self.keys.prefix),
        )
        self._appends_since_archive_check = 0
        self.started = time.time()
        self.scripts = Scripts(self.client)

    # ------------------------------------------------------------------ plumbing
    @contextlib.contextmanager
    def as_actor(self, name: str) -> Iterator[None]:
        """Attribute the journal entries written inside the block to *name* (e.g.
        'reflection'), in this thread or task only: an import running in one request of a
        threaded server no longer signs the writes of the requests beside it."""
        with acting(id(self), name):
            yield

    @property
    def actor(self) -> str:
        """Who the journal says wrote: the innermost :meth:`as_actor` of this thread or
        task, else the client a door serves (:func:`~houkai.store.actors.calling_as`),
        else the store's own actor."""
        return actor_of(id(self), self._actor)

    @property
    def journal_enabled(self) -> bool:
        """Whether mutations are journaled (``journal_enabled`` argument or setting)."""
        return self._journal_enabled

    def journal_append(
        self,
        op: str,
        memory_id: str,
        *,
        before: dict | None = None,
        after: dict | None = None,
        meta: dict | None = None,
        actor: str | None = None,
        pipe: Any = None,
    ) -> JournalEntry | None:
        """Journal one mutation: the one path every write, single or bulk, takes.

        With *pipe* the entry is queued on that pipeline, so it lands with the
        write it describes (same MULTI/EXEC); without, it is appended now,
        best-effort. Either way, every ``ARCHIVE_CHECK_EVERY`` entries a stream
        grown past its cap is archived, so bulk writes stay bounded like single
        ones. None when journaling is off.
        """
        if not self._journal_enabled:
            return None
        entry = JournalEntry(
            ts=time.time(),
            op=op,
            actor=actor or self.actor,
            id=memory_id,
            before=before,
            after=after,
            meta=meta or {},
        )
        if pipe is None:
            self.journal.append(entry)
        else:
            pipe.xadd(self.keys.journal, {"e": entry.to_json()})
        self._appends_since_archive_check += 1
        if self._appends_since_archive_check >= ARCHIVE_CHECK_EVERY:
            self._appends_since_archive_check = 0
            self.maybe_archive_journal()
        return entry

    def journal_append_many(
        self,
        op: str,
        rows: Iterable[tuple[str, dict | None, dict | None]],
        *,
        meta: dict | None = None,
    ) -> None:
        """Journal one *op* for many memories, ``(memory_id, before, after)`` each, in one
        round trip: a bulk write's entries cost one pipeline, not one XADD each.
        Best-effort like :meth:`journal_append` without a pipeline."""
        if not self._journal_enabled:
            return
        pipe = self.client.pipeline(transaction=False)
        n = 0
        for memory_id, before, after in rows:
            self.journal_append(op, memory_id, before=before, after=after, meta=meta, pipe=pipe)
            n += 1
        if not n:
            return
        try:
            failed = [r for r in pipe.execute(raise_on_error=False) if isinstance(r, Exception)]
        except redis.RedisError as exc:
            failed = [exc]
        if failed:
            log.warning(
                "journal append failed for %d of %d %s entries: %s", len(failed), n, op, failed[0]
            )

    def maybe_archive_journal(self) -> None:
        """Archive the journal stream once it is 10% past its cap (best-effort)."""
        journal = self.journal
        try:
            if len(journal) > journal.maxlen * 1.1:
                journal.archive(keep=journal.maxlen)
        except Exception as exc:  # best-effort, like appends: never fail the write
            log.warning("journal archival of %s failed: %s", journal.key, exc)

    def count_call(self, op: str, n: int = 1) -> None:
        """Bump a shared operation counter; best-effort like the journal."""
        try:
            self.client.hincrby(self.keys.metrics, f"calls:{op}", n)
        except redis.RedisError as exc:
            log.debug("metrics update failed: %s", exc)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed *texts*; an embedder answering NaN or the wrong dimension raises ValueError."""
        matrix = self.embedder.encode(list(texts))
        if not len(texts):
            return matrix
        return codec.check_vectors(matrix, int(self.index_params.dim))

    def knn_exact(self) -> bool:
        """True while KNN should search the FLAT field: the index has it and the
        collection holds at most ``exact_knn_max`` memories (BM25's document count,
        one ``HGET``, re-read at most every :data:`SIZE_RECHECK_S` seconds)."""
        if not self.index_params.exact:
            return False
        now = time.monotonic()
        if now - self._size_read_at > SIZE_RECHECK_S:
            self._size_read_at = now
            try:
                self._size_seen, self._exact_filled = exact_knn_state(self.client, self.keys)
            except (redis.RedisError, ValueError):
                pass  # keep what was last read: a missing count must not fail a recall
        return self._exact_filled and self._size_seen <= self.settings.exact_knn_max

    def query_vector(self, query: str) -> np.ndarray:
        return self.query_cache.encode_query(query)

    # ------------------------------------------------------------------ writing
    def write(
        self,
        memories: Sequence[Memory],
        vectors: np.ndarray | None = None,
        pipe: Any = None,
        *,
        fields: Iterable[str] | None = None,
    ) -> None:
        """HSET each memory (with its vector when given) in one pipelined round trip.

        With *fields* (``Memory`` attribute names) only those are written, and
        only to memories that still exist: an edit must not clobber links or
        supersede state written concurrently from a stale read, nor recreate a
        memory forgotten meanwhile. A full write stores the hash sparsely
        (:func:`codec.sparse_hash`), clearing left-out fields an older version
        of the memory still holds.
        """
        for memory in memories:  # refuse a poisoned batch before queueing any of it
            check_memory(memory)
        if vectors is not None:
            vectors = codec.check_vectors(vectors, int(self.index_params.dim))
        own = pipe is None
        pipe = self.client.pipeline(transaction=False) if own else pipe
        names: dict[str, str] = {}
        allowed = None if fields is None else codec.hash_fields(fields)
        script = self.scripts.write if allowed is None else self.scripts.update
        for i, memory in enumerate(memories):
            vector = None if vectors is None else vectors[i]
            if vector is not None:
                memory.state, memory.error = "ready", ""
            if allowed is None:
                mapping, cleared = codec.sparse_hash(memory, vector, self.vector_type)
            else:
                written = (
                    {codec.F.VEC, codec.F.STATE, codec.F.ERROR} if vector is not None else set()
                )
                keep = allowed | written
                mapping = {
                    k: v
                    for k, v in codec.to_hash(memory, vector, self.vector_type).items()
                    if k in keep
                }
                cleared = []
            # a whole rewrite carries the memory's access fields; a partial one keeps
            # the access document's unless it writes them
            reset = allowed is None or not allowed.isdisjoint(access.ACCESS_FIELDS)
            script(
                keys=[
                    self.keys.memory(memory.id),
                    self.keys.lexstats,
                    self.keys.access_doc(memory.id),
                ],
                args=lexstats.write_args(memory.text, mapping, cleared, reset=reset),
                client=pipe,
            )
            for tag in memory.tags:
                names[codec.value_key(tag)] = tag
        if any(m.superseded_by for m in memories) and (allowed is None or codec.F.SUP in allowed):
            lexstats.mark_superseded(pipe, self.keys.lexstats)  # an import, an undo
        if names:
            pipe.hset(self.keys.tag_names, mapping=names)
        if own:
            pipe.execute()

    # ------------------------------------------------------------------ writes
    def delete(self, memories: Sequence[Memory]) -> None:
        """Delete memories and their reverse-link entries in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for memory in memories:
            self.scripts.delete_memory(
                keys=[
                    self.keys.memory(memory.id),
                    self.keys.lexstats,
                    self.keys.access_doc(memory.id),
                ],
                args=[self.keys.incoming_prefix, memory.id],
                client=pipe,
            )
            pipe.hdel(self.keys.access, f"n:{memory.id}", f"t:{memory.id}")
        pipe.execute()

    def scan_keys(self, pattern: str, batch: int = 1000) -> Iterator[list[bytes]]:
        """Keys matching *pattern*, in batches (SCAN: never blocks the server)."""
        return batched(self.client.scan_iter(match=pattern, count=batch), batch)

    @property
    def vector_type(self) -> str:
        """The element type of this collection's stored vectors (FLOAT32, FLOAT16, …)."""
        return self.index_params.vector_type

    def vector_blob(self, vector: np.ndarray | Sequence[float]) -> bytes:
        """*vector* encoded as this collection's index expects (writes and KNN queries)."""
        return codec.vector_bytes(np.asarray(vector, dtype=np.float32), self.vector_type)

    def vector_from_blob(self, raw: bytes | None) -> np.ndarray | None:
        """A stored vector blob of this collection as float32."""
        return codec.vector_from_bytes(raw, self.vector_type, self.index_params.dim)

    def from_fields(self, fields: dict[str, bytes], *, with_vector: bool = False) -> Memory:
        """A Memory from a memory hash of this collection (vector in its stored type)."""
        return codec.from_hash(
            fields,
            with_vector=with_vector,
            vector_type=self.vector_type,
            dim=self.index_params.dim,
        )

    # ------------------------------------------------------------------ reads
    def get(self, memory_id: str, *, with_vector: bool = False) -> Memory | None:
        """The memory with *memory_id* in this collection, or None."""
        if not isinstance(memory_id, str) or not memory_id:
            return None
        fields = self.client.hgetall(self.keys.memory(memory_id))
        if not fields:
            return None
        memory = self.from_fields(
            {k.decode(): v for k, v in fields.items()}, with_vector=with_vector
        )
        self.overlay_access([memory])
        return memory

    _get_by_id = get

    def get_many(self, ids: Sequence[str], *, with_vector: bool = False) -> dict[str, Memory]:
        """Fetch several memories in one round trip; missing ids are left out."""
        pipe = self.client.pipeline(transaction=False)
        for memory_id in ids:
            pipe.hgetall(self.keys.memory(memory_id))
        out: dict[str, Memory] = {}
        for memory_id, fields in zip(ids, pipe.execute(), strict=True):
            if fields:
                out[memory_id] = self.from_fields(
                    {k.decode(): v for k, v in fields.items()}, with_vector=with_vector
                )
        self.overlay_access(list(out.values()))
        return out

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors by id (memories still pending have none)."""
        pipe = self.client.pipeline(transaction=False)
        for memory_id in ids:
            pipe.hget(self.keys.memory(memory_id), codec.F.VEC)
        out: dict[str, np.ndarray] = {}
        for memory_id, raw in zip(ids, pipe.execute(), strict=True):
            vec = self.vector_from_blob(raw)
            if vec is not None:
                out[memory_id] = vec
        return out

    def fields_of(self, ids: Sequence[str], *names: str) -> list[tuple[str, ...]]:
        """Some stored fields (:class:`codec.F` names) of each of *ids* as text, one round
        trip; ``""`` for an unset field or a missing memory. For readers that need a
        memory's state, not the memory (the write pipeline's job bookkeeping)."""
        pipe = self.client.pipeline(transaction=False)
        for memory_id in ids:
            pipe.hmget(self.keys.memory(memory_id), *names)
        return [tuple(as_text(v) for v in row) for row in pipe.execute()]

    def exists(self, memory_id: str) -> bool:
        return bool(self.client.exists(self.keys.memory(memory_id)))

    def count(self) -> int:
        """Number of memories in the collection (superseded and expired included)."""
        return total(self.client, self.keys.index, "*")

    def iter_memories(
        self,
        query: str = "*",
        *,
        batch_size: int = 1000,
        with_vector: bool = False,
        sortby: str | None = None,
    ) -> Iterator[list[Memory]]:
        """Stream every memory matching *query* in batches (bounded memory at any size)."""
        for keys in iter_keys(
            self.client, self.keys.index, query, batch_size=batch_size, sortby=sortby
        ):
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.hgetall(key)
            batch = []
            for fields in pipe.execute():
                if fields:
                    batch.append(
                        self.from_fields(
                            {k.decode(): v for k, v in fields.items()}, with_vector=with_vector
                        )
                    )
            if batch:
                yield self.overlay_access(batch)

    def set_raw_fields(self, updates: Mapping[str, Mapping[str, str]]) -> None:
        """Set stored fields of existing memories as they are (``{id: {field: value}}``),
        keeping their access documents in step: how benchmarks and tests backdate
        memories. Plumbing: no validation, no journal, and a vanished id stays gone."""
        if not updates:
            return
        pipe = self.client.pipeline(transaction=False)
        for memory_id, mapping in updates.items():
            keys = [self.keys.memory(memory_id), self.keys.access_doc(memory_id)]
            if codec.F.CREATED_AT in mapping:  # the exact copy searches return stays in step
                mapping = {**mapping, codec.F.CREATED: mapping[codec.F.CREATED_AT]}
            args = list(itertools.chain.from_iterable(mapping.items()))
            self.scripts.set_fields(keys=keys, args=args, client=pipe)
        pipe.execute()

    def touch_many(self, memories: Sequence[Memory], now: float | None = None) -> None:
        """Bump access tracking for every hit in one pipelined write to the side hash."""
        access.touch(self.client, self.keys, self.scripts.touch, memories, now)

    def overlay_access(self, memories: list[Memory]) -> list[Memory]:
        """Give *memories* their true access counts (see :func:`access.overlay`)."""
        return access.overlay(self.client, self.keys, memories)

    def account_access(self, memories: Sequence[Memory], touch_at: float | None) -> None:
        """A recall's results: their true access counts and, with *touch_at*, this
        recall's hit of each, in one round trip (see :func:`access.account`)."""
        access.account(self.client, self.keys, self.scripts.touch, memories, touch_at)

    def flush_access(self, batch_size: int = 1000) -> int:
        """Fold pending access counts into the access documents; returns memories updated.

        Runs on every maintenance tick and before decay and stats aggregate on the
        indexed ``access_count``/``last_accessed``; reads are exact anyway. A fold never
        writes a memory hash, so it never re-indexes a vector (ADR 0075). While a
        collection from before access documents is backfilled, each tick gives a batch
        of its memories theirs.
        """
        if not self._access_ready:
            self._access_ready = access.backfill(self.client, self.keys)
        names = self.client.hscan_iter(self.keys.access, match="n:*", count=batch_size)
        return sum(
            self.fold_ids([name.decode()[2:] for name, _ in chunk])
            for chunk in batched(names, batch_size)
        )

    def fold_ids(self, ids: Sequence[str]) -> int:
        """Fold the pending access counts of *ids* into their access documents, in one
        round trip; returns how many had any."""
        return access.fold(self.client, self.keys, self.scripts.fold, ids)

    @property
    def aggregate_index(self) -> str:
        """The index the access-reading aggregates (decay, health, browse by decay or last
        access) query: the access index once the collection's access documents are
        complete, the memory index before. Its ``@__key`` values map back to memory keys
        with :func:`houkai.store.access.memory_key_of`."""
        if not self._access_ready:
            self._access_ready = access.is_ready(self.client, self.keys)
        return self.keys.access_index if self._access_ready else self.keys.index

    # ------------------------------------------------------------------ settings
    @property
    def conflict_policy(self) -> str:
        """The default ``on_conflict`` policy of this store."""
        return self._conflict_policy

    @property
    def conflict_threshold(self) -> float:
        """Cosine similarity from which two memories are checked for a conflict."""
        return self._conflict_threshold

    @property
    def contradiction_fn(self) -> ConflictFn | None:
        """The store's default contradiction judge (None: polarity and negation)."""
        return self._contradiction_fn


__all__ = [
    "CALL_NAMES",
    "PRIMITIVES",
    "CallableEmbedder",
    "CoreStore",
    "coerce_remember_item",
    "journal_archive_dir",
]
