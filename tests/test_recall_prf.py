"""ADR 0084: the ``prf`` stage's Rocchio part scores the first round's pool against the
feedback vector without a second KNN round (``prf_round`` brings that round back), and
what it asks Redis goes in one pipelined round trip."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from houkai import MemoryStore
from houkai.recall import candidates
from houkai.recall.request import RecallRequest
from houkai.recall.stages.params import BASE

TEXTS = [
    "The deploy pipeline runs the integration tests before every release",
    "Release notes are written by the on-call engineer after the deploy",
    "Integration tests cover the billing service and the invoice exporter",
    "The invoice exporter writes CSV files for the finance team every night",
    "The finance team reconciles invoices on the first Monday of the month",
    "Monday mornings start with a short planning meeting",
] + [f"Garden note {i}: the tomatoes needed water and the roses were pruned" for i in range(30)]
QUERY = "when do the integration tests run?"
STAGES = ("query", "prf")


@pytest.fixture()
def notes(store: MemoryStore) -> MemoryStore:
    store.remember_many(TEXTS)
    return store


def _gather(store: MemoryStore, params=BASE) -> dict[str, Any]:
    request = RecallRequest(
        QUERY, k=2, overfetch=2, mode="hybrid", stages=STAGES, touch=False, explain=True
    )
    ctx = store.recaller.prepare(request, params=params)
    return store.recaller.gather(ctx)


def _knn_rounds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = candidates.search_args

    def spy(index: str, query: str, **kwargs: Any) -> Any:
        if "KNN" in query:
            seen.append(query)
        return real(index, query, **kwargs)

    monkeypatch.setattr(candidates, "search_args", spy)
    return seen


def test_feedback_scores_the_pool_without_a_second_knn_round(notes, monkeypatch) -> None:
    knn = _knn_rounds(monkeypatch)
    pool = _gather(notes)
    assert len(knn) == 1  # the first round's only
    assert not any(c.feedback for c in pool.values())
    with_vectors = [c for c in pool.values() if c.vector is not None]
    assert with_vectors and all(c.prf != 0.0 for c in with_vectors)
    hits = notes.recall(QUERY, k=2, mode="hybrid", stages=STAGES, explain=True, touch=False)
    assert any("prf" in e.get("stages", {}) for _, _, e in hits)  # explain shows it


def test_prf_round_brings_the_feedback_knn_back(notes, monkeypatch) -> None:
    knn = _knn_rounds(monkeypatch)
    base = _gather(notes)
    knn.clear()
    pool = _gather(notes, replace(BASE, prf_round=True))
    assert len(knn) == 2  # the first round and the feedback round
    added = [c for c in pool.values() if c.feedback]
    assert added and not {c.memory.id for c in added} & set(base)
    # the same feedback scores for the candidates both pools hold
    for mid, cand in base.items():
        assert pool[mid].prf == pytest.approx(cand.prf, abs=1e-6)


def test_together_returns_each_reply_or_its_error(store: MemoryStore) -> None:
    key = store.keys.lexstats
    store.client.hset(key, mapping={"__N": 3})
    replies = candidates.together(
        store.client, [["HMGET", key, "__N"], ["FT.SEARCH", "no-such-index", "*"]]
    )
    assert replies[0] == [b"3"] and isinstance(replies[1], Exception)
    assert candidates.together(store.client, [["HMGET", key, "__N"]]) == [[b"3"]]
