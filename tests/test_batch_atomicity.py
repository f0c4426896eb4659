"""A refused batch names what it kept, and its retry writes nothing twice (issue 27,
item 6): a ``memories/batch`` of 300 that answered 503 during a Redis kill had stored
256 as pending, and the client's retry stored them again."""

from __future__ import annotations

import uuid

import pytest
import redis
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.pipeline.write import PartlyWritten, Pipeline


def _fail_second_write(monkeypatch, store) -> list[int]:
    """Redis goes away between the first and the second sub-batch of a submission."""
    calls = [0]
    real = type(store).write

    def write(self, memories, vectors=None, pipe=None, **kwargs):
        calls[0] += 1
        if calls[0] == 2:
            raise redis.ConnectionError("Connection refused (injected between sub-batches)")
        return real(self, memories, vectors, pipe, **kwargs)

    monkeypatch.setattr(type(store), "write", write)
    return calls


def test_a_failed_submission_names_what_it_kept_and_a_retry_resumes(store, monkeypatch):
    pipe = Pipeline(store, mode="inline")
    items = [f"batch item {i}" for i in range(300)]
    _fail_second_write(monkeypatch, store)
    with pytest.raises(PartlyWritten) as refused:
        pipe.submit(items, batch_size=256)
    err = refused.value
    assert (err.kept, err.total) == (256, 300)
    assert err.job_id in str(err) and "256 of 300" in str(err) and "without duplicates" in str(err)
    assert store.count() == 256
    monkeypatch.undo()
    job = pipe.submit(items, batch_size=256)  # the client's retry
    assert job.id == err.job_id and len(job.memory_ids) == 300
    assert store.count() == 300  # was 556: the 256 stored twice
    texts = sorted(m.text for m in store.get_many(job.memory_ids).values())
    assert texts == sorted(items)
    again = pipe.submit(items, batch_size=256)  # a finished submission is not a retry
    assert again.id != job.id and store.count() == 600


def test_rest_batch_refused_mid_way_answers_503_naming_the_job_and_retry_stores_once(
    settings, make_store, monkeypatch
):
    name = f"batch-{uuid.uuid4().hex[:8]}"
    s = settings.replace(collection=name, pipeline_mode="inline", ingest_batch_size=256)
    service = MemoryService(s)
    store = service._stores[name] = make_store(name)
    client = create_app(s, service).test_client()
    body = {"items": [f"rest batch item {i}" for i in range(300)], "wait": False}
    _fail_second_write(monkeypatch, store)
    r = client.post("/memories/batch", json=body)
    assert r.status_code == 503, r.get_json()
    error = r.get_json()["error"]
    assert "256 of 300" in error and "job " in error
    monkeypatch.undo()
    r = client.post("/memories/batch", json=body)
    assert r.status_code == 202, r.get_json()
    assert r.get_json()["job_id"] in error and len(r.get_json()["ids"]) == 300
    assert store.count() == 300


def test_nothing_written_is_a_plain_503(store, monkeypatch):
    pipe = Pipeline(store, mode="inline")

    def write(self, *args, **kwargs):
        raise redis.ConnectionError("Connection refused (first sub-batch)")

    monkeypatch.setattr(type(store), "write", write)
    with pytest.raises(redis.ConnectionError):  # nothing kept: nothing to name
        pipe.submit(["a", "b"], batch_size=1)
    assert store.count() == 0
