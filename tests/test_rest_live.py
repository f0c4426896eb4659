"""A real ``houkai serve`` subprocess on a free port: a few calls over real HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

TOKEN = "live-test-token"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(
    base: str,
    method: str,
    path: str,
    body=None,
    token: str | None = TOKEN,
    raw: bytes | None = None,
):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            payload = resp.read()
            return resp.status, (json.loads(payload) if payload else None)
    except urllib.error.HTTPError as err:
        payload = err.read()
        return err.code, (json.loads(payload) if payload else None)


@pytest.fixture(scope="module")
def server(settings, tmp_path_factory):
    port = _free_port()
    collection = f"live-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ)
    env.update(
        {
            "REDIS_URL": settings.redis_url,
            "HOUKAI_KEY_PREFIX": settings.key_prefix,
            "HOUKAI_COLLECTION": collection,
            "HOUKAI_DATA_DIR": settings.data_dir,
            "HOUKAI_PIPELINE_MODE": "inline",
            "HOUKAI_CONFIG": str(tmp_path_factory.mktemp("cfg") / "none.toml"),
        }
    )
    log = tmp_path_factory.mktemp("live") / "serve.log"
    exe = Path(sys.executable).parent / "houkai"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(exe), "serve", "--host", "127.0.0.1", "--port", str(port), "--token", TOKEN],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"houkai serve exited: {log.read_text()[-2000:]}")
            try:
                if _request(base, "GET", "/health", token=None)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"houkai serve did not come up: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base, collection
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        from houkai import MemoryStore

        MemoryStore(collection=collection, settings=settings).drop()


def test_live_round_trip(server):
    base, collection = server
    assert _request(base, "GET", "/memories", token=None)[0] == 401
    assert _request(base, "GET", "/memories", token="wrong")[0] == 401
    status, body = _request(
        base, "POST", "/memories", {"text": "The live server stores memories", "wait": True}
    )
    assert status == 201 and body["collection"] == collection
    status, body = _request(base, "GET", "/recall?query=live+server&k=1")
    assert status == 200 and body["results"][0]["text"] == "The live server stores memories"
    status, body = _request(base, "GET", f"/memories/{body['results'][0]['id']}")
    assert status == 200
    assert _request(base, "POST", "/memories", raw=b"{broken")[0] == 400
    assert _request(base, "GET", "/nope")[0] == 404
    status, doc = _request(base, "GET", "/openapi.json", token=None)
    assert status == 200 and doc["openapi"].startswith("3.1")


def test_live_server_survives_bad_input(server):
    base, _ = server
    for raw in (b"\x00\xff" * 10, b"[]", b'{"text": {"nested": 1}}', b"9" * 5000):
        status, body = _request(base, "POST", "/memories", raw=raw)
        assert status == 400 and body["error"]
    assert _request(base, "GET", "/health", token=None)[0] == 200
