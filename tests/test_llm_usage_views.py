"""LLM extraction usage where people look: ``/stats``, ``/metrics`` (the dashboard's
health view reads it) and ``/metrics/prometheus``; a dropped collection takes it along."""

from __future__ import annotations

import pytest
from test_rest import Api

from houkai.extraction.base import Usage
from houkai.extraction.usage import record_usage


@pytest.fixture()
def api(make_store, settings, embedder):
    return Api(make_store, settings)


def test_usage_shows_in_stats_metrics_and_prometheus(api) -> None:
    store = api.service._stores[api.collection]
    spent = Usage("openai", "gpt-4o-mini", input_tokens=1000, output_tokens=200, calls=2)
    spent.cost_usd = 0.00027
    record_usage(store.client, store.keys, "job-1", spent)
    record_usage(store.client, store.keys, "job-2", Usage("ollama", "llama3.2", 50, 5, 0.0, 1))
    stats = api.call("GET", "/stats").get_json()["extraction"]
    assert stats["input_tokens"] == 1050 and stats["calls"] == 3
    assert stats["providers"]["openai"]["cost_usd"] == pytest.approx(0.00027)
    metrics = api.call("GET", "/metrics").get_json()["extraction"]
    assert metrics["providers"]["ollama"]["models"]["llama3.2"]["output_tokens"] == 5
    text = api.call("GET", "/metrics/prometheus").get_data(as_text=True)
    labels = f'collection="{api.collection}",provider="openai",model="gpt-4o-mini"'
    assert f"houkai_extraction_input_tokens_total{{{labels}}} 1000" in text
    assert f"houkai_extraction_cost_usd_total{{{labels}}} 0.00027" in text
    assert "# TYPE houkai_extraction_calls_total counter" in text
    store.drop()
    assert not store.client.exists(store.keys.llm_usage)


def test_no_usage_is_zeros(api) -> None:
    stats = api.call("GET", "/stats").get_json()["extraction"]
    assert stats == {
        "input_tokens": 0,
        "output_tokens": 0,
        "calls": 0,
        "cost_usd": 0.0,
        "providers": {},
    }


def test_a_jobs_share_shows_on_the_job(api) -> None:
    job_id = api.call("POST", "/memories", {"text": "tracked by a job"}).get_json()["job_id"]
    assert job_id is not None
    assert "extraction" not in api.call("GET", f"/jobs/{job_id}").get_json()  # no LLM call
    store = api.service._stores[api.collection]
    record_usage(
        store.client, store.keys, job_id, Usage("anthropic", "claude-3-haiku", 40, 4, 0, 1)
    )
    job = api.call("GET", f"/jobs/{job_id}").get_json()
    assert job["extraction"]["providers"]["anthropic"]["input_tokens"] == 40
    assert job["extraction"]["calls"] == 1
