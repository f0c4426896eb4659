"""metrics shared across processes, readiness probing and caching, stats aggregates."""

from __future__ import annotations

import time

import pytest


def test_metrics_add_up_across_store_instances(make_store):
    one = make_store()
    two = make_store(collection=one.collection_name)  # e.g. another process
    one.remember("metrics memory one")
    one.remember("metrics memory two")
    two.remember("metrics memory three")
    one.recall("memory", k=2)
    two.recall("memory", k=2)
    two.recall("three", k=1)
    for store in (one, two):
        m = store.metrics()
        assert m["count"] == 3
        assert m["calls"]["remember"] == 3 and m["calls"]["recall"] == 3
        assert m["calls"]["forget"] == 0  # every known op is reported
        lat = m["recall_latency_ms"]
        assert lat["count"] == 3 and lat["window"] == 3
        assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
        assert lat["avg"] <= lat["max"]
        assert m["uptime_seconds"] >= 0
    other = make_store()
    assert other.metrics()["calls"]["recall"] == 0  # per collection


def test_readiness_probes_and_caches_only_ready(store, monkeypatch):
    result = store.readiness()
    assert result["ready"] is True
    assert set(result["checks"]) == {"store", "redis", "search", "embedder"}
    assert result["checks"]["store"]["ok"] is True  # the seed's check name
    assert result["checks"]["embedder"]["dim"] == 384
    assert store.probe_embedding()["ok"] is True

    def broken(texts):
        raise RuntimeError("model unavailable")

    monkeypatch.setattr(store.core, "encode", broken)
    down = store.readiness(cache_ttl=60)
    assert down["ready"] is False and down["checks"]["embedder"]["ok"] is False
    assert "model unavailable" in down["checks"]["embedder"]["error"]
    monkeypatch.undo()
    up = store.readiness(cache_ttl=60)  # the failure was not cached
    assert up["ready"] is True
    monkeypatch.setattr(store.core, "encode", broken)
    assert store.readiness(cache_ttl=60) is up  # a ready answer is reused within the TTL
    assert store.readiness()["ready"] is False  # cache_ttl=0 always probes
    with pytest.raises(ValueError):
        store.readiness(cache_ttl=-1)


def test_stats_aggregates(store):
    a = store.remember("alpha procedure", type="procedural", tags=["ops", "infra"])
    b = store.remember("beta event", type="episodic", tags=["ops"], importance=0.1)
    c = store.remember("gamma fact", tags=["misc"], importance=0.9)
    d = store.remember("delta fact replaced", tags=["ops"])
    store.remember("epsilon expired", type="episodic", expires_at=time.time() - 60)
    store.supersede(d.id, c.id)
    store.recall("gamma fact", k=1)  # c gets an access
    old = repr(time.time() - 400 * 86400)
    for m in (a, b):  # long untouched: b is at risk, a is protected (procedural)
        store.set_raw_fields({m.id: {"last_accessed": old}})
    s = store.stats()
    assert (s["total"], s["active"], s["superseded"], s["expired"]) == (5, 4, 1, 1)
    assert (s["pending"], s["failed"]) == (0, 0)
    assert s["by_type"] == {"episodic": 2, "procedural": 1, "semantic": 1}
    assert s["top_tags"] == {"ops": 2, "infra": 1, "misc": 1}
    h = s["health"]
    assert sum(h["decay_histogram"].values()) == 4
    assert h["decay_histogram"]["0.0–0.2"] == 2  # a and b decayed to ~0
    assert h["at_risk_count"] == 1
    assert h["never_recalled_count"] == 3
    assert h["stale_count"] == 2
    assert h["episodic_active_count"] == 2
    assert h["avg_importance"] == pytest.approx((0.5 + 0.1 + 0.9 + 0.5) / 4, abs=1e-3)
    assert store.stats(top_tags=1)["top_tags"] == {"ops": 2}
    assert store.stats(protect_types=())["health"]["at_risk_count"] == 2
    with pytest.raises(ValueError):
        store.stats(decay_rate=-1)
