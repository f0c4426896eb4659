"""Benchmarks (``houkai bench …``); the retrieval metrics live in :mod:`houkai.bench.eval`."""

from .eval import (
    EvalCase,
    EvalResult,
    average_precision,
    dcg_at_k,
    evaluate,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)

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
