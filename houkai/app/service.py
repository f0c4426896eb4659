"""The service layer: one method per seed MCP tool (§8), shared by every front door.

REST, MCP, the CLI and the agent examples call :class:`MemoryService`; it
coerces and validates arguments once, routes writes through the ingestion
pipeline, calls the store, and returns the seed tool's JSON-able shape. Errors
are raised (``houkai.domain.errors`` types, ``ValueError``, ``MemoryNotFound``,
``ConflictError``) and each front door maps them with :func:`houkai.domain.errors.classify`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..db.keys import Keys, validate_collection
from ..domain.coerce import (
    as_bool,
    as_float,
    as_int,
    as_mapping,
    as_optional_bool,
    as_str,
    as_str_list,
    as_timestamp,
)
from ..domain.config import Settings, get_settings
from ..domain.errors import BadRequest, HoukaiError, NotFound, Unavailable
from ..domain.model import (
    REMEMBER_ITEM_FIELDS,
    Conflict,
    ConflictError,
    ExpandSpec,
    HybridWeights,
    Memory,
    MemoryNotFound,
    ValidationError,
    validate_choice,
)
from . import operations
from .operations import DISPATCHABLE, check_arguments

log = logging.getLogger(__name__)

_UNSET: Any = object()
NUKE_CONFIRM = "DELETE ALL"
_ENTRY_ID = re.compile(r"^\d{1,20}-\d{1,20}$")
MAX_K = 10_000
# The pipeline's words for a server path with nothing to ingest (houkai.pipeline.write).
_NOTHING_TO_INGEST = ("no such file or folder", "no matching .md/.txt/.jsonl files")

# Tool name → service method name, and the seed's 23 tools: generated from the
# operation registry (houkai.app.operations), where each operation is declared once.
TOOLS: dict[str, str] = {name: operations.get(name).service_method for name in DISPATCHABLE}
SEED_TOOLS: tuple[str, ...] = operations.seed_tools()


# --------------------------------------------------------------------------- shapes
def memory_to_dict(
    memory: Memory, *, score: float | None = None, explain: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A memory as the REST/MCP JSON shape (the seed's ``_mem_dict`` plus ``state``)."""
    out: dict[str, Any] = {
        "id": memory.id,
        "text": memory.text,
        "type": memory.type,
        "tags": list(memory.tags),
        "importance": memory.importance,
        "source": memory.source,
        "created_at": memory.created_at,
        "last_accessed": memory.last_accessed,
        "access_count": memory.access_count,
        "polarity": memory.polarity,
        "links": [{"to": link.to, "rel": link.rel} for link in memory.links],
        "superseded_by": memory.superseded_by or None,
        "superseded_at": memory.superseded_at or None,
        "expires_at": memory.expires_at or None,
        "collection": memory.collection or None,
        "state": memory.state,
    }
    if memory.error:
        out["error"] = memory.error
    if score is not None:
        out["score"] = round(float(score), 4)
    if explain is not None:
        out["explain"] = explain
    return out


def conflict_to_dict(conflict: Conflict | Mapping[str, Any]) -> dict[str, Any]:
    """The seed's find_conflicts row ``{kind, reason, similarity, a, b}``."""
    if isinstance(conflict, Mapping):
        return dict(conflict)
    return {
        "kind": conflict.kind,
        "reason": conflict.reason,
        "similarity": round(float(conflict.similarity), 4),
        "a": {"id": conflict.a.id, "text": conflict.a.text[:120], "type": conflict.a.type},
        "b": {"id": conflict.b.id, "text": conflict.b.text[:120], "type": conflict.b.type},
    }


def conflict_payload(exc: ConflictError) -> dict[str, Any]:
    """The seed's refused-remember shape ``{stored: false, conflicts: [...]}``."""
    return {"stored": False, "conflicts": [conflict_to_dict(c) for c in exc.conflicts]}


def _entry_summary(entry: Any) -> str:
    summary = getattr(entry, "summary", None)
    if callable(summary):
        try:
            return str(summary())
        except Exception:  # a summary is cosmetic
            pass
    text = ""
    for snap in (entry.after, entry.before):
        if isinstance(snap, dict) and snap.get("text"):
            text = str(snap["text"])
            break
    head = f"{entry.op} {entry.id[:8]}" if entry.id else entry.op
    return f"{head}: {text[:60]}" if text else head


def entry_to_dict(entry: Any, *, full: bool = True) -> dict[str, Any]:
    """A journal entry as JSON: ``{ts, op, actor, id, [before, after,] meta, summary}``."""
    out: dict[str, Any] = {"ts": entry.ts, "op": entry.op, "actor": entry.actor, "id": entry.id}
    if full:
        out["before"] = entry.before
        out["after"] = entry.after
    out["meta"] = entry.meta
    out["summary"] = _entry_summary(entry)
    if getattr(entry, "stream_id", ""):
        out["entry_id"] = entry.stream_id
    return out


def _pack_to_dict(pack: Any) -> dict[str, Any]:
    return {
        "text": pack.text,
        "used_tokens": pack.used_tokens,
        "budget": pack.budget,
        "truncated": pack.truncated,
        "items": [
            {**memory_to_dict(p.memory), "score": round(float(p.score), 4), "tokens": p.tokens}
            for p in pack.items
        ],
        "compressed_groups": [
            {
                "ids": [m.id for m in g.memories],
                "text": g.text,
                "tokens": g.tokens,
                "count": len(g.memories),
            }
            for g in getattr(pack, "compressed_groups", None) or []
        ],
    }


def _status_dict(status: Any) -> dict[str, Any]:
    to_dict = getattr(status, "to_dict", None)
    return to_dict() if callable(to_dict) else dict(vars(status))


# --------------------------------------------------------------------------- service
class MemoryService:
    """Every front door's entry point: validated, seed-shaped operations over stores."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        actor: str = "lib",
        store_factory: Callable[[str], Any] | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.actor = actor
        self._store_factory = store_factory
        self._stores: dict[str, Any] = {}
        self._pipelines: dict[str, Any] = {}
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ plumbing
    def _collection(self, collection: str | None) -> str:
        name = self.settings.collection if collection in (None, "") else collection
        if not isinstance(name, str):
            raise BadRequest(f"collection: expected a string, got {type(name).__name__}")
        try:
            return validate_collection(name)
        except ValueError as exc:
            raise BadRequest(str(exc)) from None

    def store(self, collection: str | None = None):
        """The store for *collection* (default: the configured one), created once."""
        name = self._collection(collection)
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                if self._store_factory is not None:
                    store = self._store_factory(name)
                else:
                    from ..store import MemoryStore

                    store = MemoryStore(collection=name, settings=self.settings, actor=self.actor)
                self._stores[name] = store
            return store

    def _read_store(self, collection: str | None):
        """The store for a read: an unknown non-default collection is a 404, not created."""
        name = self._collection(collection)
        if name not in self._stores and name != self.settings.collection:
            client = self.store(self.settings.collection).client
            if not client.sismember(Keys.registry(self.settings.key_prefix), name):
                raise NotFound(f"no collection named {name!r}")
        return self.store(name)

    def has_collection(self, collection: str) -> bool:
        name = self._collection(collection)
        if name in self._stores:
            return True
        client = self.store(self.settings.collection).client
        return bool(client.sismember(Keys.registry(self.settings.key_prefix), name))

    def pipeline(self, collection: str | None = None):
        """The ingestion pipeline of a collection, or None while it is unavailable."""
        store = self.store(collection)
        name = store.collection_name
        with self._lock:
            if name not in self._pipelines:
                try:
                    from ..pipeline.write import Pipeline
                except ImportError:
                    log.debug("houkai.pipeline.write unavailable; writing synchronously")
                    self._pipelines[name] = None
                else:
                    self._pipelines[name] = Pipeline(store)
            return self._pipelines[name]

    @staticmethod
    def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call a store method, turning a bare KeyError (unknown id) into a 404."""
        try:
            return fn(*args, **kwargs)
        except MemoryNotFound:
            raise
        except KeyError as exc:
            missing = exc.args[0] if exc.args else "memory"
            raise NotFound(f"no memory with id {missing!r}") from None

    def _require_memory(self, store: Any, memory_id: str) -> Memory:
        memory = store.get(memory_id)
        if memory is None:
            raise MemoryNotFound(memory_id)
        return memory

    @staticmethod
    def _id(value: Any, name: str = "memory_id") -> str:
        return as_str(value, name, required=True, max_len=256)  # type: ignore[return-value]

    @staticmethod
    def _enum(value: Any, name: str) -> str | None:
        return as_str(value, name, max_len=64)

    # ------------------------------------------------------------------ writes
    def _remember_item(self, item: Any, position: int | None = None) -> dict[str, Any]:
        """One remember item with JSON-ish values coerced to the store's types."""
        where = "" if position is None else f"items[{position}]."
        if isinstance(item, str):
            return {"text": item}
        if not isinstance(item, Mapping):
            raise BadRequest(f"{where or 'item '}must be a string or an object with 'text'")
        unknown = sorted(set(item) - set(REMEMBER_ITEM_FIELDS))
        if unknown:
            raise BadRequest(
                f"{where}unknown field(s) {unknown}; allowed: {', '.join(REMEMBER_ITEM_FIELDS)}"
            )
        out: dict[str, Any] = {"text": as_str(item.get("text"), f"{where}text", required=True)}
        if item.get("type") is not None:
            out["type"] = self._enum(item["type"], f"{where}type")
        tags = as_str_list(item.get("tags"), f"{where}tags")
        if tags is not None:
            out["tags"] = tags
        for key in ("importance", "expires_at", "ttl_seconds"):
            value = as_float(item.get(key), f"{where}{key}")
            if value is not None:
                out[key] = value
        polarity = as_int(item.get("polarity"), f"{where}polarity")
        if polarity is not None:
            out["polarity"] = polarity
        if item.get("source") is not None:
            out["source"] = as_str(item["source"], f"{where}source")
        return out

    def _wait_result(self, pipeline: Any, job: Any, timeout: float | None) -> tuple[Any, bool]:
        """``(status, finished)``; a timeout leaves the job running and is not an error."""
        try:
            return pipeline.wait(job, timeout=timeout), True
        except TimeoutError:
            return pipeline.job(job.id), False

    def remember(
        self,
        text: str,
        type: str | None = None,
        tags: list[str] | None = None,
        importance: float | None = None,
        source: str | None = None,
        on_conflict: str | None = None,
        polarity: int | None = 0,
        expires_at: float | None = None,
        ttl_seconds: float | None = None,
        *,
        wait: bool = True,
        timeout: float | None = None,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Store one memory. ``wait=True`` returns once it is recallable (read-your-writes).

        Returns the seed's ``{id, stored, importance, expires_at}`` plus ``state``,
        ``job_id`` and, when finished, ``memory``. ``on_conflict="raise"`` with a
        conflict raises :class:`ConflictError` (when waiting).
        """
        item = self._remember_item(
            {
                "text": text,
                "type": type,
                "tags": tags,
                "importance": importance,
                "source": source,
                "polarity": polarity,
                "expires_at": expires_at,
                "ttl_seconds": ttl_seconds,
            }
        )
        policy = self._enum(on_conflict, "on_conflict")
        wait = as_bool(wait, "wait", True)
        timeout = as_float(timeout, "timeout", lo=0)
        store = self.store(collection)
        pipeline = self.pipeline(collection)
        if pipeline is None:
            memory = store.remember(**item, on_conflict=policy)
            return self._remember_reply(memory, job_id=None, finished=True)
        job = pipeline.submit([item], on_conflict=policy)
        memory_id = job.memory_ids[0]
        if not wait:
            memory = store.get(memory_id)
            reply = {"id": memory_id, "stored": True, "state": "pending", "job_id": job.id}
            if memory is not None:
                reply.update(
                    importance=memory.importance,
                    expires_at=memory.expires_at or None,
                    state=memory.state,
                )
            return reply
        status, finished = self._wait_result(pipeline, job, timeout)
        conflicts = list(getattr(status, "conflicts", None) or [])
        if getattr(status, "rejected", 0) and conflicts:
            error = ConflictError([])
            error.conflicts = conflicts  # dicts recorded on the job
            raise error
        memory = store.get(memory_id)
        if memory is None:
            raise NotFound(
                f"memory {memory_id} was not stored (job {job.id}: "
                f"{getattr(status, 'errors', None) or 'rejected'})"
            )
        return self._remember_reply(memory, job_id=job.id, finished=finished)

    @staticmethod
    def _remember_reply(memory: Memory, *, job_id: str | None, finished: bool) -> dict[str, Any]:
        reply = {
            "id": memory.id,
            "stored": True,
            "importance": memory.importance,
            "expires_at": memory.expires_at or None,
            "state": memory.state,
            "job_id": job_id,
            "memory": memory_to_dict(memory),
        }
        if not finished:
            reply["timed_out"] = True
        return reply

    def remember_many(
        self,
        items: list[Any],
        batch_size: int | None = None,
        on_conflict: str | None = None,
        *,
        wait: bool = True,
        timeout: float | None = None,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Store many memories as one job: ``{stored, ids, job_id}`` (+ ``memories`` when waited).

        Validation is all-or-nothing; ``on_conflict="raise"`` is rejected (seed rule).
        """
        if not isinstance(items, list | tuple):
            raise BadRequest("items: expected a list of strings or objects")
        coerced = [self._remember_item(item, i) for i, item in enumerate(items)]
        batch_size = as_int(batch_size, "batch_size", lo=1, hi=100_000)
        policy = self._enum(on_conflict, "on_conflict")
        if policy == "raise":
            raise BadRequest(
                "on_conflict='raise' is not supported by remember_many (bulk "
                "rollback is ill-defined); use remember per item"
            )
        wait = as_bool(wait, "wait", True)
        timeout = as_float(timeout, "timeout", lo=0)
        store = self.store(collection)
        if not coerced:
            return {"stored": 0, "ids": [], "job_id": None, "memories": []}
        pipeline = self.pipeline(collection)
        if pipeline is None:
            kwargs: dict[str, Any] = {"on_conflict": policy}
            if batch_size is not None:
                kwargs["batch_size"] = batch_size
            memories = store.remember_many(coerced, **kwargs)
            return {
                "stored": len(memories),
                "ids": [m.id for m in memories],
                "job_id": None,
                "memories": [memory_to_dict(m) for m in memories],
            }
        job = pipeline.submit(coerced, on_conflict=policy, batch_size=batch_size)
        reply: dict[str, Any] = {
            "stored": len(job.memory_ids),
            "ids": list(job.memory_ids),
            "job_id": job.id,
        }
        if not wait:
            return reply
        status, finished = self._wait_result(pipeline, job, timeout)
        found = store.get_many(list(job.memory_ids))
        reply["memories"] = [memory_to_dict(found[i]) for i in job.memory_ids if i in found]
        reply["stored"] = len(found)
        reply["job"] = _status_dict(status) if status is not None else None
        if not finished:
            reply["timed_out"] = True
        return reply

    def ingest(
        self,
        documents: list[Any] | None = None,
        path: str | None = None,
        glob: str | None = None,
        max_chars: int | None = None,
        min_chars: int | None = None,
        chunking: str | None = None,
        *,
        wait: bool = True,
        timeout: float | None = None,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Chunk documents (or files under a server-side *path*) into memories as one job.

        ``chunking``: ``paragraph`` (default: the seed's one memory per paragraph)
        or ``pack`` (houkai's packing up to ``max_chars``).
        """
        if (documents is None) == (path is None):
            raise BadRequest("pass exactly one of documents, path")
        sizes: dict[str, Any] = {}
        for key, value in (("max_chars", max_chars), ("min_chars", min_chars)):
            number = as_int(value, key, lo=1, hi=1_000_000)
            if number is not None:
                sizes[key] = number
        chunking = as_str(chunking, "chunking")
        if chunking is not None:
            from ..pipeline.chunking import CHUNK_MODES

            validate_choice(chunking, CHUNK_MODES, "chunking")
            sizes["chunking"] = chunking
        if sizes:
            from ..pipeline.chunking import DEFAULT_MAX_CHARS, DEFAULT_MIN_CHARS

            # Merging never grows a chunk past max_chars, so a larger min_chars means
            # "merge as much as fits": clamp rather than refuse a well-formed request.
            sizes["min_chars"] = min(
                sizes.get("min_chars", DEFAULT_MIN_CHARS), sizes.get("max_chars", DEFAULT_MAX_CHARS)
            )
        wait = as_bool(wait, "wait", True)
        timeout = as_float(timeout, "timeout", lo=0)
        pipeline = self.pipeline(collection)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        if documents is not None:
            job = pipeline.ingest_documents(self._documents(documents), **sizes)
        else:
            path = str(as_str(path, "path", required=True))
            glob = as_str(glob, "glob")
            try:
                job = pipeline.ingest_path(path, glob=glob, **sizes)
            except ValidationError as exc:
                # a well-formed path that names nothing to ingest is a 404, like an unknown id
                if str(exc).endswith(_NOTHING_TO_INGEST):
                    raise NotFound(str(exc)) from None
                raise
        reply: dict[str, Any] = {"job_id": job.id, "total": job.total, "ids": list(job.memory_ids)}
        if wait:
            status, finished = self._wait_result(pipeline, job, timeout)
            reply["job"] = _status_dict(status) if status is not None else None
            if not finished:
                reply["timed_out"] = True
        return reply

    @staticmethod
    def _documents(documents: Any) -> list[dict[str, Any]]:
        if not isinstance(documents, list | tuple) or not documents:
            raise BadRequest(
                "documents: expected a non-empty list of {text, source?, tags?, type?} objects"
            )
        allowed = {"text", "source", "tags", "type"}
        out = []
        for i, doc in enumerate(documents):
            if isinstance(doc, str):
                doc = {"text": doc}
            if not isinstance(doc, Mapping):
                raise BadRequest(f"documents[{i}]: expected an object with 'text'")
            unknown = sorted(set(doc) - allowed)
            if unknown:
                raise BadRequest(
                    f"documents[{i}]: unknown field(s) {unknown}; allowed: "
                    f"{', '.join(sorted(allowed))}"
                )
            clean: dict[str, Any] = {
                "text": as_str(doc.get("text"), f"documents[{i}].text", required=True)
            }
            if doc.get("source") is not None:
                clean["source"] = as_str(doc["source"], f"documents[{i}].source")
            tags = as_str_list(doc.get("tags"), f"documents[{i}].tags")
            if tags is not None:
                clean["tags"] = tags
            if doc.get("type") is not None:
                clean["type"] = as_str(doc["type"], f"documents[{i}].type")
            out.append(clean)
        return out

    def edit(
        self,
        memory_id: str,
        text: str | None = None,
        type: str | None = None,
        tags: list[str] | None = None,
        importance: float | None = None,
        polarity: int | None = None,
        source: str | None = _UNSET,
        expires_at: float | None = None,
        clear_source: bool = False,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Update fields in place.

        ``None`` leaves a field unchanged; ``source=None`` or ``clear_source=True``
        (the seed's spelling, for callers that cannot send null) clears it;
        ``expires_at=0`` clears the TTL.

        Returns the seed's ``{ok, id, text, type, tags, importance, polarity, source, expires_at}``.
        """
        memory_id = self._id(memory_id)
        kwargs: dict[str, Any] = {}
        if text is not None:
            kwargs["text"] = as_str(text, "text")
        if type is not None:
            kwargs["type"] = self._enum(type, "type")
        if tags is not None:
            kwargs["tags"] = as_str_list(tags, "tags")
        if importance is not None:
            kwargs["importance"] = as_float(importance, "importance")
        if polarity is not None:
            kwargs["polarity"] = as_int(polarity, "polarity")
        if expires_at is not None:
            kwargs["expires_at"] = as_float(expires_at, "expires_at")
        if as_bool(clear_source, "clear_source", False):
            if source is not _UNSET and source is not None:
                raise BadRequest("pass either source or clear_source, not both")
            source = None
        if source is not _UNSET:
            kwargs["source"] = as_str(source, "source")
        if not kwargs:
            raise BadRequest("empty edit: provide at least one field to change")
        store = self.store(collection)
        memory = self._call(store.edit, memory_id, **kwargs)
        return {
            "ok": True,
            "id": memory.id,
            "text": memory.text,
            "type": memory.type,
            "tags": list(memory.tags),
            "importance": memory.importance,
            "polarity": memory.polarity,
            "source": memory.source,
            "expires_at": memory.expires_at or None,
            "memory": memory_to_dict(memory),
        }

    def retag(
        self,
        memory_id: str,
        add: list[str] | None = None,
        remove: list[str] | None = None,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Add and remove tags (a removed tag is never re-added): ``{id, tags}``."""
        store = self.store(collection)
        memory = self._require_memory(store, memory_id)
        drop = {t.strip() for t in remove or ()}
        tags = [t for t in memory.tags if t not in drop]
        tags += [t for t in add or () if t.strip() not in tags and t.strip() not in drop]
        updated = self._call(store.edit, memory_id, tags=tags)
        return {"id": updated.id, "tags": list(updated.tags)}

    def bump(self, memory_id: str, delta: str, *, collection: str | None = None) -> dict[str, Any]:
        """Change the importance by ``+N``/``-N`` or set it with ``=N`` (clamped to 0..1):
        ``{id, before, importance}``."""
        store = self.store(collection)
        memory = self._require_memory(store, memory_id)
        before = float(memory.importance)
        amount = float(delta.lstrip("="))
        new = amount if delta.startswith("=") else before + amount
        updated = self._call(store.edit, memory_id, importance=min(1.0, max(0.0, new)))
        return {"id": updated.id, "before": before, "importance": updated.importance}

    def forget(self, memory_id: str, *, collection: str | None = None) -> dict[str, Any]:
        """Hard-delete one memory: ``{deleted}`` (false when it did not exist)."""
        return {"deleted": bool(self.store(collection).forget(self._id(memory_id)))}

    def purge_expired(
        self, dry_run: bool = False, *, collection: str | None = None
    ) -> dict[str, Any]:
        dry_run = as_bool(dry_run, "dry_run")
        purged = self.store(collection).purge_expired(dry_run=dry_run)
        return {"purged": len(purged), "dry_run": dry_run, "ids": [m.id for m in purged]}

    def nuke(self, confirm: str | None = None, *, collection: str | None = None) -> dict[str, Any]:
        """Delete every memory of the collection; guarded by ``confirm="DELETE ALL"``."""
        if confirm != NUKE_CONFIRM:
            raise BadRequest(f'refusing to nuke: pass confirm="{NUKE_CONFIRM}"')
        return {"ok": True, "deleted": self.store(collection).nuke()}

    # ------------------------------------------------------------------ reads
    def get(self, memory_id: str, *, collection: str | None = None) -> dict[str, Any]:
        store = self._read_store(collection)
        return memory_to_dict(self._require_memory(store, self._id(memory_id)))

    def list_recent(
        self,
        limit: int = 20,
        include_superseded: bool = False,
        include_expired: bool = False,
        type: str | None = None,
        tag: str | None = None,
        *,
        collection: str | None = None,
    ) -> list[dict[str, Any]]:
        store = self._read_store(collection)
        memories = store.list_recent(
            limit=as_int(limit, "limit", 20, lo=0, hi=MAX_K),
            include_superseded=as_bool(include_superseded, "include_superseded"),
            include_expired=as_bool(include_expired, "include_expired"),
            type=self._enum(type, "type"),
            tag=as_str(tag, "tag"),
        )
        return [memory_to_dict(m) for m in memories]

    def _filters(
        self, type: Any, tag: Any, min_importance: Any, source: Any, since: Any, until: Any
    ) -> dict[str, Any]:
        return {
            "type": self._enum(type, "type"),
            "tag": as_str(tag, "tag"),
            "min_importance": as_float(min_importance, "min_importance"),
            "source": as_str(source, "source"),
            "since": as_timestamp(since, "since"),
            "until": as_timestamp(until, "until"),
        }

    def _ranking(
        self,
        fusion: Any,
        diversity: Any,
        dedup_threshold: Any,
        min_cosine: Any,
        graph: Any,
        expand: Any,
    ) -> dict[str, Any]:
        """The advanced recall knobs; only those given are passed (store defaults apply)."""
        out: dict[str, Any] = {}
        if fusion is not None:
            out["fusion"] = self._enum(fusion, "fusion")
        for key, value in (
            ("diversity", diversity),
            ("dedup_threshold", dedup_threshold),
            ("min_cosine", min_cosine),
        ):
            number = as_float(value, key)
            if number is not None:
                out[key] = number
        graph_weight = as_float(graph, "graph", lo=0)
        if graph_weight is not None:
            out["weights"] = HybridWeights(graph=graph_weight)
        spec = self._expand(expand)
        if spec is not None:
            out["expand"] = spec
        return out

    @staticmethod
    def _expand(value: Any) -> ExpandSpec | None:
        if value is None or value is False:
            return None
        if value is True:
            return ExpandSpec()
        spec = as_mapping(value, "expand") or {}
        allowed = {"rels", "depth", "cap", "score", "decay", "rerank"}
        unknown = sorted(set(spec) - allowed)
        if unknown:
            raise BadRequest(
                f"expand: unknown field(s) {unknown}; allowed: {', '.join(sorted(allowed))}"
            )
        kwargs: dict[str, Any] = {}
        rels = as_str_list(spec.get("rels"), "expand.rels")
        if rels:
            kwargs["rels"] = tuple(rels)
        for key in ("depth", "cap"):
            number = as_int(spec.get(key), f"expand.{key}", lo=0, hi=1000)
            if number is not None:
                kwargs[key] = number
        for key in ("score", "decay"):
            fraction = as_float(spec.get(key), f"expand.{key}")
            if fraction is not None:
                kwargs[key] = fraction
        rerank = as_optional_bool(spec.get("rerank"), "expand.rerank")
        if rerank is not None:
            kwargs["rerank"] = rerank
        return ExpandSpec(**kwargs)

    def recall(
        self,
        query: str,
        k: int = 5,
        type: str | None = None,
        tag: str | None = None,
        min_importance: float | None = None,
        source: str | None = None,
        since: Any = None,
        until: Any = None,
        mode: str = "semantic",
        overfetch: int = 4,
        include_superseded: bool = False,
        include_expired: bool = False,
        explain: bool = False,
        fusion: str | None = None,
        diversity: float | None = None,
        dedup_threshold: float | None = None,
        min_cosine: float | None = None,
        graph: float | None = None,
        expand: Any = None,
        touch: bool = True,
        stages: str | None = None,
        as_of: Any = None,
        *,
        collection: str | None = None,
    ) -> list[dict[str, Any]]:
        """Semantic or hybrid search: a list of memory dicts with ``score`` (and ``explain``)."""
        store = self._read_store(collection)
        explain = as_bool(explain, "explain")
        hits = store.recall(
            as_str(query, "query", required=True),
            k=as_int(k, "k", 5, lo=1, hi=MAX_K),
            **self._filters(type, tag, min_importance, source, since, until),
            mode=self._enum(mode, "mode") or "semantic",
            overfetch=as_int(overfetch, "overfetch", 4, lo=1, hi=100),
            include_superseded=as_bool(include_superseded, "include_superseded"),
            include_expired=as_bool(include_expired, "include_expired"),
            explain=explain,
            touch=as_bool(touch, "touch", True),
            **self._ranking(fusion, diversity, dedup_threshold, min_cosine, graph, expand),
            **self._clock(stages, as_of),
        )
        if explain:
            return [memory_to_dict(m, score=s, explain=e) for m, s, e in hits]
        return [memory_to_dict(m, score=s) for m, s in hits]

    @staticmethod
    def _clock(stages: Any, as_of: Any) -> dict[str, Any]:
        """The hybrid stages and the question's clock, only when given (store defaults)."""
        out: dict[str, Any] = {}
        if stages is not None:
            if not isinstance(stages, str | list | tuple):
                raise BadRequest(f"stages: expected a comma-separated string, got {stages!r}")
            out["stages"] = stages
        when = as_timestamp(as_of, "as_of")
        if when is not None:
            out["as_of"] = when
        return out

    def recall_pack(
        self,
        query: str,
        token_budget: int = 800,
        type: str | None = None,
        tag: str | None = None,
        min_importance: float | None = None,
        source: str | None = None,
        since: Any = None,
        until: Any = None,
        mode: str = "hybrid",
        max_items: int = 50,
        include_superseded: bool = False,
        compress: bool = False,
        compress_threshold: float = 0.30,
        compress_min_group: int = 2,
        header: str | None = None,
        fusion: str | None = None,
        diversity: float | None = None,
        dedup_threshold: float | None = None,
        min_cosine: float | None = None,
        graph: float | None = None,
        expand: Any = None,
        touch: bool = True,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """A token-budgeted context block.

        Returns ``{text, used_tokens, budget, truncated, items, compressed_groups}``.
        """
        store = self._read_store(collection)
        kwargs: dict[str, Any] = {
            "token_budget": as_int(token_budget, "token_budget", 800, lo=1, hi=1_000_000),
            **self._filters(type, tag, min_importance, source, since, until),
            "mode": self._enum(mode, "mode") or "hybrid",
            "max_items": as_int(max_items, "max_items", 50, lo=1, hi=MAX_K),
            "include_superseded": as_bool(include_superseded, "include_superseded"),
            "touch": as_bool(touch, "touch", True),
            **self._compress(compress, compress_threshold, compress_min_group),
            **self._ranking(fusion, diversity, dedup_threshold, min_cosine, graph, expand),
        }
        if header is not None:
            kwargs["header"] = as_str(header, "header", max_len=10_000)
        pack = store.recall_pack(as_str(query, "query", required=True), **kwargs)
        return _pack_to_dict(pack)

    @staticmethod
    def _compress(compress: Any, threshold: Any, min_group: Any) -> dict[str, Any]:
        return {
            "compress": as_bool(compress, "compress"),
            "compress_threshold": as_float(threshold, "compress_threshold", 0.30, lo=0, hi=1),
            "compress_min_group": as_int(min_group, "compress_min_group", 2, lo=1, hi=MAX_K),
        }

    def auto_context(
        self,
        task: str,
        token_budget: int = 800,
        max_phrases: int = 3,
        mode: str = "hybrid",
        min_cosine: float | None = None,
        header: str | None = None,
        compress: bool = False,
        compress_threshold: float = 0.30,
        compress_min_group: int = 2,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Multi-angle context pack: recall_pack's shape plus ``queries``."""
        store = self._read_store(collection)
        kwargs: dict[str, Any] = {
            "token_budget": as_int(token_budget, "token_budget", 800, lo=1, hi=1_000_000),
            "max_phrases": as_int(max_phrases, "max_phrases", 3, lo=0, hi=20),
            "mode": self._enum(mode, "mode") or "hybrid",
            **self._compress(compress, compress_threshold, compress_min_group),
        }
        min_cos = as_float(min_cosine, "min_cosine")
        if min_cos is not None:
            kwargs["min_cosine"] = min_cos
        if header is not None:
            kwargs["header"] = as_str(header, "header", max_len=10_000)
        task = str(as_str(task, "task", required=True))
        pack = store.auto_context_pack(task, **kwargs)
        reply = _pack_to_dict(pack)
        queries = list(getattr(pack, "queries", None) or [])
        if not queries:
            from ..store.packing import extract_key_phrases

            queries = [task, *extract_key_phrases(task, kwargs["max_phrases"])]
        reply["queries"] = queries
        return reply

    def stats(self, *, collection: str | None = None) -> dict[str, Any]:
        store = self._read_store(collection)
        out: dict[str, Any] = {}
        extra = getattr(store, "stats", None)
        if callable(extra):
            out.update(extra())
        out.update(count=store.count(), path=store.path, collection=store.collection_name)
        return out

    def metrics(self, *, collection: str | None = None) -> dict[str, Any]:
        return self._read_store(collection).metrics()

    # ------------------------------------------------------------------ graph
    def link(
        self, src_id: str, dst_id: str, rel: str = "related", *, collection: str | None = None
    ) -> dict[str, Any]:
        src_id, dst_id = self._id(src_id, "src_id"), self._id(dst_id, "dst_id")
        rel = self._enum(rel, "rel") or "related"
        self._call(self.store(collection).link, src_id, dst_id, rel=rel)
        return {"ok": True, "src_id": src_id, "dst_id": dst_id, "rel": rel}

    def unlink(
        self, src_id: str, dst_id: str, rel: str | None = None, *, collection: str | None = None
    ) -> dict[str, Any]:
        src_id, dst_id = self._id(src_id, "src_id"), self._id(dst_id, "dst_id")
        removed = self._call(
            self.store(collection).unlink, src_id, dst_id, rel=self._enum(rel, "rel")
        )
        return {"removed": int(removed)}

    def neighbors(
        self,
        memory_id: str,
        rel: str | None = None,
        direction: str = "both",
        depth: int = 1,
        *,
        collection: str | None = None,
    ) -> list[dict[str, Any]]:
        store = self._read_store(collection)
        memory_id = self._id(memory_id)
        self._require_memory(store, memory_id)
        hits = self._call(
            store.neighbors,
            memory_id,
            rel=self._enum(rel, "rel"),
            direction=self._enum(direction, "direction") or "both",
            depth=as_int(depth, "depth", 1, lo=1, hi=10),
        )
        return [{**memory_to_dict(m), "rel": r} for m, r in hits]

    def subgraph(
        self, memory_ids: list[str], depth: int = 1, *, collection: str | None = None
    ) -> dict[str, Any]:
        ids = as_str_list(memory_ids, "memory_ids")
        if not ids:
            raise BadRequest("memory_ids: expected a non-empty list of ids")
        store = self._read_store(collection)
        graph = self._call(store.subgraph, ids, depth=as_int(depth, "depth", 1, lo=0, hi=10))
        return {
            "nodes": [memory_to_dict(m) for m in graph.nodes.values()],
            "edges": [{"src": s, "dst": d, "rel": r} for s, d, r in graph.edges],
        }

    def find_conflicts(
        self,
        memory_id: str | None = None,
        threshold: float | None = None,
        *,
        collection: str | None = None,
    ) -> list[dict[str, Any]]:
        store = self._read_store(collection)
        if memory_id is not None:
            memory_id = self._id(memory_id)
            self._require_memory(store, memory_id)
        found = self._call(
            store.find_conflicts,
            memory_id=memory_id,
            threshold=as_float(threshold, "threshold", lo=0, hi=1),
        )
        return [conflict_to_dict(c) for c in found]

    def supersede(
        self, old_id: str, new_id: str, *, collection: str | None = None
    ) -> dict[str, Any]:
        old_id, new_id = self._id(old_id, "old_id"), self._id(new_id, "new_id")
        self._call(self.store(collection).supersede, old_id, new_id)
        return {"ok": True, "old_id": old_id, "new_id": new_id}

    def restore(self, memory_id: str, *, collection: str | None = None) -> dict[str, Any]:
        store = self.store(collection)
        memory_id = self._id(memory_id)
        self._require_memory(store, memory_id)
        return {"restored": bool(self._call(store.restore, memory_id)), "id": memory_id}

    # ------------------------------------------------------------------ audit
    def journal_tail(
        self,
        n: int = 20,
        op: str | None = None,
        since_seconds: float | None = None,
        *,
        collection: str | None = None,
    ) -> list[dict[str, Any]]:
        """Newest-first journal entries ``{ts, op, actor, id, summary, meta}``."""
        store = self._read_store(collection)
        entries = store.journal_tail(
            n=as_int(n, "n", 20, lo=1, hi=MAX_K),
            op=self._enum(op, "op"),
            since_seconds=as_float(since_seconds, "since_seconds", lo=0),
        )
        return [entry_to_dict(e, full=False) for e in entries]

    def history(self, memory_id: str, *, collection: str | None = None) -> list[dict[str, Any]]:
        """The memory's full timeline, oldest first; 404 for an id never journaled nor stored."""
        store = self._read_store(collection)
        memory_id = self._id(memory_id)
        entries = store.history(memory_id)
        if not entries and store.get(memory_id) is None:
            raise MemoryNotFound(memory_id)
        return [entry_to_dict(e) for e in entries]

    def state_at(self, ts: Any, *, collection: str | None = None) -> dict[str, Any]:
        stamp = as_timestamp(ts, "ts")
        if stamp is None:
            raise BadRequest("missing required field: ts")
        memories = self._read_store(collection).state_at(stamp)
        return {
            "ts": stamp,
            "count": len(memories),
            "memories": [memory_to_dict(m) for m in memories],
        }

    def get_at(self, memory_id: str, ts: Any, *, collection: str | None = None) -> dict[str, Any]:
        """``{ok: true, ts, …memory}`` or ``{ok: false, error}`` when it did not exist then."""
        stamp = as_timestamp(ts, "ts")
        if stamp is None:
            raise BadRequest("missing required field: ts")
        memory_id = self._id(memory_id)
        memory = self._read_store(collection).get_at(memory_id, stamp)
        if memory is None:
            return {"ok": False, "error": f"memory {memory_id!r} did not exist at {stamp}"}
        return {"ok": True, **memory_to_dict(memory), "ts": stamp}

    def undo(
        self,
        entry_id: str | None = None,
        memory_id: str | None = None,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Reverse one journaled mutation: by journal entry id, else the newest one
        touching *memory_id*, else the newest undoable entry of the collection."""
        store = self.store(collection)
        entry: Any
        if entry_id is not None:
            entry_id = str(as_str(entry_id, "entry_id", required=True))
            if not _ENTRY_ID.match(entry_id):
                raise BadRequest(
                    f"entry_id: expected a journal entry id like 1712345678901-0, got {entry_id!r}"
                )
            entry = store.find_entry(entry_id)  # live stream and archives alike
        else:
            mid = None if memory_id is None else self._id(memory_id)
            entry = self._latest_undoable(store, mid)
        result = store.undo(entry, strict=True)
        return {
            "ok": bool(result) if isinstance(result, bool) else True,
            "op": entry.op,
            "id": entry.id,
            "ts": entry.ts,
            "actor": entry.actor,
            "entry_id": entry.stream_id,
        }

    def journal_entry(self, entry: str, *, collection: str | None = None) -> dict[str, Any]:
        """One journal entry in full (live or archived), by stream id or epoch ts."""
        return entry_to_dict(self._read_store(collection).find_entry(entry.strip()))

    @staticmethod
    def _latest_undoable(store: Any, memory_id: str | None) -> Any:
        for entry in store.journal.tail(500):
            if entry.op in ("undo", "nuke", "export"):
                continue
            if (
                memory_id is None
                or entry.id == memory_id
                or memory_id in (str(v) for v in (entry.meta or {}).values())
            ):
                return entry
        raise NotFound("no journal entry to undo" + (f" for {memory_id!r}" if memory_id else ""))

    # ------------------------------------------------------------------ portability
    def export(
        self,
        path: str,
        include_vectors: bool = True,
        include_superseded: bool = False,
        type: str | list[str] | None = None,
        tag: str | list[str] | None = None,
        since: Any = None,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Write a ``.ahkai`` archive to a server-side *path*: ``{path, count, bytes, elapsed}``."""
        store = self._read_store(collection)
        summary = store.export(
            as_str(path, "path", required=True),
            include_vectors=as_bool(include_vectors, "include_vectors", True),
            include_superseded=as_bool(include_superseded, "include_superseded"),
            types=as_str_list(type, "type"),
            tags=as_str_list(tag, "tag"),
            since=as_timestamp(since, "since"),
        )
        return {
            "path": str(summary.path),
            "count": summary.count,
            "bytes": summary.bytes,
            "elapsed": round(float(summary.elapsed), 4),
        }

    def import_(
        self,
        path: str,
        on_conflict: str = "skip",
        regenerate_vectors: bool = False,
        dry_run: bool = False,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Read a ``.ahkai`` archive from a server-side *path*.

        Returns ``{ok, imported, skipped, overwritten, renamed, errors,
        errors_total, vectors_regenerated, dry_run}``; ``errors`` lists the first
        ``import_max_errors`` refused rows, ``errors_total`` counts them all.
        """
        from ..store.archive import ArchiveLimits

        store = self.store(collection)
        summary = store.import_(
            as_str(path, "path", required=True),
            on_conflict=self._enum(on_conflict, "on_conflict") or "skip",
            regenerate_vectors=as_bool(regenerate_vectors, "regenerate_vectors"),
            dry_run=as_bool(dry_run, "dry_run"),
            limits=ArchiveLimits.from_settings(self.settings),
        )
        errors = [
            {"id": e[0], "error": e[1]} if isinstance(e, tuple | list) and len(e) == 2 else e
            for e in (summary.errors or [])
        ]
        return {
            "ok": True,
            "imported": summary.imported,
            "skipped": summary.skipped,
            "overwritten": summary.overwritten,
            "renamed": summary.renamed,
            "errors": errors,
            "errors_total": summary.errors_total,
            "vectors_regenerated": summary.vectors_regenerated,
            "dry_run": as_bool(dry_run, "dry_run"),
        }

    def export_stream(
        self,
        include_vectors: bool = True,
        include_superseded: bool = False,
        type: str | list[str] | None = None,
        tag: str | list[str] | None = None,
        since: Any = None,
        *,
        collection: str | None = None,
    ) -> tuple[Any, dict[str, Any]]:
        """Export into a private temp file: ``(chunks, summary)``.

        *chunks* yields the archive bytes and deletes the file when exhausted
        or closed, so a network door streams any size in bounded memory and
        never names a server path.
        """
        import os
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix="houkai-export-", suffix=".ahkai")
        os.close(fd)
        try:
            summary = self.export(
                tmp,
                include_vectors=include_vectors,
                include_superseded=include_superseded,
                type=type,
                tag=tag,
                since=since,
                collection=collection,
            )
        except BaseException:
            os.unlink(tmp)
            raise
        summary.pop("path", None)

        def chunks() -> Any:
            try:
                with open(tmp, "rb") as handle:
                    while block := handle.read(1 << 16):
                        yield block
            finally:
                os.unlink(tmp)

        return chunks(), summary

    def import_stream(
        self,
        stream: Any,
        on_conflict: str = "skip",
        regenerate_vectors: bool = False,
        dry_run: bool = False,
        *,
        max_bytes: int | None = None,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Import an archive read from a binary *stream* (an upload), at most
        *max_bytes* (default ``http_max_upload``) compressed bytes; 413 past it.

        The bytes are spooled to a private temp file (the import reads it twice:
        validate, then write) and go through exactly the same checks as a file.
        """
        import os
        import tempfile

        from ..store.archive import ArchiveError

        cap = int(max_bytes if max_bytes is not None else self.settings.http_max_upload)
        fd, tmp = tempfile.mkstemp(prefix="houkai-import-", suffix=".ahkai")
        try:
            size = 0
            with os.fdopen(fd, "wb") as out:
                while block := stream.read(1 << 16):
                    size += len(block)
                    if size > cap:
                        raise HoukaiError(
                            f"uploaded archive over {cap} bytes (http_max_upload)", status=413
                        )
                    out.write(block)
            if size == 0:
                raise BadRequest(
                    "empty body: send the .ahkai archive as the request body "
                    "(Content-Type: application/gzip)"
                )
            try:
                return self.import_(
                    tmp,
                    on_conflict=on_conflict,
                    regenerate_vectors=regenerate_vectors,
                    dry_run=dry_run,
                    collection=collection,
                )
            except ArchiveError as exc:  # name the upload, not the server's temp file
                raise ArchiveError(str(exc).replace(tmp, "upload")) from None
        finally:
            os.unlink(tmp)

    # ------------------------------------------------------------------ operations
    def maintenance_tick(
        self,
        reflect_apply: bool | None = None,
        force: bool = False,
        lock_wait: float | None = None,
        *,
        collection: str | None = None,
    ) -> dict[str, Any]:
        """Run every due maintenance job once (schedule-gated, safe to call often)."""
        try:
            from ..pipeline.maintenance import JOB_NAMES, job_interval, tick
        except ImportError:
            raise Unavailable("maintenance is not available") from None
        result = tick(
            self.store(collection),
            self.settings,
            force=as_bool(force, "force"),
            reflect_apply=as_optional_bool(reflect_apply, "reflect_apply"),
            lock_wait=lock_wait or 0.0,
        ).to_dict()
        # The seed's flag: false when maintenance is switched off (every job disabled).
        enabled = any(job_interval(self.settings, job) is not None for job in JOB_NAMES)
        if not enabled:
            result["summary"] = "maintenance disabled (every maintenance job is off)"
        return {"enabled": enabled, **result}

    def job_retry(
        self, job_id: str | None = None, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Re-queue the failed memories of one job (404 for an unknown one), or of the
        whole collection: ``{job_id, requeued}``."""
        if job_id is not None:
            self.job(job_id, collection=collection)
        pipeline = self.pipeline(collection)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        return {"job_id": job_id, "requeued": pipeline.retry_failed(job_id)}

    def job_cancel(self, job_id: str, *, collection: str | None = None) -> dict[str, Any]:
        """Cancel a job: ``{job_id, cancelled}`` (false when it had already settled)."""
        self.job(job_id, collection=collection)
        pipeline = self.pipeline(collection)
        return {"job_id": job_id, "cancelled": bool(pipeline and pipeline.cancel(job_id))}

    def job(self, job_id: str, *, collection: str | None = None) -> dict[str, Any]:
        job_id = str(as_str(job_id, "job_id", required=True, max_len=256))
        pipeline = self.pipeline(collection)
        status = None if pipeline is None else pipeline.job(job_id)
        if status is None:
            raise NotFound(f"no job with id {job_id!r}")
        return _status_dict(status)

    def jobs(self, limit: int = 20, *, collection: str | None = None) -> list[dict[str, Any]]:
        pipeline = self.pipeline(collection)
        if pipeline is None:
            return []
        return [
            _status_dict(s) for s in pipeline.jobs(limit=as_int(limit, "limit", 20, lo=1, hi=1000))
        ]

    def collections(self) -> list[dict[str, Any]]:
        """Every collection under this key prefix with its memory count."""
        from ..store.search import total

        client = self.store(self.settings.collection).client
        prefix = self.settings.key_prefix
        names = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in client.smembers(Keys.registry(prefix))
        )
        out = []
        for name in names:
            try:
                count = total(client, Keys(prefix, name).index, "*")
            except Exception:  # a half-dropped collection still lists
                count = None
            out.append({"name": name, "count": count, "default": name == self.settings.collection})
        return out

    def readiness(self, *, collection: str | None = None, cache_ttl: float = 5.0) -> dict[str, Any]:
        """The store's readiness report (backend + embedder probe, cached *cache_ttl* s)."""
        try:
            store = self.store(collection)
        except HoukaiError:
            raise
        except Exception as exc:  # not ready is an answer, not an error
            log.warning("readiness: store unavailable: %s", exc)
            return {"ready": False, "checks": {"backend": {"ok": False, "error": str(exc)}}}
        probe = getattr(store, "readiness", None)
        if callable(probe):
            return probe(cache_ttl=cache_ttl)
        started = time.perf_counter()
        store.client.ping()
        return {
            "ready": True,
            "checks": {
                "backend": {
                    "ok": True,
                    "latency_ms": round((time.perf_counter() - started) * 1000, 3),
                }
            },
        }

    def health(self, *, collection: str | None = None) -> dict[str, Any]:
        """Liveness: ``{status, count}`` (no collection name, no topology).

        Redis is probed once (1 s) before the store is touched, so with Redis
        down the answer is a prompt 503 naming the configured URL; health never
        starts an embedded server."""
        from ..db import server as redis_server

        s = self.settings
        url = s.redis_url or redis_server.known_url(s.data_dir)
        if url is None:
            raise Unavailable(
                f"no embedded Redis has run for data dir {s.data_dir} (start: houkai redis start)"
            )
        state = redis_server._probe(url, timeout=1.0)
        if state != "ready":
            why = "is loading its data" if state == "loading" else "does not answer"
            raise Unavailable(f"Redis at {redis_server.display_url(url)} {why}")
        return {"status": "ok", "count": self.store(collection).count()}

    # ------------------------------------------------------------------ dispatch
    def dispatch(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call tool *name* with *arguments* (the MCP / agent-example entry point).

        Unknown tools, unknown or missing arguments are :class:`BadRequest`. A
        ``remember`` refused by ``on_conflict="raise"`` returns the seed's
        ``{stored: false, conflicts}`` instead of raising, as the seed tool did.
        """
        method_name = TOOLS.get(name) if isinstance(name, str) else None
        if method_name is None:
            raise BadRequest(f"unknown tool {name!r}; known tools: {', '.join(TOOLS)}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise BadRequest(f"arguments for {name!r} must be an object")
        method = getattr(self, method_name)
        check_arguments(operations.get(name), dict(arguments))
        try:
            return method(**arguments)
        except ConflictError as exc:
            if name == "remember":
                return conflict_payload(exc)
            raise


def tool_parameters(name: str) -> dict[str, bool]:
    """``{argument: required}`` for tool *name*, from its registry declaration."""
    op = operations.get(name)
    required = set(op.required())
    out = {field: field in required for field in op.fields()}
    if op.scope == "collection":
        out["collection"] = False
    return out


__all__ = [
    "NUKE_CONFIRM",
    "SEED_TOOLS",
    "TOOLS",
    "MemoryService",
    "conflict_payload",
    "conflict_to_dict",
    "entry_to_dict",
    "memory_to_dict",
    "tool_parameters",
]
