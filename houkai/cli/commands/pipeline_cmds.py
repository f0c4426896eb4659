"""Pipeline commands: ``worker``, ``beat``, ``up``, ``jobs …``, ``ingest``, ``maintenance …``."""

from __future__ import annotations

import json
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

from ...domain.model import MEMORY_TYPES
from ...pipeline.chunking import CHUNK_MODES
from ...pipeline.dispatch import QUEUES
from .. import Context, pass_ctx
from ..output import Column, output_options, print_mapping, print_rows, report, resolve_format
from ._ops import arguments, operation_options


def _fmt(ctx: Context) -> str:
    return resolve_format(ctx.output_format)


def _pipeline(ctx: Context, mode: str | None = None):
    from ...pipeline.write import Pipeline

    return Pipeline(ctx.store(), mode=mode)


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
    from ...workers.app import app

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

    if redis_server._live_state(Path(data_dir).expanduser().resolve()) is not None:
        return
    click.echo("redis   the embedded server died; restarting it", err=True)
    try:
        info = redis_server.start(data_dir)
    except redis_server.RedisServerError as exc:
        click.echo(f"redis   restart failed: {exc}; retrying", err=True)
        return
    click.echo(f"redis   {info.url} (restarted, pid {info.pid})", err=True)


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
        info = already or redis_server.start(s.data_dir, s.redis_port)
        started_redis = already is None
        url = info.url
        click.echo(f"redis   {url} (embedded, data in {info.data_dir}, pid {info.pid})")
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
            click.echo(f"ui      {dashboard} (the web dashboard; log in with an API token)")
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


@jobs_group.command("show")
@operation_options("job", arguments=("job_id",))
@output_options
@pass_ctx
def jobs_show(ctx: Context, job_id: str) -> None:
    """Progress, errors (with item positions) and conflicts of one job."""
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
    result = ctx.call("job_retry", job_id)
    n = result["requeued"]
    report(ctx.fmt, result, f"re-queued {n} failed memor{'y' if n == 1 else 'ies'}")


@jobs_group.command("cancel")
@operation_options("job_cancel")
@output_options
@pass_ctx
def jobs_cancel(ctx: Context, job_id: str) -> None:
    """Cancel a job: its still-pending memories become failed ("cancelled"), retryable."""
    result = ctx.call("job_cancel", job_id)
    done = "cancelled job" if result["cancelled"] else "already finished: job"
    report(ctx.fmt, result, f"{done} {job_id}")


# --------------------------------------------------------------------------- ingest
def follow(pipeline: Any, job: Any, *, timeout: float | None = None, quiet: bool = False) -> Any:
    """Poll a job until it settles, with a progress bar on a terminal (stderr)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    show = not quiet and sys.stderr.isatty()
    last = -1
    with click.progressbar(
        length=max(job.total, 1), label="embedding", file=sys.stderr, hidden=not show, show_eta=True
    ) as bar:
        while True:
            status = pipeline.job(job.id)
            if status is None:
                raise click.ClickException(f"job {job.id} vanished")
            if status.processed != last:
                bar.update(status.processed - max(last, 0))
                last = status.processed
            if status.settled:
                return status
            if deadline is not None and time.monotonic() > deadline:
                return status
            time.sleep(0.25)


def _read_inputs(paths: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """The paths to ingest (stdin when none are given and it is piped) and stdin's text."""
    if not paths:
        if sys.stdin.isatty():
            raise click.UsageError("give files, folders or globs to ingest, or '-' to read stdin")
        paths = ("-",)
    raw = None
    if "-" in paths:
        raw = sys.stdin.read()
        if not raw.strip():
            raise click.UsageError("no input provided on stdin")
    return paths, raw


def _plan(
    paths: tuple[str, ...],
    raw: str | None,
    stdin_doc: dict,
    extra: dict,
    sizes: dict,
    glob: str | None,
) -> list[tuple[str, dict]]:
    """(label, item) for every chunk the ingest would store: the dry-run preview."""
    from ...pipeline.write import document_items, expand_path, iter_jsonl, jsonl_sizes

    plan: list[tuple[str, dict]] = []
    for path in paths:
        if path == "-":
            if raw is not None:
                plan += [("stdin", i) for i in document_items({**stdin_doc, "text": raw}, sizes)]
            continue
        for file in expand_path(path, glob):
            label = Path(file).name
            doc = {**extra, "source": extra.get("source") or f"ingest:{label}"}
            if file.endswith(".jsonl"):
                for line in iter_jsonl(file):
                    plan += [
                        (label, i) for i in document_items({**doc, **line}, jsonl_sizes(sizes))
                    ]
            else:
                text = Path(file).read_text(encoding="utf-8-sig", errors="replace")
                plan += [(label, i) for i in document_items({**doc, "text": text}, sizes)]
    return plan


def _print_plan(plan: list[tuple[str, dict]], inputs: int, default_importance: float) -> None:
    for n, (label, item) in enumerate(plan, 1):
        importance = item.get("importance")
        imp = default_importance if importance is None else float(importance)
        first = (item["text"].splitlines() or [""])[0][:70]
        click.echo(f"  [{n:3}] {imp:.2f}  {label}: {first}")
    click.echo(f"\n{len(plan)} chunk(s) from {inputs} input(s).")


@click.command("ingest")
@click.argument("paths", nargs=-1)
@click.option("--glob", "glob_", default=None, help="File pattern inside folders, e.g. '*.md'.")
@click.option(
    "--type",
    "-t",
    "mtype",
    type=click.Choice(MEMORY_TYPES),
    default="episodic",
    show_default=True,
    help="Memory type for every chunk.",
)
@click.option("--tag", "-g", "tags", multiple=True, help="Tag every chunk (repeatable).")
@click.option(
    "--source", "-s", default=None, help="Source label (default: ingest:<file name>, ingest:stdin)."
)
@click.option("--importance", "-i", type=click.FloatRange(0.0, 1.0), help="Importance 0..1.")
@click.option(
    "--auto-importance", is_flag=True, help="Score each chunk's importance from its text."
)
@click.option("--jsonl", is_flag=True, help="Read stdin as JSONL ({text,...} per line).")
@click.option("--max-chars", type=int, default=None, help="Chunk size limit (default 500).")
@click.option(
    "--min-chars", type=int, default=None, help="Drop (pack: merge) chunks shorter (default 30)."
)
@click.option(
    "--chunking",
    type=click.Choice(CHUNK_MODES),
    default=None,
    help="paragraph: one memory per paragraph (default); pack: fill chunks up to --max-chars.",
)
@click.option("--dry-run", is_flag=True, help="Show the chunks without writing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation on a terminal.")
@click.option("--batch-size", type=int, default=None, help="Items per embedding batch.")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Follow the job until every memory is embedded.",
)
@click.option("--timeout", type=float, default=None, help="Stop following after N seconds.")
@click.option("--inline", is_flag=True, help="Embed in this process instead of via workers.")
@output_options
@pass_ctx
def ingest(
    ctx: Context,
    paths: tuple[str, ...],
    glob_: str | None,
    mtype: str,
    tags: tuple[str, ...],
    source: str | None,
    importance: float | None,
    auto_importance: bool,
    jsonl: bool,
    max_chars: int | None,
    min_chars: int | None,
    chunking: str | None,
    dry_run: bool,
    yes: bool,
    batch_size: int | None,
    wait: bool,
    timeout: float | None,
    inline: bool,
) -> None:
    """Ingest files, folders, globs or stdin ('-' or no path) as memories, one job per path.

    Text is chunked as in the seed: one memory per paragraph (a heading kept
    with its paragraph, long paragraphs split on sentences, chunks under
    --min-chars dropped); --chunking pack fills chunks up to --max-chars.
    """
    from ...pipeline.write import chunk_sizes

    paths, raw = _read_inputs(paths)
    auto = auto_importance or (importance is None and ctx.settings.auto_importance)
    sizes = chunk_sizes(max_chars, min_chars, chunking, auto)
    extra: dict[str, Any] = {"type": mtype}
    if tags:
        extra["tags"] = list(tags)
    if importance is not None:
        extra["importance"] = importance
    if source:
        extra["source"] = source
    stdin_doc = {**extra, "source": source or "ingest:stdin"}
    interactive = not yes and sys.stdin.isatty() and sys.stdout.isatty()
    if dry_run or interactive:
        plan = _plan(paths, None if jsonl else raw, stdin_doc, extra, sizes, glob_)
        if not plan:
            click.echo("Nothing to ingest (all chunks below --min-chars?).")
            return
        _print_plan(plan, len(paths), ctx.settings.default_importance)
        if dry_run:
            click.echo("Dry-run — nothing written.")
            return
        if not click.confirm(f"Store {len(plan)} memories?", default=False):
            click.echo("Aborted.")
            return
    pipeline = _pipeline(ctx, "inline" if inline else None)
    # What every file (and JSONL on stdin) is ingested with.
    path_options: dict[str, Any] = dict(
        type=mtype,
        tags=list(tags) or None,
        importance=importance,
        auto_importance=auto,
        chunking=chunking,
        max_chars=max_chars,
        min_chars=min_chars,
        batch_size=batch_size,
    )
    results = []
    for path in paths:
        if path == "-":
            if jsonl:
                # The pipeline's own JSONL path (one item per line, never dropped as short);
                # a job is accepted durably before ingest_path returns, so the file can go.
                with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
                    fh.write(raw or "")
                try:
                    job = pipeline.ingest_path(fh.name, source=stdin_doc["source"], **path_options)
                finally:
                    os.unlink(fh.name)
            else:
                job = pipeline.ingest_documents(
                    [{**stdin_doc, "text": raw}],
                    max_chars=max_chars,
                    min_chars=min_chars,
                    chunking=chunking,
                    auto_importance=auto,
                    batch_size=batch_size,
                )
        else:
            job = pipeline.ingest_path(path, glob=glob_, source=source, **path_options)
        click.echo(f"job {job.id}: {job.total} memories from {path}", err=True)
        status = follow(pipeline, job, timeout=timeout) if wait else pipeline.job(job.id)
        results.append(status.to_dict() if status else {"id": job.id, "total": job.total})
    fmt = _fmt(ctx)
    if fmt == "json":
        click.echo(json.dumps(results if len(results) > 1 else results[0], default=str))
    else:
        for r in results:
            click.echo(
                f"{r['id']}\t{r.get('state', 'queued')}\tdone={r.get('done', 0)}"
                f"\tfailed={r.get('failed', 0)}\ttotal={r['total']}"
            )
        total = sum(int(r.get("total") or 0) for r in results)
        done = sum(int(r.get("done") or 0) for r in results)
        if total == 0:
            click.echo("Nothing to ingest (all chunks below --min-chars?).", err=True)
        elif done == total:
            click.echo(f"Stored {done} memories.", err=True)
        else:
            click.echo(f"Queued {total} memories ({done} stored so far).", err=True)
    if any(r.get("failed") for r in results):
        raise click.exceptions.Exit(1)


# --------------------------------------------------------------------------- maintenance
@click.group("maintenance")
def maintenance_group() -> None:
    """Scheduled maintenance (decay, purge, reconcile, reflection, journal archival)."""


@maintenance_group.command("tick")
@operation_options(
    "maintenance_tick",
    aliases={"lock_wait": ("--wait",)},
    overrides={"reflect_apply": {"secondary_opts": ["--no-reflect-apply", "--reflect-dry-run"]}},
)
@output_options
@pass_ctx
def maintenance_tick(ctx: Context, all_collections: bool, **values: Any) -> None:
    """Run every due job once, synchronously (for cron)."""
    from ...pipeline import maintenance

    given = arguments(values)
    if all_collections:
        given.pop("lock_wait", None)
        results = maintenance.tick_all(ctx.settings, **given)
    else:
        results = {ctx.collection: ctx.call("maintenance_tick", **given)}
    if _fmt(ctx) == "json":
        click.echo(json.dumps(results if all_collections else results[ctx.collection], default=str))
    else:
        for name, r in results.items():
            click.echo(f"{name}: {r['summary']}")
    if any(
        any(r.get(f"{j}_error") for j in maintenance.JOB_NAMES) or r.get("error")
        for r in results.values()
    ):
        raise click.exceptions.Exit(1)


@maintenance_group.command("status")
@output_options
@pass_ctx
def maintenance_status(ctx: Context) -> None:
    """Each job's schedule, last run, last error and next due time."""
    from ...pipeline import maintenance
    from ..output import fmt_ts

    data = maintenance.status(ctx.reader(), ctx.settings)
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
    for command in (worker, beat, up, jobs_group, ingest, maintenance_group):
        cli.add_command(command)
