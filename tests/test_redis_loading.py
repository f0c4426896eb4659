"""A server loading its data set is alive (issue 27, item 3): ``start`` (and so
``houkai redis start``, ``houkai up`` and every auto-start) waits for it with progress
however long the load takes, and never kills it."""

from __future__ import annotations

import os
import signal
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _fake_redis import LoadingServer

from houkai import MemoryStore
from houkai.db import server as redis_server
from houkai.domain.config import load_settings
from houkai.engines.embeddings import HashEmbedder


class _Proc:
    """What ``_spawn`` returns: a process that stays alive and records a kill."""

    def __init__(self, pid: int) -> None:
        self.pid, self.killed = pid, False

    def poll(self) -> None:
        return None

    def kill(self) -> None:
        self.killed = True

    def wait(self, timeout: float | None = None) -> int:
        return 0


@pytest.fixture()
def progress() -> Iterator[list]:
    seen: list = []
    redis_server.set_loading_listener(seen.append)
    yield seen
    redis_server.set_loading_listener(None)


def test_a_running_server_that_loads_past_the_timeout_is_waited_for(
    tmp_path: Path, monkeypatch, progress
) -> None:
    fake = LoadingServer(seconds=2.5)
    try:
        redis_server._write_state(tmp_path, fake.port, 4242)
        monkeypatch.setattr(redis_server, "_pid_alive", lambda pid: pid == 4242)
        info = redis_server.start(tmp_path, timeout=0.5)  # the load outlasts it fivefold
        assert info.port == fake.port and info.pid == 4242
        assert progress and progress[-1].waited > 0.5
        assert all(p.pid == 4242 and p.percent is not None for p in progress)
    finally:
        fake.close()


def test_a_server_start_spawned_is_never_killed_while_it_loads(
    tmp_path: Path, monkeypatch, progress
) -> None:
    fake = LoadingServer(seconds=2.5)
    spawned: list[_Proc] = []

    def spawn(path: Path, port: int) -> _Proc:
        proc = _Proc(4343)
        redis_server._write_state(path, port, proc.pid)
        spawned.append(proc)
        return proc

    try:
        monkeypatch.setattr(redis_server, "_spawn", spawn)
        monkeypatch.setattr(redis_server, "_choose_port", lambda path, port: fake.port)
        monkeypatch.setattr(redis_server, "_reap", lambda proc: None)
        info = redis_server.start(tmp_path, timeout=0.5)
        assert info.pid == 4343 and len(spawned) == 1
        assert not spawned[0].killed
        assert progress and max(p.percent for p in progress) > 0
    finally:
        fake.close()


def test_a_server_that_never_answers_is_still_given_up_on(tmp_path: Path, monkeypatch) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    spawned: list[_Proc] = []

    def spawn(path: Path, port: int) -> _Proc:
        spawned.append(_Proc(4444))
        redis_server._write_state(path, port, 4444)
        return spawned[-1]

    try:
        monkeypatch.setattr(redis_server, "_spawn", spawn)
        monkeypatch.setattr(
            redis_server, "_choose_port", lambda path, port: silent.getsockname()[1]
        )
        with pytest.raises(redis_server.RedisServerError, match="no answer"):
            redis_server.start(tmp_path, timeout=0.5)
        assert spawned[0].killed  # not loading, not answering: that one is ended
        assert "pid" not in (redis_server._read_state(tmp_path) or {})
    finally:
        silent.close()


N = 12_000


def test_a_real_store_restarts_after_sigkill_with_a_short_timeout(tmp_path: Path, progress) -> None:
    """A real data dir whose RediSearch index takes longer to rebuild than the timeout."""
    data = tmp_path / "data"
    info = redis_server.start(data, redis_server.free_port())
    try:
        s = load_settings({"redis_url": info.url, "data_dir": str(data)}, env={})
        store = MemoryStore(
            collection=f"load-{uuid.uuid4().hex[:6]}", settings=s, embedder=HashEmbedder(384)
        )
        rng = np.random.default_rng(5)
        words = [f"w{i}" for i in range(2000)]
        store.remember_many([" ".join(rng.choice(words, 12)) for _ in range(N)], batch_size=1000)
        store.client.execute_command("BGREWRITEAOF")  # a compact AOF (RDB preamble) to load
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if store.client.info("persistence").get("aof_rewrite_in_progress") == 0:
                break
            time.sleep(0.2)
        time.sleep(1.5)  # appendfsync everysec
        os.kill(info.pid, signal.SIGKILL)
        while redis_server._pid_alive(info.pid):
            time.sleep(0.05)
        again = redis_server.start(data, info.port, timeout=1.0)
        assert redis_server.servers_in(data) == [again.pid], (again, info)
        waited = [round(p.waited, 1) for p in progress]
        assert waited and waited[-1] > 1.0, f"the load was shorter than the timeout: {waited}"
        from houkai.db.connection import reset_clients

        reset_clients()
        fresh = MemoryStore(
            collection=store.collection_name, settings=s, embedder=HashEmbedder(384)
        )
        assert fresh.count() == N
    finally:
        redis_server.stop(data)
        for pid in redis_server.servers_in(data):
            os.kill(pid, signal.SIGKILL)
