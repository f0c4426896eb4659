"""Extraction runs as jobs (houkai.sessions.jobs): the worker task against a fake LLM
provider on loopback, through the real ``openai`` client. A transient failure is retried
and noted on the job; a permanent one is a dead letter that ``jobs`` shows, with every
message still pending and the session no longer swept; ``job_retry`` sends it again."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from fake_llm_server import FakeLLM

from houkai.app.service import MemoryService
from houkai.domain.config import get_settings, set_settings


def reply(*rows: tuple[str, list[str]]) -> dict:
    return {
        "memories": [
            {"text": text, "kind": "fact", "message_ids": ids, "importance": None, "tags": [],
             "event_date": None, "polarity": 0}
            for text, ids in rows
        ]
    }  # fmt: skip


@pytest.fixture()
def llm_env(settings, embedder) -> Iterator[tuple[FakeLLM, MemoryService, str]]:
    from houkai.workers import tasks

    with FakeLLM() as fake:
        os.environ["HOUKAI_TEST_LLM_KEY"] = "test-key"
        own = settings.replace(
            extractor="llm:openai:test-model",
            llm_base_url=fake.openai_url,
            llm_api_key_env="HOUKAI_TEST_LLM_KEY",
            llm_retries=0,
            llm_timeout=5.0,
            pipeline_mode="inline",
        )
        set_settings(own)
        tasks._stores.clear()
        collection = f"xj-{uuid.uuid4().hex[:8]}"
        service = MemoryService(own, actor="test")
        try:
            yield fake, service, collection
        finally:
            service.store(collection).drop()
            tasks._stores.clear()
            set_settings(settings)
            os.environ.pop("HOUKAI_TEST_LLM_KEY", None)


def _run(service: MemoryService, collection: str, session: str, job_id: str) -> dict:
    from houkai.workers.tasks import extract_session

    store = service.store(collection)
    result = extract_session.apply(
        kwargs={"prefix": store.keys.prefix, "collection": collection, "session_id": session},
        task_id=job_id,
    )
    return result.get(propagate=False)


def test_a_permanent_failure_is_a_visible_dead_letter_and_loses_nothing(llm_env):
    fake, service, collection = llm_env
    store = service.store(collection)
    store.add_messages("s1", [{"id": "m1", "role": "user", "content": "I live in Lisbon."}])
    fake.push({"status": 400})
    out = _run(service, collection, "s1", "job-dead-1")
    assert out["status"] == "dead_letter"
    listed = {j["id"]: j for j in service.jobs(limit=10, collection=collection)}
    assert listed["job-dead-1"]["kind"] == "extract"
    assert listed["job-dead-1"]["state"] == "failed"
    job = service.job(job_id="job-dead-1", collection=collection)
    assert job["errors"][-1]["dead_letter"] is True
    assert [m.id for m in store.session_state.pending("s1")] == ["m1"]  # nothing lost
    assert store.client.zscore(store.keys.sessions_due, "s1") is None  # not swept again
    assert store.count() == 0

    fake.push({"reply": reply(("The user lives in Lisbon.", ["m1"]))})
    requeued = service.job_retry(job_id="job-dead-1", collection=collection)
    assert requeued["requeued"] == 1
    assert service.job(job_id="job-dead-1", collection=collection)["state"] == "queued"
    out = _run(service, collection, "s1", "job-dead-1")  # the worker runs the re-sent task
    assert out["status"] == "done" and out["added"] == 1
    job = service.job(job_id="job-dead-1", collection=collection)
    assert job["state"] == "done" and len(job["memory_ids"]) == 1
    assert job["extraction"]["calls"] == 1  # the tokens the run spent
    assert store.session_state.pending("s1") == []


def test_a_transient_failure_is_retried_and_noted(llm_env):
    fake, service, collection = llm_env
    store = service.store(collection)
    store.add_messages("s2", [{"id": "m1", "role": "user", "content": "I prefer green tea."}])
    fake.push({"status": 500}, {"reply": reply(("The user prefers green tea.", ["m1"]))})
    out = _run(service, collection, "s2", "job-retry-1")  # eager: the retry runs at once
    assert out["status"] == "done" and out["added"] == 1
    job = service.job(job_id="job-retry-1", collection=collection)
    assert job["state"] == "done"
    assert job["errors"] and "retry_in" in job["errors"][0]
    assert get_settings().extractor == "llm:openai:test-model"
