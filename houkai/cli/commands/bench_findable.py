"""``houkai bench findable``: is every memory found again on clustered corpora?"""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import output_options
from .bench_recall import int_list
from .bench_report import Progress, report


@click.command("findable")
@click.option("--sizes", default="5000", show_default=True, help="Corpus sizes (comma-separated).")
@click.option(
    "--corpora",
    default="logs,chat,uniform",
    show_default=True,
    help="Corpora: logs (facts, then near-identical log lines), chat (small talk with facts "
    "strewn in), uniform (the recall benchmark's varied corpus).",
)
@click.option(
    "--generators",
    default="1",
    show_default=True,
    help="How many log formats the logs corpus is run with (1-10): each a different shape.",
)
@click.option(
    "--sample",
    type=click.IntRange(1, 100_000),
    default=2000,
    show_default=True,
    help="Memories asked for by their own text.",
)
@click.option(
    "--queries",
    type=click.IntRange(1, 10_000),
    default=200,
    show_default=True,
    help="Of the sample: own-vector probes, recall@10 queries and latency samples.",
)
@click.option("--ef-sweep", default="64,128,256", show_default=True, help="EF_RUNTIME values.")
@click.option("--seed", type=int, default=1, show_default=True, help="Corpus seed.")
@click.option("--keep", is_flag=True, help="Keep the bench-findable-* collections.")
@click.option(
    "--rest",
    is_flag=True,
    help="Also time GET /recall (warm, gunicorn-served): 0.1's HNSW path against the "
    "defaults, interleaved in one run.",
)
@click.option(
    "--rest-rounds",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="REST rounds; the figures are their medians.",
)
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the result as JSON.")
@output_options
@pass_ctx
def bench_findable(
    ctx: Context,
    sizes: str,
    corpora: str,
    generators: str,
    sample: int,
    queries: int,
    ef_sweep: str,
    seed: int,
    keep: bool,
    rest: bool,
    rest_rounds: int,
    out: str | None,
) -> None:
    """Share of memories found by their own text (semantic recall, k=5) and by their own
    vector, recall@10 against exact search, and latency, per corpus and size: as 0.1 did it
    (HNSW at EF 64), as a collection above exact_knn_max does it, and with the defaults."""
    from ...bench import findable

    names = [c.strip() for c in corpora.split(",") if c.strip()]
    unknown = sorted(set(names) - set(findable.CORPORA))
    if unknown or not names:
        raise click.BadParameter(
            f"one or more of {', '.join(findable.CORPORA)}, got {corpora!r}", param_hint="--corpora"
        )
    count = int_list(generators, "--generators")[0]
    if count > len(findable.clustered.LOG_FORMATS):
        raise click.BadParameter("at most 10", param_hint="--generators")
    progress = Progress()
    result = findable.run(
        ctx.settings,
        sizes=int_list(sizes, "--sizes"),
        corpora=names,
        generators=range(count),
        sample=sample,
        queries=queries,
        ef_sweep=int_list(ef_sweep, "--ef-sweep"),
        seed=seed,
        keep=keep,
        rest=rest,
        rest_rounds=rest_rounds,
        progress=progress,
    )
    report(ctx, result, findable.lines, out, progress)


def register(cli: click.Group) -> None:
    """Add this benchmark to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_findable)
