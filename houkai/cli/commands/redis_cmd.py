"""``houkai redis start|stop|status``: drive the embedded Redis Stack by hand."""

from __future__ import annotations

import json

import click

from .. import Context, pass_ctx


@click.group("redis")
def redis_group() -> None:
    """Start, stop or inspect the embedded Redis Stack."""


def _require_embedded(ctx: Context) -> None:
    if ctx.settings.redis_url:
        raise click.ClickException(
            f"REDIS_URL is set ({ctx.settings.redis_url}); houkai is not managing that server"
        )


@redis_group.command("start")
@click.option("--port", type=int, help="Port to try first (default: from config).")
@pass_ctx
def start(ctx: Context, port: int | None) -> None:
    """Start the embedded server (or report the one already running)."""
    from ...db import server as redis_server

    _require_embedded(ctx)
    redis_server.set_start_listener(None)  # this command's own line says it
    try:
        info = redis_server.start(ctx.settings.data_dir, port or ctx.settings.redis_port)
    except redis_server.RedisServerError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Redis Stack running at {info.url} (pid {info.pid}, data in {info.data_dir})")


@redis_group.command("stop")
@pass_ctx
def stop(ctx: Context) -> None:
    """Stop the embedded server, flushing its append-only file."""
    from ...db import server as redis_server

    _require_embedded(ctx)
    if redis_server.stop(ctx.settings.data_dir):
        click.echo("Redis Stack stopped")
    else:
        click.echo("Redis Stack was not running")


@redis_group.command("status")
@pass_ctx
def status(ctx: Context) -> None:
    """Say whether the server is up; exit 1 when it is not."""
    from ...db import server as redis_server
    from ...db.cluster_client import is_cluster_url

    if ctx.settings.redis_url and is_cluster_url(ctx.settings.redis_url):
        state = redis_server.probe_url(ctx.settings.redis_url, timeout=2.0)
        _emit(ctx, {"url": ctx.settings.redis_url, "running": state == "ready", "cluster": True})
        if state != "ready":
            raise click.exceptions.Exit(1)
        return
    if ctx.settings.redis_url:
        import redis

        try:
            client = redis.Redis.from_url(ctx.settings.redis_url, socket_connect_timeout=2)
            redis_server.check_query_engine(client)
        except (redis.RedisError, redis_server.RedisServerError) as exc:
            raise click.ClickException(f"{ctx.settings.redis_url}: {exc}") from None
        _emit(ctx, {"url": ctx.settings.redis_url, "running": True, "embedded": False})
        return
    info = redis_server.status(ctx.settings.data_dir)
    if info is None:
        _emit(ctx, {"running": False, "embedded": True, "data_dir": ctx.settings.data_dir})
        raise click.exceptions.Exit(1)
    _emit(
        ctx,
        {
            "running": True,
            "embedded": True,
            "url": info.url,
            "pid": info.pid,
            "data_dir": info.data_dir,
        },
    )


def _emit(ctx: Context, payload: dict) -> None:
    if ctx.output_format == "json":
        click.echo(json.dumps(payload))
    else:
        click.echo("  ".join(f"{k}={v}" for k, v in payload.items()))


@redis_group.group("cluster")
def cluster_group() -> None:
    """A local Redis Cluster for development and tests (ADR 0079)."""


def _cluster_dir(ctx: Context, directory: str | None) -> str:
    from pathlib import Path

    return directory or str(Path(ctx.settings.data_dir).expanduser() / "cluster")


_DIR = click.option(
    "--dir", "directory", help="Where the nodes live (default: <data_dir>/cluster)."
)


@cluster_group.command("start")
@click.option("--masters", type=click.IntRange(1, 16), default=3, show_default=True)
@click.option("--replicas", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Replicas per master.")  # fmt: skip
@click.option("--port", type=int, help="First port (default: free ports chosen now).")
@_DIR
@pass_ctx
def cluster_start(
    ctx: Context, masters: int, replicas: int, port: int | None, directory: str | None
) -> None:
    """Start MASTERS masters (each with REPLICAS replicas), slots assigned, and print the
    ``REDIS_URL`` to use."""
    from ...db import cluster
    from ...db import server as redis_server

    try:
        info = cluster.start(_cluster_dir(ctx, directory), masters, replicas, port)
    except redis_server.RedisServerError as exc:
        raise click.ClickException(str(exc)) from None
    if ctx.output_format == "json":
        click.echo(json.dumps(info.to_dict()))
        return
    click.echo(f"Redis Cluster up: {len(info.nodes)} nodes ({masters} masters), data in {info.dir}")
    click.echo(f"REDIS_URL={info.url}")
    click.echo("(the Celery broker must be a separate Redis: set HOUKAI_BROKER_URL)")


@cluster_group.command("stop")
@_DIR
@pass_ctx
def cluster_stop(ctx: Context, directory: str | None) -> None:
    """Stop every node of the local cluster."""
    from ...db import cluster

    if cluster.stop(_cluster_dir(ctx, directory)):
        click.echo("Redis Cluster stopped")
    else:
        click.echo("Redis Cluster was not running")


@cluster_group.command("status")
@_DIR
@pass_ctx
def cluster_status(ctx: Context, directory: str | None) -> None:
    """Say whether the local cluster is up (exit 1 when not), with its nodes."""
    from ...db import cluster

    info = cluster.status(_cluster_dir(ctx, directory))
    if info is None:
        _emit(ctx, {"running": False, "dir": _cluster_dir(ctx, directory)})
        raise click.exceptions.Exit(1)
    payload = {"running": True, "url": info.url, "masters": info.masters,
               "replicas": info.replicas, "dir": info.dir}  # fmt: skip
    if ctx.output_format == "json":
        click.echo(json.dumps({**payload, "nodes": info.to_dict()["nodes"]}))
        return
    _emit(ctx, payload)
    for node in info.nodes:
        click.echo(f"  {node.role:<8} 127.0.0.1:{node.port}  pid {node.pid}")


def register(cli: click.Group) -> None:
    cli.add_command(redis_group)
