"""Retrieval-quality metrics and a small evaluation harness (the seed's ``ai_houkai.eval``).

Measure a ranking change against a gold set instead of guessing::

    from houkai.bench.eval import EvalCase, evaluate

    cases = [
        EvalCase(query="how do we deploy", relevant_ids=[deploy.id]),
        EvalCase(query="test isolation", relevant_ids=[a.id, b.id], k=3),
    ]
    result = evaluate(store, cases, default_mode="hybrid")
    print(result.summary())

The metric functions take any ranked list of ids and use binary relevance.
Each relevant id counts once (at its first occurrence), so a duplicated id in
the ranking can never push a metric above 1. ``evaluate`` recalls with
``touch=False``: evaluating does not change access counts or recency.
``houkai bench locomo`` is the large-scale benchmark built on the same measures.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EvalCase",
    "EvalResult",
    "average_precision",
    "dcg_at_k",
    "evaluate",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "reciprocal_rank",
]


def _first_hits(retrieved: Iterable[str], relevant: set[str]) -> list[int]:
    """1-based ranks at which a relevant id first appears."""
    seen: set[str] = set()
    ranks = []
    for rank, rid in enumerate(retrieved, start=1):
        if rid in relevant and rid not in seen:
            seen.add(rid)
            ranks.append(rank)
    return ranks


def recall_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Share of the relevant ids found in the top *k* (0 when nothing is relevant)."""
    rel = set(relevant)
    return len(set(retrieved[:k]) & rel) / len(rel) if rel else 0.0


def precision_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Share of the top *k* retrieved ids that are relevant (0 for an empty ranking)."""
    rel = set(relevant)
    top = list(retrieved[:k])
    return sum(1 for r in top if r in rel) / len(top) if top else 0.0


def reciprocal_rank(retrieved: Sequence[str], relevant: Iterable[str]) -> float:
    """1 / rank of the first relevant id; 0 when none was retrieved."""
    ranks = _first_hits(retrieved, set(relevant))
    return 1.0 / ranks[0] if ranks else 0.0


def average_precision(retrieved: Sequence[str], relevant: Iterable[str]) -> float:
    """Average precision over the ranking (the per-query term of MAP)."""
    rel = set(relevant)
    if not rel:
        return 0.0
    ranks = _first_hits(retrieved, rel)
    return sum(hits / rank for hits, rank in enumerate(ranks, start=1)) / len(rel)


def dcg_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Discounted cumulative gain over the top *k* (binary relevance)."""
    return sum(1.0 / math.log2(rank + 1) for rank in _first_hits(retrieved[:k], set(relevant)))


def ndcg_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """DCG@k normalised by the ideal ranking's, in [0, 1]."""
    rel = set(relevant)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(rel), k) + 1))
    return dcg_at_k(retrieved, rel, k) / ideal if ideal else 0.0


@dataclass
class EvalCase:
    """One query and the ids that should come back; ``k``/``mode`` default to evaluate()'s."""

    query: str
    relevant_ids: list[str]
    k: int | None = None
    mode: str | None = None


@dataclass
class EvalResult:
    """Mean metrics over the cases; ``k`` is -1 when the cases used different k."""

    n: int
    k: int
    recall_at_k: float
    precision_at_k: float
    mrr: float
    map: float
    ndcg_at_k: float
    per_case: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> str:
        ks = "mixed" if self.k < 0 else str(self.k)
        return (
            f"n={self.n} | recall@{ks}={self.recall_at_k:.3f} P@{ks}={self.precision_at_k:.3f} "
            f"MRR={self.mrr:.3f} MAP={self.map:.3f} nDCG@{ks}={self.ndcg_at_k:.3f}"
        )


def evaluate(
    store: Any,
    cases: Sequence[EvalCase],
    *,
    default_k: int = 5,
    default_mode: str = "hybrid",
    **recall_kwargs: Any,
) -> EvalResult:
    """Run every case through ``store.recall(touch=False)`` and average the metrics.

    Extra keyword arguments (``weights=``, ``fusion=``, ``diversity=`` …) go to
    ``recall``, so two ranking configurations can be compared on one gold set.
    """
    per_case: list[dict[str, Any]] = []
    ks: set[int] = set()
    for case in cases:
        k = default_k if case.k is None else case.k
        mode = default_mode if case.mode is None else case.mode
        ks.add(k)
        hits = store.recall(case.query, k=k, mode=mode, touch=False, **recall_kwargs)
        ids = [hit[0].id for hit in hits]
        rel = case.relevant_ids
        per_case.append(
            {
                "query": case.query,
                "k": k,
                "recall_at_k": recall_at_k(ids, rel, k),
                "precision_at_k": precision_at_k(ids, rel, k),
                "rr": reciprocal_rank(ids, rel),
                "ap": average_precision(ids, rel),
                "ndcg_at_k": ndcg_at_k(ids, rel, k),
                "retrieved": ids,
            }
        )
    n = len(per_case)

    def mean(key: str) -> float:
        return sum(c[key] for c in per_case) / n if n else 0.0

    return EvalResult(
        n=n,
        k=next(iter(ks)) if len(ks) == 1 else -1,
        recall_at_k=mean("recall_at_k"),
        precision_at_k=mean("precision_at_k"),
        mrr=mean("rr"),
        map=mean("ap"),
        ndcg_at_k=mean("ndcg_at_k"),
        per_case=per_case,
    )
