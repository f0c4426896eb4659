"""``houkai bench stages``: hybrid recall latency per stage set, and against the seed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ...corpora import clustered
from .. import Context, pass_ctx
from ..output import output_options, resolve_format
from .bench_recall import int_list


@click.command("stages")
@click.option(
    "--sizes", default="20000,100000", show_default=True, help="Corpus sizes (comma-separated)."
)
@click.option(
    "--queries",
    "n_queries",
    type=click.IntRange(1, 100_000),
    default=180,
    show_default=True,
    help="Distinct queries per pass.",
)
@click.option("--k", "k", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option(
    "--rounds",
    type=click.IntRange(1, 50),
    default=3,
    show_default=True,
    help="Rounds; the stage sets' order flips each round and every ratio is the median "
    "of the same-round ratios.",
)
@click.option(
    "--interleave",
    is_flag=True,
    help="Time every query through every stage set back to back (order rotating per query) "
    "instead of one set's pass after another: a load change then hits all sets alike.",
)
@click.option(
    "--rest/--no-rest",
    default=False,
    show_default=True,
    help="Also time GET /recall through the REST app over HTTP keep-alive.",
)
@click.option(
    "--touch/--no-touch",
    default=True,
    show_default=True,
    help="Let recall bump access tracking of its hits (both libraries' default).",
)
@click.option(
    "--seed-python",
    type=click.Path(dir_okay=False),
    help="A Python with the seed (ai-houkai==0.16.0) installed: its hybrid recall is timed "
    "on the same corpus and queries between houkai's rounds (the uniform corpus only).",
)
@click.option(
    "--seed-size",
    type=click.IntRange(1),
    default=20_000,
    show_default=True,
    help="The corpus size at which the seed is measured (one of --sizes).",
)
@click.option(
    "--seed-threads",
    type=click.IntRange(0, 64),
    default=0,
    show_default=True,
    help="torch intra-op threads for the seed's query embedding (0: torch's default, every "
    "core; on a loaded machine its spinning threads can cost the seed seconds a query).",
)
@click.option(
    "--collection-prefix",
    default="bench-stages",
    show_default=True,
    help="Benchmark collections are named PREFIX-N.",
)
@click.option(
    "--corpus",
    type=click.Choice(["uniform", *clustered.NAMES]),
    default="uniform",
    show_default=True,
    help="uniform: the bench recall corpus (the seed is timed on it); logs: distinct facts "
    "then near-identical log lines; chat: small-talk turns with facts strewn in (questions "
    "worded from their lines).",
)
@click.option("--seed", type=int, default=7, show_default=True, help="Corpus and query seed.")
@click.option("--keep", is_flag=True, help="Keep the collections (a later run reuses them).")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    help="Also write the JSON result to this file.",
)
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    help="Also write the library rows and verdicts as a Markdown table to this file.",
)
@output_options
@pass_ctx
def bench_stages(
    ctx: Context,
    sizes: str,
    n_queries: int,
    k: int,
    rounds: int,
    interleave: bool,
    rest: bool,
    touch: bool,
    seed_python: str | None,
    seed_size: int,
    seed_threads: int,
    collection_prefix: str,
    corpus: str,
    seed: int,
    keep: bool,
    save_path: str | None,
    markdown_path: str | None,
) -> None:
    """Hybrid recall p50/p95 per stage set (plain blend, defaults, each default stage alone
    off), cold and warm query cache, as median same-run ratios to the plain blend; with
    --seed-python, the seed's cold hybrid p50 in the same run.
    """
    from ...bench import stage_cost
    from .bench_cmds import echo_result

    size_list = int_list(sizes, "--sizes")
    if seed_python and seed_size not in size_list:
        raise click.BadParameter(
            f"{seed_size} is not one of --sizes {sizes}", param_hint="--seed-size"
        )
    show = sys.stderr.isatty()

    def progress(message: str) -> None:
        if show:
            click.echo(f"\r\033[K{message}", nl=False, err=True)

    result = stage_cost.run(
        ctx.settings,
        size_list,
        n_queries=n_queries,
        k=k,
        rounds=rounds,
        rest=rest,
        touch=touch,
        seed=seed,
        collection_prefix=collection_prefix,
        keep=keep,
        seed_python=seed_python,
        seed_size=seed_size,
        seed_threads=seed_threads,
        interleave=interleave,
        corpus=corpus,
        progress=progress,
    )
    if show:
        click.echo("\r\033[K", nl=False, err=True)
    result.config["command"] = " ".join(["houkai", *sys.argv[1:]])
    if save_path:
        Path(save_path).parent.mkdir(parents=True, exist_ok=True)
        Path(save_path).write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    if markdown_path:
        Path(markdown_path).parent.mkdir(parents=True, exist_ok=True)
        Path(markdown_path).write_text(result.markdown(), encoding="utf-8")
    echo_result(result, resolve_format(ctx.output_format) == "json")


def register(cli: click.Group) -> None:
    """Add ``bench stages`` to the ``houkai bench`` group (it lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_stages)
