"""``houkai bench recall`` on a tiny corpus: output structure and sane numbers (no timing)."""

from __future__ import annotations

import json
import sys
import uuid

import pytest
from _childenv import bench_cli

from houkai.bench import recall as bench
from houkai.bench.recall_corpus import generate, queries
from houkai.db.keys import Keys
from houkai.domain.config import Settings
from houkai.domain.model import MEMORY_TYPES

N = 300
QUERIES = 20


def test_corpus_is_deterministic_prefix_stable_and_varied() -> None:
    small, large = generate(200, seed=3), generate(1000, seed=3)
    assert [m.text for m in small] == [m.text for m in large[:200]]
    assert [m.id for m in small] == [m.id for m in large[:200]]
    assert [m.text for m in generate(50, seed=4)] != [m.text for m in small[:50]]
    assert len({m.text for m in large}) > 900
    assert {m.type for m in large} == set(MEMORY_TYPES)
    assert all(len(m.tags) == 2 and m.state == "ready" for m in large)
    qs = queries(150, seed=3)
    assert len({q.text for q in qs}) == 150
    assert all(q.type in MEMORY_TYPES for q in qs)
    with pytest.raises(ValueError):
        generate(0)


def test_percentiles_are_ordered() -> None:
    p50, p95, p99, mean = bench.percentiles([5.0, 1.0, 3.0, 100.0, 2.0])
    assert p50 == 3.0 and p50 <= p95 <= p99 <= 100.0 and mean == pytest.approx(22.2)
    assert bench.percentiles([]) == (0.0, 0.0, 0.0, 0.0)


def _registered(settings: Settings) -> set[str]:
    from houkai.db.connection import connect

    client = connect(settings.redis_url)
    return {x.decode() for x in client.smembers(Keys.registry(settings.key_prefix))}


def test_tiny_run_structure_and_sane_numbers(settings: Settings, embedder, tmp_path) -> None:
    prefix = f"tb-{uuid.uuid4().hex[:8]}"
    result = bench.run(
        settings,
        [N],
        n_queries=QUERIES,
        ef_sweep=(4, 64),
        collection_prefix=prefix,
        keep=True,
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["benchmark"] == "recall"
    assert data["config"]["queries"] == QUERIES and data["config"]["k"] == 10
    assert data["config"]["ef_runtime"] in data["config"]["ef_sweep"]
    assert data["machine"]["nproc"] >= 1 and data["machine"]["cpu"]
    (size,) = data["sizes"]
    assert size["n"] == N and size["collection"] == f"{prefix}-{N}"
    assert 0 < size["filter_selectivity"] < 1
    assert size["rest_keepalive"] is True

    latency = size["latency"]
    combos = {(x["surface"], x["mode"], x["filtered"], x["phase"]) for x in latency}
    assert len(latency) == len(combos) == 16  # 2 surfaces × 2 modes × 2 filters × 2 passes
    for x in latency:
        assert x["n"] == QUERIES
        assert 0 < x["p50_ms"] <= x["p95_ms"] <= x["p99_ms"]
        assert x["mean_ms"] > 0
        if x["phase"] == "cold":  # fresh cache: every distinct query is embedded once
            assert (x["cache_hits"], x["cache_misses"]) == (0, QUERIES)
        else:  # the same queries again: served from the query-embedding cache
            assert (x["cache_hits"], x["cache_misses"]) == (QUERIES, 0)
            assert x["cache_hit_rate"] == 1.0

    hnsw = size["hnsw"]
    assert {(p["ef_runtime"], p["knn"], p["filtered"]) for p in hnsw} == {
        (ef, knn, f) for ef in (4, 64) for knn in (10, 40) for f in (False, True)
    }
    for p in hnsw:
        assert 0.0 <= p["recall_at_k"] <= 1.0 and p["queries"] >= 1
    by = {(p["ef_runtime"], p["knn"], p["filtered"]): p for p in hnsw}
    # 300 vectors at EF_RUNTIME 64: the HNSW answer is (near) exact.
    assert by[(64, 40, False)]["recall_at_k"] >= 0.95
    assert by[(64, 10, False)]["queries"] == QUERIES

    lines = result.lines()
    assert lines[0].split()[:4] == ["size", "surface", "mode", "filter"]
    assert sum(1 for line in lines if line.strip().startswith(str(N))) == 16 + len(hnsw)
    assert any(line.startswith("machine:") for line in lines)

    # --keep left the collection; a second run reuses it and the cached vectors.
    assert f"{prefix}-{N}" in _registered(settings)
    again = bench.run(
        settings,
        [N],
        n_queries=3,
        ef_sweep=(64,),
        rest=False,
        collection_prefix=prefix,
        touch=False,
    )
    (second,) = again.sizes
    assert second.reused and second.vectors_cached
    assert {x.surface for x in second.latency} == {"library"}
    assert f"{prefix}-{N}" not in _registered(settings)  # dropped without --keep

    png = tmp_path / "plots" / "recall.png"
    bench.plot(result, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_vectors_are_cached_on_disk(settings: Settings, embedder, tmp_path) -> None:
    from houkai.bench.recall_corpus import corpus_vectors

    memories = generate(40, seed=11)
    calls: list[int] = []

    def encode(texts: list[str]):
        calls.append(len(texts))
        return embedder.encode(texts)

    first, cached = corpus_vectors(
        memories, encode, data_dir=str(tmp_path), seed=11, model="m", chunk=16
    )
    assert not cached and calls == [16, 16, 8] and first.shape == (40, embedder.dimension)
    sliced, cached = corpus_vectors(
        memories[:25], encode, data_dir=str(tmp_path), seed=11, model="m"
    )
    assert cached and calls == [16, 16, 8]  # a larger cached corpus serves a smaller one
    assert (sliced == first[:25]).all()


@pytest.fixture()
def invoke(settings: Settings, embedder, tmp_path):
    return bench_cli(settings, tmp_path)


def test_cli_json_and_errors(invoke, monkeypatch) -> None:
    prefix = f"tc-{uuid.uuid4().hex[:8]}"
    result = invoke(
        "bench",
        "recall",
        "--sizes",
        "120",
        "--queries",
        "4",
        "--no-rest",
        "--ef-sweep",
        "64",
        "--collection-prefix",
        prefix,
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [s["n"] for s in data["sizes"]] == [120]
    assert {x["surface"] for x in data["sizes"][0]["latency"]} == {"library"}

    bad = invoke("bench", "recall", "--sizes", "ten")
    assert bad.exit_code == 1 and "Error:" in bad.output and "--sizes" in bad.output

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if houkai[bench] were absent
    missing = invoke("bench", "recall", "--sizes", "120", "--plot", "x.png")
    assert missing.exit_code == 1
    assert "Error: install houkai[bench] for --plot" in missing.output


def test_result_round_trips_through_json() -> None:
    size = bench.SizeResult(
        n=10,
        collection="c",
        vectors_cached=True,
        embed_seconds=0.0,
        load_seconds=1.0,
        reused=False,
        filter_selectivity=0.1,
        rest_keepalive=True,
    )
    size.latency = [
        bench.LatencyStats("library", "semantic", False, "warm", 3, 1.0, 2.0, 3.0, 1.5, 3, 0)
    ]
    size.quality = [bench.QualityPoint(64, 10, False, 0.99, 3, 0.5)]
    result = bench.RecallBenchResult(
        sizes=[size],
        config={"k": 10, "ef_runtime": 64, "queries": 3},
        machine={
            "cpu": "x",
            "nproc": 2,
            "memory_gb": 1.0,
            "python": "3.11",
            "loadavg_start": "1",
            "loadavg_end": "1",
        },
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["sizes"][0]["latency"][0]["cache_hit_rate"] == 1.0
    again = bench.RecallBenchResult.from_dict(data)
    assert again.to_dict() == data and again.lines() == result.lines()
