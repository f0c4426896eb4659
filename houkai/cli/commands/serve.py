"""``houkai serve``: the REST API — werkzeug's threaded server locally, gunicorn with --workers."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path

import click

from .. import Context, pass_ctx

log = logging.getLogger("houkai.cli")


def _gunicorn_config() -> Path | None:
    """``ops/gunicorn.conf.py`` of a source checkout, if there is one."""
    candidate = Path(__file__).resolve().parents[3] / "ops" / "gunicorn.conf.py"
    return candidate if candidate.is_file() else None


@click.command("serve")
@click.option("--host", help="Interface to bind (default: config http_host, 127.0.0.1).")
@click.option(
    "--port", type=click.IntRange(0, 65535), help="Port to bind (default: config http_port, 8765)."
)
@click.option(
    "--token",
    "tokens",
    multiple=True,
    metavar="TOKEN[:COLLS][:ro]",
    help="Accepted bearer token (repeatable; overrides HOUKAI_HTTP_TOKENS).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    help="Serve with gunicorn and this many gthread workers (production).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="Threads per gunicorn worker.",
)
@pass_ctx
def serve(
    ctx: Context,
    host: str | None,
    port: int | None,
    tokens: tuple[str, ...],
    workers: int | None,
    threads: int,
) -> None:
    """Serve the REST API (OpenAPI at /openapi.json, reference page at /docs)."""
    from ...app.auth import parse_tokens

    settings = ctx.settings
    host = host or settings.http_host
    port = settings.http_port if port is None else port
    spec = ",".join(tokens) if tokens else settings.http_tokens
    try:
        grants = parse_tokens(spec)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--token") from None
    if not grants and host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"warning: serving on {host} without any bearer token", err=True)
    if workers:
        _exec_gunicorn(ctx, host, port, spec, workers, threads)
        return
    from werkzeug.serving import run_simple

    from ...api.rest import JsonErrorHandler, create_app
    from ...app.service import MemoryService

    # the bind is the Host / Origin policy's (houkai.app.hosts): a foreign Host is a 421
    settings = settings.replace(http_tokens=spec, http_host=host, http_port=port)
    service = MemoryService(settings, actor="http")
    service.store()  # connect and load the model before accepting requests
    app = create_app(settings, service)
    click.echo(
        f"houkai REST API on http://{host}:{port} (collection {settings.collection!r}, "
        f"{len(grants)} token(s)); docs at /docs",
        err=True,
    )
    sys.stderr.flush()
    run_simple(
        host,
        port,
        app,
        threaded=True,
        use_reloader=False,
        use_debugger=False,
        request_handler=JsonErrorHandler,
    )


def _exec_gunicorn(
    ctx: Context, host: str, port: int, spec: str, workers: int, threads: int
) -> None:
    """Replace this process with gunicorn, passing the resolved settings through env."""
    binary = shutil.which(
        "gunicorn",
        path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    if binary is None:
        raise click.ClickException("gunicorn is not installed in this environment")
    s = ctx.settings
    env = dict(os.environ)
    env.update(
        {
            "HOUKAI_COLLECTION": s.collection,
            "HOUKAI_DATA_DIR": s.data_dir,
            "HOUKAI_HTTP_TOKENS": spec,
            "HOUKAI_HTTP_HOST": host,
            "HOUKAI_HTTP_PORT": str(port),
            "WEB_CONCURRENCY": str(workers),
            "GUNICORN_THREADS": str(threads),
        }
    )
    if s.redis_url:
        env["REDIS_URL"] = s.redis_url
    args = [binary]
    config = _gunicorn_config()
    if config is not None:
        args += ["-c", str(config)]
    args += [
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--worker-class",
        "gthread",
        "houkai.api.rest:create_app()",
    ]
    click.echo(f"exec: {' '.join(args)}", err=True)
    os.execve(binary, args, env)


def register(cli: click.Group) -> None:
    cli.add_command(serve)
