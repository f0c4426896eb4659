"""The audit journal: archival without loss, best-effort appends, actor attribution."""

from __future__ import annotations

import gzip
import json
import time

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from houkai.db.journal import Journal, JournalEntry, parse_stream_id


def _fill(store, n: int) -> list:
    return store.remember_many([f"journal filler memory number {i}" for i in range(n)])


def _sids(entries) -> list[tuple[int, int]]:
    return [parse_stream_id(e.stream_id) for e in entries]


def test_archive_keeps_every_entry_readable(store, tmp_path):
    memories = _fill(store, 30)
    journal = store.journal
    assert len(journal) == 30
    archived = journal.archive(tmp_path, keep=10)
    assert archived == 20
    assert len(journal) == 10  # trimmed from Redis ...
    files = journal.archives(tmp_path)
    assert len(files) == 1 and files[0].name.startswith(store.collection_name + "~")
    everything = list(journal.read())
    assert [e.id for e in everything] == [m.id for m in memories]  # ... but never lost
    assert _sids(everything) == sorted(_sids(everything))
    # the archive holds the seed's line format, one entry per line
    with gzip.open(files[0], "rt", encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    assert len(lines) == 20
    assert {"ts", "op", "actor", "id", "before", "after", "meta"} <= set(lines[0])
    assert lines[0]["op"] == "remember" and lines[0]["after"]["text"] == memories[0].text

    # a second round appends a second file; order and completeness still hold
    more = _fill(store, 15)
    assert journal.archive(tmp_path, keep=5) == 20
    assert len(journal.archives(tmp_path)) == 2
    ids = [e.id for e in journal.read()]
    assert ids == [m.id for m in memories + more]
    assert [e.id for e in journal.read(include_archives=False)] == [m.id for m in more[-5:]]
    # nothing beyond keep → nothing to do
    assert journal.archive(tmp_path, keep=5) == 0


def test_history_and_undo_reach_archived_entries(store):
    first = store.remember("an early memory that will be archived")
    _fill(store, 12)
    store.settings = store.settings.replace(journal_maxlen=5)
    assert store.archive_journal() == 8
    assert len(store.journal) == 5
    hist = store.history(first.id)
    assert [e.op for e in hist] == ["remember"]
    # undo by stream id finds the archived entry
    assert store.undo(hist[0].stream_id) is True
    assert store.get(first.id) is None


def test_interrupted_trim_yields_entries_once_and_recovers(store, tmp_path, monkeypatch):
    _fill(store, 12)
    journal = store.journal
    real_xtrim = journal.client.xtrim

    def broken_xtrim(*a, **k):
        raise redis.ConnectionError("connection lost during trim")

    monkeypatch.setattr(journal.client, "xtrim", broken_xtrim)
    with pytest.raises(redis.ConnectionError):
        journal.archive(tmp_path, keep=4)
    assert len(journal) == 12  # archive file written, stream untouched
    entries = list(journal.read())
    assert len(entries) == 12 and len({e.stream_id for e in entries}) == 12
    monkeypatch.setattr(journal.client, "xtrim", real_xtrim)
    # the next run finishes the trim instead of archiving the same range twice
    assert journal.archive(tmp_path, keep=4) == 0
    assert len(journal) == 4
    assert len(list(journal.read())) == 12


def test_journal_caps_itself_while_appending(store):
    store.journal.maxlen = 10
    _fill(store, 20)
    store.core._appends_since_archive_check = 10_000  # force the periodic check now
    store.remember("the append that triggers archival")
    assert len(store.journal) == 10
    assert len(list(store.journal.read())) == 21
    assert store.journal.archives()


def test_append_is_best_effort_when_redis_fails(store):
    dead = redis.Redis(
        host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )
    entry = JournalEntry(ts=time.time(), op="remember", actor="lib", id="x")
    assert Journal(dead, "nowhere:journal:x").append(entry) is None
    live = store.journal.client
    store.journal.client = dead
    try:
        memory = store.remember("the memory write wins over a broken journal")
    finally:
        store.journal.client = live
    assert store.get(memory.id) is not None
    assert store.history(memory.id) == []  # the entry was lost, the memory was not


def test_actor_attribution(store):
    a = store.remember("written by the library")
    with store.as_actor("cli"):
        b = store.remember("written from the command line")
    c = store.remember("library again")
    actors = {e.id: e.actor for e in store.journal_tail(10, op="remember")}
    assert actors == {a.id: "lib", b.id: "cli", c.id: "lib"}


def test_tail_filters_and_orders_newest_first(store):
    m = store.remember("tail one")
    store.edit(m.id, text="tail one, edited")
    store.remember("tail two")
    tail = store.journal_tail(2)
    assert [e.op for e in tail] == ["remember", "edit"]
    assert [e.op for e in store.journal_tail(5, op="edit")] == ["edit"]
    assert len(store.journal_tail(5, since_seconds=3600)) == 3
    assert store.journal_tail(0) == []
    with pytest.raises(ValueError):
        store.journal_tail(-1)
    assert "edited" in tail[1].summary()


def test_pipeline_bulk_writes_take_the_journal_archive_check(store):
    """A bulk submit journals through ``journal_append``: the stream stays capped."""
    from houkai.pipeline.write import Pipeline

    store.journal.maxlen = 10
    _fill(store, 20)
    store.core._appends_since_archive_check = 10_000  # the next append runs the check
    job = Pipeline(store, mode="inline").submit([f"bulk memory {i}" for i in range(5)])
    assert len(job.memory_ids) == 5
    assert store.journal.archives()
    assert len(store.journal) <= 15  # archived down to maxlen, then this batch's entries
    assert sum(e.op == "remember" for e in store.journal.read()) == 25


def test_an_actor_is_the_callers_alone(store):
    """``as_actor`` signs the writes of its own thread: an import running in one request of
    a threaded server does not sign a remember that another request makes meanwhile."""
    import threading

    inside, outside = threading.Event(), threading.Event()

    def importer():
        with store.as_actor("import"):
            inside.set()
            outside.wait(10)
            store.remember("written by the import")

    worker = threading.Thread(target=importer)
    worker.start()
    inside.wait(10)
    store.remember("written beside it")
    outside.set()
    worker.join()
    signed = {e.after["text"]: e.actor for e in store.journal_tail(2)}
    assert signed == {"written by the import": "import", "written beside it": store.actor}
    assert store.actor != "import"
