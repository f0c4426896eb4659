"""``--compare --rounds``: backends alternate, ratios are per-round medians, collections dropped."""

from __future__ import annotations

import pytest
from houkai.connection import connect

from houkai.bench.backends import BASELINE, compare_recall, contenders
from houkai.domain.model import ValidationError


def test_compare_recall_rounds_alternate_and_take_medians(settings, embedder) -> None:
    specs = contenders(settings)
    result = compare_recall(
        settings, [60], rounds=2, n_queries=4, rest=False, ef_sweep=[64], collection_prefix="tr"
    )
    data = result.to_dict()
    assert data["rounds"] == 2 and list(data["results"]) == specs
    assert all(len(data["results"][s]["runs"]) == 2 for s in specs)
    name = f"N=60 {specs[-1]} cold semantic p50 / torch"
    runs = data["ratio_runs"][name]
    assert len(runs) == 2 and data["ratios"][name] == pytest.approx(sum(runs) / 2, abs=1e-3)
    assert data["ratios"][f"N=60 {BASELINE} cold semantic p50 / torch"] == 1.0
    assert data["ratios"][f"N=60 {specs[-1]} HNSW recall@k (ef=64)"] > 0.9
    assert any("median of 2 rounds" in line for line in result.lines())
    # each backend wrote its own collection once; both are gone afterwards
    left = connect(settings.redis_url).keys(f"{settings.key_prefix}:*tr-minilm*")
    assert left == []


def test_compare_refuses_zero_rounds(settings) -> None:
    with pytest.raises(ValidationError):
        compare_recall(settings, [60], rounds=0)


def test_compare_recall_shares_one_corpus_embedded_by_one_backend(settings, embedder) -> None:
    specs = contenders(settings)
    result = compare_recall(
        settings,
        [60],
        n_queries=4,
        rest=False,
        ef_sweep=[64],
        collection_prefix="ts",
        corpus_embedder=specs[-1],
    ).to_dict()
    configs = [result["results"][s]["config"] for s in specs]
    assert configs[0]["embedder"] == "all-MiniLM-L6-v2"  # torch (no @backend suffix)
    assert len({c["corpus_embedder"] for c in configs}) == 1  # both queried one corpus
    sizes = [result["results"][s]["sizes"][0] for s in specs]
    assert sizes[0]["collection"] == sizes[1]["collection"]
    assert sizes[1]["reused_collection"] and not sizes[0]["reused_collection"]  # written once
    assert connect(settings.redis_url).keys(f"{settings.key_prefix}:*ts-corpus*") == []
