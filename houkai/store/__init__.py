"""``MemoryStore``: the seed's library API on Redis Stack, a thin facade over collaborators.

One :class:`~houkai.store.core.CoreStore` (connection, keys, scripts and the stated
primitives) and one object per concern, each constructed with the core and reached
through an attribute of the store:

============== ======================================= ===========================
attribute      object                                  methods
============== ======================================= ===========================
``core``       :class:`~.core.CoreStore`               the primitives (``write``, ``get``, …)
``memories``   :class:`~.memories.Memories`            remember, edit, forget, list_recent
``graph``      :class:`~.graph.Graph`                  link, unlink, neighbors, subgraph
``conflicts``  :class:`~.conflicts.Conflicts`          supersede, restore, find_conflicts
``timeline``   :class:`~.history.History`              undo, history, state_at, get_at
``portability`` :class:`~.portability.Portability`     export, import_
``observer``   :class:`~.observability.Stats`          stats, metrics, readiness
``expiry``     :class:`~.expiry.Expiry`                purge_expired
``conversations`` :class:`~.sessions.Sessions`         add_messages, session, sessions
============== ======================================= ===========================

A collaborator that needs another gets it in its constructor (``Memories`` calls
``Conflicts`` for the conflict policy and ``Graph`` for a sequence's links), never
through the facade. Every public method of the seed API keeps its name, signature
and default here (:func:`~houkai.store.delegate.forward` copies them). Recall and
packing live in :mod:`houkai.recall`: ``recall``, ``recall_pack`` and
``auto_context_pack`` build one :class:`~houkai.recall.request.RecallRequest` and hand
it to the store's :attr:`recaller`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import redis

from ..domain.config import Settings
from ..domain.model import ConflictFn, HybridWeights, ImportanceFn, Reranker
from ..engines.embeddings import DEFAULT_MODEL_NAME, Embedder, QueryCache
from ..recall import packing
from ..recall.request import RecallRequest
from . import findability
from .conflicts import Conflicts
from .core import CoreStore, coerce_remember_item
from .delegate import forward
from .expiry import Expiry
from .graph import Graph
from .history import History
from .memories import Memories
from .observability import Stats
from .portability import Portability
from .seed_collection import CollectionName
from .sessions import Sessions

if TYPE_CHECKING:
    from ..domain.model import ExpandSpec, PackResult
    from ..recall.engine import Recall
    from ..recall.packing import TokenCounter


class MemoryStore:
    """Long-term memory for one collection, backed by Redis Stack.

    ``MemoryStore(path=None, collection="ai_houkai", ...)`` keeps the seed's
    constructor: *path* is the data directory of the embedded Redis Stack
    (used when no ``REDIS_URL`` / ``redis_url`` is configured).
    """

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
        core = CoreStore(
            path,
            collection,
            embedding_model,
            embedder=embedder,
            embedding_function=embedding_function,
            redis_url=redis_url,
            key_prefix=key_prefix,
            conflict_policy=conflict_policy,
            conflict_threshold=conflict_threshold,
            contradiction_fn=contradiction_fn,
            hybrid_weights=hybrid_weights,
            reranker=reranker,
            importance_fn=importance_fn,
            actor=actor,
            journal_enabled=journal_enabled,
            journal_path=journal_path,
            journal_rotate_mb=journal_rotate_mb,
            journal_keep_days=journal_keep_days,
            settings=settings,
            client=client,
        )
        self.core = core
        self.graph = Graph(core)
        self.conflicts = Conflicts(core, self.graph)
        self.memories = Memories(core, self.graph, self.conflicts)
        self.timeline = History(core, self.memories, self.graph, self.conflicts)
        self.portability = Portability(core, self.graph)
        self.observer = Stats(core)
        self.expiry = Expiry(core)
        self.conversations = Sessions(core, self)
        # the core's state that recall and the store's users read
        self.client: redis.Redis = core.client
        self.keys = core.keys
        self.collection_name: str = core.collection_name
        self.path = core.path
        self.embedding_model = core.embedding_model
        self.index_params = core.index_params
        self.journal = core.journal
        self.scripts = core.scripts
        self._hybrid_weights = core._hybrid_weights
        self._reranker = core._reranker
        # the name, also answering the seed's collection.count/get/update (seed_collection.py)
        self.collection: str = CollectionName(self)

    # ------------------------------------------------------------------ plumbing
    def __repr__(self) -> str:
        return f"MemoryStore(collection={self.collection_name!r}, prefix={self.keys.prefix!r})"

    def close(self) -> None:
        """Nothing to release per store: connection pools are shared per process."""

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def settings(self) -> Settings:
        """The core's settings (assignable: a test or bench narrows one store's)."""
        return self.core.settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self.core.settings = value

    @property
    def embedder(self) -> Embedder:
        return self.core.embedder

    @embedder.setter
    def embedder(self, value: Embedder) -> None:
        self.core.embedder = value

    @property
    def query_cache(self) -> QueryCache:
        """The query vectors' LRU cache (assignable: a benchmark starts a cold one)."""
        return self.core.query_cache

    @query_cache.setter
    def query_cache(self, value: QueryCache) -> None:
        self.core.query_cache = value

    @property
    def actor(self) -> str:
        return self.core.actor

    @property
    def journal_enabled(self) -> bool:
        """Whether mutations are journaled (``journal_enabled`` argument or setting)."""
        return self.core.journal_enabled

    @property
    def vector_type(self) -> str:
        """The element type of this collection's stored vectors (FLOAT32, FLOAT16, …)."""
        return self.core.vector_type

    @property
    def aggregate_index(self) -> str:
        """The index the access-reading aggregates query (see :class:`CoreStore`)."""
        return self.core.aggregate_index

    @property
    def conflict_policy(self) -> str:
        """The default ``on_conflict`` policy of this store."""
        return self.core.conflict_policy

    @property
    def conflict_threshold(self) -> float:
        """Cosine similarity from which two memories are checked for a conflict."""
        return self.core.conflict_threshold

    @property
    def contradiction_fn(self) -> ConflictFn | None:
        """The store's default contradiction judge (None: polarity and negation)."""
        return self.core.contradiction_fn

    @property
    def session_state(self) -> Any:
        """The Redis side of this collection's sessions (made once)."""
        return self.conversations.session_state

    # ------------------------------------------------------------------ core primitives
    as_actor = forward("core", CoreStore.as_actor)
    journal_append = forward("core", CoreStore.journal_append)
    journal_append_many = forward("core", CoreStore.journal_append_many)
    maybe_archive_journal = forward("core", CoreStore.maybe_archive_journal)
    count_call = forward("core", CoreStore.count_call)
    encode = forward("core", CoreStore.encode)
    knn_exact = forward("core", CoreStore.knn_exact)
    query_vector = forward("core", CoreStore.query_vector)
    write = forward("core", CoreStore.write)
    delete = forward("core", CoreStore.delete)
    vector_blob = forward("core", CoreStore.vector_blob)
    vector_from_blob = forward("core", CoreStore.vector_from_blob)
    from_fields = forward("core", CoreStore.from_fields)
    get = forward("core", CoreStore.get)
    _get_by_id = get  # the seed's name
    get_many = forward("core", CoreStore.get_many)
    vectors = forward("core", CoreStore.vectors)
    fields_of = forward("core", CoreStore.fields_of)
    exists = forward("core", CoreStore.exists)
    count = forward("core", CoreStore.count)
    iter_memories = forward("core", CoreStore.iter_memories)
    set_raw_fields = forward("core", CoreStore.set_raw_fields)
    touch_many = forward("core", CoreStore.touch_many)
    overlay_access = forward("core", CoreStore.overlay_access)
    account_access = forward("core", CoreStore.account_access)
    flush_access = forward("core", CoreStore.flush_access)
    fold_ids = forward("core", CoreStore.fold_ids)

    # ------------------------------------------------------------------ memories
    build_memory = forward("memories", Memories.build_memory)
    remember = forward("memories", Memories.remember)
    remember_many = forward("memories", Memories.remember_many)
    edit = forward("memories", Memories.edit)
    forget = forward("memories", Memories.forget)
    list_recent = forward("memories", Memories.list_recent)
    nuke = forward("memories", Memories.nuke)

    def drop(self) -> int:
        """Delete the collection entirely: memories, index, journal, metrics, registry
        entry, and its sessions."""
        self.conversations.session_state.delete_all()
        return self.memories.drop()

    # ------------------------------------------------------------------ graph
    reindex_links = forward("graph", Graph.reindex_links)
    link = forward("graph", Graph.link)
    unlink = forward("graph", Graph.unlink)
    neighbors = forward("graph", Graph.neighbors)
    subgraph = forward("graph", Graph.subgraph)

    # ------------------------------------------------------------------ conflicts
    supersede = forward("conflicts", Conflicts.supersede)
    restore = forward("conflicts", Conflicts.restore)
    check_conflicts = forward("conflicts", Conflicts.check_conflicts)
    find_conflicts = forward("conflicts", Conflicts.find_conflicts)
    iter_conflicts = forward("conflicts", Conflicts.iter_conflicts)
    iter_new_conflicts = forward("conflicts", Conflicts.iter_new_conflicts)
    apply_conflict_policy = forward("conflicts", Conflicts.apply_conflict_policy)
    apply_conflict_policy_many = forward("conflicts", Conflicts.apply_conflict_policy_many)

    # ------------------------------------------------------------------ history
    archive_journal = forward("timeline", History.archive_journal)
    journal_tail = forward("timeline", History.journal_tail)
    find_entry = forward("timeline", History.find_entry)
    undo = forward("timeline", History.undo)
    history = forward("timeline", History.history)
    state_at = forward("timeline", History.state_at)
    get_at = forward("timeline", History.get_at)

    # ------------------------------------------------------------------ portability
    export = forward("portability", Portability.export)
    import_ = forward("portability", Portability.import_)

    # ------------------------------------------------------------------ observability
    forget_aggregates = forward("observer", Stats.forget_aggregates)
    stale_aggregate = forward("observer", Stats.stale_aggregate)
    wait_refreshes = forward("observer", Stats.wait_refreshes)
    probe_embedding = forward("observer", Stats.probe_embedding)
    readiness = forward("observer", Stats.readiness)
    created_slices = forward("observer", Stats.created_slices)
    stats = forward("observer", Stats.stats)
    content_counts_stale = forward("observer", Stats.content_counts_stale)

    def metrics(self) -> dict[str, Any]:
        """The store's metrics plus, once a session exists, ``sessions`` (how many); the
        extractors' tokens and cost are the service's ``extraction`` figures."""
        out = self.observer.metrics()
        sessions = self.conversations.session_state.count()
        if sessions:
            out["sessions"] = sessions
        return out

    # ------------------------------------------------------------------ expiry, sessions
    purge_expired = forward("expiry", Expiry.purge_expired)
    add_messages = forward("conversations", Sessions.add_messages)
    session = forward("conversations", Sessions.session)
    sessions = forward("conversations", Sessions.sessions)
    delete_session = forward("conversations", Sessions.delete_session)
    extract_session = forward("conversations", Sessions.extract_session)

    # ------------------------------------------------------------------ findability
    # ------------------------------------------------------------------ recall
    @property
    def recaller(self) -> Recall:
        """This store's :class:`~houkai.recall.engine.Recall` (recall, packing, ``bench fit``)."""
        found: Recall | None = self.__dict__.get("_recaller")
        if found is None:
            from ..recall.engine import Recall  # recall builds on the store: imported late

            found = self.__dict__["_recaller"] = Recall(
                self, weights=self._hybrid_weights, reranker=self._reranker
            )
        return found

    def recall(
        self,
        # --- generated by `python -m houkai.recall.generate --write`: do not edit by hand ---
        query: str,
        k: int = 5,
        type: str | None = None,
        tag: str | None = None,
        min_importance: float | None = None,
        source: str | None = None,
        since: float | None = None,
        until: float | None = None,
        mode: str = "semantic",
        weights: HybridWeights | None = None,
        overfetch: int = 4,
        include_superseded: bool = False,
        include_expired: bool = False,
        touch: bool = True,
        explain: bool = False,
        fusion: str = "weighted",
        diversity: float | None = None,
        dedup_threshold: float | None = None,
        min_cosine: float | None = None,
        reranker: Reranker | None = None,
        expand: ExpandSpec | None = None,
        rrf_k: int = 60,
        stages: Any = None,
        as_of: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        # --- end of generated recall parameters ---
    ) -> list[Any]:  # (memory, score) pairs; (memory, score, breakdown) with explain
        """Find the *k* memories most relevant to *query* (README "Recall").

        ``mode="semantic"`` ranks by cosine (+ the polarity nudge); ``mode="hybrid"``
        blends cosine, BM25, recency and importance (``fusion="weighted"``) or fuses
        their ranks (``fusion="rrf"``), and runs the stages (``stages``: default the
        ``recall_stages`` setting, ``()`` for the plain blend; see
        :mod:`houkai.recall.stages`). ``explain=True`` returns ``(memory, score,
        breakdown)`` triples. ``as_of`` is the clock the question is asked at;
        ``user_id`` / ``agent_id`` / ``session_id`` keep only memories of that scope.
        The arguments become one :class:`~houkai.recall.request.RecallRequest`; they are
        declared once, in :mod:`houkai.recall.parameters` (the list above is generated).
        """
        args = dict(locals())
        del args["self"]
        return self.recaller.run(RecallRequest(**args))

    def recall_pack(
        self,
        query: str,
        *,
        token_budget: int = 800,
        type: str | None = None,
        tag: str | None = None,
        min_importance: float | None = None,
        source: str | None = None,
        since: float | None = None,
        until: float | None = None,
        mode: str = "hybrid",
        weights: HybridWeights | None = None,
        fusion: str = "weighted",
        diversity: float | None = None,
        dedup_threshold: float | None = None,
        min_cosine: float | None = None,
        expand: ExpandSpec | None = None,
        include_superseded: bool = False,
        max_items: int = 50,
        touch: bool = True,
        token_counter: TokenCounter | None = None,
        header: str = packing.DEFAULT_HEADER,
        compress: bool = False,
        compress_threshold: float = 0.30,
        compress_min_group: int = 2,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> PackResult:
        """The highest-ranked memories that fit *token_budget*, as a ready-to-inject block:
        ``recall(query, k=max_items, …)`` (hybrid by default), packed greedily
        (:func:`houkai.recall.packing.pack_ranked`)."""
        packing.validate_pack(
            token_budget, token_counter, header, compress_threshold, compress_min_group, max_items
        )
        request = RecallRequest(
            query, k=max_items, type=type, tag=tag, min_importance=min_importance,
            source=source, since=since, until=until, mode=mode, weights=weights, fusion=fusion,
            diversity=diversity, dedup_threshold=dedup_threshold, min_cosine=min_cosine,
            expand=expand, include_superseded=include_superseded, touch=touch,
            user_id=user_id, agent_id=agent_id, session_id=session_id,
        )  # fmt: skip
        return packing.recall_pack(
            self.recaller, request, token_budget=token_budget, token_counter=token_counter,
            header=header, compress=compress, compress_threshold=compress_threshold,
            compress_min_group=compress_min_group,
        )  # fmt: skip

    def auto_context_pack(
        self,
        task: str,
        *,
        token_budget: int = 800,
        max_phrases: int = 3,
        mode: str = "hybrid",
        min_cosine: float | None = None,
        header: str = packing.DEFAULT_HEADER,
        token_counter: TokenCounter | None = None,
        touch: bool = True,
        compress: bool = False,
        compress_threshold: float = 0.30,
        compress_min_group: int = 2,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> PackResult:
        """Fan recall out over *task* and its key phrases, keep each memory's best score,
        pack (:func:`houkai.recall.packing.auto_context_pack`)."""
        args = dict(locals())
        del args["self"]
        return packing.auto_context_pack(self.recaller, **args)

    # ------------------------------------------------------------------ findability
    def check_findable(
        self, sample: int = findability.DEFAULT_SAMPLE, repair: bool = True, text: bool = True
    ) -> dict[str, Any]:
        """Ask a sample of the live memories for by their own vector, text and rare words;
        re-insert into the HNSW graph what their vector misses (*repair*). Saves and returns
        the report (see :mod:`houkai.store.findability`)."""
        return findability.check(self, sample=sample, repair=repair, text=text).to_dict()

    def findability(self) -> dict[str, Any] | None:
        """The last saved findability report of this collection, or None."""
        return findability.last_report(self)


__all__ = ["CoreStore", "MemoryStore", "coerce_remember_item"]
