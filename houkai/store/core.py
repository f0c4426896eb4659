"""The core of ``MemoryStore``: connection, validation, writes, reads.

Everything else on the store (recall, packing, graph, conflicts, journal
queries, lifecycle, portability, observability) is a mixin in this package
that builds on these primitives, so each concern lives in one small module.
"""

from __future__ import annotations

import abc
import contextlib
import itertools
import logging
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import redis

from ..db.connection import connect
from ..db.journal import Journal, JournalEntry
from ..db.keys import Keys, validate_collection
from ..db.schema import (
    EXACT_PENDING,
    MEMORY_FIELDS,
    IndexParams,
    drop_index,
    ensure_index,
    exact_filled,
    validate_vector_type,
)
from ..domain.config import Settings, get_settings
from ..domain.model import (
    CONFLICT_POLICIES,
    LIST_SORTS,
    MEMORY_TYPES,
    REMEMBER_ITEM_FIELDS,
    Conflict,
    ConflictError,
    ConflictFn,
    HybridWeights,
    ImportanceFn,
    Link,
    Memory,
    MemoryNotFound,
    RememberItem,
    Reranker,
    ValidationError,
    ValidationTypeError,
    check_memory,
    content_hash,
    new_id,
    resolve_expiry,
    validate_choice,
    validate_importance,
    validate_polarity,
    validate_source,
    validate_tags,
    validate_text,
)
from ..domain.scope import scope_filters, validate_message_ids, validate_scope
from ..engines.embeddings import DEFAULT_MODEL_NAME, Embedder, QueryCache, get_embedder, query_cache
from ..engines.importance import score_importance
from . import access, codec, lexstats, specificity
from .graph import delete_memory_lua
from .search import Hit, batched, iter_keys, search, total
from .seed_collection import CollectionName

log = logging.getLogger(__name__)

# KEYS: memory, lexstats, access document. ARGV: incoming-set prefix, memory id.
# Deletes one memory with its BM25 contribution, its outgoing reverse-index entries
# and its access document, atomically, and returns the hash it deleted (empty when
# there was none) for the journal, its access document's counts last (they win).
_DELETE_LUA = (
    """
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return fields end
local own = redis.call('HMGET', KEYS[3], 'last_accessed', 'access_count')
if own[1] then
  fields[#fields + 1] = 'last_accessed'
  fields[#fields + 1] = own[1]
end
if own[2] then
  fields[#fields + 1] = 'access_count'
  fields[#fields + 1] = own[2]
end
"""
    + delete_memory_lua("KEYS[1]", "KEYS[2]", "ARGV[1]", "ARGV[2]", "KEYS[3]")
    + "return fields\n"
)

_UNSET: Any = object()  # "leave unchanged" where None is meaningful (edit's source)
# Access tracking goes to a side hash, never to the indexed memory hash: any
# write to an indexed hash makes RediSearch re-index the whole document, vector
# included, which cost ~10 ms per recall. KEYS: memory, access hash.
# ARGV: id, now. Only existing memories: a forgotten one never comes back.
_TOUCH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'n:' .. ARGV[1], 1)
  redis.call('HSET', KEYS[2], 't:' .. ARGV[1], ARGV[2])
  return 1
end
return 0
"""

CALL_NAMES: tuple[str, ...] = (
    "remember",
    "recall",
    "forget",
    "edit",
    "supersede",
    "link",
    "unlink",
    "restore",
    "purge_expired",
    "export",
    "import",
)

# The store protocol: the primitives that the store's own mixins and its
# collaborators (the write pipeline, decay, reflection, the CLI's copy, the
# benches) build on. Public and documented, but plumbing rather than the
# memory API: they skip validation, conflict policy or journaling on purpose,
# so the async wrapper and the doors do not expose them.
PRIMITIVES: frozenset[str] = frozenset(
    {
        "build_memory",
        "encode",
        "query_vector",
        "knn_exact",
        "write",
        "delete",
        "journal_append",
        "journal_append_many",
        "maybe_archive_journal",
        "count_call",
        "vector_blob",
        "vector_from_blob",
        "from_fields",
        "overlay_access",
        "set_raw_fields",
        "content_counts_stale",
        "created_slices",
        "stale_aggregate",
        "wait_refreshes",
        "fold_ids",
        "touch_many",
        "check_conflicts",
        "apply_conflict_policy",
        "apply_conflict_policy_many",
        "reindex_links",
        "find_entry",
    }
)


class CallableEmbedder:
    """Adapts a seed-style ``embedding_function(texts) -> list[list[float]]``."""

    def __init__(self, fn: Callable[[list[str]], Any], name: str = "custom") -> None:
        self.fn = fn
        self.name = name
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = int(self.encode(["dimension probe"]).shape[1])
        return self._dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        matrix = np.asarray(self.fn(list(texts)), dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix.reshape(1, -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        self._dimension = int(matrix.shape[1]) if matrix.size else self._dimension
        return matrix / norms


def coerce_remember_item(item: str | RememberItem | Mapping[str, Any]) -> dict[str, Any]:
    """One ``remember_many`` entry as ``remember()`` keyword arguments."""
    if isinstance(item, str):
        return {"text": item}
    if isinstance(item, RememberItem):
        return {f: getattr(item, f) for f in REMEMBER_ITEM_FIELDS}
    if isinstance(item, Mapping):
        unknown = set(item) - set(REMEMBER_ITEM_FIELDS)
        if unknown:
            raise ValidationError(
                f"unknown remember item field(s): {sorted(unknown)} "
                f"(allowed: {', '.join(REMEMBER_ITEM_FIELDS)})"
            )
        if "text" not in item:
            raise ValidationError("each remember_many item needs a 'text' field")
        return dict(item)
    raise ValidationTypeError(
        f"remember_many item must be a string, RememberItem or mapping — got {type(item).__name__}"
    )


# The seed rotated its file journal at ``journal_rotate_mb``; houkai caps the
# stream by entries. A journaled mutation (with its snapshots) is about 1 KiB.
_JOURNAL_ENTRY_BYTES = 1024
# How many journal appends pass between two checks of the stream's length.
ARCHIVE_CHECK_EVERY = 256
#: How long a store trusts the collection size it read for :meth:`CoreStore.knn_exact`.
SIZE_RECHECK_S = 5.0
_UNSAFE_PATH = re.compile(r"[^A-Za-z0-9_.\-]")


def journal_archive_dir(settings: Settings, key_prefix: str) -> Path:
    """``<journal_archive_dir or data_dir/journal-archive>/<key prefix>``.

    One sub-directory per key prefix, so two deployments sharing a data
    directory never mix their collections' histories.
    """
    base = (
        Path(settings.journal_archive_dir)
        if settings.journal_archive_dir
        else (Path(settings.data_dir) / "journal-archive")
    )
    return base / (_UNSAFE_PATH.sub("_", key_prefix) or "_")


def _journal_settings(
    s: Settings, journal_path: str | os.PathLike[str] | None, rotate_mb: int | None
) -> Settings:
    """Map the seed's file-journal arguments onto houkai's journal settings.

    ``journal_path`` (the seed's ``journal.log``): its directory receives the
    gzip archives; ``journal_rotate_mb``: the live stream keeps about that many
    MiB of entries before older ones are archived.
    """
    changes: dict[str, Any] = {}
    if journal_path is not None:
        changes["journal_archive_dir"] = str(Path(journal_path).expanduser().parent)
    if rotate_mb is not None:
        if isinstance(rotate_mb, bool) or not isinstance(rotate_mb, int | float) or rotate_mb <= 0:
            raise ValidationError(
                f"journal_rotate_mb must be a positive number — got {rotate_mb!r}"
            )
        changes["journal_maxlen"] = max(1000, int(rotate_mb * 1024 * 1024 / _JOURNAL_ENTRY_BYTES))
    return s.replace(**changes) if changes else s


class CoreStore(abc.ABC):
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
        self.settings = _journal_settings(
            settings or get_settings(), journal_path, journal_rotate_mb
        )
        s = self.settings
        conflict_policy = conflict_policy or s.conflict_policy
        validate_choice(conflict_policy, CONFLICT_POLICIES, "conflict_policy")
        self.collection_name = validate_collection(collection or s.collection)
        # the name, also answering the seed's collection.count/get/update (seed_collection.py)
        self.collection: str = CollectionName(self)  # type: ignore[arg-type]
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
        new = not int(self.client.hget(self.keys.lexstats, "__N") or 0)
        self._access_ready = access.ensure_access_index(self.client, self.keys, empty=new)
        self._conflict_policy = conflict_policy
        self._conflict_threshold = (
            s.conflict_threshold if conflict_threshold is None else float(conflict_threshold)
        )
        self._contradiction_fn = contradiction_fn
        self._hybrid_weights = hybrid_weights
        self._reranker = reranker
        self._importance_fn = importance_fn or (score_importance if s.auto_importance else None)
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
        self._started = time.time()
        self._touch_script = self.client.register_script(_TOUCH_LUA)
        self._fold_script = self.client.register_script(access.FOLD_LUA)
        self._raw_fields_script = self.client.register_script(access.SET_FIELDS_LUA)
        self._write_script = self.client.register_script(lexstats.WRITE_LUA)
        self._delete_script = self.client.register_script(_DELETE_LUA)
        self._update_script = self.client.register_script(lexstats.UPDATE_LUA)

    # ------------------------------------------------------------------ plumbing
    def __repr__(self) -> str:
        return f"MemoryStore(collection={self.collection_name!r}, prefix={self.keys.prefix!r})"

    def close(self) -> None:  # noqa: B027 - a no-op on purpose, not a hook
        """Nothing to release per store: connection pools are shared per process."""

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def as_actor(self, name: str) -> Iterator[None]:
        """Temporarily attribute journal entries to *name* (e.g. 'reflection')."""
        previous = self._actor
        self._actor = name
        try:
            yield
        finally:
            self._actor = previous

    @property
    def actor(self) -> str:
        return self._actor

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
            actor=actor or self._actor,
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
                pipe = self.client.pipeline(transaction=False)
                pipe.hget(self.keys.lexstats, lexstats.DOC_COUNT_FIELD)
                pipe.hget(self.keys.meta, EXACT_PENDING)
                size, pending = pipe.execute()
                self._size_seen = int(size or 0)
                self._exact_filled = not pending or exact_filled(self.client, self.keys)
            except (redis.RedisError, ValueError):
                pass  # keep what was last read: a missing count must not fail a recall
        return self._exact_filled and self._size_seen <= self.settings.exact_knn_max

    def query_vector(self, query: str) -> np.ndarray:
        return self.query_cache.encode_query(query)

    # ------------------------------------------------------------------ building
    def build_memory(
        self,
        text: str,
        type: str | None = None,
        tags: Iterable[str] | None = (),
        importance: float | None = None,
        source: str | None = None,
        *,
        polarity: int = 0,
        expires_at: float | None = None,
        ttl_seconds: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        message_ids: Sequence[str] | None = None,
    ) -> Memory:
        """Validate inputs and build a Memory: no write, no journal, no conflict scan."""
        clean = validate_text(text)
        type = type or self.settings.default_type
        validate_choice(type, MEMORY_TYPES, "type")
        polarity = validate_polarity(polarity)
        expiry = resolve_expiry(expires_at, ttl_seconds)
        tag_list = validate_tags(tags)
        source = validate_source(source)
        if importance is None:
            if self._importance_fn is not None:
                importance = self._importance_fn(clean, type, list(tag_list))
            else:
                importance = self.settings.default_importance
        now = time.time()
        return Memory(
            id=new_id(),
            text=clean,
            type=type,
            tags=tag_list,
            importance=validate_importance(importance),
            created_at=now,
            last_accessed=now,
            source=source,
            polarity=polarity,
            expires_at=expiry,
            collection=self.collection_name,
            state="pending",
            content_hash=content_hash(clean),
            user_id=validate_scope(user_id, "user_id"),
            agent_id=validate_scope(agent_id, "agent_id"),
            session_id=validate_scope(session_id, "session_id"),
            message_ids=validate_message_ids(message_ids),
        )

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
        script = self._write_script if allowed is None else self._update_script
        for i, memory in enumerate(memories):
            vector = None if vectors is None else vectors[i]
            if vector is not None:
                memory.state, memory.error = "ready", ""
            if allowed is None:
                mapping, cleared = codec.sparse_hash(memory, vector, self.vector_type)
            else:
                keep = allowed | ({"vec", "state", "error"} if vector is not None else set())
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
        if names:
            pipe.hset(self.keys.tag_names, mapping=names)
        if own:
            pipe.execute()

    # ------------------------------------------------------------------ writes
    def remember(
        self,
        text: str,
        type: str | None = None,
        tags: Iterable[str] | None = (),
        importance: float | None = None,
        source: str | None = None,
        *,
        polarity: int = 0,
        expires_at: float | None = None,
        ttl_seconds: float | None = None,
        on_conflict: str | None = None,
        contradiction_fn: ConflictFn | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        message_ids: Sequence[str] | None = None,
    ) -> Memory:
        """Embed and store one memory; the conflict policy is README's "Links, supersede,
        conflicts". The scope ids and ``message_ids`` record whose it is and where it
        came from (see :mod:`houkai.domain.scope`)."""
        if on_conflict is not None:
            validate_choice(on_conflict, CONFLICT_POLICIES, "on_conflict")
        memory = self.build_memory(
            text,
            type,
            tags,
            importance,
            source,
            polarity=polarity,
            expires_at=expires_at,
            ttl_seconds=ttl_seconds,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            message_ids=message_ids,
        )
        policy = on_conflict or self._conflict_policy
        vector = self.encode([memory.text])
        memory.embedding = vector[0].tolist()
        if policy == "raise":
            conflicts = self.check_conflicts(
                memory, self._conflict_threshold, contradiction_fn or self._contradiction_fn
            )
            if conflicts:
                raise ConflictError(conflicts)
        self.write([memory], vector)
        self.count_call("remember")
        self.journal_append("remember", memory.id, after=memory.to_dict())
        if policy in ("warn", "supersede"):
            self.apply_conflict_policy(memory, policy, contradiction_fn or self._contradiction_fn)
        return memory

    def remember_many(
        self,
        items: Iterable[str | RememberItem | Mapping[str, Any]],
        *,
        batch_size: int = 128,
        on_conflict: str | None = None,
        contradiction_fn: ConflictFn | None = None,
        sequence: bool = False,
    ) -> list[Memory]:
        """Store many memories with batched embedding; validation is all-or-nothing.

        ``sequence=True`` marks the items as one ordered run (a conversation, a
        document's chunks): each memory gets a ``follows`` link to the one before
        it, so recall's context stage can score a hit with its neighbours.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValidationError("batch_size must be an integer >= 1")
        policy = on_conflict or self._conflict_policy
        validate_choice(policy, CONFLICT_POLICIES, "on_conflict")
        if policy == "raise":
            raise ValidationError(
                "on_conflict='raise' is not supported by remember_many() — bulk rollback is "
                "ill-defined; use remember() per item"
            )
        built = [self.build_memory(**coerce_remember_item(item)) for item in items]
        if sequence:
            for before, memory in itertools.pairwise(built):
                memory.links.append(Link(to=before.id, rel="follows"))
        for start in range(0, len(built), batch_size):
            chunk = built[start : start + batch_size]
            vectors = self.encode([m.text for m in chunk])
            for memory, vector in zip(chunk, vectors, strict=True):
                memory.embedding = vector.tolist()
            self.write(chunk, vectors)
            if sequence:
                self.reindex_links(chunk)
            self.count_call("remember", len(chunk))
            self.journal_append_many("remember", ((m.id, None, m.to_dict()) for m in chunk))
        if policy in ("warn", "supersede") and built:
            self.apply_conflict_policy_many(
                built, policy, contradiction_fn or self._contradiction_fn
            )
        return built

    def edit(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        type: str | None = None,
        tags: Iterable[str] | None = None,
        importance: float | None = None,
        polarity: int | None = None,
        expires_at: float | None = None,
        source: str | None = _UNSET,
    ) -> Memory:
        """Update fields in place, keeping id, links, supersede state and access tracking.

        Omitted fields stay; ``source=None`` clears the source; ``expires_at=0``
        clears a TTL. A changed text is re-embedded. A call that changes nothing
        writes nothing and journals nothing.
        """
        current = self.get(memory_id)
        if current is None:
            raise MemoryNotFound(memory_id)
        updated = Memory.from_dict(current.to_dict())
        if text is not None:
            updated.text = validate_text(text)
            updated.content_hash = content_hash(updated.text)
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
            updated.type = type
        if tags is not None:
            updated.tags = validate_tags(tags)
        if importance is not None:
            updated.importance = validate_importance(importance)
        if polarity is not None:
            updated.polarity = validate_polarity(polarity)
        if expires_at is not None:
            updated.expires_at = resolve_expiry(expires_at, None)
        if source is not _UNSET:
            updated.source = validate_source(source)
        before = current.to_dict()
        changed = [name for name, value in updated.to_dict().items() if value != before[name]]
        if not changed:
            return current
        vector = None
        if updated.text != current.text:
            vector = self.encode([updated.text])
            updated.embedding = vector[0].tolist()
        pipe = self.client.pipeline(transaction=False)
        self.write([updated], vector, pipe, fields=changed)
        if not pipe.execute()[0]:
            raise MemoryNotFound(memory_id)
        self.count_call("edit")
        self.journal_append("edit", memory_id, before=current.to_dict(), after=updated.to_dict())
        return updated

    def forget(self, memory_id: str) -> bool:
        """Hard-delete one memory. False when it does not exist.

        Read and delete are one script, so the journal holds exactly what was
        deleted (a link or edit landing just before is in it, and undone with it).
        """
        if not isinstance(memory_id, str) or not memory_id:
            return False
        raw = self._delete_script(
            keys=[
                self.keys.memory(memory_id),
                self.keys.lexstats,
                self.keys.access_doc(memory_id),
            ],
            args=[self.keys.incoming_prefix, memory_id],
        )
        if not raw:
            return False
        fields = {_field_name(raw[i]): raw[i + 1] for i in range(0, len(raw), 2)}
        before = self.overlay_access([codec.from_hash(fields)])[0]
        self.client.hdel(self.keys.access, f"n:{memory_id}", f"t:{memory_id}")
        self.count_call("forget")
        self.journal_append("forget", memory_id, before=before.to_dict())
        return True

    def delete(self, memories: Sequence[Memory]) -> None:
        """Delete memories and their reverse-link entries in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for memory in memories:
            self._delete_script(
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

    def nuke(self) -> int:
        """Delete every memory of this collection; returns how many were deleted."""
        deleted = 0
        for batch in self._scan_keys(self.keys.memory_prefix + "*"):
            deleted += int(self.client.unlink(*batch))
        for batch in self._scan_keys(self.keys.incoming_prefix + "*"):
            self.client.unlink(*batch)
        for batch in self._scan_keys(self.keys.access_doc_prefix + "*"):
            self.client.unlink(*batch)
        self.client.delete(
            self.keys.tag_names,
            self.keys.lexstats,
            self.keys.access,
            self.keys.inflight,
            self.keys.aggregate_cache,
            self.keys.findability,
        )
        specificity.FREQUENCIES.forget(self.keys.lexstats)  # this process's; others age out
        self.journal_append("nuke", "", meta={"deleted": deleted})
        return deleted

    def _scan_keys(self, pattern: str, batch: int = 1000) -> Iterator[list[bytes]]:
        return batched(self.client.scan_iter(match=pattern, count=batch), batch)

    def drop(self) -> int:
        """Delete the collection entirely: memories, index, journal, metrics, registry entry."""
        deleted = self.nuke()  # memories, reverse links, tag names, BM25 and access hashes
        drop_index(self.client, self.keys)
        access.drop_access_index(self.client, self.keys)
        self.client.delete(
            self.keys.meta,
            self.keys.journal,
            self.keys.metrics,
            self.keys.latency,
            self.keys.llm_usage,
        )
        self.client.srem(Keys.registry(self.keys.prefix), self.collection_name)
        return deleted

    # ------------------------------------------------------------------ vectors
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
            pipe.hget(self.keys.memory(memory_id), "vec")
        out: dict[str, np.ndarray] = {}
        for memory_id, raw in zip(ids, pipe.execute(), strict=True):
            vec = self.vector_from_blob(raw)
            if vec is not None:
                out[memory_id] = vec
        return out

    def exists(self, memory_id: str) -> bool:
        return bool(self.client.exists(self.keys.memory(memory_id)))

    def count(self) -> int:
        """Number of memories in the collection (superseded and expired included)."""
        return total(self.client, self.keys.index, "*")

    def _hits_to_memories(self, hits: Sequence[Hit]) -> list[Memory]:
        return self.overlay_access([codec.from_hash(h.fields) for h in hits])

    def list_recent(
        self,
        limit: int = 20,
        include_superseded: bool = False,
        include_expired: bool = False,
        *,
        type: str | None = None,
        tag: str | None = None,
        source: str | None = None,
        since: float | None = None,
        sort: str = "created",
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[Memory]:
        """Newest first (by *sort*: created, importance or accessed), hiding superseded and
        expired memories unless asked; every filter runs in RediSearch."""
        from ..db.filters import filter_expr

        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValidationError(f"limit must be an integer >= 0 — got {limit!r}")
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
        validate_choice(sort, tuple(LIST_SORTS), "sort")
        query = filter_expr(
            type=type,
            tag=tag,
            source=source,
            since=since,
            include_superseded=include_superseded,
            include_expired=include_expired,
            scope=scope_filters(user_id=user_id, agent_id=agent_id, session_id=session_id),
        )
        index = self.aggregate_index if sort == "accessed" else self.keys.index
        if index != self.keys.index:  # last access is the access documents' to sort by
            _, hits = search(
                self.client, index, query, sortby=("last_accessed", "DESC"), limit=limit,
                nocontent=True,
            )  # fmt: skip
            prefix = self.keys.access_doc_prefix
            ids = [hit.key[len(prefix) :] for hit in hits]
            found = self.get_many(ids)
            return [found[i] for i in ids if i in found]
        _, hits = search(
            self.client,
            index,
            query,
            return_fields=MEMORY_FIELDS,
            sortby=(LIST_SORTS[sort], "DESC"),
            limit=limit,
        )
        return self._hits_to_memories(hits)

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
            args = list(itertools.chain.from_iterable(mapping.items()))
            self._raw_fields_script(keys=keys, args=args, client=pipe)
        pipe.execute()

    def touch_many(self, memories: Sequence[Memory], now: float | None = None) -> None:
        """Bump access tracking for every hit in one pipelined write to the side hash."""
        if not memories:
            return
        stamp = time.time() if now is None else now
        pipe = self.client.pipeline(transaction=False)
        for memory in memories:
            self._touch_script(
                keys=[self.keys.memory(memory.id), self.keys.access],
                args=[memory.id, repr(stamp)],
                client=pipe,
            )
        pipe.execute()
        for memory in memories:
            memory.access_count += 1
            memory.last_accessed = stamp

    def overlay_access(self, memories: list[Memory]) -> list[Memory]:
        """Give *memories* their true access counts: the access document's (the memory
        hash's own are only the values it was written with) plus recalls not yet folded.
        One round trip."""
        todo = [m for m in memories if not getattr(m, "_access_overlaid", False)]
        if not todo:
            return memories
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.keys.access, [f"{p}:{m.id}" for m in todo for p in ("n", "t")])
        for memory in todo:
            pipe.hmget(self.keys.access_doc(memory.id), *access.ACCESS_FIELDS)
        values, *docs = pipe.execute()
        for i, memory in enumerate(todo):
            memory._access_overlaid = True  # type: ignore[attr-defined]  # a per-object flag
            last, count = docs[i]
            if last is not None:
                memory.last_accessed = float(last)
            if count is not None:
                memory.access_count = int(float(count))
            n, t = values[2 * i], values[2 * i + 1]
            if n:
                memory.access_count += int(n)
            if t:
                memory.last_accessed = max(memory.last_accessed, float(t))
        return memories

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
        stamps = self.client.hmget(self.keys.access, [f"t:{i}" for i in ids])
        pipe = self.client.pipeline(transaction=False)
        for memory_id, stamp in zip(ids, stamps, strict=True):
            self._fold_script(
                keys=[
                    self.keys.memory(memory_id),
                    self.keys.access_doc(memory_id),
                    self.keys.access,
                ],
                args=[memory_id, (stamp or b"0").decode()],
                client=pipe,
            )
        return sum(1 for r in pipe.execute() if r)

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

    # ------------------------------------------------------------------ hooks
    # Concerns of other mixins that the core's own writes rely on. Declared
    # here, abstract, so a store that composes the core without them fails at
    # construction instead of silently skipping conflict checks.
    @abc.abstractmethod
    def check_conflicts(
        self, memory: Memory, threshold: float, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Conflicts of *memory* with stored memories (ConflictsMixin)."""

    @abc.abstractmethod
    def apply_conflict_policy(
        self, memory: Memory, policy: str, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Run *policy* for a just-stored memory (ConflictsMixin)."""

    @abc.abstractmethod
    def apply_conflict_policy_many(
        self, memories: Sequence[Memory], policy: str, contradiction_fn: ConflictFn | None
    ) -> list[Conflict]:
        """Run *policy* over a just-stored batch (ConflictsMixin)."""

    @abc.abstractmethod
    def reindex_links(self, memories: Iterable[Memory], pipe: Any = None) -> None:
        """Record the outgoing edges of *memories* in the reverse index (GraphMixin)."""


def _field_name(raw: bytes | str) -> str:
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
