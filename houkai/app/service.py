"""The service layer: one method per seed MCP tool (§8), shared by every front door.

REST, MCP, the CLI and the agent examples call :class:`MemoryService`. Each
method is bound to its operation (:func:`houkai.app.operations.bind.operation`):
its signature is the operation's parameter model and each call is checked once,
against the registry, before the body runs; the body routes writes through the
ingestion pipeline, calls the store, and returns the seed tool's JSON-able shape. Errors
are raised (``houkai.domain.errors`` types, ``ValueError``, ``MemoryNotFound``,
``ConflictError``) and each front door maps them with :func:`houkai.domain.errors.classify`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from ..db.keys import Keys, validate_collection
from ..domain import deadline
from ..domain.coerce import as_str_list, as_timestamp
from ..domain.config import Settings, get_settings
from ..domain.errors import BadRequest, HoukaiError, NotFound, Unavailable
from ..domain.model import (
    Conflict,
    ConflictError,
    ExpandSpec,
    HybridWeights,
    Memory,
    MemoryNotFound,
    NothingToIngest,
    StateConflict,
    ValidationError,
)
from ..extraction.usage import store_usage
from ..recall.request import RecallRequest
from . import operations
from .operations import DISPATCHABLE, check_arguments
from .operations import params as params
from .operations.bind import checks_itself, operation, strict
from .session_service import SessionServiceMixin

log = logging.getLogger(__name__)

NUKE_CONFIRM = "DELETE ALL"

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
        **memory.scope_dict(),  # user_id, agent_id, session_id, message_ids when set
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


# --------------------------------------------------------------------------- arguments
def _given(p: Any, *names: str) -> dict[str, Any]:
    """The fields of a parameter model (or mapping) that are set: unset ones are left
    to the store's defaults."""
    get = p.get if isinstance(p, Mapping) else lambda n: getattr(p, n, None)
    return {n: get(n) for n in names if get(n) is not None}


def _tags(value: Any) -> list[str]:
    """Tags as a list (the parameter also takes one string as one tag)."""
    return [value] if isinstance(value, str) else list(value)


def _item(value: Any, fields: Any = params.RememberItem.model_fields) -> dict[str, Any]:
    """A checked remember item (or document) as the store's keyword arguments."""
    out: dict[str, Any] = {"text": value} if isinstance(value, str) else _given(value, *fields)
    if "tags" in out:
        out["tags"] = _tags(out["tags"])
    return out


def _expand(value: Any) -> ExpandSpec | None:
    """The checked ``expand`` parameter (true, or the spec's fields) as the store's spec."""
    if value is None or value is False:
        return None
    if value is True:
        return ExpandSpec()
    spec = _given(value, *params.Expand.model_fields)
    if "rels" in spec:
        spec["rels"] = tuple(spec["rels"])
    return ExpandSpec(**spec)


def _search(p: Any) -> dict[str, Any]:
    """A checked recall / recall_pack model as the store's keyword arguments: times
    parsed, the graph weight and the expansion spec built; unset ones left out."""
    kwargs = _given(p, *type(p).model_fields)
    for key in ("since", "until", "as_of"):
        if key in kwargs:
            kwargs[key] = as_timestamp(kwargs[key], key)
    if "graph" in kwargs:
        kwargs["weights"] = HybridWeights(graph=kwargs.pop("graph"))
    spec = _expand(kwargs.pop("expand", None))
    if spec is not None:
        kwargs["expand"] = spec
    return _read_only_touch(kwargs)


def _read_only_touch(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A read-only caller's read changes nothing: no access is counted (``touch``)."""
    from .auth import may_change_state

    if not may_change_state():
        kwargs["touch"] = False
    return kwargs


# --------------------------------------------------------------------------- service
class MemoryService(SessionServiceMixin):
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

    def read_store(self, collection: str | None):
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

    # ------------------------------------------------------------------ writes
    def _wait_result(self, pipeline: Any, job: Any, timeout: float | None) -> tuple[Any, bool]:
        """``(status, finished)``; a timeout leaves the job running and is not an error."""
        try:
            return pipeline.wait(job, timeout=timeout), True
        except TimeoutError:
            return pipeline.job(job.id), False

    @operation("remember")
    def remember(self, p: params.Remember, *, collection: str | None = None) -> dict[str, Any]:
        """Store one memory. ``wait=True`` returns once it is recallable (read-your-writes).

        Returns the seed's ``{id, stored, importance, expires_at}`` plus ``state``,
        ``job_id`` and, when finished, ``memory``. ``on_conflict="raise"`` with a
        conflict raises :class:`ConflictError` (when waiting).
        """
        item = _item(p)
        if p.importance is None and p.auto_importance:  # unset: the store's setting decides
            from ..engines.importance import score_importance

            kind = p.type or self.settings.default_type
            item["importance"] = score_importance(p.text, kind, item.get("tags", []))
        store = self.store(collection)
        pipeline = self.pipeline(collection)
        if pipeline is None:
            memory = store.remember(**item, on_conflict=p.on_conflict)
            return self._remember_reply(memory, job_id=None, finished=True)
        job = pipeline.submit([item], on_conflict=p.on_conflict)
        memory_id = job.memory_ids[0]
        if not p.wait:
            memory = store.get(memory_id)
            reply = {"id": memory_id, "stored": True, "state": "pending", "job_id": job.id}
            if memory is not None:
                reply.update(
                    importance=memory.importance,
                    expires_at=memory.expires_at or None,
                    state=memory.state,
                )
            return reply
        status, finished = self._wait_result(pipeline, job, p.timeout)
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

    @operation("remember_many")
    def remember_many(
        self, p: params.RememberMany, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Store many memories as one job: ``{stored, ids, job_id}`` (+ ``memories`` when waited).

        Validation is all-or-nothing (the registry checks every item first).
        """
        items = [_item(i) for i in p.items]
        store = self.store(collection)
        if not items:
            return {"stored": 0, "ids": [], "job_id": None, "memories": []}
        pipeline = self.pipeline(collection)
        if pipeline is None:
            kwargs: dict[str, Any] = {"on_conflict": p.on_conflict}
            if p.batch_size is not None:
                kwargs["batch_size"] = p.batch_size
            memories = store.remember_many(items, **kwargs)
            return {
                "stored": len(memories),
                "ids": [m.id for m in memories],
                "job_id": None,
                "memories": [memory_to_dict(m) for m in memories],
            }
        job = pipeline.submit(items, on_conflict=p.on_conflict, batch_size=p.batch_size)
        reply: dict[str, Any] = {
            "stored": len(job.memory_ids),
            "ids": list(job.memory_ids),
            "job_id": job.id,
        }
        if not p.wait:
            return reply
        status, finished = self._wait_result(pipeline, job, p.timeout)
        found = store.get_many(list(job.memory_ids))
        reply["memories"] = [memory_to_dict(found[i]) for i in job.memory_ids if i in found]
        reply["stored"] = len(found)
        reply["job"] = _status_dict(status) if status is not None else None
        if not finished:
            reply["timed_out"] = True
        return reply

    @operation("ingest")
    def ingest(self, p: params.Ingest, *, collection: str | None = None) -> dict[str, Any]:
        """Chunk documents (or files under a server-side *path*) into memories as one job.

        ``chunking``: ``paragraph`` (default: the seed's one memory per paragraph)
        or ``pack`` (houkai's packing up to ``max_chars``).
        """
        sizes = _given(p, "max_chars", "min_chars", "chunking")
        if sizes:
            from ..pipeline.chunking import DEFAULT_MAX_CHARS, DEFAULT_MIN_CHARS

            # Merging never grows a chunk past max_chars, so a larger min_chars means
            # "merge as much as fits": clamp rather than refuse a well-formed request.
            sizes["min_chars"] = min(
                sizes.get("min_chars", DEFAULT_MIN_CHARS), sizes.get("max_chars", DEFAULT_MAX_CHARS)
            )
        auto = p.importance is None and self.settings.auto_importance
        options = {
            **sizes,
            **_given(p, "batch_size"),
            "auto_importance": auto if p.auto_importance is None else p.auto_importance,
        }
        defaults = _item(p, ("type", "tags", "source", "importance"))
        pipeline = self.pipeline(collection)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        if p.documents is not None:
            documents = [
                {**defaults, **_item(d, params.Document.model_fields)} for d in p.documents
            ]
            job = pipeline.ingest_documents(documents, **options)
        else:
            try:
                job = pipeline.ingest_path(str(p.path), glob=p.glob, **defaults, **options)
            except NothingToIngest as exc:
                # a well-formed path that names nothing to ingest is a 404, like an unknown id
                raise NotFound(str(exc)) from None
        reply: dict[str, Any] = {"job_id": job.id, "total": job.total, "ids": list(job.memory_ids)}
        if p.wait:
            status, finished = self._wait_result(pipeline, job, p.timeout)
            reply["job"] = _status_dict(status) if status is not None else None
            if not finished:
                reply["timed_out"] = True
        return reply

    @operation("edit")
    def edit(self, p: params.Edit, *, collection: str | None = None) -> dict[str, Any]:
        """Update fields in place.

        ``None`` leaves a field unchanged; ``source=None`` or ``clear_source=True``
        (the seed's spelling, for callers that cannot send null) clears it;
        ``expires_at=0`` clears the TTL.

        Returns the seed's ``{ok, id, text, type, tags, importance, polarity, source, expires_at}``.
        """
        kwargs = _given(p, "text", "type", "tags", "importance", "polarity", "expires_at")
        if "tags" in kwargs:
            kwargs["tags"] = _tags(kwargs["tags"])
        if p.clear_source:
            kwargs["source"] = None
        elif "source" in p.model_fields_set:
            kwargs["source"] = p.source  # None clears
        if not kwargs:
            raise BadRequest("empty edit: provide at least one field to change")
        store = self.store(collection)
        memory = self._call(store.edit, p.memory_id, **kwargs)
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

    @operation("tag")
    def retag(self, p: params.Retag, *, collection: str | None = None) -> dict[str, Any]:
        """Add and remove tags (a removed tag is never re-added): ``{id, tags}``."""
        store = self.store(collection)
        memory = self._require_memory(store, p.memory_id)
        drop = {t.strip() for t in p.remove or ()}
        tags = [t for t in memory.tags if t not in drop]
        tags += [t for t in p.add or () if t.strip() not in tags and t.strip() not in drop]
        updated = self._call(store.edit, p.memory_id, tags=tags)
        return {"id": updated.id, "tags": list(updated.tags)}

    @operation("bump")
    def bump(self, p: params.Bump, *, collection: str | None = None) -> dict[str, Any]:
        """Change the importance by ``+N``/``-N`` or set it with ``=N`` (clamped to 0..1):
        ``{id, before, importance}``."""
        store = self.store(collection)
        memory = self._require_memory(store, p.memory_id)
        before = float(memory.importance)
        amount = float(p.delta.lstrip("="))
        new = amount if p.delta.startswith("=") else before + amount
        updated = self._call(store.edit, p.memory_id, importance=min(1.0, max(0.0, new)))
        return {"id": updated.id, "before": before, "importance": updated.importance}

    @operation("forget")
    def forget(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        """Hard-delete one memory: ``{deleted}`` (false when it did not exist)."""
        return {"deleted": bool(self.store(collection).forget(p.memory_id))}

    @operation("purge_expired")
    def purge_expired(
        self, p: params.PurgeExpired, *, collection: str | None = None
    ) -> dict[str, Any]:
        purged = self.store(collection).purge_expired(dry_run=p.dry_run)
        return {"purged": len(purged), "dry_run": p.dry_run, "ids": [m.id for m in purged]}

    @operation("check_findable")
    def check_findable(
        self, p: params.CheckFindable, *, collection: str | None = None
    ) -> dict[str, Any]:
        """A findability check of the collection now (the maintenance job's, on demand)."""
        from ..store.findability import check

        s = self.settings
        report = check(
            self.store(collection),
            sample=s.maintenance_findable_sample if p.sample is None else p.sample,
            repair=p.repair,
            text=p.text,
            threshold=s.maintenance_findable_threshold,
        )
        return report.to_dict()

    @operation("prune")
    def prune(self, p: params.Prune, *, collection: str | None = None) -> dict[str, Any]:
        """Decay pruning: the candidates with their scores, deleted unless ``dry_run``."""
        from ..engines.decay import DecayEngine

        s = self.settings
        protect: list[str] = list(p.protect or ())
        if p.protect is None:
            protect = [t.strip() for t in s.maintenance_decay_protect_types.split(",") if t.strip()]
        engine = DecayEngine(
            self.read_store(collection),
            decay_rate=s.maintenance_decay_rate if p.decay_rate is None else p.decay_rate,
            min_score=s.maintenance_decay_min_score if p.min_score is None else p.min_score,
            protect_types=tuple(protect),
            frequency_weight=(
                s.maintenance_decay_frequency_weight
                if p.frequency_weight is None
                else p.frequency_weight
            ),
        )
        candidates = engine.prune(dry_run=True)
        scored = [memory_to_dict(m, score=engine.score(m)) for m in candidates]
        pruned = len(engine.prune(dry_run=False)) if candidates and not p.dry_run else 0
        return {"dry_run": p.dry_run, "count": len(scored), "pruned": pruned, "memories": scored}

    @operation("reflect")
    def reflect(self, p: params.Reflect, *, collection: str | None = None) -> dict[str, Any]:
        """Summarise clusters of similar episodic memories (previews when ``dry_run``)."""
        from ..engines.reflection import ReflectionEngine
        from ..engines.summarizers import build_summarizer

        s = self.settings
        try:
            summarizer = build_summarizer(
                s.maintenance_reflect_summarizer if p.summarizer is None else p.summarizer
            )
        except ImportError as exc:  # well-formed, but this install lacks the provider's SDK
            raise StateConflict(f"summarizer: {exc}") from None
        except ValueError as exc:
            raise BadRequest(f"summarizer: {exc}") from None
        engine = ReflectionEngine(
            self.read_store(collection),
            similarity_threshold=(
                s.maintenance_reflect_similarity_threshold if p.threshold is None else p.threshold
            ),
            min_cluster_size=(
                s.maintenance_reflect_min_cluster_size
                if p.min_cluster_size is None
                else p.min_cluster_size
            ),
            summarizer=summarizer,
        )
        if p.dry_run:
            memories = engine.reflect(dry_run=True)
        else:
            hard: bool | Literal["hard"] = (
                "hard" if p.consolidate == "hard" else p.consolidate == "soft"
            )
            memories = engine.reflect(dry_run=False, consolidate=hard)
        return {
            "dry_run": p.dry_run,
            "count": len(memories),
            "memories": [memory_to_dict(m) for m in memories],
        }

    @operation("nuke")
    def nuke(self, p: params.Nuke, *, collection: str | None = None) -> dict[str, Any]:
        """Delete every memory of the collection; guarded by ``confirm="DELETE ALL"``."""
        return {"ok": True, "deleted": self.store(collection).nuke()}

    # ------------------------------------------------------------------ reads
    @operation("get")
    def get(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        return memory_to_dict(self._require_memory(store, p.memory_id))

    @operation("list_recent")
    def list_recent(
        self, p: params.ListRecent, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        kwargs = _given(p, *type(p).model_fields)
        if "since" in kwargs:
            kwargs["since"] = as_timestamp(kwargs["since"], "since")
        memories = self.read_store(collection).list_recent(**kwargs)
        return [memory_to_dict(m) for m in memories]

    @operation("recall")
    def recall(self, p: params.Recall, *, collection: str | None = None) -> list[dict[str, Any]]:
        """Semantic or hybrid search: a list of memory dicts with ``score`` (and ``explain``)."""
        store = self.read_store(collection)
        with deadline.scope(self.settings.request_deadline):
            hits = store.recaller.run(RecallRequest.checked(**_search(p)))  # checked once
        if p.explain:
            return [memory_to_dict(m, score=s, explain=e) for m, s, e in hits]
        return [memory_to_dict(m, score=s) for m, s in hits]

    @operation("recall_pack")
    def recall_pack(self, p: params.RecallPack, *, collection: str | None = None) -> dict[str, Any]:
        """A token-budgeted context block.

        Returns ``{text, used_tokens, budget, truncated, items, compressed_groups}``.
        """
        store = self.read_store(collection)
        with deadline.scope(self.settings.request_deadline):
            return _pack_to_dict(store.recall_pack(**_search(p)))

    @operation("auto_context")
    def auto_context(
        self, p: params.AutoContext, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Multi-angle context pack: recall_pack's shape plus ``queries``."""
        store = self.read_store(collection)
        kwargs = _read_only_touch(_given(p, *type(p).model_fields))
        task = kwargs.pop("task")
        with deadline.scope(self.settings.request_deadline):
            pack = store.auto_context_pack(task, **kwargs)
        reply = _pack_to_dict(pack)
        queries = list(getattr(pack, "queries", None) or [])
        if not queries:
            from ..recall.packing import extract_key_phrases

            queries = [task, *extract_key_phrases(task, p.max_phrases)]
        reply["queries"] = queries
        return reply

    @operation("stats")
    def stats(self, p: params.NoParams, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        out: dict[str, Any] = {}
        extra = getattr(store, "stats", None)
        if callable(extra):
            out.update(extra())
        out.update(count=store.count(), path=store.path, collection=store.collection_name)
        checked = getattr(store, "findability", None)
        if callable(checked):
            out["findability"] = checked()
        out["extraction"] = store_usage(store)  # LLM tokens and cost per provider
        return out

    @operation("metrics")
    def metrics(self, p: params.NoParams, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        return {**store.metrics(), "extraction": store_usage(store)}

    # ------------------------------------------------------------------ graph
    @operation("link")
    def link(self, p: params.Link, *, collection: str | None = None) -> dict[str, Any]:
        self._call(self.store(collection).link, p.src_id, p.dst_id, rel=p.rel)
        return {"ok": True, "src_id": p.src_id, "dst_id": p.dst_id, "rel": p.rel}

    @operation("unlink")
    def unlink(self, p: params.Unlink, *, collection: str | None = None) -> dict[str, Any]:
        removed = self._call(self.store(collection).unlink, p.src_id, p.dst_id, rel=p.rel)
        return {"removed": int(removed)}

    @operation("neighbors")
    def neighbors(
        self, p: params.Neighbors, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        store = self.read_store(collection)
        self._require_memory(store, p.memory_id)
        hits = self._call(
            store.neighbors, p.memory_id, rel=p.rel, direction=p.direction, depth=p.depth
        )
        return [{**memory_to_dict(m), "rel": r} for m, r in hits]

    @operation("subgraph")
    def subgraph(self, p: params.Subgraph, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        graph = self._call(store.subgraph, list(p.memory_ids), depth=p.depth)
        return {
            "nodes": [memory_to_dict(m) for m in graph.nodes.values()],
            "edges": [{"src": s, "dst": d, "rel": r} for s, d, r in graph.edges],
        }

    @operation("find_conflicts")
    def find_conflicts(
        self, p: params.FindConflicts, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        store = self.read_store(collection)
        if p.memory_id is not None:
            self._require_memory(store, p.memory_id)
        elif p.since is not None:  # incremental: new memories against the whole collection
            since = as_timestamp(p.since, "since")
            scan = self._call(lambda: list(store.iter_conflicts(p.threshold, since=since)))
            return [conflict_to_dict(c) for c in scan]
        found = self._call(store.find_conflicts, memory_id=p.memory_id, threshold=p.threshold)
        return [conflict_to_dict(c) for c in found]

    @operation("supersede")
    def supersede(self, p: params.Supersede, *, collection: str | None = None) -> dict[str, Any]:
        self._call(self.store(collection).supersede, p.old_id, p.new_id)
        return {"ok": True, "old_id": p.old_id, "new_id": p.new_id}

    @operation("restore")
    def restore(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        store = self.store(collection)
        self._require_memory(store, p.memory_id)
        return {"restored": bool(self._call(store.restore, p.memory_id)), "id": p.memory_id}

    # ------------------------------------------------------------------ audit
    @operation("journal_tail")
    def journal_tail(
        self, p: params.JournalTail, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        """Newest-first journal entries ``{ts, op, actor, id, summary, meta}``."""
        store = self.read_store(collection)
        entries = store.journal_tail(n=p.n, op=p.op, since_seconds=p.since_seconds)
        return [entry_to_dict(e, full=False) for e in entries]

    @operation("journal_entry")
    def journal_entry(
        self, p: params.JournalEntryRef, *, collection: str | None = None
    ) -> dict[str, Any]:
        """One journal entry in full (live or archived), by stream id or epoch ts."""
        return entry_to_dict(self.read_store(collection).find_entry(p.entry.strip()))

    @operation("history")
    def history(
        self, p: params.MemoryRef, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        """The memory's full timeline, oldest first; 404 for an id never journaled nor stored."""
        store = self.read_store(collection)
        entries = store.history(p.memory_id)
        if not entries and store.get(p.memory_id) is None:
            raise MemoryNotFound(p.memory_id)
        return [entry_to_dict(e) for e in entries]

    @operation("state_at")
    def state_at(self, p: params.StateAt, *, collection: str | None = None) -> dict[str, Any]:
        stamp = as_timestamp(p.ts, "ts")
        memories = self.read_store(collection).state_at(stamp)
        return {
            "ts": stamp,
            "count": len(memories),
            "memories": [memory_to_dict(m) for m in memories],
        }

    @operation("get_at")
    def get_at(self, p: params.GetAt, *, collection: str | None = None) -> dict[str, Any]:
        """``{ok: true, ts, …memory}`` or ``{ok: false, error}`` when it did not exist then."""
        stamp = as_timestamp(p.ts, "ts")
        memory = self.read_store(collection).get_at(p.memory_id, stamp)
        if memory is None:
            return {"ok": False, "error": f"memory {p.memory_id!r} did not exist at {stamp}"}
        return {"ok": True, **memory_to_dict(memory), "ts": stamp}

    @operation("undo")
    def undo(self, p: params.Undo, *, collection: str | None = None) -> dict[str, Any]:
        """Reverse one journaled mutation: by journal entry id, else the newest one
        touching *memory_id*, else the newest undoable entry of the collection."""
        store = self.store(collection)
        entry: Any
        if p.entry_id is not None:
            entry = store.find_entry(p.entry_id)  # live stream and archives alike
        else:
            entry = self._latest_undoable(store, p.memory_id)
        result = store.undo(entry, strict=True)
        return {
            "ok": bool(result) if isinstance(result, bool) else True,
            "op": entry.op,
            "id": entry.id,
            "ts": entry.ts,
            "actor": entry.actor,
            "entry_id": entry.stream_id,
        }

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
    @operation("export")
    def export(self, p: params.Export, *, collection: str | None = None) -> dict[str, Any]:
        """Write a ``.ahkai`` archive to a server-side *path*: ``{path, count, bytes, elapsed}``."""
        store = self.read_store(collection)
        summary = store.export(
            p.path,
            include_vectors=p.include_vectors,
            include_superseded=p.include_superseded,
            types=as_str_list(p.type, "type"),
            tags=as_str_list(p.tag, "tag"),
            since=as_timestamp(p.since, "since"),
            vector_format=p.vector_format,
        )
        return {
            "path": str(summary.path),
            "count": summary.count,
            "bytes": summary.bytes,
            "elapsed": round(float(summary.elapsed), 4),
        }

    @operation("import")
    def import_(self, p: params.Import, *, collection: str | None = None) -> dict[str, Any]:
        """Read a ``.ahkai`` archive from a server-side *path*.

        Returns ``{ok, imported, skipped, overwritten, renamed, errors,
        errors_total, vectors_regenerated, dry_run}``; ``errors`` lists the first
        ``import_max_errors`` refused rows, ``errors_total`` counts them all.
        """
        from ..store.archive import ArchiveLimits

        store = self.store(collection)
        summary = store.import_(
            p.path,
            on_conflict=p.on_conflict,
            regenerate_vectors=p.regenerate_vectors,
            dry_run=p.dry_run,
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
            "dry_run": p.dry_run,
        }

    @operation("export_stream")
    def export_stream(
        self, p: params.ExportStream, *, collection: str | None = None
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
            summary = self.export(tmp, **_given(p, *type(p).model_fields), collection=collection)
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
        *,
        max_bytes: int | None = None,
        collection: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Import an archive read from a binary *stream* (an upload), at most
        *max_bytes* (default ``http_max_upload``) compressed bytes; 413 past it.
        *options* are :meth:`import_`'s (on_conflict, regenerate_vectors, dry_run).

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
                return self.import_(tmp, **options, collection=collection)
            except ArchiveError as exc:  # name the upload, not the server's temp file
                raise ArchiveError(str(exc).replace(tmp, "upload")) from None
        finally:
            os.unlink(tmp)

    # ------------------------------------------------------------------ operations
    @operation("maintenance_tick")
    def maintenance_tick(
        self, p: params.MaintenanceTick, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Run every due maintenance job once (schedule-gated, safe to call often)."""
        try:
            from ..pipeline.maintenance import JOB_NAMES, job_interval, tick
        except ImportError:
            raise Unavailable("maintenance is not available") from None
        result = tick(
            self.store(collection),
            self.settings,
            force=p.force,
            reflect_apply=p.reflect_apply,
            lock_wait=p.lock_wait or 0.0,
        ).to_dict()
        # The seed's flag: false when maintenance is switched off (every job disabled).
        enabled = any(job_interval(self.settings, job) is not None for job in JOB_NAMES)
        if not enabled:
            result["summary"] = "maintenance disabled (every maintenance job is off)"
        return {"enabled": enabled, **result}

    @operation("job_retry")
    def job_retry(self, p: params.JobRetry, *, collection: str | None = None) -> dict[str, Any]:
        """Re-queue the failed memories of one job (404 for an unknown one), or of the
        whole collection: ``{job_id, requeued}``."""
        if p.job_id is not None:
            self.job(p.job_id, collection=collection)
            from ..sessions import jobs as extraction_jobs

            store = self.store(collection)
            if extraction_jobs.session_of(store, p.job_id) is not None:  # an extraction
                return {"job_id": p.job_id, "requeued": int(extraction_jobs.retry(store, p.job_id))}
        pipeline = self.pipeline(collection)
        if pipeline is None:
            raise Unavailable("ingestion pipeline is not available")
        return {"job_id": p.job_id, "requeued": pipeline.retry_failed(p.job_id)}

    @operation("job_cancel")
    def job_cancel(self, p: params.JobRef, *, collection: str | None = None) -> dict[str, Any]:
        """Cancel a job: ``{job_id, cancelled}`` (false when it had already settled)."""
        self.job(p.job_id, collection=collection)
        pipeline = self.pipeline(collection)
        return {"job_id": p.job_id, "cancelled": bool(pipeline and pipeline.cancel(p.job_id))}

    @operation("job")
    def job(self, p: params.JobRef, *, collection: str | None = None) -> dict[str, Any]:
        pipeline = self.pipeline(collection)
        status = None if pipeline is None else pipeline.job(p.job_id)
        if status is None:
            raise NotFound(f"no job with id {p.job_id!r}")
        reply = _status_dict(status)
        spent = store_usage(self.read_store(collection), p.job_id)
        if spent["calls"]:  # an extraction job: its LLM tokens and cost
            reply["extraction"] = spent
        return reply

    @operation("jobs")
    def jobs(self, p: params.Jobs, *, collection: str | None = None) -> list[dict[str, Any]]:
        pipeline = self.pipeline(collection)
        if pipeline is None:
            return []
        return [_status_dict(s) for s in pipeline.jobs(limit=p.limit)]

    @operation("collection_create")
    def collection_create(self, p: params.CollectionRef) -> dict[str, Any]:
        """Create an empty collection (its index, with the current embedder's dimension)."""
        if self.has_collection(p.name):
            raise StateConflict(f"collection {p.name!r} already exists")
        self.store(p.name)
        return {"name": p.name, "created": True}

    @operation("collection_delete")
    def collection_delete(self, p: params.CollectionRef) -> dict[str, Any]:
        """Delete a collection: memories, index, journal and metrics. Irreversible."""
        if not self.has_collection(p.name):
            raise NotFound(f"no collection named {p.name!r}")
        deleted = self.store(p.name).drop()
        with self._lock:
            self._stores.pop(p.name, None)
        return {"name": p.name, "deleted": deleted}

    @operation("collection_migrate")
    def collection_migrate(self, p: params.CollectionMigrate) -> dict[str, Any]:
        """Re-write a collection's vectors in another element type, in place (resumable)."""
        from ..db.connection import connect
        from ..store import lexstats
        from ..store.migrate import migrate_vectors

        s = self.settings
        # A plain client: no store is opened on a collection whose vectors are changing.
        client = connect(s.redis_url, s.data_dir if not s.redis_url else None)
        if not client.sismember(Keys.registry(s.key_prefix), p.name):
            raise NotFound(f"no collection named {p.name!r}")
        keys = Keys(s.key_prefix, p.name)
        result = migrate_vectors(client, keys, p.vector_type, batch_size=p.batch_size)
        # the same one-off pass gives memories written before ADR 0056 their stems
        stems = lexstats.upgrade(client, keys.memory_prefix, keys.lexstats, p.batch_size)
        return {**result.to_dict(), "stems_upgraded": stems}

    @operation("collection_copy")
    def collection_copy(self, p: params.CollectionCopy) -> dict[str, Any]:
        """Every memory of ``src`` into ``dst`` through the archive path (export → import):
        vectors travel (no re-embedding), ids, links, supersede state and access tracking
        are kept, same ids in ``dst`` are overwritten, and each copy is journaled in ``dst``
        as an ``import`` — the checks of ``export`` + ``import``."""
        import os
        import tempfile

        if p.src == p.dst:
            raise ValidationError("dst: the same collection as src")
        if not self.has_collection(p.src):
            raise NotFound(f"no collection named {p.src!r}")
        fd, tmp = tempfile.mkstemp(prefix="houkai-copy-", suffix=".ahkai")
        os.close(fd)
        try:
            self.export(tmp, include_vectors=True, include_superseded=True, collection=p.src)
            summary = self.import_(tmp, on_conflict="overwrite", collection=p.dst)
        finally:
            os.unlink(tmp)
        copied = int(summary["imported"]) + int(summary["overwritten"])
        return {"src": p.src, "dst": p.dst, "copied": copied}

    @operation("backup")
    def backup(self, p: params.Backup) -> dict[str, Any]:
        """Snapshot the Redis data (BGSAVE; the embedded server's files copied to ``dest``)."""
        from .backup import backup

        return backup(self.settings, p.dest, p.timeout)

    @operation("archive_info")
    def archive_info(self, p: params.ArchivePath) -> dict[str, Any]:
        """Describe a .ahkai archive (header and memory count) without touching the store."""
        from .backup import archive_info

        return archive_info(p.path)

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
        state = redis_server.probe_url(url, timeout=1.0)
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
        try:
            if checks_itself(method):
                with strict():  # the method's check is the call's one, strict as JSON arrives
                    return method(**arguments)
            check_arguments(operations.get(name), dict(arguments))
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
