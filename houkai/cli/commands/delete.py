"""``houkai forget`` and ``houkai nuke``: hard deletes, always confirmed unless --yes.

Both take their parameters from the registry (the operations' CLI bindings add
the variadic ``MEMORY_ID…`` and ``--yes``).
"""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import confirm, output_options, report, resolve_ids, short_id
from ._ops import operation_options


@click.command("forget")
@operation_options("forget")
@output_options
@pass_ctx
def forget(ctx: Context, memory_id: tuple[str, ...], yes: bool) -> None:
    """Delete one or more memories (ids or unique prefixes). Undo with `journal undo`."""
    ids = list(dict.fromkeys(resolve_ids(ctx.reader(), memory_id)))
    noun = f"memory {short_id(ids[0])}" if len(ids) == 1 else f"{len(ids)} memories"
    confirm(f"Delete {noun}?", yes=yes)
    deleted = [one for one in ids if ctx.call("forget", one)["deleted"]]
    missing = [one for one in ids if one not in deleted]
    lines = [f"Deleted {short_id(m)}" for m in deleted]
    lines += [f"Not found (already deleted?): {short_id(m)}" for m in missing]
    report(ctx.fmt, {"deleted": deleted, "missing": missing}, "\n".join(lines))


@click.command("nuke")
@operation_options("nuke", overrides={"confirm": {"required": False}})
@output_options
@pass_ctx
def nuke(ctx: Context, yes: bool, **values: Any) -> None:
    """Delete EVERY memory of the current collection (the index stays).

    Asks first, unless --yes (or --confirm "DELETE ALL", the REST/MCP spelling)."""
    from ...app.service import NUKE_CONFIRM
    from ...domain.errors import NotFound

    name = ctx.collection
    try:
        count = ctx.reader().count()
    except NotFound:  # nothing to delete, and nuking never creates the collection
        count = 0
    if count == 0:
        report(
            ctx.fmt,
            {"ok": True, "deleted": 0, "collection": name},
            f"Collection {name!r} is already empty.",
        )
        return
    given = values.get("confirm")
    if given is None:
        confirm(f"Delete all {count} memories in collection {name!r}?", yes=yes)
        given = NUKE_CONFIRM
    deleted = ctx.call("nuke", given)["deleted"]
    report(
        ctx.fmt,
        {"ok": True, "deleted": deleted, "collection": name},
        f"Deleted {deleted} memories from {name!r}.",
    )


def register(cli: click.Group) -> None:
    cli.add_command(forget)
    cli.add_command(nuke)
