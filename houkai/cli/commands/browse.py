"""``houkai list`` and ``houkai show``: look at stored memories."""

from __future__ import annotations

import click

from ...domain.model import LIST_SORTS, MEMORY_TYPES
from .. import Context, pass_ctx
from ..output import output_options, print_memories, print_memory_detail, resolve_id
from .recall import parse_time_option


@click.command("list")
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many memories.",
)
@click.option("--type", "-t", "type_", type=click.Choice(MEMORY_TYPES), help="Only this type.")
@click.option("--tag", "-g", help="Only memories carrying this tag.")
@click.option("--source", "-s", help="Only this exact source.")
@click.option("--since", help="Created at/after: epoch, ISO-8601 or a span like 7d.")
@click.option(
    "--sort",
    type=click.Choice(sorted(LIST_SORTS)),
    default="created",
    show_default=True,
    help="Newest first by this field.",
)
@click.option("--include-superseded", is_flag=True, help="Also superseded memories.")
@click.option("--include-expired", is_flag=True, help="Also memories whose TTL has passed.")
@output_options
@pass_ctx
def list_cmd(
    ctx: Context,
    limit: int,
    type_: str | None,
    tag: str | None,
    source: str | None,
    since: str | None,
    sort: str,
    include_superseded: bool,
    include_expired: bool,
) -> None:
    """List memories, newest first (filters run in RediSearch, not in Python)."""
    if source is None and since is None and sort == "created":
        memories = ctx.call(
            "list_recent",
            limit=limit,
            include_superseded=include_superseded,
            include_expired=include_expired,
            type=type_,
            tag=tag,
        )
    else:
        # Stopgap until the list operation declares source/since/sort: the store's
        # public list_recent, on an existing collection only, in the service's shape.
        memories = ctx.reader().list_recent(
            limit,
            include_superseded,
            include_expired,
            type=type_,
            tag=tag,
            source=source,
            since=parse_time_option(since, "--since"),
            sort=sort,
        )
    print_memories(ctx.fmt, memories)


@click.command("show")
@click.argument("memory_id")
@output_options
@pass_ctx
def show(ctx: Context, memory_id: str) -> None:
    """Show every field of one memory (full id or a unique prefix)."""
    full = resolve_id(ctx.reader(), memory_id)
    print_memory_detail(ctx.fmt, ctx.call("get", full))


def register(cli: click.Group) -> None:
    cli.add_command(list_cmd)
    cli.add_command(show)
