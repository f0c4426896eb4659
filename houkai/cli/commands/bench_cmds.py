"""``houkai bench ingest``: end-to-end ingest rate versus the raw encode rate."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format


def backend_options(command: Any) -> Any:
    """``--embedder``, ``--compare`` and ``--rounds``: which embedding backend a benchmark
    measures."""
    command = click.option(
        "--rounds",
        type=click.IntRange(1, 20),
        default=1,
        show_default=True,
        help="With --compare: alternate the backends this many rounds and report the "
        "median of each same-run ratio (a shared machine's load drifts).",
    )(command)
    command = click.option(
        "--compare",
        is_flag=True,
        help="Run minilm-torch, then the default backend, in one run and print their ratios.",
    )(command)
    return click.option(
        "--embedder",
        "embedder",
        help="Backend to measure, e.g. minilm-torch, minilm-onnx, minilm-onnx-int8 "
        "(default: the configured embedder).",
    )(command)


@click.group("bench")
def bench_group() -> None:
    """Benchmarks (they write to a throwaway collection and drop it)."""


@bench_group.command("ingest")
@click.option(
    "--n",
    "n",
    type=click.IntRange(1),
    default=10_000,
    show_default=True,
    help="Memories to ingest.",
)
@click.option(
    "--mode",
    type=click.Choice(["worker", "inline"]),
    default="worker",
    show_default=True,
    help="worker: via Celery (a worker is started if none is alive); inline: in-process.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1),
    default=None,
    help="Items per embed task (default: ingest_batch_size).",
)
@click.option(
    "--sample",
    type=click.IntRange(1),
    default=2000,
    show_default=True,
    help="Texts encoded to measure the raw encode rate.",
)
@click.option("--keep", is_flag=True, help="Keep the benchmark collection.")
@backend_options
@output_options
@pass_ctx
def bench_ingest(
    ctx: Context,
    n: int,
    mode: str,
    batch_size: int | None,
    sample: int,
    keep: bool,
    embedder: str | None,
    compare: bool,
    rounds: int,
) -> None:
    """Ingest N synthetic memories end to end; print memories/s, raw encode rate, ratio and
    Redis bytes per memory."""
    from ...bench.backends import compare_ingest
    from ...bench.ingest import run
    from ...engines.embeddings import build_embedder

    show = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            click.echo(f"\r{done}/{total}", nl=False, err=True)

    settings = ctx.settings
    if embedder:
        build_embedder(embedder)  # an unknown spec fails here, before any work
        settings = settings.replace(embedder=embedder)
    options: dict[str, Any] = dict(
        mode=mode, batch_size=batch_size, sample=sample, keep=keep, progress=progress
    )
    if compare:
        result: Any = compare_ingest(settings, n, rounds=rounds, **options)
    else:
        result = run(settings, n, own_worker=bool(embedder), **options)
    if show:
        click.echo("", err=True)
    echo_result(result, resolve_format(ctx.output_format) == "json")


def echo_result(result: Any, as_json: bool) -> None:
    """Print a benchmark result: its ``to_dict()`` as JSON, else its ``lines()``."""
    if as_json:
        click.echo(json.dumps(result.to_dict()))
    else:
        for line in result.lines():
            click.echo(line)


def register(cli: click.Group) -> None:
    cli.add_command(bench_group)
