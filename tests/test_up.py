"""``houkai up`` as a real subprocess: the whole stack on the embedded default, then Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from _childenv import child_env

from houkai.db import server as redis_server

HOUKAI = str(Path(sys.executable).with_name("houkai"))


def _call(url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, json.loads(response.read())


def test_up_starts_every_role_and_ctrl_c_stops_them(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = redis_server.free_port()
    env = child_env(
        HOUKAI_DATA_DIR=str(data_dir),
        HOUKAI_REDIS_PORT=str(redis_server.free_port()),
        HOUKAI_HTTP_PORT=str(port),
        HOUKAI_KEY_PREFIX="up-test",
        HF_HUB_OFFLINE="1",
    )
    log = (tmp_path / "up.log").open("w+")
    proc = subprocess.Popen(
        [HOUKAI, "up"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, Path(log.name).read_text()[-3000:]
            try:
                if _call(base + "/health")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the API never answered"
            time.sleep(1)
        status, stored = _call(
            base + "/memories?wait=true", {"text": "The staging database listens on port 5433"}
        )
        assert status == 201 and stored["state"] == "ready"
        status, found = _call(base + "/recall?query=which%20port%20does%20staging%20use&k=1")
        assert found["results"][0]["id"] == stored["id"]
        output = Path(log.name).read_text()
        for role in ("redis", "worker", "beat", "api"):
            assert f"\n{role}" in "\n" + output, output[-2000:]
        # the dashboard's address, and the truth about its login: no token is configured
        assert f"ui      {base}/ui (the web dashboard; open, no token" in output, output[-2000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=90)
        log.close()
    assert redis_server.status(data_dir) is None  # Ctrl-C stopped the embedded server too
    leftovers = subprocess.run(["pgrep", "-f", str(data_dir)], capture_output=True, text=True)
    assert leftovers.stdout.strip() == ""


def test_the_dashboard_banner_asks_for_a_token_only_when_one_is_configured() -> None:
    from houkai.cli.commands.pipeline_cmds import dashboard_banner

    url = "http://127.0.0.1:8765/ui"
    assert "open, no token" in dashboard_banner(url, "")
    assert "log in with one of the http_tokens" in dashboard_banner(url, "s3cret:proj-a:ro")
    assert "s3cret" not in dashboard_banner(url, "s3cret")
