"""Recall: hybrid retrieval on RediSearch (README "Recall"; stages in ADR 0025).

Candidates come from two indexes of the same collection, both with the
metadata filters pushed into the query:

* the HNSW vector index (KNN over ``k × overfetch``), and
* in hybrid mode, the full-text index scored with RediSearch's corpus-wide
  BM25, which also brings in exact-keyword hits (ticket ids, names) that the
  embedding ranks too low to reach the vector pool.

The pool is then gated (``min_cosine``), scored (semantic, weighted blend or
RRF, plus optional graph-proximity fusion), optionally reranked, optionally
merged with graph neighbours, re-selected (MMR / dedup) and cut to ``k``; hits
are touched in one pipelined write and optionally expanded along links.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import redis

from ..db.filters import filter_expr
from ..db.schema import MEMORY_FIELDS
from ..domain import deadline
from ..domain.model import (
    FUSIONS,
    MAX_RECALL_K,
    MAX_RECALL_POOL,
    MEMORY_TYPES,
    RECALL_MODES,
    ExpandSpec,
    HybridWeights,
    Memory,
    Reranker,
    ValidationError,
    validate_choice,
)
from ..domain.scope import scope_filters
from ..domain.text import lexical_clause, query_terms
from . import codec, lexstats
from . import state as state_stages
from .diversity import mmr_order
from .query import QueryParse, name_seen, parse_query
from .recall_stages import RecallStagesMixin
from .search import knn_query, search
from .stages import BASE, FITTED, StageParams, resolve_stages

log = logging.getLogger(__name__)

DEFAULT_RRF_K = 60
GRAPH_DAMPING = 0.5
GRAPH_ITERATIONS = 3
#: Candidates a reranker sees at least, whatever k × overfetch gives.
RERANK_MIN_POOL = 20

Result = tuple[Memory, float, dict[str, Any]]


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
    expanded: bool = False  # reached by graph expansion, not by the query
    prf: float = 0.0  # cosine to the pseudo-relevance-feedback vector
    context: bool = False  # brought in as a sequence neighbour of a strong candidate
    feedback: bool = False  # brought in by the pseudo-relevance-feedback round
    rm3: tuple[str, ...] = ()  # the expansion words of the RM3 query that found it (ADR 0061)
    rm3_score: float = 0.0  # share of the RM3 expansion the text holds (ADR 0061)


def _check_unit(value: float | None, name: str, lo: float = 0.0, hi: float = 1.0) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(f"{name} must be a number in [{lo:g}, {hi:g}] — got {value!r}")
    if not lo <= value <= hi:
        raise ValidationError(f"{name} must be in [{lo:g}, {hi:g}] — got {value!r}")


def _check_int(value: object, name: str, lo: int = 1, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValidationError(f"{name} must be an integer in [{lo}, {hi}] — got {value!r}")
    return value


def _minmax(values: list[float]) -> list[float]:
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo <= 1e-12:
        return [1.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def recency_score(memory: Memory, weights: HybridWeights, now: float) -> float:
    """``exp(-λ · age_days)`` from created_at (default) or last_accessed."""
    basis = memory.last_accessed if weights.recency_basis == "accessed" else memory.created_at
    age_days = max(0.0, now - basis) / 86400.0
    return math.exp(-weights.decay_rate * age_days)


def graph_spread(
    memories: list[Memory],
    relevance: list[float],
    *,
    damping: float = GRAPH_DAMPING,
    iterations: int = GRAPH_ITERATIONS,
) -> list[float] | None:
    """Personalised-PageRank-lite over the links *within* a candidate pool.

    Activation is seeded by each candidate's min-max normalised *relevance*
    and spread along intra-pool links treated as undirected, so a memory many
    strong hits link to (or that links to them) gains. Returns the spread
    min-max normalised to [0, 1] in pool order, or ``None`` when the pool has no
    internal edge (or the spread is flat), so callers skip the graph term.
    Only the pool is walked: O(pool · links), no store round trip.
    """
    n = len(memories)
    if n == 0:
        return None
    position = {m.id: i for i, m in enumerate(memories)}
    adjacency: list[set[int]] = [set() for _ in range(n)]
    for i, memory in enumerate(memories):
        for link in memory.links:
            j = position.get(link.to)
            if j is not None and j != i:
                adjacency[i].add(j)
                adjacency[j].add(i)
    if not any(adjacency):
        return None
    seed = _minmax(relevance)
    total = sum(seed) or 1.0
    seed = [s / total for s in seed]
    activation = list(seed)
    for _ in range(max(1, iterations)):
        nxt = [(1.0 - damping) * s for s in seed]
        for i, neighbours in enumerate(adjacency):
            if not neighbours:
                nxt[i] += damping * activation[i]  # isolated: keeps its own mass
                continue
            share = damping * activation[i] / len(neighbours)
            for j in neighbours:
                nxt[j] += share
        activation = nxt
    lo, hi = min(activation), max(activation)
    if hi - lo <= 1e-12:
        return None
    return [(a - lo) / (hi - lo) for a in activation]


def _rank_positions(values: list[float], cands: list[Candidate]) -> list[int]:
    """0-based rank of each candidate for one signal (ties broken by id)."""
    order = sorted(range(len(cands)), key=lambda i: (-values[i], cands[i].memory.id))
    ranks = [0] * len(cands)
    for rank, i in enumerate(order):
        ranks[i] = rank
    return ranks


#: Weighted hybrid scores up to this stay as they are; above it they are folded into (KNEE, 1).
SCORE_KNEE = 0.9


def _bound_scores(cands: list[Candidate]) -> None:
    """Keep weighted hybrid scores in [0, 1], as the seed documents them: the priors and
    bonuses (``specific``, RM3, the graph term) can lift a score past 1. A score above
    :data:`SCORE_KNEE` is mapped by one strictly increasing curve into (KNEE, 1), so every
    rank stays where it was and a boost still raises a score; ``explain`` keeps the
    ``unbounded_score``."""
    span = 1.0 - SCORE_KNEE
    for c in cands:
        raw = c.score
        if raw <= SCORE_KNEE or not math.isfinite(raw):
            continue
        c.score = SCORE_KNEE + span * -math.expm1(-(raw - SCORE_KNEE) / span)
        if "score" in c.explain:
            c.explain["unbounded_score"] = round(raw, 6)
            c.explain["score"] = round(c.score, 6)


class RecallMixin(RecallStagesMixin):
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
        stages: Any = None,
        as_of: float | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> list[tuple[Memory, float]] | list[tuple[Memory, float, dict[str, Any]]]:
        """Find the *k* memories most relevant to *query* (README "Recall").

        ``mode="semantic"`` ranks by cosine (+ the polarity nudge);
        ``mode="hybrid"`` blends cosine, BM25, recency and importance
        (``fusion="weighted"``) or fuses their ranks (``fusion="rrf"``).
        ``explain=True`` returns ``(memory, score, breakdown)`` triples.

        In hybrid mode the question is also read (``stages``: ``query``,
        ``context``, ``prf``, ``fitted``; default the ``recall_stages``
        setting, ``()`` for the plain blend; see :mod:`houkai.store.stages`).
        ``as_of`` is the clock the question is asked at: time expressions
        ("last week") and recency are measured from it (default: now).
        ``user_id`` / ``agent_id`` / ``session_id`` keep only memories of that scope.
        """
        started = time.perf_counter()
        if not isinstance(query, str):
            raise ValidationError(f"query must be a string — got {query!r}")
        k = _check_int(k, "k", 0, MAX_RECALL_K)
        overfetch = _check_int(overfetch, "overfetch", 1, 100)
        validate_choice(mode, RECALL_MODES, "mode")
        validate_choice(fusion, FUSIONS, "fusion")
        if type is not None:
            validate_choice(type, MEMORY_TYPES, "type")
        _check_unit(diversity, "diversity")
        _check_unit(dedup_threshold, "dedup_threshold")
        _check_unit(min_cosine, "min_cosine", -1.0, 1.0)
        if min_importance is not None:
            _check_unit(min_importance, "min_importance")
        for name, value in (("since", since), ("until", until), ("as_of", as_of)):
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValidationError(f"{name} must be a Unix timestamp — got {value!r}")
        rrf_k = _check_int(rrf_k, "rrf_k", 1, 100_000)
        scope = scope_filters(user_id=user_id, agent_id=agent_id, session_id=session_id)
        if weights is not None and not isinstance(weights, HybridWeights):
            raise ValidationError("weights must be a HybridWeights")
        if expand is not None and not isinstance(expand, ExpandSpec):
            raise ValidationError("expand must be an ExpandSpec")
        if reranker is not None and not callable(reranker):
            raise ValidationError("reranker must be a callable (query, memories) -> scores")
        if k == 0:
            self._record_recall(time.perf_counter() - started)
            return []
        w = weights or self._hybrid_weights or HybridWeights()
        clock = time.time()
        now = clock if as_of is None else float(as_of)
        # The stages refine the weighted blend; RRF stays the plain rank fusion, and
        # weights the caller sets are used as given (the stages' boosts still apply).
        stages = resolve_stages(stages, self.settings.recall_stages)
        active = stages if mode == "hybrid" and fusion == "weighted" else ()
        parse = parse_query(query, now) if "query" in active else None
        params = BASE
        own_weights = weights is None and self._hybrid_weights is None
        if "fitted" in active:
            params = FITTED.get(parse.kind if parse else "general", BASE)
            if own_weights:
                w = params.weights(w)
        terms = query_terms(query) if mode == "hybrid" else []
        stats = self._term_stats(query, terms) if terms else None
        if parse is not None and stats is not None:
            parse.unseen = [n for n in parse.names if not name_seen(n.lower(), stats)]
            parse.stems = stats.stemmed
        if parse is not None and own_weights:
            w = self._understood_weights(w, parse, params)
        where = filter_expr(
            type=type,
            tag=tag,
            min_importance=min_importance,
            source=source,
            since=since,
            until=until,
            include_superseded=include_superseded,
            include_expired=include_expired,
            now=clock,
            scope=scope,
        )
        active_reranker = reranker if reranker is not None else self._reranker
        pool_size = min(max(k * overfetch, k), MAX_RECALL_POOL)
        if active_reranker is not None:
            # A reranker can only promote what it is shown: at k=1 the seed's k × overfetch
            # would hand it 4 near-ties out of many (ADR 0055's int8 reorders such ties).
            pool_size = max(pool_size, RERANK_MIN_POOL)
        qvec = self.query_vector(query) if query.strip() else None
        # Only the default clauses (not superseded, not expired) keep nearly every
        # memory: search the HNSW graph in batches and filter, instead of letting
        # RediSearch brute-force every document. User filters may be selective, so
        # there RediSearch picks the policy from its own estimate.
        broad = not scope and all(
            v is None for v in (type, tag, min_importance, source, since, until)
        )
        filters = {
            "type": type,
            "tag": tag,
            "min_importance": min_importance,
            "source": source,
            "since": since,
            "until": until,
            "include_superseded": include_superseded,
            "include_expired": include_expired,
            "now": clock,
            "scope": scope,
        }
        state = None
        if "current" in active or "entity" in active:
            window = (parse or parse_query(query, now)).window is not None
            state = state_stages.read(query, stats, window)
            state.accessed = w.recency_basis == "accessed"
        pool, lexical_active = self._gather(
            query, qvec, where, pool_size, mode, active, w, params, broad, filters, stats
        )
        deadline.check("candidate search")
        cands = list(pool.values())
        if mode == "hybrid" and w.recency_basis == "accessed":
            self.overlay_access([c.memory for c in cands])  # recency from the true access
        if min_cosine is not None:
            cands = [c for c in cands if c.has_vector and c.cosine >= min_cosine]
        select = diversity is not None or dedup_threshold is not None
        # Only the first k ranks are returned as scored, unless a reranker, MMR or a merged
        # expansion reads further down the pool.
        reads_deeper = (
            active_reranker is not None or select or (expand is not None and expand.rerank)
        )
        self._score_pool(
            cands, mode, fusion, w, active, parse, params, now, rrf_k, lexical_active,
            depth=None if reads_deeper else k, state=state,
        )  # fmt: skip
        deadline.check("scoring")
        if active_reranker is not None and cands:
            cands = self._rerank(active_reranker, query, cands)
        if expand is not None and expand.rerank and expand.cap > 0:
            cands = self._merge_expansion(
                cands,
                k,
                expand,
                include_superseded,
                clock,
                include_expired=include_expired,
                need_vectors=select,
            )
        chosen = self._mmr_select(cands, k, diversity, dedup_threshold) if select else cands[:k]
        self.overlay_access([c.memory for c in chosen])
        if touch and chosen:
            self.touch_many([c.memory for c in chosen], now=clock)
        results: list[Result] = [(c.memory, float(c.score), c.explain) for c in chosen]
        if expand is not None and not expand.rerank and expand.cap > 0:
            results = self._append_expansion(
                results, expand, include_superseded, clock, include_expired=include_expired
            )
        self._record_recall(time.perf_counter() - started)
        if explain:
            return results
        return [(m, s) for m, s, _ in results]

    # ------------------------------------------------------------ candidates
    def _gather(
        self,
        query: str,
        qvec: np.ndarray | None,
        where: str,
        pool_size: int,
        mode: str,
        active: tuple[str, ...],
        w: HybridWeights,
        params: StageParams,
        broad: bool,
        filters: dict[str, Any],
        stats: lexstats.TermStats | None = None,
    ) -> tuple[dict[str, Candidate], bool]:
        """The candidate pool (KNN, BM25, then PRF, RM3 and sequence neighbours when
        active); *stats*: the query's term statistics when the caller read them."""
        pool = (
            self._vector_candidates(qvec, where, pool_size, batches=broad)
            if qvec is not None
            else {}
        )
        words = query_terms(query)
        terms = words if mode == "hybrid" else []
        if stats is None and terms:
            stats = self._term_stats(query, terms)
        if qvec is not None and self.settings.semantic_widen and not self.knn_exact():
            self._widen_semantic(pool, query, words, where, pool_size, qvec, stats)
        lexical_active = False
        if stats is not None:
            lexical_active = self._add_lexical(pool, query, where, pool_size, qvec, stats)
        if pool and ("prf" in active or "context" in active):
            added: list[str] = []
            if "prf" in active and qvec is not None:
                added += self._prf_round(pool, qvec, where, pool_size, w, params, broad)
            expansion = None
            if "prf" in active and lexical_active and stats is not None:
                rm3_added, expansion = self._rm3_round(pool, query, qvec, where, w, params, stats)
                added += rm3_added
            if "context" in active:
                added += self._context_round(pool, qvec, w, params, filters)
            if expansion is not None and params.rm3_weight > 0:
                # Scored over the final pool: sequence neighbours hold the expansion too.
                texts = {m: c.memory.text for m, c in pool.items()}
                for mid, value in expansion.scores(texts).items():
                    pool[mid].rm3_score = value
            if added:
                lexical_active = self._rescore_lexical(pool, query, added, stats) or lexical_active
        return pool, lexical_active

    def _score_pool(
        self,
        cands: list[Candidate],
        mode: str,
        fusion: str,
        w: HybridWeights,
        active: tuple[str, ...],
        parse: QueryParse | None,
        params: StageParams,
        now: float,
        rrf_k: int,
        lexical_active: bool,
        depth: int | None = None,
        state: state_stages.StateQuery | None = None,
    ) -> None:
        """Score and sort the pool in place: the blend (or RRF), the stages, the graph term.

        *depth*: only the order of the first *depth* ranks matters to the caller (None: all);
        a stage may then skip candidates that cannot reach them."""
        if mode == "hybrid":
            if fusion == "rrf":
                self._score_rrf(cands, w, now, rrf_k, lexical_active)
            else:
                self._score_weighted(cands, w, now, lexical_active)
            if active:
                self._apply_stages(cands, active, parse, params, now, fusion, rrf_k, depth, state)
            if w.graph > 0:
                self._apply_graph(cands, w, fusion, rrf_k)
            if fusion != "rrf":
                _bound_scores(cands)
        else:
            self._score_semantic(cands, w)
        cands.sort(key=lambda c: (-c.score, c.memory.id))

    def _vector_candidates(
        self,
        qvec: np.ndarray,
        where: str,
        size: int,
        *,
        batches: bool = False,
        verbatim: bool = False,
    ) -> dict[str, Candidate]:
        """The *size* memories nearest *qvec* under the filter *where*, cosine from the
        index's distance (*verbatim*: the filter's words match unstemmed)."""
        query = knn_query(
            where, size, self.index_params.ef_runtime, batches=batches, exact=self.knn_exact()
        )
        _, hits = search(
            self.client,
            self.keys.index,
            query,
            params={"q": self.vector_blob(qvec)},
            return_fields=(*MEMORY_FIELDS, "dist", "vec"),
            sortby=("dist", "ASC"),
            limit=size,
            verbatim=verbatim,
        )
        pool: dict[str, Candidate] = {}
        for hit in hits:
            memory = codec.from_hash(hit.fields)
            cosine = codec.finite_cosine(1.0 - float(hit.str("dist", "1")))
            pool[memory.id] = Candidate(
                memory=memory,
                cosine=cosine,
                has_vector=True,
                vector=self.vector_from_blob(hit.fields.get("vec")),
            )
        return pool

    def _keyword_neighbours(
        self,
        pool: dict[str, Candidate],
        words: list[str],
        where: str,
        limit: int,
        qvec: np.ndarray,
        *,
        verbatim: bool = False,
    ) -> list[str]:
        """Add the *limit* memories nearest *qvec* among those matching any of *words*
        under *where* (ADR 0069); returns the new ids.

        A KNN restricted to the keyword matches: over a subset the size
        :func:`lexstats.candidate_terms` bounds, RediSearch ranks it by brute force,
        so the cosine order is exact there whatever the HNSW graph reaches. RediSearch's
        own keyword ranking is not used: intersected with the recall's filter it kept a
        fact among the first 40 hits for 158 of 400 facts (400 of 400 this way)."""
        clause = lexical_clause(words)
        subset = clause if where == "*" else f"{clause} {where}"
        try:
            found = self._vector_candidates(qvec, subset, limit, verbatim=verbatim)
        except redis.exceptions.ResponseError:
            log.warning("keyword neighbours query failed", exc_info=True)
            return []
        added = [mid for mid in found if mid not in pool]
        for mid in added:
            pool[mid] = found[mid]
        return added

    def _widen_semantic(
        self,
        pool: dict[str, Candidate],
        query: str,
        terms: list[str],
        where: str,
        size: int,
        qvec: np.ndarray,
        stats: lexstats.TermStats | None = None,
    ) -> None:
        """Add the nearest memories among those sharing the query's words to the KNN
        leg's approximate (HNSW) pool, in semantic and hybrid recall (ADR 0069).

        Written before a bulk of other memories, a distinct fact can sit where the
        graph search from the entry point never arrives (69 % of 4,000 facts found by
        their own text at EF_RUNTIME 64 under 16,000 log lines); among the keyword
        matches the cosine order is exact. Twice the pool, as many as the lexical leg
        takes: a fact among siblings that share most of its words ranks past 20. Only
        candidates are added: semantic recall still ranks by cosine alone. *terms*: the
        query's words; *stats*: their statistics when the caller read them."""
        if not terms:
            return
        if stats is None:
            stats = self._term_stats(query, terms)
        self._keyword_neighbours(
            pool, lexstats.candidate_terms(terms, stats), where, size * 2, qvec,
            verbatim=not stats.stemmed,
        )  # fmt: skip

    def _add_lexical(
        self,
        pool: dict[str, Candidate],
        query: str,
        where: str,
        size: int,
        qvec: np.ndarray | None,
        stats: lexstats.TermStats | None = None,
    ) -> bool:
        """Add BM25 to the pool and pull in keyword-only hits; True if any BM25 > 0.

        The inverted index finds keyword candidates corpus-wide with the filters
        pushed down; their BM25 comes from houkai's exact corpus statistics
        (see ``lexstats``), since RediSearch's own drift on updates and deletes.
        *stats*: the query's, when the caller read them (:meth:`_term_stats`).
        """
        terms = query_terms(query)
        if not terms:
            return False
        if stats is None:
            stats = self._term_stats(query, terms)
        # The candidates match the way BM25 below counts: over stems, RediSearch's stem
        # expansion finds what scores; over exact tokens, VERBATIM, since a document
        # found only through a stem ("+serv" for "served") would score nothing for that
        # term, and walking the expansion cost several times the postings the budget
        # counts (ADR 0060).
        self._keyword_candidates(
            pool,
            lexstats.candidate_terms(terms, stats),
            where,
            size * 2,
            qvec,
            verbatim=not stats.stemmed,
        )
        texts = {mid: c.memory.text for mid, c in pool.items()}
        scores = lexstats.bm25_scores(terms, texts, self.client, self.keys.lexstats, stats)
        for mid, cand in pool.items():
            cand.bm25 = scores.get(mid, 0.0)
        top = max((c.bm25 for c in pool.values()), default=0.0)
        for cand in pool.values():
            cand.lexical = cand.bm25 / top if top > 0 else 0.0
        return top > 0

    # ------------------------------------------------------------ scoring
    def _score_semantic(self, cands: list[Candidate], w: HybridWeights) -> None:
        """Cosine plus ``ζ·polarity``; every other custom weight is ignored here."""
        for c in cands:
            c.score = c.cosine + w.polarity_weight * c.memory.polarity
            c.explain = {
                "mode": "semantic",
                "cosine": round(c.cosine, 6),
                "polarity": c.memory.polarity,
                "score": round(c.score, 6),
            }

    def _score_weighted(
        self, cands: list[Candidate], w: HybridWeights, now: float, lexical_active: bool
    ) -> None:
        wc, wl, wr, wi = w.cosine, w.lexical, w.recency, w.importance
        if not lexical_active and wl > 0:
            rest = wc + wr + wi
            if rest > 0:  # the seed's lexical renormalisation (not for a lexical-only config)
                scale = (rest + wl) / rest
                wc, wr, wi, wl = wc * scale, wr * scale, wi * scale, 0.0
        for c in cands:
            recency = recency_score(c.memory, w, now)
            c.score = (
                wc * c.cosine
                + wl * c.lexical
                + wr * recency
                + wi * c.memory.importance
                + w.polarity_weight * c.memory.polarity
            )
            c.explain = {
                "mode": "hybrid",
                "fusion": "weighted",
                "cosine": round(c.cosine, 6),
                "lexical": round(c.lexical, 6),
                "recency": round(recency, 6),
                "importance": c.memory.importance,
                "polarity": c.memory.polarity,
                "weights": {
                    "cosine": round(wc, 6),
                    "lexical": round(wl, 6),
                    "recency": round(wr, 6),
                    "importance": round(wi, 6),
                    "polarity": w.polarity_weight,
                },
                "score": round(c.score, 6),
            }

    def _score_rrf(
        self, cands: list[Candidate], w: HybridWeights, now: float, rrf_k: int, lexical_active: bool
    ) -> None:
        """Reciprocal Rank Fusion: ``Σ weight / (rrf_k + rank)`` with 0-based ranks.

        Lexical only joins when the query produced BM25 somewhere in the pool
        (an all-zero signal would rank by accident). Polarity stays a nudge of
        ``ζ·polarity / (rrf_k + 1)``, on the same tiny scale as the signals.
        """
        signals: dict[str, tuple[float, list[float]]] = {
            "cosine": (w.cosine, [c.cosine for c in cands]),
            "recency": (w.recency, [recency_score(c.memory, w, now) for c in cands]),
            "importance": (w.importance, [c.memory.importance for c in cands]),
        }
        if lexical_active:
            signals["lexical"] = (w.lexical, [c.lexical for c in cands])
        for c in cands:
            c.score = 0.0
            c.explain = {"mode": "hybrid", "fusion": "rrf", "rrf_k": rrf_k, "signals": {}}
        for name, (weight, values) in signals.items():
            self._add_rrf_signal(cands, name, weight, values, rrf_k)
        for c in cands:
            c.score += w.polarity_weight * c.memory.polarity / (rrf_k + 1)
            c.explain["polarity"] = c.memory.polarity
            c.explain["score"] = round(c.score, 8)

    @staticmethod
    def _add_rrf_signal(
        cands: list[Candidate], name: str, weight: float, values: list[float], rrf_k: int
    ) -> None:
        if weight <= 0:
            return
        for c, rank in zip(cands, _rank_positions(values, cands), strict=True):
            contribution = weight / (rrf_k + rank)
            c.score += contribution
            c.explain["signals"][name] = {"rank": rank, "contribution": round(contribution, 8)}

    def _apply_graph(
        self, cands: list[Candidate], w: HybridWeights, fusion: str, rrf_k: int
    ) -> None:
        """Graph-proximity fusion (``HybridWeights.graph``): lift well-connected hits.

        Weighted: ``+ η·spread`` seeded by the blended score. RRF: an extra,
        rank-transformed ``graph`` signal seeded by cosine, so it stays
        scale-free. No internal link in the pool → nothing changes.
        """
        if not cands:
            return
        memories = [c.memory for c in cands]
        if fusion == "rrf":
            spread = graph_spread(memories, [c.cosine for c in cands])
            if spread is None:
                return
            self._add_rrf_signal(cands, "graph", w.graph, spread, rrf_k)
            for c in cands:
                c.explain["score"] = round(c.score, 8)
            return
        spread = graph_spread(memories, [c.score for c in cands])
        if spread is None:
            return
        for c, g in zip(cands, spread, strict=True):
            c.score += w.graph * g
            c.explain["graph"] = round(g, 6)
            c.explain.setdefault("weights", {})["graph"] = w.graph
            c.explain["score"] = round(c.score, 6)

    # ------------------------------------------------------------ selection
    def _rerank(self, reranker: Reranker, query: str, cands: list[Candidate]) -> list[Candidate]:
        """Second stage: the reranker's score replaces the blended one, then re-sort."""
        scores = list(reranker(query, [c.memory for c in cands]))
        if len(scores) != len(cands):
            raise ValidationError(
                f"reranker returned {len(scores)} scores for {len(cands)} candidate(s)"
            )
        first = {c.memory.id: (rank, c.score) for rank, c in enumerate(cands)}
        for c, s in zip(cands, scores, strict=True):
            try:
                value = float(s)
            except (TypeError, ValueError):
                raise ValidationError(f"reranker returned a non-numeric score: {s!r}") from None
            if not math.isfinite(value):
                raise ValidationError(f"reranker returned a non-finite score: {s!r}")
            c.score = value
        cands.sort(key=lambda c: (-c.score, c.memory.id))
        for rank, c in enumerate(cands):
            first_rank, first_score = first[c.memory.id]
            c.explain["rerank"] = {
                "first_stage_score": round(first_score, 6),
                "first_stage_rank": first_rank,
                "score": round(c.score, 6),
                "rank": rank,
            }
        return cands

    def _ensure_vectors(self, cands: list[Candidate]) -> None:
        need = [c.memory.id for c in cands if c.vector is None]
        if need:
            found = self.vectors(need)
            for c in cands:
                if c.vector is None and c.memory.id in found:
                    c.vector = found[c.memory.id]

    def _mmr_select(
        self, cands: list[Candidate], k: int, diversity: float | None, dedup_threshold: float | None
    ) -> list[Candidate]:
        """Maximal Marginal Relevance over min-max relevance, plus a hard dedup gate.

        ``value = λ·relevance − (1−λ)·max_cosine_to_selected``; without
        ``diversity`` (λ = 1) it is plain relevance order with the dedup gate.
        A memory still waiting for its embedding has no redundancy to measure and
        is judged on relevance alone.
        """
        pool = cands[:MAX_RECALL_POOL]  # bounded work: the best-ranked pool only
        self._ensure_vectors(pool)
        relevance = _minmax([c.score for c in pool])
        lam = 1.0 if diversity is None else float(diversity)
        picked = mmr_order(relevance, [c.vector for c in pool], k, lam, dedup_threshold)
        return [pool[i] for i in picked.order]

    # ------------------------------------------------------------ graph expansion
    def _collect_expansion(
        self,
        frontier: list[Memory],
        expand: ExpandSpec,
        include_superseded: bool,
        include_expired: bool,
        now: float,
        seen: set[str],
    ) -> list[Result]:
        """BFS along OUTGOING links whose rel is in ``expand.rels``.

        Hop *h* scores ``expand.score · expand.decay**(h-1)``; at most
        ``expand.cap`` nodes in total; ids in *seen* are never reached (and
        *seen* grows). One batched fetch per hop, no per-node round trip.
        """
        rels = set(expand.rels)
        found: list[Result] = []
        for hop in range(1, expand.depth + 1):
            if len(found) >= expand.cap or not frontier:
                break
            hop_score = expand.score * expand.decay ** (hop - 1)
            wanted = []
            wanted_ids: set[str] = set()
            for src in frontier:
                for link in src.links:
                    if link.rel in rels and link.to not in seen and link.to not in wanted_ids:
                        wanted.append(link)
                        wanted_ids.add(link.to)
            if not wanted:
                break
            fetched = self.get_many([link.to for link in wanted])
            frontier = []
            for link in wanted:
                if len(found) >= expand.cap:
                    break
                node = fetched.get(link.to)
                if node is None:
                    continue
                if node.superseded_by and not include_superseded:
                    continue
                if node.is_expired(now) and not include_expired:
                    continue
                seen.add(node.id)
                frontier.append(node)
                found.append(
                    (
                        node,
                        hop_score,
                        {
                            "source": "graph_expansion",
                            "rel": link.rel,
                            "hop": hop,
                            "score": round(hop_score, 6),
                        },
                    )
                )
        return found

    def _merge_expansion(
        self,
        cands: list[Candidate],
        k: int,
        expand: ExpandSpec,
        include_superseded: bool,
        now: float,
        *,
        include_expired: bool = False,
        need_vectors: bool = False,
    ) -> list[Candidate]:
        """``ExpandSpec.rerank=True``: neighbours of the top-k compete for the k slots.

        Hop scores are scaled to the pool's top score so they sit on the pool's
        own scale whatever the fusion. With MMR/dedup active, neighbours whose
        vector cannot be fetched are dropped so they cannot dodge the dedup gate.
        """
        if not cands:
            return cands
        seen = {c.memory.id for c in cands}  # never re-reach (and clobber) a pool member
        extra = self._collect_expansion(
            [c.memory for c in cands[:k]], expand, include_superseded, include_expired, now, seen
        )
        if not extra:
            return cands
        top = max(c.score for c in cands)
        added = [
            Candidate(memory=m, score=min(1.0, max(0.0, s)) * top, explain=e, expanded=True)
            for m, s, e in extra
        ]
        if need_vectors:
            vectors = self.vectors([c.memory.id for c in added])
            added = [c for c in added if c.memory.id in vectors]
            for c in added:
                c.vector = vectors[c.memory.id]
                c.has_vector = True
        merged = cands + added
        merged.sort(key=lambda c: (-c.score, c.memory.id))
        return merged

    def _append_expansion(
        self,
        results: list[Result],
        expand: ExpandSpec,
        include_superseded: bool,
        now: float,
        *,
        include_expired: bool = False,
    ) -> list[Result]:
        """``ExpandSpec.rerank=False``: neighbours appended after the top-k cut."""
        if not results:
            return results
        seen = {m.id for m, _, _ in results}
        extra = self._collect_expansion(
            [m for m, _, _ in results], expand, include_superseded, include_expired, now, seen
        )
        return results + extra

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
