"""Code that sends no search command, on fakeredis (Lua through lupa): journal,
the jobs' settle/reset scripts, in-flight task bookkeeping. Milliseconds each;
everything that searches stays on the real Redis Stack."""

from __future__ import annotations

import time

import fakeredis
import pytest

from houkai.db.journal import Journal, JournalEntry
from houkai.db.keys import Keys
from houkai.pipeline import jobs as J

pytest.importorskip("lupa")  # fakeredis runs Lua through lupa

PREFIX = "fk"


@pytest.fixture
def client():
    # A server of its own: FakeRedis() instances with default arguments share one.
    return fakeredis.FakeRedis(server=fakeredis.FakeServer())


def _entry(i: int) -> JournalEntry:
    return JournalEntry(
        ts=time.time(), op="remember", actor="t", id=f"m{i}", after={"text": str(i)}
    )


def test_journal_appends_tails_and_archives(client, tmp_path):
    journal = Journal(client, f"{PREFIX}:journal:c", maxlen=3, archive_dir=tmp_path)
    sids = [journal.append(_entry(i)) for i in range(7)]
    assert all(sids) and len(journal) == 7
    assert [e.id for e in journal.tail(2)] == ["m6", "m5"]
    assert journal.archive(keep=3) == 4
    assert len(journal) == 3 and journal.archives()
    assert [e.id for e in journal.read()] == [f"m{i}" for i in range(7)]  # archives, then live
    assert journal.find(sids[0]).id == "m0"  # an archived entry is still found by stream id


def _pending(client, keys: Keys, memory_id: str, chash: str = "h") -> None:
    client.hset(keys.memory(memory_id), mapping={"state": "pending", "chash": chash, "text": "x"})
    client.hset(keys.inflight, memory_id, J.inflight_entry("job1", 0))


def _settle(store: J.JobStore, keys: Keys, memory_id: str, pos: int, action: str, **kw):
    pipe = store.client.pipeline(transaction=False)
    store.settle(pipe, keys, memory_id, "job1", pos, action, kw.pop("chash", "h"), **kw)
    return pipe.execute()[0]


def test_settle_counts_each_position_once(client):
    keys, store = Keys(PREFIX, "c"), J.JobStore(client, PREFIX, "c")
    store.create("c", "remember", 2, "ignore", "job1")
    _pending(client, keys, "a")
    _pending(client, keys, "b")
    assert _settle(store, keys, "a", 0, "ready", payload=b"vec") == b"done"
    assert _settle(store, keys, "a", 0, "ready", payload=b"vec") == b"done"  # redelivered
    err = {"id": "b", "error": "boom"}
    assert _settle(store, keys, "b", 1, "failed", payload="boom", error_entry=err) == b"failed"
    status = store.status("job1")
    assert (status.done, status.failed, status.total) == (1, 1, 2)
    assert status.settled and status.errors == [err]
    assert client.hget(keys.memory("a"), "state") == b"ready"
    assert not client.hexists(keys.inflight, "a")  # settled: no longer in flight
    assert client.hexists(keys.inflight, "b")  # failed: kept for a retry


def test_settle_ignores_a_stale_text_and_reset_uncounts_a_failure(client):
    keys, store = Keys(PREFIX, "c"), J.JobStore(client, PREFIX, "c")
    store.create("c", "remember", 1, "ignore", "job1")
    _pending(client, keys, "a", chash="new")
    assert _settle(store, keys, "a", 0, "ready", chash="old", payload=b"v") == b"stale"
    assert client.hget(keys.memory("a"), "state") == b"pending"
    assert _settle(store, keys, "a", 0, "failed", chash="new", payload="e") == b"failed"
    assert store.status("job1").failed == 1
    pipe = client.pipeline(transaction=False)
    store.reset(pipe, keys, "a", "job1", 0)
    assert pipe.execute() == [1]
    assert store.status("job1").failed == 0
    assert client.hget(keys.memory("a"), "state") == b"pending"


def test_a_lost_workers_tasks_are_claimed_once(client):
    J.heartbeat(client, PREFIX, "alive")
    J.track_task(client, PREFIX, "alive", "t1", "houkai.embed_batch", [1], {})
    J.track_task(client, PREFIX, "gone", "t2", "houkai.embed_batch", [2], {"k": 1})
    assert J.workers_alive(client, PREFIX) == 1
    assert J.lost_workers(client, PREFIX) == ["gone"]
    assert J.live_task_ids(client, PREFIX) == {"t1", "t2"}
    claimed = J.claim_lost_tasks(client, PREFIX, "gone")
    assert [(t["id"], t["args"], t["kwargs"]) for t in claimed] == [("t2", [2], {"k": 1})]
    assert J.claim_lost_tasks(client, PREFIX, "gone") == []  # a second sweeper gets nothing
    assert J.claim_lost_tasks(client, PREFIX, "alive") == []  # a beating worker is left alone
    J.restore_claimed(client, PREFIX, "gone", claimed)
    assert [t["id"] for t in J.running_tasks(client, PREFIX, "gone")] == ["t2"]
    J.untrack_task(client, PREFIX, "alive", "t1")
    assert J.live_task_ids(client, PREFIX) == {"t2"}
