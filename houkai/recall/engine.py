"""Recall: hybrid retrieval on RediSearch, as gather, score, select (README "Recall").

:class:`Recall` is constructed with a store (:class:`~houkai.recall.core.StoreCore`) and
answers one :class:`~houkai.recall.request.RecallRequest`:

* **read** the question once (:func:`~houkai.recall.parsed.read_query`) and let the
  active stages pick their knobs and weights (:meth:`Recall.prepare`);
* **gather** candidates from two indexes of the collection, both with the metadata
  filters pushed into the query: the HNSW vector index (KNN over ``k × overfetch``)
  and, in hybrid mode, the full-text index scored with BM25 over houkai's exact
  statistics, which also brings in exact-keyword hits (ticket ids, names) the embedding
  ranks too low; then what the stages add (:meth:`Recall.gather`);
* **score** the pool: the ``min_cosine`` gate, the blend (semantic, weighted or RRF), the
  stages, graph-proximity fusion (:func:`~houkai.recall.scoring.score_pool`);
* **select** the hits: an optional reranker, graph neighbours merged, MMR / dedup, the
  cut to ``k``, one pipelined touch, neighbours appended (:meth:`Recall.select`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import redis

from ..db.filters import filter_expr, matches
from ..domain import deadline
from ..domain.model import MAX_RECALL_POOL, HybridWeights, Memory, Reranker
from .candidates import (
    Candidate,
    Leg,
    Pool,
    knn_leg,
    lexical_leg,
    rare_leg,
    rescore_lexical,
    run_legs,
    score_lexical,
    widen_leg,
)
from .core import StoreCore
from .parsed import read_query
from .request import RecallRequest
from .scoring import score_pool
from .selection import Result, append_expansion, merge_expansion, mmr_select, rerank
from .stages import pipeline, resolve_stages
from .stages.base import StageContext
from .stages.params import StageParams
from .synonyms import vocabulary

log = logging.getLogger(__name__)

#: Candidates a reranker sees at least, whatever k × overfetch gives.
RERANK_MIN_POOL = 20

Hits = list[tuple[Memory, float]] | list[tuple[Memory, float, dict[str, Any]]]


class Recall:
    """Recall over one store: ``Recall(store).run(RecallRequest(...))``.

    *weights* / *reranker*: the store's defaults (a request's own win).
    """

    def __init__(
        self,
        core: StoreCore,
        *,
        weights: HybridWeights | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.core = core
        self.weights = weights
        self.reranker = reranker

    # ------------------------------------------------------------------ the whole
    def run(self, request: RecallRequest) -> Hits:
        """The hits of *request*: ``(memory, score)`` pairs, or triples with ``explain``."""
        started = time.perf_counter()
        if request.k == 0:
            self.record(time.perf_counter() - started)
            return []
        ctx = self.prepare(request)
        pool = self.gather(ctx)
        deadline.check("candidate search")
        cands = self.score(ctx, self.admit(ctx, list(pool.values())))
        deadline.check("scoring")
        results = self.select(ctx, cands)
        self.record(time.perf_counter() - started)
        if request.explain:
            return results
        return [(m, s) for m, s, _ in results]

    # ------------------------------------------------------------------ read
    def active_reranker(self, request: RecallRequest) -> Reranker | None:
        return request.reranker if request.reranker is not None else self.reranker

    def prepare(self, request: RecallRequest, *, params: StageParams | None = None) -> StageContext:
        """Read the question once and set the recall up: active stages, their knobs and
        the blend's weights, the filter, the pool size. *params*: knobs to use instead
        of the stages' own (``bench fit`` tries them), with their weights."""
        core = self.core
        mode, k = request.mode, request.k
        w = request.weights or self.weights or HybridWeights()
        clock = time.time()
        now = clock if request.as_of is None else float(request.as_of)
        # The stages refine the weighted blend; RRF stays the plain rank fusion, and
        # weights the caller sets are used as given (the stages' boosts still apply).
        stages = (
            request.stages
            if request.stages is not None
            else resolve_stages(None, core.settings.recall_stages)
        )
        active = stages if mode == "hybrid" and request.fusion == "weighted" else ()
        steps = pipeline(active)
        reads = {part for s in steps for part in s.reads}
        widen = core.settings.semantic_widen and not core.knn_exact()
        query = read_query(
            core,
            request.query,
            now,
            hybrid=mode == "hybrid",
            parse="parse" in reads,
            state_read="state" in reads,
            widen=widen,
            synonyms=vocabulary(core.settings.recall_synonyms) if "synonyms" in reads else None,
            casing="casing" in reads,
        )
        own_weights = request.weights is None and self.weights is None
        ctx = StageContext(
            core, request, query, active, weights=w, own_weights=own_weights, widen=widen
        )
        ctx.clock = clock
        for s in steps:
            s.tune(ctx)
        if params is not None:
            ctx.params = params
            if own_weights:
                ctx.weights = params.weights(w)
        for s in steps:
            s.weigh(ctx)
        scope = request.scope()
        ctx.filters = {
            "type": request.type,
            "tag": request.tag,
            "min_importance": request.min_importance,
            "source": request.source,
            "since": request.since,
            "until": request.until,
            "include_superseded": request.include_superseded,
            "include_expired": request.include_expired,
            "now": clock,
            "scope": scope,
        }
        ctx.where = filter_expr(**ctx.filters)
        pool_size = min(max(k * request.overfetch, k), MAX_RECALL_POOL)
        if self.active_reranker(request) is not None:
            # A reranker can only promote what it is shown: at k=1 the seed's k × overfetch
            # would hand it 4 near-ties out of many (ADR 0055's int8 reorders such ties).
            pool_size = max(pool_size, RERANK_MIN_POOL)
        ctx.pool_size = pool_size
        # Only the default clauses (not superseded, not expired) keep nearly every
        # memory: search the HNSW graph in batches and filter, instead of letting
        # RediSearch brute-force every document. User filters may be selective, so
        # there RediSearch picks the policy from its own estimate.
        ctx.broad = not scope and all(
            v is None
            for v in (
                request.type,
                request.tag,
                request.min_importance,
                request.source,
                request.since,
                request.until,
            )
        )
        return ctx

    def retune(self, ctx: StageContext, params: StageParams) -> StageContext:
        """*ctx* with other knobs (and the weights they imply), to score its pool again."""
        w = ctx.request.weights or self.weights or HybridWeights()
        out = replace(ctx, params=params, notes={})
        if ctx.own_weights:
            out.weights = params.weights(w)
        for s in pipeline(ctx.active):
            s.weigh(out)
        return out

    # ------------------------------------------------------------------ gather
    def gather(self, ctx: StageContext) -> Pool:
        """The candidate pool: KNN, the keyword leg and BM25, then what the active stages
        add (PRF, RM3, sequence neighbours); BM25 of the late comers."""
        core, q = self.core, ctx.query
        hybrid = ctx.request.mode == "hybrid"
        pool: Pool = {}
        # the KNN, its widening over the question's words and the keyword query depend
        # only on the question: one round trip, taken in that order
        legs: list[Leg | None] = []
        if q.vector is not None:
            legs.append(knn_leg(core, pool, q.vector, ctx.where, ctx.pool_size, batches=ctx.broad))
            if ctx.widen:
                legs.append(
                    widen_leg(core, pool, q.terms, q.stats, ctx.where, ctx.pool_size, q.vector)
                )
        stats = q.stats if hybrid else None  # the lexical leg's, in hybrid recall
        if stats is not None:
            legs.append(
                lexical_leg(
                    core, pool, q.terms, stats, ctx.where, ctx.pool_size, q.vector, q.related
                )
            )
            if ctx.where != "*":
                legs.append(
                    rare_leg(core, pool, q.terms, stats, ctx.pool_size, q.vector, self.kept(ctx))
                )
        run_legs(core, [leg for leg in legs if leg is not None])
        if stats is not None:
            ceiling = ctx.lexical_ceiling
            ctx.lexical_best = score_lexical(core, pool, q.terms, stats, q.related, ceiling)
        steps = pipeline(ctx.active)
        if pool and steps:
            added: list[str] = []
            for s in steps:
                added += s.search(ctx, pool)
            for s in steps:
                added += s.link(ctx, pool)
            for s in steps:
                s.gathered(ctx, pool)
            if added and q.terms and q.stats is not None:  # the whole pool, normalised again
                ctx.lexical_best = rescore_lexical(
                    core, pool, q.terms, q.stats, added, q.related, ctx.lexical_ceiling
                )
        return pool

    # ------------------------------------------------------------------ score
    def admit(self, ctx: StageContext, cands: list[Candidate]) -> list[Candidate]:
        """The access overlay for recency by access, then the ``min_cosine`` gate; sets
        how deep the order matters (``ctx.depth``)."""
        request = ctx.request
        if request.mode == "hybrid" and ctx.weights.recency_basis == "accessed":
            self.core.overlay_access([c.memory for c in cands])  # recency from the true access
        if request.min_cosine is not None:
            cands = [c for c in cands if c.has_vector and c.cosine >= request.min_cosine]
        # Only the first k ranks are returned as scored, unless a reranker, MMR or a merged
        # expansion reads further down the pool.
        expand = request.expand
        reads_deeper = (
            self.active_reranker(request) is not None
            or self.diverse(request)
            or (expand is not None and expand.rerank)
        )
        ctx.depth = None if reads_deeper else request.k
        return cands

    @staticmethod
    def kept(ctx: StageContext) -> Callable[[Memory], bool]:
        """The recall's filter, for hits fetched without it."""
        return lambda memory: matches(memory, **ctx.filters)

    @staticmethod
    def diverse(request: RecallRequest) -> bool:
        return request.diversity is not None or request.dedup_threshold is not None

    def score(self, ctx: StageContext, cands: list[Candidate]) -> list[Candidate]:
        """Score and sort *cands* in place (see :func:`~houkai.recall.scoring.score_pool`)."""
        return score_pool(ctx, cands)

    # ------------------------------------------------------------------ select
    def select(self, ctx: StageContext, cands: list[Candidate]) -> list[Result]:
        """Rerank, merge graph neighbours, MMR / dedup, cut to ``k``, touch, append."""
        core, request = self.core, ctx.request
        k, expand, clock = request.k, request.expand, ctx.clock
        reranker = self.active_reranker(request)
        select = self.diverse(request)
        if reranker is not None and cands:
            cands = rerank(reranker, request.query, cands)
        if expand is not None and expand.rerank and expand.cap > 0:
            cands = merge_expansion(
                core,
                cands,
                k,
                expand,
                request.include_superseded,
                clock,
                include_expired=request.include_expired,
                need_vectors=select,
            )
        chosen = (
            mmr_select(core, cands, k, request.diversity, request.dedup_threshold)
            if select
            else cands[:k]
        )
        core.account_access([c.memory for c in chosen], clock if request.touch else None)
        results: list[Result] = [(c.memory, float(c.score), c.explain) for c in chosen]
        if expand is not None and not expand.rerank and expand.cap > 0:
            results = append_expansion(
                core,
                results,
                expand,
                request.include_superseded,
                clock,
                include_expired=request.include_expired,
            )
        return results

    # ------------------------------------------------------------------ metrics
    def record(self, seconds: float) -> None:
        """Count the call and keep a bounded window of latencies in Redis."""
        core = self.core
        try:
            pipe = core.client.pipeline(transaction=False)
            pipe.hincrby(core.keys.metrics, "calls:recall", 1)
            pipe.lpush(core.keys.latency, f"{seconds * 1000:.3f}")
            pipe.ltrim(core.keys.latency, 0, 1023)
            pipe.execute()
        except redis.RedisError:
            pass
