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
@operation_options("recall", arguments=("query",))
@output_options
@pass_ctx
def recall(ctx: Context, **values: Any) -> None:
    """Search memories by meaning (and keywords in hybrid mode)."""
    results = ctx.call("recall", **arguments(values))
    if values.get("explain") and ctx.fmt == "table":
        print_explained(results)
        return
    if values.get("explain") and ctx.fmt == "tsv":
        from ..output import Column

        # piped: the explanation as one JSON object per line, in its own column
        print_memories(ctx.fmt, results, show_score=True, extra=[Column("explain")])
        return
    print_memories(ctx.fmt, results, show_score=True)


def print_explained(results: list[dict[str, Any]]) -> None:
    """Each hit as a block (rank, score, id, type, age; its text; why), wrapped to the
    terminal: a WHY column broke into fragments at 80 columns."""
    from ..output import console, fmt_age, short_id

    out = console()
    width = max(40, out.width)
    if not results:
        click.echo("No memories found.", err=True)
        return
    for rank, hit in enumerate(results, 1):
        score = hit.get("score")
        head = (
            f"{rank}. {'—' if score is None else f'{score:.3f}'}  {short_id(hit['id'])}  "
            f"{hit.get('type')}  imp {float(hit.get('importance') or 0):.2f}  "
            f"{fmt_age(hit.get('created_at'))}"
        )
        lines = [head, *_wrap(hit.get("text") or "", width)]
        for label, words in _explain_words(hit.get("explain")):
            lines += _wrap(" ".join(words), width, label)
        out.print("\n".join(lines), markup=False, highlight=False, overflow="fold")
        out.print()


def _wrap(text: str, width: int, label: str = "") -> list[str]:
    import textwrap

    first = f"   {label}: " if label else "   "
    return textwrap.wrap(
        " ".join(text.split()) or "—",
        width,
        initial_indent=first,
        subsequent_indent=" " * len(first),
        break_on_hyphens=False,
    )


def _explain_words(explain: Any) -> list[tuple[str, list[str]]]:
    """``(label, ["key=value", …])`` lines of an explanation: its own numbers first
    ("why"), then each nested table (weights, stages, query, signals, rerank)."""
    if not isinstance(explain, dict):
        return []
    own = [
        f"{k}={_value(v)}"
        for k, v in explain.items()
        if k not in ("mode", "fusion", "score") and not isinstance(v, dict | list)
    ]
    out = [("why", own)] if own else []
    for key, value in explain.items():
        if isinstance(value, dict) and value:
            out.append(
                (key, [f"{k}={_value(v, signed=key == 'stages')}" for k, v in value.items()])
            )
    return out


def _value(value: Any, *, signed: bool = False) -> str:
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:+.3f}" if signed else f"{value:.3f}"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or "-"
    if isinstance(value, dict):
        return ",".join(f"{k}:{_value(v)}" for k, v in value.items())
    return str(value)


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
