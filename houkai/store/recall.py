"""Recall: the seed's §5/§14 pipeline on RediSearch.

Candidates come from two indexes of the same collection, both with the
metadata filters pushed into the query:

* the HNSW vector index (KNN over ``k × overfetch``), and
* in hybrid mode, the full-text index scored with RediSearch's corpus-wide
  BM25, which also brings in exact-keyword hits (ticket ids, names) that the
  embedding ranks too low to reach the vector pool.

The pool is then scored (weighted blend or RRF), gated, optionally reranked,
re-selected (MMR / dedup) and cut to ``k``; hits are touched in one pipelined
write and optionally expanded along links.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import redis

from ..index import MEMORY_FIELDS, filter_expr
from ..model import (
    FUSIONS,
    MEMORY_TYPES,
    RECALL_MODES,
    ExpandSpec,
    HybridWeights,
    Memory,
    Reranker,
    validate_choice,
)
from ..text import lexical_query
from . import codec
from .search import search

DEFAULT_RRF_K = 60


@dataclass
class Candidate:
    memory: Memory
    cosine: float = 0.0
    has_vector: bool = False
    bm25: float = 0.0  # raw RediSearch BM25
    lexical: float = 0.0  # BM25 normalised to [0, 1] over the pool
    score: float = 0.0
    explain: dict[str, Any] = field(default_factory=dict)
    vector: np.ndarray | None = None


def _check_unit(value: float | None, name: str, lo: float = 0.0, hi: float = 1.0) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number in [{lo:g}, {hi:g}] — got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo:g}, {hi:g}] — got {value!r}")


def _check_int(value: object, name: str, lo: int = 1, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}] — got {value!r}")
    return value


def _minmax(values: list[float]) -> list[float]:
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo <= 1e-12:
        return [1.0 if hi > 0 else 0.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def recency_score(memory: Memory, weights: HybridWeights, now: float) -> float:
    basis = memory.last_accessed if weights.recency_basis == "accessed" else memory.created_at
    age_days = max(0.0, now - basis) / 86400.0
    return math.exp(-weights.decay_rate * age_days)


class RecallMixin:
    """``recall`` and the candidate/scoring machinery it is built from."""

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
        rrf_k: int = DEFAULT_RRF_K,
    ) -> list[tuple[Memory, float]] | list[tuple[Memory, float, dict[str, Any]]]:
        """Find the *k* memories most relevant to *query* (seed §5, §14)."""
        started = time.perf_counter()
        if not isinstance(query, str):
            raise ValueError(f"query must be a string — got {query!r}")
        k = _check_int(k, "k")
        overfetch = _check_int(overfetch, "overfetch", 1, 100)
        validate_choice(mode, RECALL_MODES, "mode")
        validate_choice(fusion, FUSIONS, "fusion")
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
        _check_unit(diversity, "diversity")
        _check_unit(dedup_threshold, "dedup_threshold", -1.0, 1.0)
        _check_unit(min_cosine, "min_cosine", -1.0, 1.0)
        if min_importance is not None:
            _check_unit(min_importance, "min_importance")
        for name, value in (("since", since), ("until", until)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, int | float)):
                raise ValueError(f"{name} must be a Unix timestamp — got {value!r}")
        rrf_k = _check_int(rrf_k, "rrf_k", 1, 100_000)
        if weights is not None and not isinstance(weights, HybridWeights):
            raise ValueError("weights must be a HybridWeights")
        if expand is not None and not isinstance(expand, ExpandSpec):
            raise ValueError("expand must be an ExpandSpec")
        w = weights or self._hybrid_weights or HybridWeights()
        now = time.time()
        where = filter_expr(type=type, tag=tag, min_importance=min_importance, source=source,
                            since=since, until=until, include_superseded=include_superseded,
                            include_expired=include_expired, now=now)
        pool_size = max(k * overfetch, k)
        qvec = self._query_vector(query) if query.strip() else None
        pool = self._vector_candidates(qvec, where, pool_size) if qvec is not None else {}
        lexical_active = False
        if mode == "hybrid" and query.strip():
            lexical_active = self._add_lexical(pool, query, where, pool_size, qvec)
        cands = list(pool.values())
        if min_cosine is not None:
            cands = [c for c in cands if c.has_vector and c.cosine >= min_cosine]
        if mode == "hybrid":
            if fusion == "rrf":
                self._score_rrf(cands, w, now, rrf_k, lexical_active)
            else:
                self._score_weighted(cands, w, now, lexical_active)
            if w.graph > 0:
                self._apply_graph(cands, w, fusion, rrf_k)
        else:
            self._score_semantic(cands, w)
        cands.sort(key=lambda c: (-c.score, c.memory.id))
        active_reranker = reranker or self._reranker
        if active_reranker is not None and cands:
            cands = self._rerank(active_reranker, query, cands, explain)
        if expand is not None and expand.rerank and expand.cap > 0:
            cands = self._merge_expansion(cands, k, expand, include_superseded, now)
        if diversity is not None or dedup_threshold is not None:
            chosen = self._mmr_select(cands, k, diversity, dedup_threshold)
        else:
            chosen = cands[:k]
        if touch and chosen:
            self._touch_many([c.memory for c in chosen], now=now)
        results: list[tuple[Memory, float, dict[str, Any]]] = [
            (c.memory, float(c.score), c.explain) for c in chosen
        ]
        if expand is not None and not expand.rerank and expand.cap > 0:
            results = self._append_expansion(results, expand, include_superseded, now)
        self._record_recall(time.perf_counter() - started)
        if explain:
            return results
        return [(m, s) for m, s, _ in results]

    # ------------------------------------------------------------ candidates
    def _vector_candidates(self, qvec: np.ndarray, where: str, size: int) -> dict[str, Candidate]:
        base = f"({where})" if where != "*" else "*"
        query = f"{base}=>[KNN {size} @vec $q AS dist]"
        _, hits = search(self.client, self.keys.index, query,
                         params={"q": codec.vector_bytes(qvec)},
                         return_fields=(*MEMORY_FIELDS, "dist", "vec"),
                         sortby=("dist", "ASC"), limit=size)
        pool: dict[str, Candidate] = {}
        for hit in hits:
            memory = codec.from_hash(hit.fields)
            cosine = 1.0 - float(hit.str("dist", "1"))
            pool[memory.id] = Candidate(memory=memory, cosine=cosine, has_vector=True,
                                        vector=codec.vector_from_bytes(hit.fields.get("vec")))
        return pool

    def _add_lexical(self, pool: dict[str, Candidate], query: str, where: str, size: int,
                     qvec: np.ndarray | None) -> bool:
        """Add BM25 to the pool and pull in keyword-only hits. True if any BM25 > 0."""
        text_clause = lexical_query(query)
        if text_clause is None:
            return False
        clause = text_clause if where == "*" else f"{text_clause} {where}"
        try:
            _, hits = search(self.client, self.keys.index, clause, withscores=True,
                             scorer="BM25", return_fields=(*MEMORY_FIELDS, "vec"), limit=size)
        except redis.exceptions.ResponseError:
            return False  # a lexical bonus is never worth failing the recall
        seen = set()
        for hit in hits:
            memory = codec.from_hash(hit.fields)
            seen.add(memory.id)
            cand = pool.get(memory.id)
            if cand is None:
                vec = codec.vector_from_bytes(hit.fields.get("vec"))
                cosine = float(np.dot(vec, qvec)) if vec is not None and qvec is not None else 0.0
                cand = Candidate(memory=memory, cosine=cosine, has_vector=vec is not None,
                                 vector=vec)
                pool[memory.id] = cand
            cand.bm25 = float(hit.score or 0.0)
        missing = [self.keys.memory(mid) for mid in pool if mid not in seen]
        if missing:
            try:
                _, scored = search(self.client, self.keys.index, text_clause, withscores=True,
                                   scorer="BM25", inkeys=missing, nocontent=True,
                                   limit=len(missing))
            except redis.exceptions.ResponseError:
                scored = []
            for hit in scored:
                mid = codec.memory_id_from_key(self.keys, hit.key)
                if mid in pool:
                    pool[mid].bm25 = float(hit.score or 0.0)
        top = max((c.bm25 for c in pool.values()), default=0.0)
        for cand in pool.values():
            cand.lexical = cand.bm25 / top if top > 0 else 0.0
        return top > 0

    # ------------------------------------------------------------ scoring
    def _score_semantic(self, cands: list[Candidate], w: HybridWeights) -> None:
        for c in cands:
            polarity = w.polarity_weight * c.memory.polarity
            c.score = c.cosine + polarity
            c.explain = {"cosine": round(c.cosine, 6), "polarity": polarity,
                         "score": round(c.score, 6)}

    def _score_weighted(self, cands: list[Candidate], w: HybridWeights, now: float,
                        lexical_active: bool) -> None:
        wc, wl, wr, wi = w.cosine, w.lexical, w.recency, w.importance
        if not lexical_active and wl > 0:
            rest = wc + wr + wi
            if rest > 0:  # seed §14 lexical renormalisation
                scale = (rest + wl) / rest
                wc, wr, wi, wl = wc * scale, wr * scale, wi * scale, 0.0
        for c in cands:
            recency = recency_score(c.memory, w, now)
            polarity = w.polarity_weight * c.memory.polarity
            c.score = (wc * c.cosine + wl * c.lexical + wr * recency
                       + wi * c.memory.importance + polarity)
            c.explain = {
                "cosine": round(c.cosine, 6), "lexical": round(c.lexical, 6),
                "recency": round(recency, 6), "importance": c.memory.importance,
                "polarity": polarity,
                "weights": {"cosine": wc, "lexical": wl, "recency": wr, "importance": wi,
                            "polarity_weight": w.polarity_weight},
                "score": round(c.score, 6),
            }

    def _score_rrf(self, cands: list[Candidate], w: HybridWeights, now: float, rrf_k: int,
                   lexical_active: bool) -> None:
        signals: dict[str, tuple[float, list[float]]] = {
            "cosine": (w.cosine, [c.cosine for c in cands]),
            "recency": (w.recency, [recency_score(c.memory, w, now) for c in cands]),
            "importance": (w.importance, [c.memory.importance for c in cands]),
        }
        if lexical_active:
            signals["lexical"] = (w.lexical, [c.lexical for c in cands])
        for c in cands:
            c.score = 0.0
            c.explain = {"signals": {}, "rrf_k": rrf_k}
        for name, (weight, values) in signals.items():
            if weight <= 0:
                continue
            order = sorted(range(len(cands)), key=lambda i: (-values[i], cands[i].memory.id))
            for rank, i in enumerate(order, start=1):
                contribution = weight / (rrf_k + rank)
                cands[i].score += contribution
                cands[i].explain["signals"][name] = {"rank": rank,
                                                     "contribution": round(contribution, 8)}
        for c in cands:
            polarity = w.polarity_weight * c.memory.polarity * 0.01
            c.score += polarity
            c.explain["polarity"] = polarity
            c.explain["score"] = round(c.score, 8)

    def _apply_graph(self, cands: list[Candidate], w: HybridWeights, fusion: str,
                     rrf_k: int) -> None:
        """Graph-proximity fusion; provided by the graph mixin (no-op without it)."""

    # ------------------------------------------------------------ selection
    def _rerank(self, reranker: Reranker, query: str, cands: list[Candidate],
                explain: bool) -> list[Candidate]:
        scores = list(reranker(query, [c.memory for c in cands]))
        if len(scores) != len(cands):
            raise ValueError(
                f"reranker returned {len(scores)} scores for {len(cands)} candidates"
            )
        first = {c.memory.id: (rank, c.score) for rank, c in enumerate(cands, start=1)}
        for c, s in zip(cands, scores, strict=True):
            c.score = float(s)
        cands.sort(key=lambda c: (-c.score, c.memory.id))
        for rank, c in enumerate(cands, start=1):
            first_rank, first_score = first[c.memory.id]
            c.explain["rerank"] = {"first_stage_score": first_score,
                                   "first_stage_rank": first_rank,
                                   "score": c.score, "rank": rank}
        return cands

    def _ensure_vectors(self, cands: list[Candidate]) -> None:
        need = [c.memory.id for c in cands if c.vector is None]
        if need:
            found = self.vectors(need)
            for c in cands:
                if c.vector is None and c.memory.id in found:
                    c.vector = found[c.memory.id]

    def _mmr_select(self, cands: list[Candidate], k: int, diversity: float | None,
                    dedup_threshold: float | None) -> list[Candidate]:
        """Maximal Marginal Relevance with min-max relevance, plus a hard dedup gate."""
        self._ensure_vectors(cands)
        usable = [c for c in cands if c.vector is not None]
        relevance = dict(zip((id(c) for c in usable), _minmax([c.score for c in usable]),
                             strict=True))
        lam = 1.0 if diversity is None else float(diversity)
        chosen: list[Candidate] = []
        remaining = list(usable)
        while remaining and len(chosen) < k:
            best, best_value = None, -math.inf
            for c in remaining:
                redundancy = max((float(np.dot(c.vector, s.vector)) for s in chosen),
                                 default=0.0)
                if dedup_threshold is not None and chosen and redundancy >= dedup_threshold:
                    continue
                value = lam * relevance[id(c)] - (1 - lam) * redundancy
                if value > best_value:
                    best, best_value = c, value
            if best is None:
                break
            chosen.append(best)
            remaining.remove(best)
        return chosen

    # ------------------------------------------------------------ expansion hooks
    def _merge_expansion(self, cands: list[Candidate], k: int, expand: ExpandSpec,
                         include_superseded: bool, now: float) -> list[Candidate]:
        """Merge graph neighbours into the pool before selection (graph mixin)."""
        return cands

    def _append_expansion(self, results: list, expand: ExpandSpec, include_superseded: bool,
                          now: float) -> list:
        """Append graph neighbours after the top-k cut (graph mixin)."""
        return results

    # ------------------------------------------------------------ metrics hook
    def _record_recall(self, seconds: float) -> None:
        """Count the call and keep a bounded window of latencies in Redis."""
        try:
            pipe = self.client.pipeline(transaction=False)
            pipe.hincrby(self.keys.metrics, "calls:recall", 1)
            pipe.lpush(self.keys.latency, f"{seconds * 1000:.3f}")
            pipe.ltrim(self.keys.latency, 0, 1023)
            pipe.execute()
        except redis.RedisError:
            pass
