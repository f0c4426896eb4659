"""``houkai collections list|create|delete|copy``: namespaces under one key prefix."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import Column, confirm, output_options, print_rows, report


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
@click.argument("name")
@output_options
@pass_ctx
def create(ctx: Context, name: str) -> None:
    """Create an empty collection (its index, with the current embedder's dimension)."""
    from ...db.keys import validate_collection

    validate_collection(name)
    if ctx.service.has_collection(name):
        raise click.ClickException(f"collection {name!r} already exists")
    ctx.store(name)
    report(ctx.fmt, {"name": name, "created": True}, f"Created collection {name!r}.")


@collections_group.command("delete")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
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
    store = ctx.store(name)
    count = store.count()
    confirm(f"Delete collection {name!r} and its {count} memories?", yes=yes)
    deleted = store.drop()
    report(
        ctx.fmt,
        {"name": name, "deleted": deleted},
        f"Deleted collection {name!r} ({deleted} memories).",
    )


def copy_memories(ctx: Context, src: str, dst: str) -> int:
    """Every memory of *src* into *dst* through the archive path (export → import).

    Vectors travel in the archive (no re-embedding), ids, links, supersede
    state and access tracking are kept, same ids in *dst* are overwritten, and
    each copy is journaled in *dst* as an ``import``: the same validation,
    journal and size checks as ``houkai export`` + ``houkai import``.
    """
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix="houkai-copy-", suffix=".ahkai")
    os.close(fd)
    try:
        ctx.call("export", tmp, include_vectors=True, include_superseded=True, collection=src)
        summary = ctx.call("import_", tmp, on_conflict="overwrite", collection=dst)
    finally:
        os.unlink(tmp)
    return int(summary["imported"]) + int(summary["overwritten"])


@collections_group.command("copy")
@click.argument("src")
@click.argument("dst")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@output_options
@pass_ctx
def copy(ctx: Context, src: str, dst: str, yes: bool) -> None:
    """Copy every memory of SRC into DST (created if missing), vectors included.

    Streams in batches, so it works at any size. Ids already in DST are overwritten.
    """
    from ...db.keys import validate_collection

    _require(ctx, src)
    validate_collection(dst)
    if src == dst:
        raise click.BadParameter("SRC and DST are the same collection", param_hint="DST")
    if ctx.service.has_collection(dst) and ctx.store(dst).count():
        confirm(
            f"Copy {ctx.store(src).count()} memories into the non-empty collection {dst!r} "
            "(same ids are overwritten)?",
            yes=yes,
        )
    copied = copy_memories(ctx, src, dst)
    report(
        ctx.fmt,
        {"src": src, "dst": dst, "copied": copied},
        f"Copied {copied} memories {src!r} → {dst!r}.",
    )


def register(cli: click.Group) -> None:
    cli.add_command(collections_group)


@collections_group.command("migrate")
@click.argument("name")
@click.option(
    "--vector-type",
    "vector_type",
    type=click.Choice(["FLOAT32", "FLOAT16", "BFLOAT16"], case_sensitive=False),
    default="FLOAT16",
    show_default=True,
    help="Element type to re-write the collection's vectors in.",
)
@click.option("--batch-size", type=click.IntRange(1, 100_000), default=1000, show_default=True)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@output_options
@pass_ctx
def migrate(ctx: Context, name: str, vector_type: str, batch_size: int, yes: bool) -> None:
    """Re-write a collection's vectors in another type, in place (resumable: run it again
    after an interruption). Search is off until it ends and the index rebuilds in the
    background; stop workers and the API first, so nothing writes old-type vectors."""
    from ...db.connection import connect
    from ...db.keys import Keys, validate_collection
    from ...store.migrate import migrate_vectors

    validate_collection(name)
    s = ctx.settings
    client = connect(s.redis_url, s.data_dir if not s.redis_url else None)
    names = {n.decode() for n in client.smembers(Keys.registry(s.key_prefix))}
    if name not in names:
        raise click.ClickException(f"no collection named {name!r}")
    confirm(f"Re-write the vectors of {name!r} as {vector_type.upper()}?", yes=yes)
    result = migrate_vectors(client, Keys(s.key_prefix, name), vector_type, batch_size=batch_size)
    text = (
        f"Collection {name!r} already holds {result.target} vectors."
        if not result.changed
        else f"Migrated {name!r} from {result.source} to {result.target}: "
        f"{result.converted} vectors re-written in {result.seconds:.1f}s; "
        "the index is rebuilding in the background."
    )
    report(ctx.fmt, result.to_dict(), text)
