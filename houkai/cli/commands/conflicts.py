"""``houkai conflicts``, ``supersede`` and ``restore``: duplicates, contradictions, versions."""

from __future__ import annotations

from typing import Any

import click

from ...app.operations.params import FindConflicts
from .. import Context, pass_ctx
from ..output import Column, output_options, print_rows, report, resolve_id, short_id, truncate
from ._ops import arguments, operation_options


@click.command("conflicts")
@operation_options("find_conflicts")
@output_options
@pass_ctx
def conflicts(ctx: Context, resolve: str | None, **values: Any) -> None:
    """Find near-duplicate or contradictory memory pairs."""
    given = arguments(values)
    if given.get("memory_id"):
        given["memory_id"] = resolve_id(ctx.reader(), given["memory_id"])
    found = ctx.call("find_conflicts", **given)
    limit = int(given.get("limit") or DEFAULT_CONFLICT_LIMIT)
    if len(found) >= limit:  # the scan stopped there: say so, there may be more
        click.echo(f"Note: the first {limit} pairs (--limit); there may be more.", err=True)
    if resolve == "interactive":
        _resolve_interactively(ctx, found)
        return
    rows = [
        {
            "kind": c["kind"],
            "similarity": c["similarity"],
            "reason": c["reason"],
            "a": c["a"]["id"],
            "a_text": c["a"]["text"],
            "b": c["b"]["id"],
            "b_text": c["b"]["text"],
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
        json_data=found,
        empty="No conflicts found.",
    )


#: How many pairs a scan answers unless told (the operation's declared default).
DEFAULT_CONFLICT_LIMIT = FindConflicts.model_fields["limit"].default

_ACTIONS = (
    "(k)eep both / (s)upersede A by B / (S)upersede B by A / (d)elete A / (D)elete B / (skip)"
)


def _resolve_interactively(ctx: Context, found: list[dict[str, Any]]) -> None:
    """The seed's ``--resolve interactive``: one answer per pair (stdin may be piped).

    A memory deleted or superseded in an earlier pair is not touched again
    when it reappears in a later one: that pair is skipped.
    """
    if not found:
        click.echo("No conflicts found.")
        return
    click.echo(f"Found {len(found)} conflict(s):\n")
    resolved: set[str] = set()
    for n, c in enumerate(found, 1):
        a, b = c["a"]["id"], c["b"]["id"]
        click.echo(
            f"[{n}] {c['kind'].upper()}  sim={c['similarity']:.3f}  reason={c['reason']}\n"
            f"  A [{short_id(a)}] {truncate(c['a']['text'], 70)}\n"
            f"  B [{short_id(b)}] {truncate(c['b']['text'], 70)}\n"
        )
        if a in resolved or b in resolved:
            click.echo("  Skipped (a memory in this pair was already resolved).")
            continue
        try:
            action = click.prompt(f"  Action: {_ACTIONS}", default="skip", show_default=False)
        except click.Abort:  # end of piped input, or Ctrl-C: say what was done
            raise click.ClickException(
                f"stopped at pair {n} of {len(found)}: the {len(resolved)} change(s) answered "
                "before it are applied, the rest are left as they are"
            ) from None
        if action == "s":
            ctx.call("supersede", a, b)
            resolved.add(a)
            click.echo("  A superseded by B.")
        elif action == "S":
            ctx.call("supersede", b, a)
            resolved.add(b)
            click.echo("  B superseded by A.")
        elif action == "d":
            ctx.call("forget", a)
            resolved.add(a)
            click.echo("  Deleted A.")
        elif action == "D":
            ctx.call("forget", b)
            resolved.add(b)
            click.echo("  Deleted B.")
        else:
            click.echo("  Kept both." if action == "k" else "  Skipped.")


@click.command("supersede")
@operation_options("supersede", arguments=("old_id", "new_id"))
@output_options
@pass_ctx
def supersede(ctx: Context, old_id: str, new_id: str) -> None:
    """Mark OLD as superseded by NEW (hidden from recall; `restore` undoes it)."""
    store = ctx.reader()
    old, new = resolve_id(store, old_id), resolve_id(store, new_id)
    result = ctx.call("supersede", old, new)
    report(ctx.fmt, result, f"{short_id(old)} superseded by {short_id(new)}")


@click.command("restore")
@operation_options("restore", arguments=("memory_id",))
@output_options
@pass_ctx
def restore(ctx: Context, memory_id: str) -> None:
    """Clear a memory's superseded marker."""
    full = resolve_id(ctx.reader(), memory_id)
    result = ctx.call("restore", full)
    done = "restored." if result["restored"] else "was not superseded."
    report(ctx.fmt, result, f"{short_id(full)} {done}")


def register(cli: click.Group) -> None:
    for command in (conflicts, supersede, restore):
        cli.add_command(command)
