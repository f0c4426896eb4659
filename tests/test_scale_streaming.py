"""Whole-collection streaming at scale (issue 15): sorted key windows, the export's
FLOAT16 line writer, and ``houkai bench scale --resume``'s job bookkeeping."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from houkai import MemoryStore
from houkai.bench import scale as bench
from houkai.domain.model import Memory, content_hash
from houkai.store.export_rows import f16_arrays
from houkai.store.search import iter_keys


def test_sorted_keys_stream_in_order_with_ties_wider_than_a_window(store: MemoryStore) -> None:
    rng = np.random.default_rng(4)
    stamps = [1_700_000_000.0 + float(x) for x in rng.uniform(0, 1e6, 40)]
    stamps += [1_700_500_000.25] * 20  # one value shared by more keys than a window holds
    memories = [
        Memory(
            id=f"w{i:03d}",
            text=f"window test {i}",
            created_at=t,
            content_hash=content_hash(f"window test {i}"),
        )
        for i, t in enumerate(stamps)
    ]
    for m in memories:
        m.collection = store.collection_name
    vecs = rng.standard_normal((len(memories), store.index_params.dim)).astype(np.float32)
    store.write(memories, vecs)
    deadline = time.time() + 30
    while store.count() < len(memories) and time.time() < deadline:
        time.sleep(0.05)
    batches = list(
        iter_keys(store.client, store.keys.index, "*", batch_size=4, sortby="created_at")
    )
    got = [k for b in batches for k in b]
    want = [
        store.keys.memory(m.id)
        for m in sorted(memories, key=lambda m: (m.created_at, store.keys.memory(m.id)))
    ]
    assert got == want
    assert max(len(b) for b in batches) <= 4


def test_float16_export_arrays_read_back_as_the_same_bits() -> None:
    rng = np.random.default_rng(2)
    vecs = (rng.standard_normal((5, 384)) * 0.05).astype(np.float16)
    vecs[0, :4] = [0.0, -0.0, 65504.0, 6e-8]
    got = f16_arrays([v.tobytes() for v in vecs], 384)
    for vec, line in zip(vecs, got, strict=True):
        back = np.asarray(json.loads(line), dtype=np.float16)
        assert (back == vec).all() and len(line) < len(json.dumps(vec.tolist()))


def test_each_job_reports_its_median_run(monkeypatch: Any, tmp_path: Path) -> None:
    times = {"export": [30.0, 10.0, 20.0], "conflicts": [900.0], "decay": [1.0, 2.0]}
    rss = iter([50.0, 70.0, 60.0, 400.0, 40.0, 45.0])

    def fake_run_job(
        settings: Any, collection: str, job: str, workdir: Path, timeout: float
    ) -> dict:
        result = {"job": job, "seconds": times[job].pop(0), "peak_rss_mb": next(rss)}
        if job == "decay" and result["seconds"] == 2.0:
            result["error"] = "exit 1"
        return result

    monkeypatch.setattr(bench, "run_job", fake_run_job)
    step: dict = {"n": 1000}
    bench._finish_jobs(
        step, ["export", "conflicts", "decay"], None, "c", tmp_path, 5.0, 1000,
        lambda: None, lambda _m: None, 3,
    )  # type: ignore[arg-type]  # fmt: skip
    export, conflicts, decay = step["jobs"]
    assert export["seconds"] == 20.0 and export["runs_seconds"] == [30.0, 10.0, 20.0]
    assert export["peak_rss_mb"] == 70.0  # the highest of the three runs
    assert conflicts["seconds"] == 900.0 and "runs_seconds" not in conflicts  # over 600 s: once
    assert decay.get("error") == "exit 1"  # a failed run is reported, not hidden by the median
    assert not times["export"] and not times["conflicts"] and not times["decay"]


def test_resume_reruns_only_failed_or_missing_jobs(monkeypatch: Any, tmp_path: Path) -> None:
    ran: list[str] = []

    def fake_run_job(
        settings: Any, collection: str, job: str, workdir: Path, timeout: float
    ) -> dict:
        ran.append(job)
        return {"job": job, "seconds": 1.0, "peak_rss_mb": 10.0}

    monkeypatch.setattr(bench, "run_job", fake_run_job)
    step = {
        "n": 1000,
        "jobs": [
            {"job": "open", "seconds": 1.0, "peak_rss_mb": 10.0},
            {"job": "export", "seconds": 9.0, "peak_rss_mb": 10.0, "error": "timed out"},
        ],
    }
    bench._finish_jobs(
        step,
        ["open", "export", "decay"],
        None,
        "c",
        tmp_path,
        5.0,
        1000,
        lambda: None,
        lambda _m: None,
        1,
    )  # type: ignore[arg-type]
    assert ran == ["export", "decay"]
    assert [j["job"] for j in step["jobs"]] == ["open", "export", "decay"]
    assert not any(j.get("error") for j in step["jobs"])
    out = tmp_path / "scale.json"
    assert bench._previous(out) is None  # nothing to resume
    out.write_text(json.dumps({"config": {"steps": [1000]}, "steps": []}))
    assert bench._previous(out) is None  # figures from before --resume existed: start afresh
    out.write_text(json.dumps({"config": {"base_used": 5}, "steps": [step]}))
    assert bench._previous(out)["steps"][0]["n"] == 1000  # type: ignore[index]


def test_the_stats_job_times_the_pass_not_the_cached_aggregates(
    store: MemoryStore, tmp_path: Path
) -> None:
    from houkai.bench import scale_job

    store.remember_many([{"text": f"stats job memory {i}"} for i in range(3)])
    store.stats()  # what a first run leaves: the aggregates, cached in Redis

    def computed_at() -> dict[bytes, float]:
        cached = store.client.hgetall(store.keys.aggregate_cache)
        return {name: json.loads(entry)["at"] for name, entry in cached.items()}

    before = computed_at()
    assert before
    time.sleep(0.01)
    out = scale_job.main("stats", store.collection_name, str(tmp_path))
    after = computed_at()
    assert out["count"] == 3
    assert after.keys() == before.keys()
    assert all(after[name] > before[name] for name in before)  # computed again, not read
