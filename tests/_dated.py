"""Small dated collections for the ``current`` stage's tests: write memories aged so many
days, and read a hybrid recall's ranking with its ``explain``."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from houkai import MemoryStore
from houkai.bench.locomo import backdate
from houkai.domain.model import Memory
from houkai.recall import state
from houkai.recall.asking import StateQuery
from houkai.recall.candidates import Candidate

DAY = 86_400.0


def write_dated(store: MemoryStore, dated: list[tuple[str, float]]) -> list[str]:
    """Write each ``(text, days ago)`` and date it; returns the ids in order."""
    now = time.time()
    written = store.remember_many([t for t, _ in dated])
    backdate(store, {m.id: now - days * DAY for m, (_, days) in zip(written, dated, strict=True)})
    return [m.id for m in written]


def ranking(
    store: MemoryStore, question: str, k: int = 5, **options: Any
) -> list[tuple[str, dict]]:
    """A hybrid recall's ``(id, explain)`` pairs, best first (read-only)."""
    hits = store.recall(question, k=k, mode="hybrid", touch=False, explain=True, **options)
    return [(m.id, e) for m, _, e in hits]


def scored_candidates(embedder: Any, dated: list[tuple[str, float, float]]) -> list[Candidate]:
    """Candidates of ``(text, days ago, blend score)`` with the model's real vectors."""
    vectors = embedder.encode([t for t, _, _ in dated])
    now = time.time()
    return [
        Candidate(
            memory=Memory(id=f"m{i}", text=text, created_at=now - days * DAY),
            score=score,
            vector=np.asarray(vector),
            has_vector=True,
        )
        for i, ((text, days, score), vector) in enumerate(zip(dated, vectors, strict=True))
    ]


def ranked_by_stage(
    embedder: Any, dated: list[tuple[str, float, float]], read: StateQuery
) -> list[Candidate]:
    """The candidates of ``(text, days ago, blend score)`` after the ``current`` stage ranked
    them for the question *read* (its defaults: cosine 0.65 for a topic, 0.45 with a shared
    value, the ten best), best first."""
    cands = scored_candidates(embedder, dated)
    state.newest_first(cands, read, 0.65, 10, {}, 0.45)
    return sorted(cands, key=lambda c: -c.score)
