"""Extraction on real Celery workers (issue 30): the debounced trigger, and a worker
SIGKILLed in the middle of an extraction loses no message and makes no duplicate."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
from test_workers import FAST_HNSW, Procs, _env, _wait_alive

from houkai.pipeline import jobs as J

WORDS = (
    ("red", "blue", "green", "amber", "violet", "silver"),
    ("lamp", "kettle", "bicycle", "guitar", "telescope"),
    ("attic", "garage", "kitchen", "cellar", "studio", "garden"),
)


def facts(n: int) -> list[str]:
    adj, noun, room = WORDS
    out = []
    for i in range(n):
        a, b, c = adj[i % 6], noun[(i // 6) % 5], room[(i // 30) % 6]
        out.append(f"I keep a {a} {b} number {i} in my {c}.")
    return out


@pytest.fixture()
def procs(tmp_path) -> Iterator[Procs]:
    p = Procs(tmp_path)
    yield p
    p.close()


def _setup(settings, suffix: str, delay: float):
    from houkai import MemoryStore
    from houkai.db.connection import get_client
    from houkai.engines.embeddings import HashEmbedder

    prefix = settings.key_prefix + suffix
    extra = {"extract_after_messages": "5", "extract_after_idle": "2s", **FAST_HNSW}
    embedder = f"hash:384:delay={delay}" if delay else "hash:384"
    own = settings.replace(
        key_prefix=prefix,
        embedder=embedder,
        pipeline_mode="celery",
        extract_after_messages=5,
        extract_after_idle="2s",
        **FAST_HNSW,
    )
    env = _env(own, prefix, embedder, **extra)
    store = MemoryStore(collection="chats", settings=own, embedder=HashEmbedder(384))
    return store, env, get_client(settings.redis_url), prefix


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_debounced_extraction_runs_on_a_worker(procs, settings):
    store, env, client, prefix = _setup(settings, "-sd", 0.0)
    try:
        worker = procs.start(env, "worker", "-c", "1")
        _wait_alive(client, prefix, worker)
        one = store.add_messages("d", [{"id": "1", "role": "user", "content": facts(1)[0]}])
        assert one["pending"] == 1 and one["extraction_queued"] is False  # below K: debounced
        two = store.add_messages("d", [{"id": "2", "role": "user", "content": facts(2)[1]}])
        assert two["pending"] == 2
        assert store.count() == 0  # the request ran no extractor
        try:
            _wait(lambda: store.session("d").pending == 0, 60, "the debounced extraction")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{procs.logs(worker)}") from None
        memories = store.list_recent(session_id="d")
        assert sorted(m.message_ids[0] for m in memories) == ["1", "2"]
        assert {m.source for m in memories} == {"session:d"}
    finally:
        store.drop()


def test_sigkilled_worker_mid_extraction_loses_no_message(procs, settings):
    n = 24
    store, env, client, prefix = _setup(settings, "-sk", 0.25)
    try:
        first = procs.start(env, "worker", "-c", "1")
        _wait_alive(client, prefix, first)
        messages = [{"id": f"m{i}", "role": "user", "content": t} for i, t in enumerate(facts(n))]
        added = store.add_messages("k", messages, user_id="kim")
        assert added["added"] == n and added["extraction_queued"] is True
        _wait(lambda: store.count() >= 3, 120, "the extraction to start writing")
        procs.kill(first, signal.SIGKILL)
        client.zrem(J.workers_key(prefix), *client.zrange(J.workers_key(prefix), 0, -1))
        written = store.count()
        assert 0 < written < n, "the worker was not killed mid-extraction"
        assert store.session("k", memories=False).pending == n  # nothing committed, all kept
        assert len(store.session_state.messages("k")) == n

        time.sleep(2.5)  # past the broker visibility timeout: the unacked task returns
        second = procs.start(env, "worker", "-c", "1")
        _wait_alive(client, prefix, second)
        try:
            _wait(lambda: store.session("k").pending == 0, 180, "the restarted extraction")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{procs.logs(second)}") from None
        memories = store.list_recent(limit=100, user_id="kim")
        assert len(memories) == n == store.count()  # every message, and none twice
        assert sorted(m.message_ids[0] for m in memories) == sorted(f"m{i}" for i in range(n))
        became = {m["id"]: m["became"] for m in store.session_state.messages("k")}
        assert all(len(v) == 1 and v[0]["action"] == "ADD" for v in became.values())
        again = store.extract_session("k")  # a re-delivered job: nothing new
        assert again["status"] == "idle" and store.count() == n
    finally:
        store.drop()
