"""``houkai bench contention``: recall latency while a bulk ingest runs (issue #27)."""

from __future__ import annotations

import sys

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format


@click.command("contention")
@click.option(
    "--memories",
    type=click.IntRange(1, 100_000),
    default=5000,
    show_default=True,
    help="Memories in the collection the clients recall from.",
)
@click.option(
    "--ingest",
    type=click.IntRange(1, 100_000),
    default=10_000,
    show_default=True,
    help="Memories the concurrent ingest stores (another collection).",
)
@click.option(
    "--clients", type=click.IntRange(1, 64), default=16, show_default=True, help="Recall clients."
)
@click.option(
    "--seconds",
    type=click.FloatRange(1, 600),
    default=20.0,
    show_default=True,
    help="Length of each load phase (quiet, then under ingest).",
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="Repeats of every setup and variant (medians are reported).",
)
@click.option(
    "--setup",
    "setups",
    type=click.Choice(["worker", "inline"]),
    multiple=True,
    help="worker: a `houkai worker` embeds the ingest (as `houkai up`); inline: the API "
    "embeds it. Repeatable; default both.",
)
@click.option(
    "--variant",
    "variants",
    type=click.Choice(["off", "on"]),
    multiple=True,
    help="ADR 0073's mitigations (embed_query_priority, worker_nice) off or on. Repeatable; "
    "default both, alternating in each round.",
)
@click.option(
    "--mode",
    type=click.Choice(["semantic", "hybrid"]),
    default="semantic",
    show_default=True,
    help="Recall mode the clients use.",
)
@output_options
@pass_ctx
def bench_contention(
    ctx: Context,
    memories: int,
    ingest: int,
    clients: int,
    seconds: float,
    rounds: int,
    setups: tuple[str, ...],
    variants: tuple[str, ...],
    mode: str,
) -> None:
    """Recall p50/p99 of CLIENTS clients with and without a concurrent bulk ingest, with the
    read-priority mitigations off and on, in one run (medians of ROUNDS, same-round ratios)."""
    from ...bench.contention import SETUPS, VARIANTS, run
    from .bench_cmds import echo_result

    show = sys.stderr.isatty()

    def progress(label: str) -> None:
        if show:
            click.echo(f"\r\033[K{label}", nl=False, err=True)

    result = run(
        ctx.settings,
        memories=memories,
        ingest=ingest,
        clients=clients,
        seconds=seconds,
        rounds=rounds,
        setups=setups or SETUPS,
        variants=variants or VARIANTS,
        mode=mode,
        progress=progress,
    )
    if show:
        click.echo("\r\033[K", nl=False, err=True)
    echo_result(result, resolve_format(ctx.output_format) == "json")


def register(cli: click.Group) -> None:
    """Add this benchmark to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_contention)
