"""``houkai conflicts``, ``supersede`` and ``restore``: duplicates, contradictions, versions."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import Column, output_options, print_rows, report, resolve_id, short_id, truncate


@click.command("conflicts")
@click.option("--id", "memory_id", help="Check one memory (default: scan the collection).")
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0),
    help="Similarity threshold (default: config conflict_threshold).",
)
@output_options
@pass_ctx
def conflicts(ctx: Context, memory_id: str | None, threshold: float | None) -> None:
    """Find near-duplicate or contradictory memory pairs."""
    store = ctx.store()
    full = resolve_id(store, memory_id) if memory_id else None
    found = store.find_conflicts(memory_id=full, threshold=threshold)
    rows = [
        {
            "kind": c.kind,
            "similarity": round(c.similarity, 4),
            "reason": c.reason,
            "a": c.a.id,
            "a_text": c.a.text,
            "b": c.b.id,
            "b_text": c.b.text,
        }
        for c in found
    ]
    print_rows(
        ctx.fmt,
        rows,
        [
            Column("kind", "KIND"),
            Column("similarity", "SIM", show=lambda v: f"{v:.3f}"),
            Column("reason", "REASON"),
            Column("a", "A", show=short_id, style="dim"),
            Column("a_text", "A TEXT", show=lambda v: truncate(v, 40)),
            Column("b", "B", show=short_id, style="dim"),
            Column("b_text", "B TEXT", show=lambda v: truncate(v, 40)),
        ],
        json_data=[c.to_dict() for c in found],
        empty="No conflicts found.",
    )


@click.command("supersede")
@click.argument("old_id")
@click.argument("new_id")
@output_options
@pass_ctx
def supersede(ctx: Context, old_id: str, new_id: str) -> None:
    """Mark OLD as superseded by NEW (hidden from recall; `restore` undoes it)."""
    store = ctx.store()
    old, new = resolve_id(store, old_id), resolve_id(store, new_id)
    store.supersede(old, new)
    report(
        ctx.fmt,
        {"old_id": old, "new_id": new, "superseded": True},
        f"{short_id(old)} superseded by {short_id(new)}",
    )


@click.command("restore")
@click.argument("memory_id")
@output_options
@pass_ctx
def restore(ctx: Context, memory_id: str) -> None:
    """Clear a memory's superseded marker."""
    store = ctx.store()
    full = resolve_id(store, memory_id)
    restored = bool(store.restore(full))
    report(
        ctx.fmt,
        {"id": full, "restored": restored},
        f"{short_id(full)} restored." if restored else f"{short_id(full)} was not superseded.",
    )


def register(cli: click.Group) -> None:
    for command in (conflicts, supersede, restore):
        cli.add_command(command)
