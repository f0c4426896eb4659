"""One embedded server per data directory, whatever runs at once or crashes.

Concurrent starts, a server that is alive but busy (or still loading its AOF),
a process that loses its server: none of them may start a second server on the
same directory. The port belongs to the data dir (remembered in its runtime file)
unless the config names one.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _childenv import child_env
from _fake_redis import LoadingServer

from houkai.db import server as redis_server

HOUKAI = str(Path(sys.executable).parent / "houkai")


def servers_on(data_dir: Path) -> list[int]:
    return redis_server.servers_in(data_dir)


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    return child_env(
        HOUKAI_CONFIG="/nonexistent/houkai.toml",
        HOUKAI_DATA_DIR=str(data_dir),
        HOUKAI_EMBEDDER="hash:384",
        **extra,
    )


@pytest.fixture()
def data_dir(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data"
    yield path
    redis_server.stop(path)
    for pid in servers_on(path):  # never leave a server behind, even on failure
        os.kill(pid, signal.SIGKILL)


def test_three_concurrent_starts_leave_one_server(data_dir: Path) -> None:
    env = _env(data_dir, HOUKAI_REDIS_PORT=str(redis_server.free_port()))
    procs = [
        subprocess.Popen(
            [HOUKAI, "redis", "start"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    lines = {out.decode().strip() for out, _err in outputs}
    assert len(lines) == 1, lines  # the same URL and pid for all three
    running = servers_on(data_dir)
    info = redis_server.status(data_dir)
    assert info is not None and running == [info.pid]
    print(f"\n3 parallel `houkai redis start` -> {len(running)} server(s): {lines.pop()}")


def test_a_live_but_unresponsive_server_is_never_doubled(data_dir: Path) -> None:
    info = redis_server.start(data_dir, redis_server.free_port())
    os.kill(info.pid, signal.SIGSTOP)  # alive, answers nothing (as if busy or hung)
    try:
        with pytest.raises(redis_server.RedisServerError, match="did not become ready"):
            redis_server.start(data_dir, timeout=1.5)
        assert servers_on(data_dir) == [info.pid]
    finally:
        os.kill(info.pid, signal.SIGCONT)
    assert redis_server.start(data_dir).pid == info.pid


def test_a_loading_server_counts_as_up_and_is_waited_for(tmp_path: Path, monkeypatch) -> None:
    fake = LoadingServer(seconds=2.0)
    try:
        redis_server._write_state(tmp_path, fake.port, 4242)
        monkeypatch.setattr(redis_server, "_pid_alive", lambda pid: pid == 4242)

        def no_second_server(*_args, **_kwargs):
            raise AssertionError("a second server was started while the first was loading")

        monkeypatch.setattr(redis_server, "_spawn", no_second_server)
        assert redis_server.status(tmp_path) is not None  # loading is up
        loaded_at = fake.started + fake.seconds
        assert time.monotonic() < loaded_at  # start is asked while the server loads
        info = redis_server.start(tmp_path)
        assert info.port == fake.port and info.pid == 4242
        # it waited for the load to finish: measured against the fake's own clock, not a
        # fixed span that a busy machine's setup eats into (the check once failed in CI)
        assert time.monotonic() >= loaded_at
    finally:
        fake.close()


def test_the_port_belongs_to_the_data_dir_and_config_wins(data_dir: Path) -> None:
    first = redis_server.start(data_dir)
    assert redis_server.stop(data_dir)
    assert redis_server.remembered_port(data_dir) == first.port
    again = redis_server.start(data_dir)  # no port configured: the remembered one
    assert again.port == first.port
    redis_server.stop(data_dir)
    configured = redis_server.free_port()
    assert redis_server.start(data_dir, configured).port == configured
    redis_server.stop(data_dir)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(redis_server.RedisServerError, match="redis_port"):
            redis_server.start(data_dir, port)
    assert servers_on(data_dir) == []


def test_a_process_that_loses_its_server_never_starts_another(data_dir: Path) -> None:
    import redis

    from houkai.db.connection import get_client

    url = redis_server.resolve_url("", str(data_dir), redis_server.free_port())
    client = get_client(url)
    client.set("kept", "1")
    pid = redis_server.status(data_dir).pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while redis_server._pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert redis_server.resolve_url("", str(data_dir)) == url  # pinned, not restarted
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        client.ping()
    assert time.monotonic() - started < 10  # backoff, then a clear error: no long hang
    assert servers_on(data_dir) == []
    # The user restarts it: same port, same URL; the same client reconnects.
    assert redis_server.start(data_dir).url == url
    assert client.ping()
    redis_server.forget(data_dir)


def test_cli_says_once_that_it_left_a_server_running(data_dir: Path) -> None:
    env = _env(data_dir, HOUKAI_REDIS_PORT=str(redis_server.free_port()))
    first = subprocess.run([HOUKAI, "stats"], env=env, capture_output=True, timeout=120)
    assert first.returncode == 0, first.stderr
    message = first.stderr.decode()
    assert message.count("started the embedded Redis Stack") == 1
    assert "houkai redis stop" in message
    second = subprocess.run([HOUKAI, "stats"], env=env, capture_output=True, timeout=120)
    assert second.returncode == 0 and b"started the embedded" not in second.stderr
    assert len(servers_on(data_dir)) == 1


def test_install_verify_says_it_left_a_server_running(data_dir: Path) -> None:
    import io

    from houkai.installers.common import verify_server

    env = _env(data_dir, HOUKAI_REDIS_PORT=str(redis_server.free_port()))
    out = io.StringIO()
    assert verify_server([HOUKAI, "mcp"], env, stream=out, timeout=120), out.getvalue()
    text = out.getvalue()
    assert "note started the embedded Redis Stack" in text and "houkai redis stop" in text
    assert len(servers_on(data_dir)) == 1
