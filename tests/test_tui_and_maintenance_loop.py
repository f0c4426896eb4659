"""``houkai tui`` (driven with Textual's pilot) and ``houkai maintenance run|start|stop``."""

from __future__ import annotations

import asyncio
import os
import time

from click.testing import CliRunner

from houkai.cli import cli
from houkai.cli.tui import HoukaiTui


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
