"""``houkai redis migrate-layout``: move data to the hash-tagged key layout (ADR 0079).

A storage-level command beside ``houkai redis start|stop|status`` (it works on the keys
themselves, not through an operation of the registry)."""

from __future__ import annotations

import json

import click

from .. import Context, pass_ctx


@click.command("migrate-layout")
@click.option(
    "--collection",
    "collections",
    multiple=True,
    help="Only this collection (repeatable; default: every collection).",
)
@pass_ctx
def layout(ctx: Context, collections: tuple[str, ...]) -> None:
    """Copy every collection's keys to the hash-tagged layout, verify counts and checksums,
    then remove the old keys. Resumable: run it again after an interruption; a run with
    nothing left to move changes nothing."""
    from ...db.connection import connect
    from ...db.layout_migration import migrate_layout

    s = ctx.settings
    client = connect(s.redis_url, s.data_dir if not s.redis_url else None)
    report = migrate_layout(client, s.key_prefix, collections=list(collections) or None)
    if ctx.output_format == "json":
        click.echo(json.dumps(report))
    else:
        for row in report["collections"]:
            click.echo(
                f"{row['collection']}: {row['state']}  keys={row['keys']}  "
                f"checksum={row['checksum'] or '-'}"
                + (
                    f"  after={row['keys_after']}/{row['checksum_after']}"
                    if row["state"] == "mismatch"
                    else ""
                )
            )
        click.echo(f"global keys moved: {report['globals']}")
    if not report["ok"]:
        raise click.ClickException(
            "a collection's copy did not match its original (see above); its old keys are "
            "untouched: run the command again"
        )


def register(cli: click.Group) -> None:
    """Add the command to ``houkai redis`` (the group lives in :mod:`.redis_cmd`)."""
    from .redis_cmd import redis_group

    redis_group.add_command(layout)
