"""``houkai recall``, ``pack`` and ``auto-context``: the read path."""

from __future__ import annotations

from typing import Any

import click

from ...domain.model import FUSIONS, MEMORY_TYPES, RECALL_MODES
from ...domain.timeparse import parse_timestamp
from .. import Context, pass_ctx
from ..output import echo_json, output_options, print_memories


def parse_time_option(value: str | None, hint: str) -> float | None:
    """``--since`` / ``--until``: epoch, ISO-8601 (UTC when naive) or a span like 7d."""
    try:
        return parse_timestamp(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None


UNIT = click.FloatRange(0.0, 1.0)
COSINE = click.FloatRange(-1.0, 1.0)


def filter_options(f):
    """The metadata filters shared by recall and pack (seed §14 'Metadata filters')."""
    for decorator in reversed(
        [
            click.option(
                "--type", "-t", "type_", type=click.Choice(MEMORY_TYPES), help="Only this type."
            ),
            click.option("--tag", "-g", help="Only memories carrying this tag."),
            click.option("--min-importance", type=UNIT, help="Only importance >= this."),
            click.option("--source", "-s", help="Only this exact source."),
            click.option("--since", help="Created at/after: epoch, ISO-8601 or a span like 7d."),
            click.option("--until", help="Created at/before: epoch, ISO-8601 or a span like 24h."),
            click.option("--include-superseded", is_flag=True, help="Also superseded memories."),
            click.option(
                "--mode",
                type=click.Choice(RECALL_MODES),
                default=None,
                help="semantic (cosine) or hybrid (cosine+BM25+recency+importance).",
            ),
        ]
    ):
        f = decorator(f)
    return f


def _filters(type_, tag, min_importance, source, since, until) -> dict[str, Any]:
    return dict(
        type=type_,
        tag=tag,
        min_importance=min_importance,
        source=source,
        since=parse_time_option(since, "--since"),
        until=parse_time_option(until, "--until"),
    )


def given(**kwargs: Any) -> dict[str, Any]:
    """Only the options the user set: the service's (the one declaration's) defaults apply."""
    return {k: v for k, v in kwargs.items() if v is not None}


@click.command("recall")
@click.argument("query")
@click.option(
    "--k",
    "-k",
    "--limit",
    "k",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="How many results.",
)
@filter_options
@click.option("--include-expired", is_flag=True, help="Also memories whose TTL has passed.")
@click.option("--explain", is_flag=True, help="Show the score breakdown of each result.")
@click.option(
    "--fusion",
    type=click.Choice(FUSIONS),
    help="How hybrid signals combine (default: weighted).",
)
@click.option("--diversity", type=UNIT, help="MMR trade-off 0..1 (lower = more novelty).")
@click.option("--dedup-threshold", type=COSINE, help="Drop results this similar to a kept one.")
@click.option("--min-cosine", type=COSINE, help="Absolute relevance floor.")
@click.option("--no-touch", is_flag=True, help="Read-only: do not bump access counts.")
@output_options
@pass_ctx
def recall(
    ctx: Context,
    query: str,
    k: int,
    type_,
    tag,
    min_importance,
    source,
    since,
    until,
    include_superseded: bool,
    mode: str | None,
    include_expired: bool,
    explain: bool,
    fusion: str | None,
    diversity,
    dedup_threshold,
    min_cosine,
    no_touch: bool,
) -> None:
    """Search memories by meaning (and keywords in hybrid mode)."""
    results = ctx.call(
        "recall",
        query,
        k=k,
        **given(
            **_filters(type_, tag, min_importance, source, since, until),
            mode=mode,
            fusion=fusion,
            diversity=diversity,
            dedup_threshold=dedup_threshold,
            min_cosine=min_cosine,
        ),
        include_superseded=include_superseded,
        include_expired=include_expired,
        explain=explain,
        touch=not no_touch,
    )
    if explain and ctx.fmt == "table":
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
@click.argument("query")
@click.option(
    "--budget",
    "-b",
    type=click.IntRange(min=1),
    default=800,
    show_default=True,
    help="Token budget of the block.",
)
@filter_options
@click.option(
    "--max-items",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Ranked candidates to consider.",
)
@click.option(
    "--header", default="## Relevant memory", show_default=True, help="Block header ('' to omit)."
)
@click.option("--compress", is_flag=True, help="Fold similar low-ranked memories into one line.")
@output_options
@pass_ctx
def pack(
    ctx: Context,
    query: str,
    budget: int,
    type_,
    tag,
    min_importance,
    source,
    since,
    until,
    include_superseded: bool,
    mode: str | None,
    max_items: int,
    header: str,
    compress: bool,
) -> None:
    """Fill a token budget with the most relevant memories (block on stdout)."""
    result = ctx.call(
        "recall_pack",
        query,
        token_budget=budget,
        **given(**_filters(type_, tag, min_importance, source, since, until), mode=mode),
        max_items=max_items,
        include_superseded=include_superseded,
        header=header,
        compress=compress,
    )
    _emit_pack(ctx, result)


@click.command("auto-context")
@click.argument("task")
@click.option(
    "--budget",
    "-b",
    type=click.IntRange(min=1),
    default=800,
    show_default=True,
    help="Token budget of the block.",
)
@click.option(
    "--max-phrases",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Key phrases to fan out over besides the task itself.",
)
@click.option("--mode", type=click.Choice(RECALL_MODES), default="hybrid", show_default=True)
@click.option("--min-cosine", type=COSINE, help="Relevance floor per fan-out query.")
@click.option(
    "--header", default="## Relevant memory", show_default=True, help="Block header ('' to omit)."
)
@output_options
@pass_ctx
def auto_context(
    ctx: Context,
    task: str,
    budget: int,
    max_phrases: int,
    mode: str,
    min_cosine: float | None,
    header: str,
) -> None:
    """Recall over several angles of a task, then pack within the budget."""
    result = ctx.call(
        "auto_context",
        task,
        token_budget=budget,
        max_phrases=max_phrases,
        mode=mode,
        min_cosine=min_cosine,
        header=header,
    )
    _emit_pack(ctx, result)


def register(cli: click.Group) -> None:
    cli.add_command(recall)
    cli.add_command(pack)
    cli.add_command(auto_context)
