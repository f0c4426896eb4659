"""``houkai export``, ``import``, ``info`` and ``backup``: data in, data out."""

from __future__ import annotations

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
@operation_options("archive_info")
@output_options
@pass_ctx
def info(ctx: Context, path: str) -> None:
    """Describe a .ahkai archive (header and memory count) without touching the store."""
    print_mapping(ctx.fmt, ctx.call("archive_info", path))


@click.command("backup")
@operation_options("backup")
@output_options
@pass_ctx
def backup(ctx: Context, **values: Any) -> None:
    """Snapshot the embedded Redis Stack (BGSAVE, then copy RDB + AOF to a timestamped folder)."""
    result = ctx.call("backup", **arguments(values))
    if not result["embedded"]:
        text = (
            f"Snapshot written on the external server {result['url']} "
            f"(its dir: {result['server_dir']}). houkai does not manage that server's files: "
            "copy dump.rdb and appendonlydir/ from there, or use `houkai export` for a "
            "portable copy."
        )
    else:
        copied = ", ".join(result["copied"]) or "nothing to copy"
        text = f"Backup written to {result['path']} ({copied})"
    report(ctx.fmt, result, text)


def register(cli: click.Group) -> None:
    for command in (export, import_cmd, info, backup):
        cli.add_command(command)
