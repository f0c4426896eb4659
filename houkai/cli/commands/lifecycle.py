"""``houkai prune``, ``purge`` and ``reflect``: dry-run by default, ``--apply`` to write.

Defaults come from the ``[maintenance]`` settings, so a plain ``houkai prune``
previews exactly what the scheduled maintenance would remove.
"""

from __future__ import annotations

from typing import Literal

import click

from ...domain.model import MEMORY_TYPES
from .. import Context, pass_ctx
from ..output import confirm, echo_json, memory_record, output_options, print_memories
from ._ops import operation_options

yes_option = click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
apply_option = click.option("--apply", is_flag=True, help="Actually write (default: dry-run).")


def _protect_types(ctx: Context, protect: tuple[str, ...]) -> tuple[str, ...]:
    if protect:
        return tuple(protect)
    raw = ctx.settings.maintenance_decay_protect_types
    return tuple(t.strip() for t in raw.split(",") if t.strip())


def _emit_candidates(
    ctx: Context, title: str, scored: list, *, dry_run: bool, applied: int, show: int
) -> None:
    if ctx.fmt == "json":
        echo_json(
            {
                "dry_run": dry_run,
                "count": len(scored),
                "applied": applied,
                "memories": [memory_record(m, s) for m, s in scored],
            }
        )
        return
    if not scored:
        click.echo(f"Nothing to {title}.")
        return
    if dry_run:
        click.echo(f"{len(scored)} memories would be {title}d:", err=ctx.fmt == "tsv")
    print_memories(ctx.fmt, scored[:show], show_score=True)
    if len(scored) > show and ctx.fmt == "table":
        click.echo(f"… and {len(scored) - show} more (use --show to list more)")
    if dry_run:
        click.echo("Dry-run — pass --apply to delete.", err=True)
    else:
        click.echo(f"{title.capitalize()}d {applied} memories.", err=ctx.fmt == "tsv")


show_option = click.option(
    "--show",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="List at most this many candidates.",
)


@click.command("prune")
@click.option(
    "--decay-rate",
    type=click.FloatRange(min=0.0),
    help="Decay λ (default: maintenance_decay_rate).",
)
@click.option(
    "--min-score",
    type=click.FloatRange(min=0.0),
    help="Prune below this score (default: maintenance_decay_min_score).",
)
@click.option(
    "--frequency-weight",
    type=click.FloatRange(min=0.0),
    help="How strongly recall count resists decay (default: config).",
)
@click.option(
    "--protect",
    "protect",
    multiple=True,
    type=click.Choice(MEMORY_TYPES),
    help="Type never pruned (repeatable; default: maintenance_decay_protect_types).",
)
@apply_option
@yes_option
@show_option
@output_options
@pass_ctx
def prune(
    ctx: Context,
    decay_rate: float | None,
    min_score: float | None,
    frequency_weight: float | None,
    protect: tuple[str, ...],
    apply: bool,
    yes: bool,
    show: int,
) -> None:
    """Delete memories whose decay score fell below the threshold. Dry-run by default."""
    from ...engines.decay import DecayEngine

    s = ctx.settings
    engine = DecayEngine(
        ctx.reader(),
        decay_rate=s.maintenance_decay_rate if decay_rate is None else decay_rate,
        min_score=s.maintenance_decay_min_score if min_score is None else min_score,
        protect_types=_protect_types(ctx, protect),
        frequency_weight=(
            s.maintenance_decay_frequency_weight if frequency_weight is None else frequency_weight
        ),
    )
    candidates = engine.prune(dry_run=True)
    scored = [(m, engine.score(m)) for m in candidates]
    applied = 0
    if apply and candidates:
        confirm(f"Delete {len(candidates)} decayed memories?", yes=yes)
        applied = len(engine.prune(dry_run=False))
    _emit_candidates(ctx, "prune", scored, dry_run=not apply, applied=applied, show=show)


@click.command("purge")
@operation_options("purge_expired")
@show_option
@output_options
@pass_ctx
def purge(ctx: Context, dry_run: bool, yes: bool, show: int) -> None:
    """Hard-delete memories whose TTL has passed. Dry-run by default (--apply deletes)."""
    from ...app.service import memory_to_dict

    # The preview lists the candidates themselves (purge_expired answers with ids only).
    candidates = ctx.reader().purge_expired(dry_run=True)
    applied = 0
    if not dry_run and candidates:
        confirm(f"Delete {len(candidates)} expired memories?", yes=yes)
        applied = ctx.call("purge_expired", dry_run=False)["purged"]
    scored = [(memory_to_dict(m), None) for m in candidates]
    _emit_candidates(ctx, "purge", scored, dry_run=dry_run, applied=applied, show=show)


@click.command("reflect")
@click.option(
    "--threshold",
    type=click.FloatRange(0.0, 1.0),
    help="Cluster similarity (default: maintenance_reflect_similarity_threshold).",
)
@click.option(
    "--min-cluster-size",
    type=click.IntRange(min=2),
    help="Smallest cluster to summarise (default: config).",
)
@click.option("--summarizer", help="extractive | ollama:MODEL | openai:MODEL | anthropic:MODEL.")
@click.option(
    "--consolidate",
    type=click.Choice(["none", "soft", "hard"]),
    default="none",
    is_flag=False,
    flag_value="soft",
    show_default=True,
    help="After writing: soft = supersede + link the sources, hard = delete them.",
)
@apply_option
@yes_option
@output_options
@pass_ctx
def reflect(
    ctx: Context,
    threshold: float | None,
    min_cluster_size: int | None,
    summarizer: str | None,
    consolidate: str,
    apply: bool,
    yes: bool,
) -> None:
    """Summarise clusters of similar episodic memories into semantic ones. Dry-run by default."""
    from ...engines.reflection import ReflectionEngine
    from ...engines.summarizers import build_summarizer

    s = ctx.settings
    spec = s.maintenance_reflect_summarizer if summarizer is None else summarizer
    engine = ReflectionEngine(
        ctx.reader(),
        similarity_threshold=(
            s.maintenance_reflect_similarity_threshold if threshold is None else threshold
        ),
        min_cluster_size=(
            s.maintenance_reflect_min_cluster_size if min_cluster_size is None else min_cluster_size
        ),
        summarizer=build_summarizer(spec),
    )
    if not apply:
        plan = engine.reflect(dry_run=True)
        _emit_reflection(ctx, plan, dry_run=True)
        return
    if consolidate == "hard":
        confirm("Create summaries and DELETE their source memories?", yes=yes)
    arg: bool | Literal["hard"] = "hard" if consolidate == "hard" else consolidate == "soft"
    created = engine.reflect(dry_run=False, consolidate=arg)
    _emit_reflection(ctx, created, dry_run=False)


def _emit_reflection(ctx: Context, memories: list, *, dry_run: bool) -> None:
    if ctx.fmt == "json":
        echo_json(
            {
                "dry_run": dry_run,
                "count": len(memories),
                "memories": [memory_record(m) for m in memories],
            }
        )
        return
    if not memories:
        click.echo("No clusters found to reflect on.")
        return
    verb = "would be created" if dry_run else "created"
    click.echo(f"{len(memories)} semantic memories {verb}:", err=ctx.fmt == "tsv")
    print_memories(ctx.fmt, memories)
    if dry_run:
        click.echo("Dry-run — pass --apply to write.", err=True)


def register(cli: click.Group) -> None:
    for command in (prune, purge, reflect):
        cli.add_command(command)
