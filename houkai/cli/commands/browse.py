"""``houkai list`` and ``houkai show``: look at stored memories."""

from __future__ import annotations

from typing import Any

import click

from ...domain.model import LIST_SORTS
from .. import Context, pass_ctx
from ..output import output_options, print_memories, print_memory_detail, resolve_id
from ._ops import arguments, operation_options
from .recall import parse_time_option


@click.command("list")
@operation_options("list_recent")
@click.option("--source", "-s", help="Only this exact source.")
@click.option("--since", help="Created at/after: epoch, ISO-8601 or a span like 7d.")
@click.option(
    "--sort",
    type=click.Choice(sorted(LIST_SORTS)),
    default="created",
    show_default=True,
    help="Newest first by this field.",
)
@output_options
@pass_ctx
def list_cmd(ctx: Context, source: str | None, since: str | None, sort: str, **values: Any) -> None:
    """List memories, newest first (filters run in RediSearch, not in Python)."""
    if source is None and since is None and sort == "created":
        memories = ctx.call("list_recent", **arguments(values))
    else:
        # Stopgap until the list operation declares source/since/sort: the store's
        # public list_recent, on an existing collection only, in the service's shape.
        given = arguments(values)
        memories = ctx.reader().list_recent(
            given.get("limit", 20),
            given.get("include_superseded", False),
            given.get("include_expired", False),
            type=given.get("type"),
            tag=given.get("tag"),
            source=source,
            since=parse_time_option(since, "--since"),
            sort=sort,
        )
    print_memories(ctx.fmt, memories)


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
