"""The read operations (get, list_recent, recall, recall_pack, auto_context, stats,
metrics) and the graph's (link, unlink, neighbors, subgraph, find_conflicts,
supersede, restore)."""

from __future__ import annotations

import itertools
from typing import Any

from ..domain import deadline
from ..domain.coerce import as_timestamp
from ..extraction.usage import store_usage
from ..recall.request import RecallRequest
from .operations import params as params
from .operations.bind import operation
from .service_args import given, read_only_touch, search_kwargs
from .service_base import ServiceBase
from .shapes import conflict_to_dict, memory_to_dict, pack_to_dict


class ReadOps(ServiceBase):
    """Operations that read memories and their links."""

    # ------------------------------------------------------------------ reads
    @operation("get")
    def get(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        return memory_to_dict(self._require_memory(store, p.memory_id))

    @operation("list_recent")
    def list_recent(
        self, p: params.ListRecent, *, collection: str | None = None
    ) -> list[dict[str, Any]]:
        kwargs = given(p, *type(p).model_fields)
        if "since" in kwargs:
            kwargs["since"] = as_timestamp(kwargs["since"], "since")
        memories = self.read_store(collection).list_recent(**kwargs)
        return [memory_to_dict(m) for m in memories]

    @operation("recall")
    def recall(self, p: params.Recall, *, collection: str | None = None) -> list[dict[str, Any]]:
        """Semantic or hybrid search: a list of memory dicts with ``score`` (and ``explain``)."""
        store = self.read_store(collection)
        with deadline.scope(self.settings.request_deadline):
            hits = store.recaller.run(RecallRequest.checked(**search_kwargs(p)))  # checked once
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
            return pack_to_dict(store.recall_pack(**search_kwargs(p)))

    @operation("auto_context")
    def auto_context(
        self, p: params.AutoContext, *, collection: str | None = None
    ) -> dict[str, Any]:
        """Multi-angle context pack: recall_pack's shape plus ``queries``."""
        store = self.read_store(collection)
        kwargs = read_only_touch(given(p, *type(p).model_fields))
        task = kwargs.pop("task")
        with deadline.scope(self.settings.request_deadline):
            pack = store.auto_context_pack(task, **kwargs)
        reply = pack_to_dict(pack)
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
        self._call(self.read_store(collection).link, p.src_id, p.dst_id, rel=p.rel)
        return {"ok": True, "src_id": p.src_id, "dst_id": p.dst_id, "rel": p.rel}

    @operation("unlink")
    def unlink(self, p: params.Unlink, *, collection: str | None = None) -> dict[str, Any]:
        removed = self._call(self.read_store(collection).unlink, p.src_id, p.dst_id, rel=p.rel)
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
            found = self._call(store.find_conflicts, memory_id=p.memory_id, threshold=p.threshold)
            return [conflict_to_dict(c) for c in found[: p.limit]]
        # the whole collection, or (since) the new memories against it: streamed, and
        # stopped at the limit, so a collection of near-duplicates cannot hold the door
        since = as_timestamp(p.since, "since") if p.since is not None else None
        pairs = store.iter_conflicts(p.threshold, since=since)
        scan = self._call(lambda: list(itertools.islice(pairs, p.limit)))
        return [conflict_to_dict(c) for c in scan]

    @operation("supersede")
    def supersede(self, p: params.Supersede, *, collection: str | None = None) -> dict[str, Any]:
        self._call(self.read_store(collection).supersede, p.old_id, p.new_id)
        return {"ok": True, "old_id": p.old_id, "new_id": p.new_id}

    @operation("restore")
    def restore(self, p: params.MemoryRef, *, collection: str | None = None) -> dict[str, Any]:
        store = self.read_store(collection)
        self._require_memory(store, p.memory_id)
        return {"restored": bool(self._call(store.restore, p.memory_id)), "id": p.memory_id}
