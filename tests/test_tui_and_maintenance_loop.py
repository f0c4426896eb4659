"""``houkai tui`` (driven with Textual's pilot) and ``houkai maintenance run|start|stop``."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _childenv import child_env
from click.testing import CliRunner

from houkai.cli import cli
from houkai.cli.tui import HoukaiTui

HOUKAI = str(Path(sys.executable).parent / "houkai")


def test_tui_lists_searches_and_shows_details(store) -> None:
    deploy = store.remember(
        "We deploy the API with blue-green releases on Fridays", tags=["deploy"]
    )
    store.remember("The user prefers concise answers", type="feedback")

    async def drive() -> tuple[int, int, str, str]:
        app = HoukaiTui(store)
        async with app.run_test() as pilot:
            table = app.query_one("#results")
            newest = table.row_count
            await pilot.click("#query")
            await pilot.press(*"blue green deploy", "enter")
            await pilot.pause()
            return newest, table.row_count, app.shown[0].id, str(app.query_one("#detail").render())

    newest, found, first, detail = asyncio.run(drive())
    assert newest == 2 and found >= 1 and first == deploy.id
    assert "blue-green" in detail and deploy.id in detail
    assert store.get(deploy.id).access_count == 0  # browsing is read-only


@pytest.mark.parametrize("terminal", ["none", "stdin"])
def test_tui_without_a_terminal_refuses_in_one_line(settings, tmp_path, terminal) -> None:
    """Textual with no terminal spun forever; now it is one ``Error:`` line and exit 1
    (stdout piped here in both cases; with ``stdin`` a real pty is its input)."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [HOUKAI, "tui"],
            stdin=follower if terminal == "stdin" else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            env=child_env(
                REDIS_URL=settings.redis_url,
                HOUKAI_KEY_PREFIX=settings.key_prefix,
                HOUKAI_DATA_DIR=str(tmp_path),
            ),
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    stream = "stdout" if terminal == "stdin" else "stdin"
    assert lines == [lines[0]] and lines[0].startswith("Error: houkai tui needs a terminal")
    assert f"{stream} is not one" in lines[0]
    assert done.stdout == ""


def test_maintenance_run_once_ticks_every_collection(store, settings) -> None:
    store.remember("a note that expires", ttl_seconds=0.01)
    time.sleep(0.05)
    result = CliRunner().invoke(
        cli,
        ["--redis-url", settings.redis_url, "maintenance", "run", "--once"],
        env={"HOUKAI_KEY_PREFIX": settings.key_prefix},
    )
    assert result.exit_code == 0, result.output
    assert f"{store.collection_name}:" in result.output and "purge removed 1" in result.output


def test_maintenance_start_and_stop_a_detached_loop(settings, tmp_path) -> None:
    env = {
        "HOUKAI_KEY_PREFIX": settings.key_prefix,
        "HOUKAI_DATA_DIR": str(tmp_path),
        "HOUKAI_MAINTENANCE_TICK_INTERVAL": "1s",
    }
    runner = CliRunner()
    started = runner.invoke(
        cli, ["--redis-url", settings.redis_url, "maintenance", "start"], env=env
    )
    assert started.exit_code == 0 and "maintenance started" in started.output
    pid = int((tmp_path / "maintenance.pid").read_text())
    os.kill(pid, 0)  # alive
    stopped = runner.invoke(
        cli, ["--redis-url", settings.redis_url, "maintenance", "stop"], env=env
    )
    assert stopped.exit_code == 0 and f"stopped (pid {pid})" in stopped.output
    assert not (tmp_path / "maintenance.pid").exists()
    again = runner.invoke(cli, ["--redis-url", settings.redis_url, "maintenance", "stop"], env=env)
    assert "not running" in again.output
