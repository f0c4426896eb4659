"""The outbox sweep (workers/recovery.py): only a task in no queue, no unacked set and
no in-flight record, seen missing twice, is sent again, under its own id."""

from __future__ import annotations

import json
import time
import uuid

import pytest
from houkai.workers.recovery import (
    OUTBOX_CONFIRM,
    OUTBOX_GRACE,
    outbox_sweep_due,
    resend_missing,
)

from houkai.pipeline import outbox
from houkai.pipeline.dispatch import EMBED_BATCH
from houkai.pipeline.jobs import track_task


class App:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict, str]] = []

    def send_task(self, name, args=None, kwargs=None, task_id=None, **options):
        self.sent.append((name, kwargs, task_id))


def _message(task_id: str) -> dict:
    return {"body": "", "headers": {"task": EMBED_BATCH, "id": task_id}, "properties": {}}


@pytest.fixture()
def prefix(settings):
    from houkai.db.connection import get_client

    client = get_client(settings.redis_url)
    name = f"outbox-{uuid.uuid4().hex[:6]}"
    yield client, name
    for key in client.scan_iter(f"{name}:*"):
        client.delete(key)


def test_only_vanished_tasks_are_resent_after_two_looks(prefix):
    client, name = prefix
    ns = f"{name}:celery:"
    ids = {k: f"{k}-{uuid.uuid4().hex[:6]}" for k in ("queued", "unacked", "running", "lost")}
    for task_id in ids.values():
        outbox.record(client, name, task_id, EMBED_BATCH, {"prefix": name, "job_id": task_id})
    client.lpush(ns + "embed", json.dumps(_message(ids["queued"])))
    client.hset(ns + "unacked", "tag1", json.dumps([_message(ids["unacked"]), "", "embed"]))
    client.zadd(ns + "unacked_index", {"tag1": time.time()})
    track_task(client, name, "alive:1", ids["running"], EMBED_BATCH, [], {})
    app = App()
    now = time.time()
    assert resend_missing(app, client, name, now=now) == 0  # all too young to judge
    later = now + OUTBOX_GRACE + 1
    assert resend_missing(app, client, name, now=later) == 0  # first look: a suspect
    assert outbox_sweep_due(client, name, found_lost_worker=False)  # suspects prompt a look
    again = later + OUTBOX_CONFIRM
    assert resend_missing(app, client, name, now=again) == 1
    assert app.sent == [(EMBED_BATCH, {"prefix": name, "job_id": ids["lost"]}, ids["lost"])]
    # Re-sent under its own id, its age starts over; the others stay untouched.
    assert set(outbox.overdue(client, name, again - 1)) == {
        ids[k] for k in ("queued", "unacked", "running")
    }
    assert resend_missing(app, client, name, now=again + 1) == 0


def test_a_task_that_reappears_is_no_longer_a_suspect(prefix):
    client, name = prefix
    task_id = "moving"
    outbox.record(client, name, task_id, EMBED_BATCH, {"prefix": name})
    app = App()
    now = time.time() + OUTBOX_GRACE + 1
    resend_missing(app, client, name, now=now)  # between queue and unacked: missing once
    client.lpush(f"{name}:celery:embed", json.dumps(_message(task_id)))  # restored meanwhile
    assert resend_missing(app, client, name, now=now + OUTBOX_CONFIRM) == 0
    assert not outbox.has_suspects(client, name)
    assert app.sent == []


def test_a_task_that_ran_leaves_nothing_to_resend(prefix):
    client, name = prefix
    outbox.record(client, name, "done", EMBED_BATCH, {"prefix": name})
    outbox.settle(client, name, "done")
    app = App()
    now = time.time() + 60
    resend_missing(app, client, name, now=now)
    assert resend_missing(app, client, name, now=now + OUTBOX_CONFIRM) == 0
    assert outbox.size(client, name) == 0 and app.sent == []


def test_one_sweeper_at_a_time(prefix):
    client, name = prefix
    client.set(f"{outbox.outbox_key(name)}:sweeping", "1", ex=60)
    outbox.record(client, name, "x", EMBED_BATCH, {})
    assert resend_missing(App(), client, name, now=time.time() + 600) == 0
    assert not outbox.has_suspects(client, name)  # the lock holder judges, not us
