"""``houkai prune``, ``purge`` and ``reflect``: dry-run by default, ``--apply`` to write.

Defaults come from the ``[maintenance]`` settings, so a plain ``houkai prune``
previews exactly what the scheduled maintenance would remove.
"""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import confirm, echo_json, memory_record, output_options, print_memories
from ._ops import arguments, operation_options

#: ``reflect --consolidate`` alone means ``soft`` (houkai 0.1's spelling).
_BARE_CONSOLIDATE = {"flag_value": "soft", "_flag_needs_value": True}


def _emit_candidates(
    ctx: Context, title: str, scored: list, *, dry_run: bool, applied: int, show: int
) -> None:
    if ctx.fmt == "json":
        echo_json(
            {
                "dry_run": dry_run,
                "count": len(scored),
                "applied": applied,
                "memories": [memory_record(m, s) for m, s in scored],
            }
        )
        return
    if not scored:
        click.echo(f"Nothing to {title}.")
        return
    if dry_run:
        click.echo(f"{len(scored)} memories would be {title}d:", err=ctx.fmt == "tsv")
    print_memories(ctx.fmt, scored[:show], show_score=True)
    if len(scored) > show and ctx.fmt == "table":
        click.echo(f"… and {len(scored) - show} more (use --show to list more)")
    if dry_run:
        click.echo("Dry-run — pass --apply to delete.", err=True)
    else:
        click.echo(f"{title.capitalize()}d {applied} memories.", err=ctx.fmt == "tsv")


@click.command("prune")
@operation_options("prune")
@output_options
@pass_ctx
def prune(ctx: Context, dry_run: bool, yes: bool, show: int, **values: Any) -> None:
    """Delete memories whose decay score fell below the threshold. Dry-run by default."""
    given = arguments(values)
    preview = ctx.call("prune", **given, dry_run=True)
    scored = [(m, m.get("score")) for m in preview["memories"]]
    applied = 0
    if not dry_run and scored:
        confirm(f"Delete {len(scored)} decayed memories?", yes=yes)
        applied = ctx.call("prune", **given, dry_run=False)["pruned"]
    _emit_candidates(ctx, "prune", scored, dry_run=dry_run, applied=applied, show=show)


@click.command("purge")
@operation_options("purge_expired")
@output_options
@pass_ctx
def purge(ctx: Context, dry_run: bool, yes: bool, show: int) -> None:
    """Hard-delete memories whose TTL has passed. Dry-run by default (--apply deletes)."""
    from ...app.service import memory_to_dict

    # The preview lists the candidates themselves (purge_expired answers with ids only).
    candidates = ctx.reader().purge_expired(dry_run=True)
    applied = 0
    if not dry_run and candidates:
        confirm(f"Delete {len(candidates)} expired memories?", yes=yes)
        applied = ctx.call("purge_expired", dry_run=False)["purged"]
    scored = [(memory_to_dict(m), None) for m in candidates]
    _emit_candidates(ctx, "purge", scored, dry_run=dry_run, applied=applied, show=show)


@click.command("reflect")
@operation_options("reflect", overrides={"consolidate": _BARE_CONSOLIDATE})
@output_options
@pass_ctx
def reflect(ctx: Context, dry_run: bool, yes: bool, **values: Any) -> None:
    """Summarise clusters of similar episodic memories into semantic ones. Dry-run by default."""
    given = arguments(values)
    if not dry_run and given.get("consolidate") == "hard":
        confirm("Create summaries and DELETE their source memories?", yes=yes)
    result = ctx.call("reflect", **given, dry_run=dry_run)
    _emit_reflection(ctx, result["memories"], dry_run=dry_run)


def _emit_reflection(ctx: Context, memories: list, *, dry_run: bool) -> None:
    if ctx.fmt == "json":
        echo_json(
            {
                "dry_run": dry_run,
                "count": len(memories),
                "memories": [memory_record(m) for m in memories],
            }
        )
        return
    if not memories:
        click.echo("No clusters found to reflect on.")
        return
    verb = "would be created" if dry_run else "created"
    click.echo(f"{len(memories)} semantic memories {verb}:", err=ctx.fmt == "tsv")
    print_memories(ctx.fmt, memories)
    if dry_run:
        click.echo("Dry-run — pass --apply to write.", err=True)


def register(cli: click.Group) -> None:
    for command in (prune, purge, reflect):
        cli.add_command(command)
