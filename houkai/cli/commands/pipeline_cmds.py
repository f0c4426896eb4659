"""Pipeline commands: ``worker``, ``beat``, ``up``, ``jobs …``, ``maintenance …``
(``ingest`` is :mod:`.ingest_cmd`)."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from ...pipeline.dispatch import QUEUES
from .. import Context, pass_ctx
from ..output import Column, output_options, print_mapping, print_rows, report, resolve_format
from ._ops import arguments, operation_options

log = logging.getLogger(__name__)


def _fmt(ctx: Context) -> str:
    return resolve_format(ctx.output_format)


def _celery_argv_common(loglevel: str) -> list[str]:
    return ["--loglevel", loglevel]


# --------------------------------------------------------------------------- worker / beat
@click.command("worker")
@click.option(
    "--queues",
    "-Q",
    default=",".join(QUEUES),
    show_default=True,
    help="Comma-separated queues to consume.",
)
@click.option(
    "--pool",
    type=click.Choice(["threads", "solo", "prefork"]),
    default="threads",
    show_default=True,
    help="threads: the model loads once and Redis writes overlap encoding.",
)
@click.option(
    "--concurrency",
    "-c",
    type=click.IntRange(1),
    default=2,
    show_default=True,
    help="Tasks in flight; with the threads pool each is an encode stream (at most one per "
    "core, embed_streams).",
)
@click.option("--loglevel", "-l", default="info", show_default=True)
@click.option("--hostname", "-n", default=None, help="Worker node name (default: celery's).")
@pass_ctx
def worker(
    ctx: Context, queues: str, pool: str, concurrency: int, loglevel: str, hostname: str | None
) -> None:
    """Run a Celery worker (embedding, ingest and maintenance tasks)."""
    from ...domain.config import set_settings
    from ...engines.embeddings import cpu_count
    from ...workers.app import app, lower_priority

    lower_priority(ctx.settings.worker_nice)

    if pool == "threads" and not ctx.settings.embed_streams:
        # One encode stream per task slot (at most one per core), one torch
        # thread each (see SentenceTransformerEmbedder): the model loads once.
        set_settings(ctx.settings.replace(embed_streams=min(concurrency, cpu_count())))
    elif pool == "prefork" and not ctx.settings.embed_threads:
        # Each child loads its own model: share the cores out instead of letting
        # every child start one torch thread per core.
        set_settings(ctx.settings.replace(embed_threads=max(1, cpu_count() // concurrency)))

    argv = [
        "worker",
        "-Q",
        queues,
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--without-gossip",
        "--without-mingle",
        *_celery_argv_common(loglevel),
    ]
    if hostname:
        argv += ["--hostname", hostname]
    app.worker_main(argv=argv)


@click.command("beat")
@click.option("--loglevel", "-l", default="info", show_default=True)
@pass_ctx
def beat(ctx: Context, loglevel: str) -> None:
    """Run Celery beat: triggers the maintenance tick (redbeat: one active beat at a time)."""
    from ...workers.app import app
    from ...workers.beat import SCHEDULER

    schedule = Path(tempfile.gettempdir()) / f"houkai-beat-{os.getpid()}"
    app.start(
        argv=[
            "beat",
            "--scheduler",
            SCHEDULER,
            "--schedule",
            str(schedule),
            *_celery_argv_common(loglevel),
        ]
    )


# --------------------------------------------------------------------------- up
def _houkai_exe() -> list[str]:
    exe = shutil.which("houkai") or str(Path(sys.executable).parent / "houkai")
    return [exe] if Path(exe).exists() else [sys.executable, "-m", "houkai.cli"]


def _restart_redis_if_dead(data_dir: str) -> None:
    """`up` supervises the embedded server it started: a crashed one is started again
    on the same data dir and port (the children reconnect to that same URL)."""
    from ...db import server as redis_server

    if redis_server.live_state(Path(data_dir).expanduser().resolve()) is not None:
        return
    click.echo("redis   the embedded server died; restarting it", err=True)
    try:
        info = redis_server.start(data_dir)
    except redis_server.RedisServerError as exc:
        click.echo(f"redis   restart failed: {exc}; retrying", err=True)
        return
    click.echo(f"redis   {info.url} (restarted, pid {info.pid})", err=True)


def dashboard_banner(url: str, tokens: str) -> str:
    """The ``up`` line for the dashboard, true to the API's auth: it asks for a token only
    when ``http_tokens`` is set (the same parse the REST server does)."""
    from ...app.auth import parse_tokens

    try:
        configured = bool(parse_tokens(tokens))
    except ValueError:
        configured = True  # the server refuses to start and says why
    if configured:
        return f"ui      {url} (the web dashboard; log in with one of the http_tokens)"
    return f"ui      {url} (the web dashboard; open, no token: http_tokens is not set)"


def cli_banner(api_url: str) -> str:
    """The ``up`` line saying where this machine's ``houkai`` commands now run."""
    return (
        f"cli     houkai commands for this data dir run on {api_url} (no model load per "
        "command); --local or HOUKAI_LOCAL=1 runs one in-process"
    )


def _warn_legacy_layout(url: str, prefix: str) -> None:
    """Say at start, once, when collections wait for ``houkai redis migrate-layout``."""
    from ...db.connection import get_client
    from ...db.legacy_layout import legacy_notice

    try:
        notice = legacy_notice(get_client(url), prefix)
    except Exception as exc:  # the check is advice: never stop `up` over it
        notice = None
        log.debug("legacy layout check failed: %s", exc)
    if notice:
        click.echo(f"warning {notice}", err=True)


@click.command("up")
@click.option("--host", default=None, help="REST API host (default: http_host).")
@click.option("--port", type=int, default=None, help="REST API port (default: http_port).")
@click.option("--api/--no-api", default=True, show_default=True, help="Start the REST API.")
@click.option(
    "--beat/--no-beat",
    "with_beat",
    default=True,
    show_default=True,
    help="Start beat (scheduled maintenance).",
)
@click.option("--loglevel", "-l", default="warning", show_default=True)
@pass_ctx
def up(
    ctx: Context, host: str | None, port: int | None, api: bool, with_beat: bool, loglevel: str
) -> None:
    """Start Redis Stack (embedded default), a worker, beat and the REST API; Ctrl-C stops all."""
    from ...db import server as redis_server

    s = ctx.settings
    started_redis = False
    if s.redis_url:
        url = s.redis_url
        click.echo(f"redis   {url} (external)")
    else:
        redis_server.set_start_listener(None)  # `up` stops what it started
        already = redis_server.status(s.data_dir)
        # start() reuses a live server and waits while it loads (with progress lines)
        info = redis_server.start(s.data_dir, s.redis_port)
        started_redis = already is None
        url = info.url
        click.echo(f"redis   {url} (embedded, data in {info.data_dir}, pid {info.pid})")
    _warn_legacy_layout(url, s.key_prefix)
    env = dict(
        os.environ,
        HOUKAI_REDIS_URL=url,
        HOUKAI_DATA_DIR=s.data_dir,
        HOUKAI_COLLECTION=s.collection,
        HOUKAI_KEY_PREFIX=s.key_prefix,
    )
    exe = _houkai_exe()
    roles: list[tuple[str, list[str], str]] = [
        ("worker", [*exe, "worker", "-l", loglevel], f"queues {','.join(QUEUES)}"),
    ]
    if with_beat:
        roles.append(("beat", [*exe, "beat", "-l", loglevel], "maintenance tick schedule"))
    dashboard = None
    if api:
        h, p = host or s.http_host, port or s.http_port
        roles.append(("api", [*exe, "serve", "--host", h, "--port", str(p)], f"http://{h}:{p}"))
        shown = "127.0.0.1" if h in ("0.0.0.0", "::", "") else h
        dashboard = f"http://{shown}:{p}/ui"
    children: list[tuple[str, subprocess.Popen]] = []
    stopping = False

    def _stop(*_args: Any) -> None:
        nonlocal stopping
        stopping = True

    old_int = signal.signal(signal.SIGINT, _stop)
    old_term = signal.signal(signal.SIGTERM, _stop)
    try:
        for name, argv, where in roles:
            proc = subprocess.Popen(argv, env=env, start_new_session=True)
            children.append((name, proc))
            click.echo(f"{name:<7} pid {proc.pid}: {where}")
        if dashboard:
            click.echo(dashboard_banner(dashboard, s.http_tokens))
            click.echo(cli_banner(dashboard.removesuffix("/ui")))
        click.echo("houkai is up — press Ctrl-C to stop")
        next_redis_check = time.monotonic() + 2
        while not stopping:
            for name, proc in children:
                if proc.poll() is not None:
                    click.echo(f"{name} exited with code {proc.returncode}; stopping", err=True)
                    stopping = True
            if started_redis and time.monotonic() >= next_redis_check:
                next_redis_check = time.monotonic() + 2
                _restart_redis_if_dead(s.data_dir)
            time.sleep(0.3)
    finally:
        click.echo("stopping…")
        _terminate(children)
        if started_redis:
            redis_server.stop(s.data_dir)
            click.echo("redis   stopped")
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def _terminate(children: list[tuple[str, subprocess.Popen]], grace: float = 15.0) -> None:
    """SIGTERM every child (warm shutdown: tasks finish or return to the queue), then kill."""
    for _name, proc in children:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    for name, proc in children:
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            click.echo(f"{name} did not stop in {grace:g}s; killing", err=True)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
        click.echo(f"{name:<7} stopped")


# --------------------------------------------------------------------------- jobs
JOB_COLUMNS = [
    Column("id", "ID"),
    Column("kind", "KIND"),
    Column("state", "STATE"),
    Column("progress", "DONE/TOTAL", justify="right"),
    Column("failed", "FAILED", justify="right"),
    Column("rate", "RATE/S", justify="right"),
    Column("eta", "ETA", justify="right"),
]


def _job_row(status: dict[str, Any]) -> dict[str, Any]:
    processed = sum(int(status.get(k) or 0) for k in ("done", "failed", "rejected", "skipped"))
    eta = status.get("eta_seconds")
    return {
        **status,
        "progress": f"{processed}/{status['total']}",
        "eta": "" if eta is None else f"{eta:.0f}s",
    }


@click.group("jobs")
def jobs_group() -> None:
    """List, inspect, retry or cancel ingestion jobs."""


@jobs_group.command("list")
@operation_options("jobs")
@output_options
@pass_ctx
def jobs_list(ctx: Context, **values: Any) -> None:
    """Newest jobs of the collection first."""
    statuses = ctx.call("jobs", **arguments(values))
    print_rows(
        _fmt(ctx),
        [_job_row(s) for s in statuses],
        JOB_COLUMNS,
        json_data=statuses,
        empty="no jobs",
    )


def _job_id(ctx: Context, ref: str) -> str:
    """The full id of the collection's job *ref* names (a full id or a unique prefix)."""
    from ..output import resolve_job_id

    ctx.reader()  # an unknown collection is an error here, never created
    return resolve_job_id(ctx.service, ctx.collection, ref)


@jobs_group.command("show")
@operation_options("job", arguments=("job_id",))
@output_options
@pass_ctx
def jobs_show(ctx: Context, job_id: str) -> None:
    """Progress, errors (with item positions) and conflicts of one job (id or unique prefix)."""
    job_id = _job_id(ctx, job_id)
    status = ctx.call("job", job_id)
    data = dict(status)
    fmt = _fmt(ctx)
    if fmt != "json":
        data["memory_ids"] = f"{len(status['memory_ids'])} shown (use --json for the list)"
        data["errors"] = (
            "; ".join(
                f"#{e['position']} {e['id'][:8]}: {e['error']}" for e in status["errors"][:20]
            )
            or "-"
        )
        data["conflicts"] = len(status["conflicts"])
    print_mapping(fmt, data, title=f"job {job_id}")


@jobs_group.command("retry")
@operation_options("job_retry")
@output_options
@pass_ctx
def jobs_retry(ctx: Context, job_id: str | None) -> None:
    """Re-queue failed memories of JOB_ID (or of the whole collection)."""
    result = ctx.call("job_retry", None if job_id is None else _job_id(ctx, job_id))
    n = result["requeued"]
    report(ctx.fmt, result, f"re-queued {n} failed memor{'y' if n == 1 else 'ies'}")


@jobs_group.command("cancel")
@operation_options("job_cancel")
@output_options
@pass_ctx
def jobs_cancel(ctx: Context, job_id: str) -> None:
    """Cancel a job: its still-pending memories become failed ("cancelled"), retryable."""
    result = ctx.call("job_cancel", _job_id(ctx, job_id))
    done = "cancelled job" if result["cancelled"] else "already finished: job"
    report(ctx.fmt, result, f"{done} {result['job_id']}")


# --------------------------------------------------------------------------- maintenance
@click.group("maintenance")
def maintenance_group() -> None:
    """Scheduled maintenance (decay, purge, reconcile, reflection, journal archival)."""


@maintenance_group.command("tick")
@operation_options(
    "maintenance_tick",
    overrides={"reflect_apply": {"secondary_opts": ["--no-reflect-apply", "--reflect-dry-run"]}},
)
@output_options
@pass_ctx
def maintenance_tick(ctx: Context, all_collections: bool, **values: Any) -> None:
    """Run every due job once, synchronously (for cron)."""
    given = arguments(values)
    if all_collections:
        given.pop("lock_wait", None)
        results = ctx.service.maintenance_tick_all(**given)
    else:
        results = {ctx.collection: ctx.call("maintenance_tick", **given)}
    if _fmt(ctx) == "json":
        click.echo(json.dumps(results if all_collections else results[ctx.collection], default=str))
    else:
        for name, r in results.items():
            click.echo(f"{name}: {r['summary']}")
    if any(v for r in results.values() for k, v in r.items() if k.endswith("error")):
        raise click.exceptions.Exit(1)


@maintenance_group.command("status")
@output_options
@pass_ctx
def maintenance_status(ctx: Context) -> None:
    """Each job's schedule, last run, last error and next due time."""
    from ..output import fmt_ts

    data = ctx.service.maintenance_status(collection=ctx.collection)  # unknown: an error
    fmt = _fmt(ctx)
    if fmt == "json":
        click.echo(json.dumps(data, default=str))
        return
    rows = []
    for name, job in data["jobs"].items():
        rows.append(
            {
                "job": name,
                "every": job["every"] or "off",
                "last_success": fmt_ts(job["last_success"]),
                "last_count": job["last_count"],
                "last_error": job["last_error"] or "",
                "next_due": fmt_ts(job["next_due"]),
            }
        )
    print_rows(
        fmt,
        rows,
        [
            Column("job", "JOB"),
            Column("every", "EVERY"),
            Column("last_success", "LAST OK"),
            Column("last_count", "COUNT"),
            Column("last_error", "LAST ERROR"),
            Column("next_due", "NEXT"),
        ],
        title=f"maintenance of {data['collection']}",
    )


def register(cli: click.Group) -> None:
    for command in (worker, beat, up, jobs_group, maintenance_group):
        cli.add_command(command)
