"""``houkai export``, ``import``, ``info`` and ``backup``: data in, data out."""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import confirm, echo_json, output_options, print_mapping, report
from ._ops import arguments, operation_options
from .recall import parse_time_option


@click.command("export")
@operation_options(
    "export",
    aliases={"type": ("-t",)},
    overrides={
        "path": {"type": click.Path(dir_okay=False, writable=True)},
        "include_vectors": {"secondary_opts": ["--no-include-vectors", "--no-vectors"]},
    },
)
@output_options
@pass_ctx
def export(ctx: Context, **values: Any) -> None:
    """Write memories to a portable .ahkai archive (gzipped JSONL, streamed).

    --type and --tag repeat; --since takes epoch, ISO-8601 or a span like 7d;
    --no-vectors leaves out the embeddings (a smaller file)."""
    given = arguments(values)
    if "since" in given:
        given["since"] = parse_time_option(given["since"], "--since")
    data = ctx.call("export", **given)
    report(
        ctx.fmt,
        data,
        f"Exported {data.get('count')} memories → {data.get('path')} "
        f"({int(data.get('bytes') or 0):,} bytes)",
    )


@click.command("import")
@operation_options(
    "import",
    overrides={"path": {"type": click.Path(exists=True, dir_okay=False, readable=True)}},
)
@output_options
@pass_ctx
def import_cmd(ctx: Context, yes: bool, **values: Any) -> None:
    """Import memories from a .ahkai archive into the current collection.

    --regenerate-vectors is required when the archive's model differs."""
    given = arguments(values)
    path, dry_run = given["path"], bool(given.get("dry_run"))
    if not dry_run:
        verb = "overwriting" if given.get("on_conflict") == "overwrite" else "into"
        confirm(f"Import {path} {verb} collection {ctx.collection!r}?", yes=yes)
    data = ctx.call("import_", **given)
    errors = list(data.get("errors") or [])
    if ctx.fmt == "json":
        echo_json(data)
    else:
        click.echo(
            f"{'[dry-run] ' if dry_run else ''}imported={data.get('imported', 0)} "
            f"skipped={data.get('skipped', 0)} overwritten={data.get('overwritten', 0)} "
            f"renamed={data.get('renamed', 0)} errors={data.get('errors_total', len(errors))}"
        )
        for error in errors[:5]:
            click.echo(f"  ! {error}", err=True)


@click.command("info")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, readable=True))
@output_options
@pass_ctx
def info(ctx: Context, path: str) -> None:
    """Describe a .ahkai archive (header and memory count) without touching the store."""
    from ...store.archive import iter_archive

    header, rows = iter_archive(path)
    count = bad = 0
    for _, row in rows:
        if isinstance(row, dict):
            count += 1
        else:
            bad += 1
    data = {**header, "path": str(Path(path)), "memories": count, "bad_lines": bad}
    print_mapping(ctx.fmt, data)


def _data_files(data_dir: Path) -> list[Path]:
    from ...db.server import LOG_FILE, STATE_FILE

    skip = {STATE_FILE, LOG_FILE}
    return [p for p in sorted(data_dir.iterdir()) if p.name not in skip]


def _bgsave(client: Any, timeout: float) -> float:
    """Run BGSAVE to completion (waiting out a save or rewrite already running)."""
    import redis

    deadline = time.monotonic() + timeout
    while True:
        try:
            client.bgsave()
            break
        except redis.ResponseError as exc:  # another save / AOF rewrite: wait our turn
            if "in progress" not in str(exc).lower() or time.monotonic() > deadline:
                raise click.ClickException(f"BGSAVE failed: {exc}") from None
            time.sleep(0.2)
    while time.monotonic() < deadline:
        persistence = client.info("persistence")
        if not persistence.get("rdb_bgsave_in_progress"):
            if persistence.get("rdb_last_bgsave_status", "ok") != "ok":
                raise click.ClickException("BGSAVE failed; see the server log")
            return float(persistence.get("rdb_last_save_time") or time.time())
        time.sleep(0.1)
    raise click.ClickException(f"BGSAVE did not finish within {timeout:.0f}s")


@click.command("backup")
@click.option(
    "--dest", type=click.Path(file_okay=False), help="Parent folder (default: <data_dir>-backups)."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1.0),
    default=120.0,
    show_default=True,
    help="Seconds to wait for the snapshot.",
)
@output_options
@pass_ctx
def backup(ctx: Context, dest: str | None, timeout: float) -> None:
    """Snapshot the embedded Redis Stack (BGSAVE, then copy RDB + AOF to a timestamped folder)."""
    import redis

    from ...db import server as redis_server

    settings = ctx.settings
    if settings.redis_url:
        client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=5)
        try:
            saved = _bgsave(client, timeout)
            server_dir = client.config_get("dir").get("dir", "?")
        finally:
            client.close()
        payload = {
            "embedded": False,
            "url": settings.redis_url,
            "bgsave_at": saved,
            "server_dir": server_dir,
            "copied": None,
        }
        report(
            ctx.fmt,
            payload,
            f"Snapshot written on the external server {settings.redis_url} "
            f"(its dir: {server_dir}). houkai does not manage that server's files: copy "
            "dump.rdb and appendonlydir/ from there, or use `houkai export` for a "
            "portable copy.",
        )
        return
    data_dir = Path(settings.data_dir).expanduser().resolve()
    server = redis_server.status(data_dir)
    if server is None:
        raise click.ClickException(
            f"the embedded Redis Stack under {data_dir} is not running; "
            "start it with `houkai redis start`"
        )
    client = redis.Redis.from_url(server.url, socket_connect_timeout=5)
    try:
        saved = _bgsave(client, timeout)
    finally:
        client.close()
    stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    parent = Path(dest).expanduser() if dest else data_dir.parent / f"{data_dir.name}-backups"
    target = parent / stamp
    if target.exists():
        raise click.ClickException(f"{target} already exists")
    target.mkdir(parents=True)
    copied = []
    for item in _data_files(data_dir):
        if item.resolve() == parent.resolve():
            continue
        if item.is_dir():
            shutil.copytree(item, target / item.name)
        else:
            shutil.copy2(item, target / item.name)
        copied.append(item.name)
    report(
        ctx.fmt,
        {"embedded": True, "path": str(target), "bgsave_at": saved, "copied": copied},
        f"Backup written to {target} ({', '.join(copied) or 'nothing to copy'})",
    )


def register(cli: click.Group) -> None:
    for command in (export, import_cmd, info, backup):
        cli.add_command(command)
