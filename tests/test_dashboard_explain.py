"""The dashboard's score bars (``api/ui/static/explain.js``, run under node) on real
recall explanations: the bars of a hit sum to its score, stage boosts included, and
every hit of a list is drawn on one absolute scale (issue #26)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from houkai.domain.model import HybridWeights

EXPLAIN_JS = Path(__file__).resolve().parent.parent / "api" / "ui" / "static" / "explain.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def _bars(explains: list[dict]) -> dict:
    """explain.js's rows and the list's scale for *explains*, as node computes them."""
    script = (
        f"const x = require({json.dumps(str(EXPLAIN_JS))});"
        "const es = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify({scale: x.explainScale(es), rows: es.map(x.explainRows)}));"
    )
    done = subprocess.run(
        [str(NODE), "-e", script], input=json.dumps(explains), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _explains(store, query: str, **kwargs) -> list[tuple[float, dict]]:
    hits = store.recall(query, k=5, explain=True, touch=False, **kwargs)
    return [(score, explain) for _, score, explain in hits]


@pytest.fixture()
def memories(store):
    store.remember_many(
        [
            "Backups run nightly at 2am to the S3 bucket",
            "Backup restore drills happen every quarter with the ops team",
            "The cafeteria serves lunch at noon",
        ]
    )
    return store


def test_each_hits_bars_sum_to_its_score_stage_boosts_included(memories) -> None:
    hits = _explains(memories, "backups at 2am", mode="hybrid")
    assert any(e.get("stages", {}).get("specific") for _, e in hits)  # boosts to account for
    bars = _bars([e for _, e in hits])
    for (score, explain), rows in zip(hits, bars["rows"], strict=True):
        names = [name for name, _ in rows]
        assert {"cosine", "lexical", "recency", "importance"} <= set(names)
        assert {k for k, v in explain["stages"].items() if isinstance(v, float) and v} <= set(names)
        assert sum(value for _, value in rows) == pytest.approx(score, abs=2e-4)
        assert "other" not in names  # the explanation accounts for all of the score


def test_every_hit_is_drawn_on_one_absolute_scale(memories) -> None:
    hits = _explains(memories, "backups at 2am", mode="hybrid")
    bars = _bars([e for _, e in hits])
    assert bars["scale"] == 1  # a blended contribution of 0.3 fills 30 % of the track
    cosine = {
        explain["cosine"]: dict(rows)["cosine"]
        for (_, explain), rows in zip(hits, bars["rows"], strict=True)
    }
    low, high = min(cosine), max(cosine)
    assert high - low > 0.2  # the irrelevant hit's cosine bar is the shorter one
    assert cosine[low] < cosine[high]
    # RRF contributions are ~1/60: the scale is the list's largest, one for all hits
    rrf = _explains(memories, "backups at 2am", mode="hybrid", fusion="rrf")
    rrf_bars = _bars([e for _, e in rrf])
    largest = max(abs(v) for rows in rrf_bars["rows"] for _, v in rows)
    assert rrf_bars["scale"] == pytest.approx(largest)
    for (score, _), rows in zip(rrf, rrf_bars["rows"], strict=True):
        assert sum(value for _, value in rows) == pytest.approx(score, abs=2e-6)


def test_semantic_and_graph_scores_are_accounted_for(memories) -> None:
    semantic = _explains(memories, "backups", mode="semantic")
    for (score, _), rows in zip(semantic, _bars([e for _, e in semantic])["rows"], strict=True):
        assert dict(rows)["cosine"] == pytest.approx(score, abs=1e-5)
    graphed = _explains(memories, "backups", mode="hybrid", weights=HybridWeights(graph=0.5))
    for (score, _), rows in zip(graphed, _bars([e for _, e in graphed])["rows"], strict=True):
        assert sum(value for _, value in rows) == pytest.approx(score, abs=2e-4)
