"""``houkai collections list|create|delete|copy``: namespaces under one key prefix."""

from __future__ import annotations

from typing import Any

import click

from .. import Context, pass_ctx
from ..output import Column, confirm, output_options, print_rows, report
from ._ops import arguments, operation_options


def _names(ctx: Context) -> list[str]:
    return [c["name"] for c in ctx.service.collections()]


def _require(ctx: Context, name: str) -> None:
    from ...db.keys import validate_collection

    validate_collection(name)
    if not ctx.service.has_collection(name):
        raise click.ClickException(f"no collection named {name!r}")


@click.group("collections")
def collections_group() -> None:
    """List, create, delete and copy collections."""


@collections_group.command("list")
@output_options
@pass_ctx
def list_cmd(ctx: Context) -> None:
    """Every collection with its memory count (* = the active one, as set by --collection)."""
    rows = [{**c, "active": c["name"] == ctx.collection} for c in ctx.service.collections()]
    print_rows(
        ctx.fmt,
        rows,
        [
            Column("name", "COLLECTION"),
            Column("count", "MEMORIES", justify="right"),
            Column("active", "", show=lambda v: "*" if v else ""),
        ],
        empty="No collections.",
    )


@collections_group.command("create")
@operation_options("collection_create")
@output_options
@pass_ctx
def create(ctx: Context, name: str) -> None:
    """Create an empty collection (its index, with the current embedder's dimension)."""
    result = ctx.call("collection_create", name)
    report(ctx.fmt, result, f"Created collection {name!r}.")


@collections_group.command("delete")
@operation_options("collection_delete")
@output_options
@pass_ctx
def delete(ctx: Context, name: str, yes: bool) -> None:
    """Delete a collection: memories, index, journal and metrics. Irreversible.

    The active collection is refused (as in the seed): select another one with
    --collection first, or empty it with ``nuke``.
    """
    _require(ctx, name)
    if name == ctx.collection:
        raise click.ClickException(
            f"refusing to delete the active collection {name!r}; pass --collection OTHER "
            "to select another one first (or empty it with nuke)"
        )
    count = ctx.call("stats", collection=name)["count"]
    confirm(f"Delete collection {name!r} and its {count} memories?", yes=yes)
    result = ctx.call("collection_delete", name)
    report(ctx.fmt, result, f"Deleted collection {name!r} ({result['deleted']} memories).")


@collections_group.command("copy")
@operation_options("collection_copy")
@output_options
@pass_ctx
def copy(ctx: Context, src: str, dst: str, yes: bool) -> None:
    """Copy every memory of SRC into DST (created if missing), vectors included.

    Streams in batches, so it works at any size. Ids already in DST are overwritten.
    """
    _require(ctx, src)
    if src == dst:
        raise click.BadParameter("SRC and DST are the same collection", param_hint="DST")
    if ctx.service.has_collection(dst) and ctx.call("stats", collection=dst)["count"]:
        confirm(
            f"Copy {ctx.call('stats', collection=src)['count']} memories into the non-empty "
            f"collection {dst!r} (same ids are overwritten)?",
            yes=yes,
        )
    result = ctx.call("collection_copy", src, dst)
    report(ctx.fmt, result, f"Copied {result['copied']} memories {src!r} → {dst!r}.")


def register(cli: click.Group) -> None:
    cli.add_command(collections_group)


@collections_group.command("migrate")
@operation_options(
    "collection_migrate",
    overrides={"vector_type": {"type": click.Choice(["FLOAT32", "FLOAT16", "BFLOAT16"], False)}},
)
@output_options
@pass_ctx
def migrate(ctx: Context, name: str, yes: bool, **values: Any) -> None:
    """Re-write a collection's vectors in another type, in place (resumable: run it again
    after an interruption), and bring the statistics an earlier release wrote up to date
    (with the collection's own type, only that: each memory missing its stems or name
    marks is written once more, and re-indexed; memories that say they update another
    are linked to it, as new writes are). Search is off until it ends and the index
    rebuilds in the background; stop workers and the API first, so nothing writes
    old-type vectors."""
    from ...app.runtime import find

    given = arguments(values)
    given["vector_type"] = str(given.get("vector_type", "FLOAT16")).upper()
    server = find(ctx.settings.data_dir)
    if server is not None:  # its workers may write old-type vectors meanwhile
        click.echo(
            f"Warning: a houkai server runs for this data dir ({server.url}, pid {server.pid});"
            " stop it and its workers first, so nothing writes during the migration.",
            err=True,
        )
    confirm(f"Re-write the vectors of {name!r} as {given['vector_type']}?", yes=yes)
    result = ctx.call("collection_migrate", name, **given)
    links = result["update_links"]
    text = (
        f"Collection {name!r} already holds {result['target']} vectors."
        if not result["changed"]
        else f"Migrated {name!r} from {result['source']} to {result['target']}: "
        f"{result['converted']} vectors re-written in {result['seconds']:.1f}s; "
        "the index is rebuilding in the background."
    ) + (
        f" Statistics: {result['stems_upgraded']} memories given stems, "
        f"{result['recounted']} recounted (name marks, acronyms' plurals), "
        + (
            f"{links} new update links; "
            if links is not None
            else "no update links while the index rebuilds (run this again, with the same "
            "--vector-type, once it is built); "
        )
        + ("a memory follows another." if result["follows"] else "no memory follows another.")
    )
    report(ctx.fmt, result, text)
