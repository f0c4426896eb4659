"""Selecting the hits from the scored pool: a reranker, MMR / dedup, graph expansion.

Each function takes the store's primitives (:class:`~houkai.recall.core.StoreCore`) where
it reads more than the pool: vectors for MMR, linked memories for the expansion.
"""

from __future__ import annotations

import math
from typing import Any

from ..domain.model import MAX_RECALL_POOL, ExpandSpec, Memory, Reranker, ValidationError
from .candidates import Candidate
from .core import StoreCore
from .diversity import mmr_order
from .scoring import minmax

Result = tuple[Memory, float, dict[str, Any]]


def rerank(reranker: Reranker, query: str, cands: list[Candidate]) -> list[Candidate]:
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


def ensure_vectors(core: StoreCore, cands: list[Candidate]) -> None:
    need = [c.memory.id for c in cands if c.vector is None]
    if need:
        found = core.vectors(need)
        for c in cands:
            if c.vector is None and c.memory.id in found:
                c.vector = found[c.memory.id]


def mmr_select(
    core: StoreCore,
    cands: list[Candidate],
    k: int,
    diversity: float | None,
    dedup_threshold: float | None,
) -> list[Candidate]:
    """Maximal Marginal Relevance over min-max relevance, plus a hard dedup gate.

    ``value = λ·relevance − (1−λ)·max_cosine_to_selected``; without
    ``diversity`` (λ = 1) it is plain relevance order with the dedup gate.
    A memory still waiting for its embedding has no redundancy to measure and
    is judged on relevance alone.
    """
    pool = cands[:MAX_RECALL_POOL]  # bounded work: the best-ranked pool only
    ensure_vectors(core, pool)
    relevance = minmax([c.score for c in pool])
    lam = 1.0 if diversity is None else float(diversity)
    picked = mmr_order(relevance, [c.vector for c in pool], k, lam, dedup_threshold)
    return [pool[i] for i in picked.order]


def collect_expansion(
    core: StoreCore,
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
        fetched = core.get_many([link.to for link in wanted])
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


def merge_expansion(
    core: StoreCore,
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
    extra = collect_expansion(
        core, [c.memory for c in cands[:k]], expand, include_superseded, include_expired, now, seen
    )
    if not extra:
        return cands
    top = max(c.score for c in cands)
    added = [
        Candidate(memory=m, score=min(1.0, max(0.0, s)) * top, explain=e, expanded=True)
        for m, s, e in extra
    ]
    if need_vectors:
        vectors = core.vectors([c.memory.id for c in added])
        added = [c for c in added if c.memory.id in vectors]
        for c in added:
            c.vector = vectors[c.memory.id]
            c.has_vector = True
    merged = cands + added
    merged.sort(key=lambda c: (-c.score, c.memory.id))
    return merged


def append_expansion(
    core: StoreCore,
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
    extra = collect_expansion(
        core, [m for m, _, _ in results], expand, include_superseded, include_expired, now, seen
    )
    return results + extra
