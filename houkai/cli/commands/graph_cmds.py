"""``houkai link``, ``unlink``, ``neighbors`` and ``graph``: typed edges between memories."""

from __future__ import annotations

import json

import click

from ...domain.model import DIRECTIONS, LINK_RELS
from .. import Context, pass_ctx
from ..output import (
    Column,
    echo_json,
    output_options,
    print_rows,
    report,
    resolve_id,
    resolve_ids,
    short_id,
    truncate,
)


@click.command("link")
@click.argument("src")
@click.argument("dst")
@click.option(
    "--rel",
    "-r",
    type=click.Choice(LINK_RELS),
    default="related",
    show_default=True,
    help="Relation of the edge.",
)
@output_options
@pass_ctx
def link(ctx: Context, src: str, dst: str, rel: str) -> None:
    """Add a directed link SRC --rel--> DST (ids or unique prefixes)."""
    store = ctx.reader()
    src_id, dst_id = resolve_id(store, src), resolve_id(store, dst)
    result = ctx.call("link", src_id, dst_id, rel=rel)
    report(ctx.fmt, result, f"Linked {short_id(src_id)} --[{rel}]--> {short_id(dst_id)}")


@click.command("unlink")
@click.argument("src")
@click.argument("dst")
@click.option(
    "--rel", "-r", type=click.Choice(LINK_RELS), help="Only this relation (default: all)."
)
@output_options
@pass_ctx
def unlink(ctx: Context, src: str, dst: str, rel: str | None) -> None:
    """Remove the link(s) from SRC to DST."""
    store = ctx.reader()
    src_id, dst_id = resolve_id(store, src), resolve_id(store, dst)
    result = ctx.call("unlink", src_id, dst_id, rel=rel)
    report(ctx.fmt, result, f"Removed {result['removed']} link(s).")


@click.command("neighbors")
@click.argument("memory_id")
@click.option("--rel", "-r", type=click.Choice(LINK_RELS), help="Only this relation.")
@click.option("--direction", "-d", type=click.Choice(DIRECTIONS), default="both", show_default=True)
@click.option("--depth", "-D", type=click.IntRange(min=1), default=1, show_default=True)
@output_options
@pass_ctx
def neighbors(ctx: Context, memory_id: str, rel: str | None, direction: str, depth: int) -> None:
    """Memories linked to or from a memory."""
    full = resolve_id(ctx.reader(), memory_id)
    results = ctx.call("neighbors", full, rel=rel, direction=direction, depth=depth)
    rows = [{"rel": n["rel"], "id": n["id"], "type": n["type"], "text": n["text"]} for n in results]
    print_rows(
        ctx.fmt,
        rows,
        [
            Column("rel", "REL"),
            Column("id", "ID", show=short_id, style="dim"),
            Column("type", "TYPE"),
            Column("text", "TEXT", show=lambda v: truncate(v, 70)),
        ],
        json_data=results,
        empty="No neighbors found.",
    )


@click.command("graph")
@click.argument("memory_ids", nargs=-1, required=True)
@click.option("--depth", "-D", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--dot", is_flag=True, help="Print Graphviz DOT instead.")
@output_options
@pass_ctx
def graph(ctx: Context, memory_ids: tuple[str, ...], depth: int, dot: bool) -> None:
    """The subgraph reachable from seed memories (ASCII, DOT or JSON)."""
    g = ctx.call("subgraph", resolve_ids(ctx.reader(), memory_ids), depth=depth)
    if ctx.fmt == "json":
        echo_json(g)
        return
    nodes = {n["id"]: n for n in g["nodes"]}
    edges = [(e["src"], e["dst"], e["rel"]) for e in g["edges"]]
    if dot:
        click.echo("digraph houkai {")
        for node_id, memory in nodes.items():
            label = json.dumps(truncate(memory["text"], 40))
            click.echo(f"  {json.dumps(short_id(node_id))} [label={label}];")
        for s, d, r in edges:
            click.echo(
                f"  {json.dumps(short_id(s))} -> {json.dumps(short_id(d))} [label={json.dumps(r)}];"
            )
        click.echo("}")
        return
    if ctx.fmt == "tsv":
        click.echo("src\tdst\trel")
        for s, d, r in edges:
            click.echo(f"{s}\t{d}\t{r}")
        return
    for node_id, memory in nodes.items():
        click.echo(f"[{short_id(node_id)}] {truncate(memory['text'], 70)}")
    for s, d, r in edges:
        click.echo(f"  {short_id(s)} --[{r}]--> {short_id(d)}")


def register(cli: click.Group) -> None:
    for command in (link, unlink, neighbors, graph):
        cli.add_command(command)
