"""bench sessions' report: the median paced round, every round, and the load it ran under."""

from __future__ import annotations

from houkai.bench import sessions as bs


def _phase(p50: float, p99: float) -> dict:
    return {"clients": 16, "rate_per_client": 2.0, "seconds": 10.0, "messages": 320,
            "accepted_per_second": 32.0, "p50_ms": p50, "p99_ms": p99, "errors": 0,
            "load_1m": 1.5}  # fmt: skip


def test_the_median_round_by_p99_is_reported_with_every_round():
    merged = bs._rounds([_phase(4.0, 44.0), _phase(5.0, 12.0), _phase(6.0, 21.0)])
    assert (merged["p50_ms"], merged["p99_ms"]) == (6.0, 21.0)
    assert [r["p99_ms"] for r in merged["rounds"]] == [44.0, 12.0, 21.0]  # run order kept
    result = {"rest": {"phases": {"paced": merged}, "extracted_during_load": 10,
                       "drain_seconds": 1.0, "extract_after_idle": "2s",
                       "freshness_median_s": 3.0, "freshness_max_s": 3.1,
                       "freshness_found": "5/5"}}  # fmt: skip
    text = "\n".join(bs.lines(result))
    assert "p99 21.0 ms" in text and "(Poisson)" in text and "load 1.5" in text
    assert "4.0/44.0, 5.0/12.0, 6.0/21.0" in text
