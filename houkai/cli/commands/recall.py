"""``houkai recall``, ``pack`` and ``auto-context``: the read path."""

from __future__ import annotations

from typing import Any

import click

from ...domain.timeparse import parse_timestamp
from .. import Context, pass_ctx
from ..output import echo_json, output_options, print_memories
from ._ops import arguments, operation_options


def parse_time_option(value: str | None, hint: str) -> float | None:
    """``--since`` / ``--until``: epoch, ISO-8601 (UTC when naive) or a span like 7d."""
    try:
        return parse_timestamp(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None


@click.command("recall")
@operation_options("recall", arguments=("query",), aliases={"k": ("--limit",)})
@output_options
@pass_ctx
def recall(ctx: Context, **values: Any) -> None:
    """Search memories by meaning (and keywords in hybrid mode)."""
    results = ctx.call("recall", **arguments(values))
    if values.get("explain") and ctx.fmt == "table":
        from ..output import Column

        extra = [Column("explain", "WHY", show=_fmt_explain, max_width=40)]
        print_memories(ctx.fmt, results, show_score=True, extra=extra)
        return
    print_memories(ctx.fmt, results, show_score=True)


def _fmt_explain(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    parts = []
    for key, item in value.items():
        if key in ("mode", "fusion", "score"):
            continue  # already visible: the command's flags and the SCORE column
        if isinstance(item, float):
            parts.append(f"{key}={item:.3f}")
        elif isinstance(item, int | str | bool):
            parts.append(f"{key}={item}")
    return " ".join(parts)


def _emit_pack(ctx: Context, result: dict[str, Any]) -> None:
    """The service's pack shape as JSON; else the block on stdout and a summary on stderr."""
    if ctx.fmt == "json":
        echo_json(result)
        return
    items = result.get("items") or []
    if not items:
        click.echo("No memories found.", err=True)
        return
    click.echo(result["text"])
    click.echo(
        f"[{len(items)} memories · {result['used_tokens']}/{result['budget']} tokens"
        f"{' · truncated' if result.get('truncated') else ''}]",
        err=True,
    )


@click.command("pack")
@operation_options("recall_pack", arguments=("query",))
@output_options
@pass_ctx
def pack(ctx: Context, **values: Any) -> None:
    """Fill a token budget with the most relevant memories (block on stdout)."""
    _emit_pack(ctx, ctx.call("recall_pack", **arguments(values)))


@click.command("auto-context")
@operation_options("auto_context", arguments=("task",))
@output_options
@pass_ctx
def auto_context(ctx: Context, **values: Any) -> None:
    """Recall over several angles of a task, then pack within the budget."""
    _emit_pack(ctx, ctx.call("auto_context", **arguments(values)))


def register(cli: click.Group) -> None:
    cli.add_command(recall)
    cli.add_command(pack)
    cli.add_command(auto_context)
