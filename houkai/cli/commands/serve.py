"""``houkai serve``: the REST API — werkzeug's threaded server locally, gunicorn with --workers."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import sys
import threading
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
        _exec_gunicorn(ctx, host, port, spec, workers, threads, list(grants))
        return
    from werkzeug.serving import make_server

    from ...api.rest import JsonErrorHandler, create_app
    from ...app import runtime
    from ...app.service import MemoryService
    from ...db.server import resolve_url

    # the bind is the Host / Origin policy's (houkai.app.hosts): a foreign Host is a 421
    settings = settings.replace(http_tokens=spec, http_host=host, http_port=port)
    service = MemoryService(settings, actor="http")
    # connect, load the model and run it once before accepting requests: the first
    # inference of a fresh ONNX session costs about a second, not the first user's recall
    service.store().embedder.encode(["warm up"])
    app = create_app(settings, service)
    server = make_server(
        host, port, app, threaded=True, request_handler=JsonErrorHandler, passthrough_errors=False
    )
    port = server.server_port  # the real one when --port 0 asked for any
    click.echo(
        f"houkai REST API on http://{host}:{port} (collection {settings.collection!r}, "
        f"{len(grants)} token(s)); docs at /docs; houkai commands for data dir "
        f"{settings.data_dir} use it (--local: in-process)",
        err=True,
    )
    sys.stderr.flush()
    # `up` (and a service manager) stops this with SIGTERM: leave the loop cleanly, so
    # the runtime file goes with the server
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    with runtime.recorded(
        data_dir=settings.data_dir,
        host=host,
        port=port,
        key_prefix=settings.key_prefix,
        redis_url=resolve_url(settings.redis_url, settings.data_dir, settings.redis_port),
        collection=settings.collection,
        tokens=list(grants),
    ) as mine:
        app.config["HOUKAI_INSTANCE"] = mine.instance
        try:
            server.serve_forever()
        finally:
            server.server_close()


def _exec_gunicorn(
    ctx: Context,
    host: str,
    port: int,
    spec: str,
    workers: int,
    threads: int,
    tokens: list[str],
) -> None:
    """Replace this process with gunicorn, passing the resolved settings through env.

    The runtime file names this pid, which gunicorn's master keeps after the exec; it
    is not removed when gunicorn stops (nothing of this process runs then), but a
    dead pid makes it stale, so no client uses it."""
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
    from ...app import runtime

    mine = runtime.record(
        data_dir=s.data_dir,
        host=host,
        port=port,
        key_prefix=s.key_prefix,
        redis_url=s.redis_url or _embedded_url(s),
        collection=s.collection,
        tokens=tokens,
    )
    env["HOUKAI_SERVER_INSTANCE"] = mine.instance  # create_app() stamps it on replies
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


def _embedded_url(settings) -> str:
    from ...db.server import resolve_url

    return resolve_url(settings.redis_url, settings.data_dir, settings.redis_port)


def register(cli: click.Group) -> None:
    cli.add_command(serve)
