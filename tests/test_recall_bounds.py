"""Bounded work per recall (issue 27, item 2): MMR is O(pool · k) array work over a capped
pool, k is capped where every door shows it, and a request deadline stops the work with
a clean 503 / tool error / ``Error:`` line."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from _childenv import cli_env
from click.testing import CliRunner
from houkai.api import mcp_server
from houkai.api.openapi import build_openapi
from houkai.api.rest import create_app

from houkai import MemoryStore
from houkai.app.operations import BY_NAME
from houkai.app.operations.schema import params_schema
from houkai.app.service import MemoryService
from houkai.cli import cli
from houkai.domain import deadline
from houkai.domain.model import MAX_RECALL_K, MAX_RECALL_POOL, ValidationError
from houkai.engines.embeddings import HashEmbedder
from houkai.recall import diversity


def _old_mmr(relevance, vectors, k, lam, dedup):
    """The selection before issue 27 (one np.dot per candidate and chosen hit, per pick)."""
    chosen, chosen_vectors, remaining = [], [], list(range(len(relevance)))
    while remaining and len(chosen) < k:
        best, best_value = -1, -math.inf
        for i in remaining:
            vec = vectors[i]
            red = 0.0
            if vec is not None:
                red = max((float(np.dot(vec, s)) for s in chosen_vectors), default=0.0)
            if dedup is not None and chosen_vectors and vec is not None and red >= dedup:
                continue
            value = lam * relevance[i] - (1 - lam) * red
            if value > best_value:
                best, best_value = i, value
        if best < 0:
            break
        remaining.remove(best)
        chosen.append(best)
        if vectors[best] is not None:
            chosen_vectors.append(vectors[best])
    return chosen


def _unit(rows: int, dim: int = 32, seed: int = 7) -> np.ndarray:
    m = np.random.default_rng(seed).normal(size=(rows, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


@pytest.mark.parametrize("dedup", [None, 0.3])
def test_mmr_order_selects_what_the_quadratic_loop_did(dedup):
    vecs = list(_unit(80))
    vecs[5] = vecs[17] = None  # still waiting for their embedding
    rel = sorted(np.random.default_rng(3).random(80).tolist(), reverse=True)
    for lam in (0.0, 0.3, 0.7, 1.0):
        got = diversity.mmr_order(rel, vecs, 25, lam, dedup).order
        assert got == _old_mmr(rel, vecs, 25, lam, dedup), lam


def test_mmr_work_is_one_similarity_row_per_pick():
    pool, k = 3000, 400
    result = diversity.mmr_order(np.linspace(1, 0, pool).tolist(), list(_unit(pool)), k, 0.5)
    assert len(result.order) == k and len(set(result.order)) == k
    # pool · k similarities (one matrix-vector product a pick), not pool · k² / 2
    assert result.similarities == pool * k


@pytest.fixture()
def many(settings, embedder):
    """3,000 memories with hashed vectors (no model: this is about work, not meaning)."""
    store = MemoryStore(
        collection=f"bounds-{uuid.uuid4().hex[:8]}", settings=settings, embedder=HashEmbedder(384)
    )
    words = [f"w{i}" for i in range(300)]
    rng = np.random.default_rng(11)
    items = [" ".join(rng.choice(words, 6)) + f" note {i}" for i in range(3000)]
    store.remember_many(items, batch_size=500)
    yield store
    store.drop()


def test_recall_k400_with_diversity_does_bounded_vectorised_work(many, monkeypatch):
    calls = {"dot": 0, "similarities": 0}
    real_dot, real_order = np.dot, diversity.mmr_order

    def counting_dot(*args, **kwargs):
        calls["dot"] += 1
        if calls["dot"] > 50_000:  # the old loop makes tens of millions of these
            raise AssertionError("MMR computes similarities one pair at a time")
        return real_dot(*args, **kwargs)

    def counting_order(*args, **kwargs):
        result = real_order(*args, **kwargs)
        calls["similarities"] += result.similarities
        return result

    monkeypatch.setattr(np, "dot", counting_dot)
    monkeypatch.setattr("houkai.recall.selection.mmr_order", counting_order)
    hits = many.recall("w1 w2 w3 note", k=400, diversity=0.5, overfetch=8, touch=False)
    assert len(hits) == 400 and len({m.id for m, _ in hits}) == 400
    assert 0 < calls["similarities"] <= MAX_RECALL_POOL * 400


def test_k_is_capped_in_the_store_and_in_every_published_schema(many):
    with pytest.raises(ValidationError, match=f"k: must be <= {MAX_RECALL_K}, got"):
        many.recall("w1", k=MAX_RECALL_K + 1)
    with pytest.raises(ValidationError, match="max_items"):
        many.recall_pack("w1", max_items=MAX_RECALL_K + 1)
    schema = params_schema(BY_NAME["recall"])["properties"]  # MCP inputSchema, REST body
    assert schema["k"]["maximum"] == MAX_RECALL_K
    assert f"{MAX_RECALL_POOL:,}" in schema["overfetch"]["description"]
    pack = params_schema(BY_NAME["recall_pack"])["properties"]
    assert pack["max_items"]["maximum"] == MAX_RECALL_K
    spec = build_openapi()["paths"]["/recall"]["post"]["requestBody"]["content"]
    assert spec["application/json"]["schema"]["properties"]["k"]["maximum"] == MAX_RECALL_K
    k_option = next(p for p in cli.commands["recall"].params if p.name == "k")
    assert k_option.type.max == MAX_RECALL_K


def test_a_deadline_stops_mmr_between_picks():
    vecs = list(_unit(500))
    with deadline.scope(1e-9), pytest.raises(deadline.DeadlineExceeded, match="request_deadline"):
        diversity.mmr_order(np.linspace(1, 0, 500).tolist(), vecs, 400, 0.5)


@pytest.fixture()
def late(settings, many):
    """A service whose request deadline has always passed by the first stage."""
    s = settings.replace(
        collection=many.collection_name, request_deadline=1e-9, pipeline_mode="inline"
    )
    service = MemoryService(s)
    service._stores[many.collection_name] = many
    return s, service


def test_deadline_answers_cleanly_through_every_door(late, tmp_path):
    s, service = late
    body = {"query": "w1 w2", "k": 50, "diversity": 0.5, "touch": False}
    r = create_app(s, service).test_client().post("/recall", json=body)
    assert r.status_code == 503, r.get_json()
    assert "request_deadline" in r.get_json()["error"]
    r = create_app(s, service).test_client().post("/recall_pack", json={"query": "w1"})
    assert r.status_code == 503 and "request_deadline" in r.get_json()["error"]
    mcp_server.set_service(service)
    try:
        with pytest.raises(Exception, match="request_deadline"):
            mcp_server.call_tool("recall", body)
        late_error = deadline.DeadlineExceeded("stopped (request_deadline)")
        assert "request_deadline" in mcp_server.error_message(late_error)
    finally:
        mcp_server.set_service(None)
    env = cli_env(s, tmp_path, HOUKAI_REQUEST_DEADLINE="0.000000001")
    out = CliRunner().invoke(cli, ["recall", "w1 w2", "--diversity", "0.5"], env=env)
    assert out.exit_code == 1, out.output
    assert "Error:" in out.output and "request_deadline" in out.output
    # the same service with the default deadline answers
    ok = MemoryService(s.replace(request_deadline=30.0))
    ok._stores[s.collection] = service._stores[s.collection]
    assert len(ok.recall("w1 w2", k=5, touch=False)) == 5
