"""Scoring the pool: the blend (semantic, weighted or RRF), the stages, the graph term.

:func:`score_pool` scores and sorts a gathered pool in place: the base blend, then the
active stages in registry order (:class:`~houkai.recall.stages.base.Stage`'s steps
``signals``, ``smooth``, ``adjust``, ``rank``), then graph-proximity fusion, then the
weighted scores bounded to [0, 1].
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..domain.model import HybridWeights, Memory
from .candidates import Candidate
from .stages import pipeline
from .stages.base import StageContext

if TYPE_CHECKING:
    from .stages.base import Stage

GRAPH_DAMPING = 0.5
GRAPH_ITERATIONS = 3


def minmax(values: list[float]) -> list[float]:
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
    seed = minmax(relevance)
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


def rank_positions(values: list[float]) -> list[float]:
    """0-based rank of each candidate for one signal; equal values share the mean of the
    ranks they span (0, 1.5, 1.5, 3), so a signal that does not tell two memories apart
    adds nothing between them, and a block of ties (the many candidates without a BM25
    match, every memory at the default importance) sits where its members would on
    average. Broken by memory id, ties made RRF's order depend on random ids. A rank is an
    ``int`` unless it falls between two."""
    order = sorted(values, reverse=True)
    first: dict[float, int] = {}
    count: dict[float, int] = {}
    for rank, v in enumerate(order):
        first.setdefault(v, rank)
        count[v] = count.get(v, 0) + 1
    return [_mean_rank(first[v], count[v]) for v in values]


def _mean_rank(first: int, count: int) -> float:
    twice = 2 * first + count - 1
    return twice // 2 if twice % 2 == 0 else twice / 2


#: Weighted hybrid scores up to this stay as they are; above it they are folded into (KNEE, 1).
SCORE_KNEE = 0.9


def bound_scores(cands: list[Candidate]) -> None:
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


def score_semantic(cands: list[Candidate], w: HybridWeights) -> None:
    """Cosine plus ``ζ·polarity``; every other custom weight is ignored here."""
    for c in cands:
        c.score = c.cosine + w.polarity_weight * c.memory.polarity
        c.explain = {
            "mode": "semantic",
            "cosine": round(c.cosine, 6),
            "polarity": c.memory.polarity,
            "score": round(c.score, 6),
        }


def score_weighted(
    cands: list[Candidate],
    w: HybridWeights,
    now: float,
    lexical_active: bool,
    explain: bool = True,
) -> None:
    """The weighted blend; the parts of each score go to ``explain`` only for a caller
    who asks (building them for every candidate of every recall cost more than a stage)."""
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
        if not explain:
            c.explain = {}
            continue
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


def score_rrf(
    cands: list[Candidate], w: HybridWeights, now: float, rrf_k: int, lexical_active: bool
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
        add_rrf_signal(cands, name, weight, values, rrf_k)
    for c in cands:
        c.score += w.polarity_weight * c.memory.polarity / (rrf_k + 1)
        c.explain["polarity"] = c.memory.polarity
        c.explain["score"] = round(c.score, 8)


def add_rrf_signal(
    cands: list[Candidate], name: str, weight: float, values: list[float], rrf_k: int
) -> None:
    if weight <= 0:
        return
    for c, rank in zip(cands, rank_positions(values), strict=True):
        contribution = weight / (rrf_k + rank)
        c.score += contribution
        c.explain["signals"][name] = {"rank": rank, "contribution": round(contribution, 8)}


def apply_graph(cands: list[Candidate], w: HybridWeights, fusion: str, rrf_k: int) -> None:
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
        add_rrf_signal(cands, "graph", w.graph, spread, rrf_k)
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


def stage_rrf(
    cands: list[Candidate], name: str, weight: float, values: list[float], rrf_k: int
) -> None:
    """A stage's signal as one more rank in the fusion (ties share the best rank of their
    block, and a candidate the stage gave nothing gains nothing: unlike the blend's
    signals, a stage speaks only for the candidates it lifts)."""
    order = sorted(set(values), reverse=True)
    rank_of = {v: r for r, v in enumerate(order)}
    for c, v in zip(cands, values, strict=True):
        if v <= 0:
            continue
        contribution = weight / (rrf_k + rank_of[v])
        c.score += contribution
        c.explain.setdefault("stages", {})[name] = round(contribution, 8)


def apply_stages(ctx: StageContext, cands: list[Candidate], stages: list[Stage]) -> None:
    """The active stages' scoring steps, each over every stage in registry order, then
    what they read and did, in ``explain``."""
    if not cands:
        return
    fusion, rrf_k, explain = ctx.fusion, ctx.rrf_k, ctx.request.explain
    signals = [s.signals(ctx, cands) for s in stages]
    for found in signals:
        for name, (weight, values) in found.items():
            if fusion == "rrf":
                stage_rrf(cands, name, weight, values, rrf_k)
                continue
            for c, v in zip(cands, values, strict=True):
                c.score += weight * v
                if explain:
                    c.explain.setdefault("stages", {})[name] = round(weight * v, 6)
    for s in stages:
        s.smooth(ctx, cands)
    for s in stages:
        s.adjust(ctx, cands)
    for s in stages:
        s.rank(ctx, cands)
    if not ctx.request.explain:
        return  # what the stages read and did is shown only to a caller who asks
    parse, read = ctx.query.parse, ctx.notes.get("entity_read", ctx.query.state)
    parsed = parse.to_dict() if parse is not None else None
    if ctx.query.related:  # each term's synonyms, which BM25 counts as it (``synonyms``)
        parsed = {**(parsed or {}), "synonyms": {t: list(w) for t, w in ctx.query.related.items()}}
    question = read.to_dict() if read is not None else None
    for c in cands:
        info = c.explain.setdefault("stages", {})
        info["active"] = list(ctx.active)
        if parsed is not None:
            c.explain["query"] = parsed
        if question:
            info["question"] = question
        if c.context:
            info["context_neighbour"] = True
        if c.rm3:
            info["rm3_candidate"] = list(c.rm3)
        c.explain["score"] = round(c.score, 8 if fusion == "rrf" else 6)


def score_pool(ctx: StageContext, cands: list[Candidate]) -> list[Candidate]:
    """Score and sort *cands* in place (and return them): the blend (or RRF), the
    stages, the graph term; semantic recall ranks by cosine (+ the polarity nudge)."""
    w, now = ctx.weights, ctx.query.now
    if ctx.request.mode == "hybrid":
        if ctx.fusion == "rrf":
            score_rrf(cands, w, now, ctx.rrf_k, ctx.lexical_active)
        else:
            score_weighted(cands, w, now, ctx.lexical_active, ctx.request.explain)
        if ctx.active:
            apply_stages(ctx, cands, pipeline(ctx.active))
        if w.graph > 0:
            apply_graph(cands, w, ctx.fusion, ctx.rrf_k)
        if ctx.fusion != "rrf":
            bound_scores(cands)
    else:
        score_semantic(cands, w)
    cands.sort(key=lambda c: (-c.score, c.memory.id))
    return cands
