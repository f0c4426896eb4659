"""With its Redis down, the REST API answers promptly and honestly, and recovers.

A private embedded server (not the session's) is crashed with SIGKILL under a
live API: ``/health`` and recall answer 503 naming the configured server, within
seconds, without starting a server of their own; after a restart on the same
port the same API process answers 200 again.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from houkai.api.rest import create_app

from houkai.app.service import MemoryService
from houkai.db import server as redis_server

servers_on = redis_server.servers_in


@pytest.fixture()
def private(tmp_path: Path, settings):
    data_dir = tmp_path / "data"
    s = settings.replace(
        redis_url="",
        data_dir=str(data_dir),
        redis_port=redis_server.free_port(),
        collection=f"down-{uuid.uuid4().hex[:6]}",
        pipeline_mode="inline",
    )
    yield s
    redis_server.stop(data_dir)
    for pid in servers_on(data_dir):
        os.kill(pid, signal.SIGKILL)


def _crash(data_dir: str) -> None:
    info = redis_server.status(data_dir)
    assert info is not None
    os.kill(info.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while redis_server._pid_alive(info.pid) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_redis_down_gives_prompt_503s_and_the_api_recovers(private) -> None:
    from houkai import MemoryStore
    from houkai.engines.embeddings import HashEmbedder

    store = MemoryStore(
        collection=private.collection, settings=private, embedder=HashEmbedder(384), actor="http"
    )
    service = MemoryService(private, actor="http")
    service._stores[private.collection] = store
    client = create_app(private, service, tokens="").test_client()
    assert (
        client.post("/memories", json={"text": "kept across the crash", "wait": True}).status_code
        == 201
    )
    url = redis_server.status(private.data_dir).url
    time.sleep(1.2)  # appendfsync everysec: the acknowledged write reaches the AOF
    _crash(private.data_dir)

    started = time.monotonic()
    health = client.get("/health")
    health_s = time.monotonic() - started
    assert health.status_code == 503 and health_s < 3, (health.status_code, health_s)
    assert url.split("//")[1].split("/")[0] in health.get_json()["error"]  # names the server
    started = time.monotonic()
    recall = client.post("/recall", json={"query": "crash"})
    recall_s = time.monotonic() - started
    assert recall.status_code == 503, recall.get_json()
    assert "Redis unavailable" in recall.get_json()["error"] and recall_s < 10
    assert servers_on(Path(private.data_dir)) == []  # nobody started a server of its own
    print(f"\nRedis down: /health 503 in {health_s:.2f}s, recall 503 in {recall_s:.2f}s")

    assert redis_server.start(private.data_dir).url == url  # same port, same URL
    assert client.get("/health").get_json() == {"status": "ok", "count": 1}
    found = client.post("/recall", json={"query": "kept across the crash"}).get_json()
    assert [m["text"] for m in found["results"]][:1] == ["kept across the crash"]
    assert len(servers_on(Path(private.data_dir))) == 1


def test_health_never_starts_a_server(tmp_path: Path, settings) -> None:
    s = settings.replace(redis_url="", data_dir=str(tmp_path / "never"))
    client = create_app(s, MemoryService(s, actor="http"), tokens="").test_client()
    r = client.get("/health")
    assert r.status_code == 503 and "houkai redis start" in r.get_json()["error"]
    assert not (tmp_path / "never").exists()


def test_mcp_and_cli_name_redis_down_as_unavailable() -> None:
    import redis
    from houkai.api.mcp_server import error_message

    from houkai.app.errors import classify
    from houkai.cli import error_message as cli_message

    exc = redis.ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")
    assert classify(exc) == (503, f"Redis unavailable: {exc}")
    assert error_message(exc).startswith("Redis unavailable: Error 111")
    assert "Redis unavailable" in cli_message(exc)
    loading = redis.exceptions.BusyLoadingError("Valkey is loading the dataset in memory")
    assert classify(loading)[0] == 503


def test_beat_waits_with_backoff_instead_of_dying(monkeypatch, caplog) -> None:
    """A tick that cannot reach Redis returns a growing delay (and logs), never raises."""
    import redis
    from houkai.workers.beat import ResilientScheduler
    from redbeat import RedBeatScheduler

    scheduler = ResilientScheduler.__new__(ResilientScheduler)
    scheduler.lock_key = None
    scheduler.max_interval = 60
    calls = {"n": 0}

    def tick(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] <= 3:
            raise redis.ConnectionError("Connection refused")
        return 5.0

    monkeypatch.setattr(RedBeatScheduler, "tick", tick)
    with caplog.at_level("WARNING", logger="houkai.workers.beat"):
        delays = [scheduler.tick() for _ in range(4)]
    assert delays == [1.0, 2.0, 4.0, 5.0]
    assert "Redis unavailable" in caplog.text and "reachable again" in caplog.text
