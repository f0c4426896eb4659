"""``houkai list`` and ``houkai show``: look at stored memories."""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import (
    SUPERSEDED_COLUMN,
    output_options,
    print_memories,
    print_memory_detail,
    resolve_id,
)
from ._ops import arguments, operation_options


@click.command("list")
@operation_options("list_recent")
@output_options
@pass_ctx
def list_cmd(ctx: Context, **values: Any) -> None:
    """List memories, newest first (filters run in RediSearch, not in Python)."""
    given = arguments(values)
    # with superseded ones, say which they are: a column by the flag, not by the data
    extra = [SUPERSEDED_COLUMN] if given.get("include_superseded") else []
    print_memories(ctx.fmt, ctx.call("list_recent", **given), extra=extra)


@click.command("show")
@operation_options("get", arguments=("memory_id",))
@output_options
@pass_ctx
def show(ctx: Context, memory_id: str) -> None:
    """Show every field of one memory (full id or a unique prefix)."""
    full = resolve_id(ctx.reader(), memory_id)
    print_memory_detail(ctx.fmt, ctx.call("get", full))


def register(cli: click.Group) -> None:
    cli.add_command(list_cmd)
    cli.add_command(show)
