"""The embedded Redis Stack: lifecycle, durability settings, and refusing a plain Redis."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from houkai.cli import cli
from houkai.db import server as redis_server
from houkai.db.connection import get_client


@pytest.fixture()
def plain_redis(tmp_path: Path):
    """A Valkey server with no modules: what a user gets from a stock Redis/Valkey."""
    binary, _, _ = redis_server._binary_paths()
    port = redis_server.free_port()
    proc = subprocess.Popen(
        [
            str(binary),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 15
    while not redis_server._ping(url) and time.monotonic() < deadline:
        time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(10)


def test_plain_redis_is_refused_with_one_clear_sentence(plain_redis: str) -> None:
    with pytest.raises(redis_server.RedisServerError) as err:
        get_client(plain_redis)
    assert "needs Redis Stack or Redis 8 with the query engine" in str(err.value)


def test_cli_reports_a_plain_redis_as_one_error_line(plain_redis: str) -> None:
    result = CliRunner().invoke(cli, ["--redis-url", plain_redis, "list"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert "query engine" in lines[0] and "Traceback" not in result.output


def test_embedded_server_lifecycle_and_durability(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = redis_server.free_port()
    info = redis_server.start(data_dir, port)
    try:
        assert info.port == port and redis_server.status(data_dir) == info
        assert redis_server.start(data_dir, port).pid == info.pid  # reused, not restarted
        client = redis.Redis.from_url(info.url, decode_responses=True)
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        modules = {m["name"] for m in client.module_list()}
        assert {"search", "ReJSON"} <= modules
        client.set("survives", "restart")
        client.close()
    finally:
        assert redis_server.stop(data_dir) is True
    assert redis_server.status(data_dir) is None and redis_server.stop(data_dir) is False
    info = redis_server.start(data_dir, port)  # the AOF brings the data back
    try:
        assert redis.Redis.from_url(info.url).get("survives") == b"restart"
    finally:
        redis_server.stop(data_dir)


def test_resolve_url_prefers_an_explicit_url() -> None:
    assert redis_server.resolve_url("redis://example:6379/0") == "redis://example:6379/0"
