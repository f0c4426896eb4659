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


def register(cli: click.Group) -> None:
    cli.add_command(redis_group)
