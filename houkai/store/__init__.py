"""``MemoryStore``: the seed's library API on Redis Stack, composed of small mixins.

Each mixin module owns one concern and builds on the primitives of
:class:`~houkai.store.core.CoreStore`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..recall import packing
from ..recall.request import RecallRequest
from . import findability
from .conflicts import ConflictsMixin
from .core import CoreStore, coerce_remember_item
from .expiry import ExpiryMixin
from .graph import GraphMixin
from .history import HistoryMixin
from .observability import ObservabilityMixin
from .portability import PortabilityMixin
from .sessions import SessionsMixin

if TYPE_CHECKING:
    from ..domain.model import ExpandSpec, HybridWeights, PackResult, Reranker
    from ..recall.engine import Recall
    from ..recall.packing import TokenCounter


class MemoryStore(
    SessionsMixin,
    GraphMixin,
    ConflictsMixin,
    ExpiryMixin,
    HistoryMixin,
    PortabilityMixin,
    ObservabilityMixin,
    CoreStore,
):
    """Long-term memory for one collection, backed by Redis Stack.

    ``MemoryStore(path=None, collection="ai_houkai", ...)`` keeps the seed's
    constructor: *path* is the data directory of the embedded Redis Stack
    (used when no ``REDIS_URL`` / ``redis_url`` is configured).
    """

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
    ) -> list[Any]:  # (memory, score) pairs; (memory, score, breakdown) with explain
        """Find the *k* memories most relevant to *query* (README "Recall").

        ``mode="semantic"`` ranks by cosine (+ the polarity nudge); ``mode="hybrid"``
        blends cosine, BM25, recency and importance (``fusion="weighted"``) or fuses
        their ranks (``fusion="rrf"``), and runs the stages (``stages``: default the
        ``recall_stages`` setting, ``()`` for the plain blend; see
        :mod:`houkai.recall.stages`). ``explain=True`` returns ``(memory, score,
        breakdown)`` triples. ``as_of`` is the clock the question is asked at;
        ``user_id`` / ``agent_id`` / ``session_id`` keep only memories of that scope.
        The arguments become one :class:`~houkai.recall.request.RecallRequest`.
        """
        args = dict(locals())
        del args["self"]
        return self.recaller.run(RecallRequest(**args))

    def recall_pack(  # type: ignore[override]  # SessionsMixin declares it loosely
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
        header: str = "## Relevant memory",
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
        header: str = "## Relevant memory",
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

    def check_findable(
        self, sample: int = findability.DEFAULT_SAMPLE, repair: bool = True, text: bool = True
    ) -> dict[str, Any]:
        """Ask a sample of the live memories for by their own vector and text; re-insert
        into the HNSW graph what their vector misses (*repair*). Saves and returns the
        report (see :mod:`houkai.store.findability`)."""
        return findability.check(self, sample=sample, repair=repair, text=text).to_dict()

    def findability(self) -> dict[str, Any] | None:
        """The last saved findability report of this collection, or None."""
        return findability.last_report(self)


__all__ = ["CoreStore", "MemoryStore", "coerce_remember_item"]
