"""``houkai forget`` and ``houkai nuke``: hard deletes, always confirmed unless --yes."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import confirm, output_options, report, resolve_ids, short_id

yes_option = click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")


@click.command("forget")
@click.argument("memory_ids", nargs=-1, required=True)
@yes_option
@output_options
@pass_ctx
def forget(ctx: Context, memory_ids: tuple[str, ...], yes: bool) -> None:
    """Delete one or more memories (ids or unique prefixes). Undo with `journal undo`."""
    ids = list(dict.fromkeys(resolve_ids(ctx.reader(), memory_ids)))
    noun = f"memory {short_id(ids[0])}" if len(ids) == 1 else f"{len(ids)} memories"
    confirm(f"Delete {noun}?", yes=yes)
    deleted = [memory_id for memory_id in ids if ctx.call("forget", memory_id)["deleted"]]
    missing = [memory_id for memory_id in ids if memory_id not in deleted]
    lines = [f"Deleted {short_id(m)}" for m in deleted]
    lines += [f"Not found (already deleted?): {short_id(m)}" for m in missing]
    report(ctx.fmt, {"deleted": deleted, "missing": missing}, "\n".join(lines))


@click.command("nuke")
@yes_option
@output_options
@pass_ctx
def nuke(ctx: Context, yes: bool) -> None:
    """Delete EVERY memory of the current collection (the index stays)."""
    name = ctx.collection
    count = ctx.store().count()
    if count == 0:
        report(
            ctx.fmt,
            {"ok": True, "deleted": 0, "collection": name},
            f"Collection {name!r} is already empty.",
        )
        return
    confirm(f"Delete all {count} memories in collection {name!r}?", yes=yes)
    from ...app.service import NUKE_CONFIRM

    deleted = ctx.call("nuke", NUKE_CONFIRM)["deleted"]
    report(
        ctx.fmt,
        {"ok": True, "deleted": deleted, "collection": name},
        f"Deleted {deleted} memories from {name!r}.",
    )


def register(cli: click.Group) -> None:
    cli.add_command(forget)
    cli.add_command(nuke)
