"""``houkai link``, ``unlink``, ``neighbors`` and ``graph``: typed edges between memories."""

from __future__ import annotations

from typing import Any

import click

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
from ._ops import arguments, operation_options

#: ``link``/``unlink`` keep their SRC DST usage and their ``-r``.
_ENDS = ("src_id", "dst_id")
_REL = {"rel": ("-r",)}
_METAVARS = {"src_id": {"metavar": "SRC"}, "dst_id": {"metavar": "DST"}}


@click.command("link")
@operation_options("link", arguments=_ENDS, aliases=_REL, overrides=_METAVARS)
@output_options
@pass_ctx
def link(ctx: Context, src_id: str, dst_id: str, **values: Any) -> None:
    """Add a directed link SRC --rel--> DST (ids or unique prefixes)."""
    store = ctx.reader()
    src_id, dst_id = resolve_id(store, src_id), resolve_id(store, dst_id)
    result = ctx.call("link", src_id, dst_id, **arguments(values))
    rel = result.get("rel") or values.get("rel") or "related"
    report(ctx.fmt, result, f"Linked {short_id(src_id)} --[{rel}]--> {short_id(dst_id)}")


@click.command("unlink")
@operation_options("unlink", arguments=_ENDS, aliases=_REL, overrides=_METAVARS)
@output_options
@pass_ctx
def unlink(ctx: Context, src_id: str, dst_id: str, **values: Any) -> None:
    """Remove the link(s) from SRC to DST."""
    store = ctx.reader()
    src_id, dst_id = resolve_id(store, src_id), resolve_id(store, dst_id)
    result = ctx.call("unlink", src_id, dst_id, **arguments(values))
    report(ctx.fmt, result, f"Removed {result['removed']} link(s).")


@click.command("neighbors")
@operation_options(
    "neighbors",
    arguments=("memory_id",),
    aliases={**_REL, "direction": ("-d",), "depth": ("-D",)},
)
@output_options
@pass_ctx
def neighbors(ctx: Context, memory_id: str, **values: Any) -> None:
    """Memories linked to or from a memory."""
    full = resolve_id(ctx.reader(), memory_id)
    results = ctx.call("neighbors", full, **arguments(values))
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


def dot_quote(text: str) -> str:
    """*text* as a DOT quoted string: Graphviz reads UTF-8 and knows only ``\\"`` and its
    own backslash escapes, so non-ASCII stays as it is (JSON's ``\\u2026`` would print)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


@click.command("graph")
@operation_options(
    "subgraph",
    arguments=("memory_ids",),
    aliases={"depth": ("-D",)},
    overrides={"memory_ids": {"nargs": -1}},
)
@output_options
@pass_ctx
def graph(ctx: Context, memory_ids: tuple[str, ...], dot: bool, **values: Any) -> None:
    """The subgraph reachable from seed memories (ASCII, DOT or JSON)."""
    ids = resolve_ids(ctx.reader(), memory_ids)
    g = ctx.call("subgraph", ids, **arguments(values))
    if ctx.fmt == "json":
        echo_json(g)
        return
    nodes = {n["id"]: n for n in g["nodes"]}
    edges = [(e["src"], e["dst"], e["rel"]) for e in g["edges"]]
    if dot:
        click.echo("digraph houkai {")
        for node_id, memory in nodes.items():
            label = dot_quote(truncate(memory["text"], 40))
            click.echo(f"  {dot_quote(short_id(node_id))} [label={label}];")
        for s, d, r in edges:
            ends = f"{dot_quote(short_id(s))} -> {dot_quote(short_id(d))}"
            click.echo(f"  {ends} [label={dot_quote(r)}];")
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
