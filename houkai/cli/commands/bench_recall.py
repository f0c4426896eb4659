"""``houkai bench recall``: recall latency (library, REST) and HNSW recall@10 by corpus size."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .. import Context, pass_ctx
from ..output import output_options, resolve_format
from .bench_cmds import backend_options


def int_list(value: str, name: str) -> list[int]:
    try:
        items = [int(x.strip().replace("_", "")) for x in value.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(
            f"expected comma-separated integers, got {value!r}", param_hint=name
        ) from None
    if not items or any(x < 1 for x in items):
        raise click.BadParameter(f"expected positive integers, got {value!r}", param_hint=name)
    return items


@click.command("recall")
@click.option(
    "--sizes", default="10000,100000", show_default=True, help="Corpus sizes (comma-separated)."
)
@click.option(
    "--queries",
    "n_queries",
    type=click.IntRange(1, 100_000),
    default=200,
    show_default=True,
    help="Distinct queries per pass.",
)
@click.option(
    "--k",
    "k",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="Results per recall (and the k of recall@k).",
)
@click.option(
    "--ef-sweep",
    default="10,32,64,128,256",
    show_default=True,
    help="Query-time EF_RUNTIME values for the HNSW quality sweep "
    "(the configured one is always added).",
)
@click.option(
    "--rest/--no-rest",
    default=True,
    show_default=True,
    help="Also measure GET /recall through the REST app over HTTP keep-alive.",
)
@click.option(
    "--touch/--no-touch",
    default=True,
    show_default=True,
    help="Let recall bump access tracking of its hits (the library default).",
)
@click.option(
    "--collection-prefix",
    default="bench-recall",
    show_default=True,
    help="Benchmark collections are named PREFIX-N.",
)
@click.option("--seed", type=int, default=7, show_default=True, help="Corpus and query seed.")
@click.option(
    "--keep",
    is_flag=True,
    help="Keep the collections (a later run with the same corpus reuses them).",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False),
    help="Write a PNG of latency percentiles by size and mode (needs houkai[bench]).",
)
@click.option(
    "--corpus-embedder",
    help="Backend that embeds the stored corpus (default: the one measured, which always "
    "embeds the queries); with --compare every backend then queries one shared collection.",
)
@backend_options
@output_options
@pass_ctx
def bench_recall(
    ctx: Context,
    sizes: str,
    n_queries: int,
    k: int,
    ef_sweep: str,
    rest: bool,
    touch: bool,
    collection_prefix: str,
    seed: int,
    keep: bool,
    plot_path: str | None,
    embedder: str | None,
    compare: bool,
    rounds: int,
    corpus_embedder: str | None,
) -> None:
    """Recall latency p50/p95/p99 (library and REST; semantic and hybrid; with and without a
    tag+type filter; cold and warm query cache) and HNSW recall@k against exact search.

    Corpus vectors are embedded once and cached under DATA_DIR/bench; the collections are
    dropped afterwards unless --keep.
    """
    from ...bench import recall as bench
    from ...bench.backends import compare_recall
    from ...engines.embeddings import build_embedder

    size_list = int_list(sizes, "--sizes")
    ef_list = int_list(ef_sweep, "--ef-sweep")
    if plot_path:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.ClickException("install houkai[bench] for --plot") from None
    show = sys.stderr.isatty()

    def progress(message: str) -> None:
        if show:
            click.echo(f"\r\033[K{message}", nl=False, err=True)

    settings = ctx.settings
    if embedder:
        build_embedder(embedder)  # an unknown spec fails here, before any work
        settings = settings.replace(embedder=embedder)
    if corpus_embedder:
        build_embedder(corpus_embedder)
    options: dict[str, Any] = dict(
        n_queries=n_queries,
        k=k,
        rest=rest,
        ef_sweep=ef_list,
        collection_prefix=collection_prefix,
        seed=seed,
        touch=touch,
        keep=keep,
        progress=progress,
        corpus_embedder=corpus_embedder,
    )
    if compare:
        comparison = compare_recall(settings, size_list, rounds=rounds, **options)
        if show:
            click.echo("\r\033[K", nl=False, err=True)
        if resolve_format(ctx.output_format) == "json":
            click.echo(json.dumps(comparison.to_dict()))
        else:
            for line in comparison.lines():
                click.echo(line)
        return
    result = bench.run(settings, size_list, **options)
    if show:
        click.echo("\r\033[K", nl=False, err=True)
    result.config["command"] = " ".join(["houkai", *sys.argv[1:]])
    if plot_path:
        bench.plot(result, plot_path)
    from .bench_cmds import echo_result

    as_json = resolve_format(ctx.output_format) == "json"
    echo_result(result, as_json)
    if not as_json and plot_path:
        click.echo(f"plot: {plot_path}")


def register(cli: click.Group) -> None:
    """Add these benchmarks to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_recall)
