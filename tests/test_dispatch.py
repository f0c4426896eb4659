"""Celery wiring: task names in one place, tasks at module level, no import loop."""

from __future__ import annotations

import subprocess
import sys

from houkai.pipeline import outbox
from houkai.pipeline.dispatch import EMBED_BATCH, MAINTENANCE_TICK, QUEUES, TASK_QUEUES
from houkai.pipeline.write import Pipeline


def test_pipeline_sends_through_the_enqueue_it_is_given(store):
    sent: list[tuple[str, dict, str]] = []
    pipeline = Pipeline(
        store, mode="celery", enqueue=lambda name, kw, task_id: sent.append((name, kw, task_id))
    )
    job = pipeline.submit(["a memory that a worker will embed"])
    assert [name for name, _, _ in sent] == [EMBED_BATCH]
    _, kwargs, task_id = sent[0]
    assert kwargs["job_id"] == job.id and kwargs["ids"] == job.memory_ids
    assert kwargs["collection"] == store.collection_name
    assert store.get(job.memory_ids[0]).state == "pending"  # nothing embedded here
    # Written to the outbox under the id it was sent with, before it was sent.
    assert outbox.task(store.client, store.keys.prefix, task_id) == (EMBED_BATCH, kwargs)
    outbox.settle(store.client, store.keys.prefix, task_id)


def test_a_refused_enqueue_embeds_inline(store):
    before = outbox.size(store.client, store.keys.prefix)

    def refuse(name: str, kwargs: dict, task_id: str) -> None:
        raise ConnectionError("broker down")

    job = Pipeline(store, mode="celery", enqueue=refuse).submit(["embedded despite the broker"])
    assert store.get(job.memory_ids[0]).state == "ready"
    assert outbox.size(store.client, store.keys.prefix) == before  # nothing left to re-send


def test_worker_app_imports_neither_tasks_nor_pipeline():
    code = (
        "import sys, houkai.workers.app as a; "
        "print(sorted(m for m in sys.modules if m in "
        "('houkai.workers.tasks', 'houkai.pipeline.write', 'houkai.store')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_task_is_registered_and_routed(settings):
    import houkai.workers.tasks  # noqa: F401 - what the worker's ``include`` does
    from houkai.workers.app import TASK_ROUTES, create_app

    app = create_app(settings)
    app.finalize()
    assert {EMBED_BATCH, MAINTENANCE_TICK} <= set(app.tasks)
    assert {name: r["queue"] for name, r in TASK_ROUTES.items()} == TASK_QUEUES
    assert set(TASK_QUEUES.values()) == set(QUEUES)
    assert app.conf.include == ["houkai.workers.tasks"]
