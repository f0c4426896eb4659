"""``houkai maintenance run|start|stop``: the seed's §17 loop and daemon, without Celery.

``run`` ticks every collection every ``maintenance_tick_interval`` until SIGINT or
SIGTERM; ``start`` runs that loop detached with a PID file and a log under the
data directory; ``stop`` ends it. Ticks share the per-collection lock and run
records with Celery beat, so the two never double-run a job.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import click

from .. import Context, pass_ctx


def _pid_file(ctx: Context) -> Path:
    return Path(ctx.settings.data_dir).expanduser() / "maintenance.pid"


def _running_pid(path: Path) -> int | None:
    try:
        pid = int(path.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


@click.command("run")
@click.option("--interval", help="Seconds or a span like 5m (default: maintenance_tick_interval).")
@click.option("--once", is_flag=True, help="Tick once and exit (like `maintenance tick`).")
@pass_ctx
def maintenance_run(ctx: Context, interval: str | None, once: bool) -> None:
    """Tick every collection on a schedule in the foreground until Ctrl-C."""
    from ...domain.config import parse_duration

    every = parse_duration(interval or ctx.settings.maintenance_tick_interval)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.is_set():
        results = ctx.service.maintenance_tick_all()
        for name, result in results.items():
            click.echo(f"{time.strftime('%H:%M:%S')} {name}: {result.get('summary', result)}")
        if once:
            return
        stop.wait(max(1.0, every))


@click.command("start")
@pass_ctx
def maintenance_start(ctx: Context) -> None:
    """Run the maintenance loop detached (PID file and log in the data directory)."""
    path = _pid_file(ctx)
    pid = _running_pid(path)
    if pid:
        click.echo(f"maintenance already running (pid {pid})")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    log_path = path.with_suffix(".log")
    with open(log_path, "ab") as log, open(os.devnull, "rb") as devnull:
        proc = subprocess.Popen(
            [sys.executable, "-m", "houkai.cli", "maintenance", "run"],
            stdin=devnull,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={
                **os.environ,
                "HOUKAI_DATA_DIR": str(ctx.settings.data_dir),
                "HOUKAI_REDIS_URL": ctx.settings.redis_url,
            },
        )
    path.write_text(str(proc.pid))
    click.echo(f"maintenance started (pid {proc.pid}, log {log_path})")


@click.command("stop")
@pass_ctx
def maintenance_stop(ctx: Context) -> None:
    """Stop the detached maintenance loop."""
    path = _pid_file(ctx)
    pid = _running_pid(path)
    if pid is None:
        path.unlink(missing_ok=True)
        click.echo("maintenance is not running")
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while _running_pid(path) and time.monotonic() < deadline:
        time.sleep(0.2)
    path.unlink(missing_ok=True)
    click.echo(f"maintenance stopped (pid {pid})")


def register(cli: click.Group) -> None:
    group = cli.commands.get("maintenance")
    if not isinstance(group, click.Group):
        group = click.Group("maintenance", help="Scheduled maintenance.")
        cli.add_command(group)
    for command in (maintenance_run, maintenance_start, maintenance_stop):
        group.add_command(command)
