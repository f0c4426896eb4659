"""``houkai bench cluster``: one node against a local 3-master Redis Cluster."""

from __future__ import annotations

import click

from .. import Context, pass_ctx
from ..output import output_options
from .bench_report import Progress, report


@click.command("cluster")
@click.option("--n", "n", type=click.IntRange(10), default=1000, show_default=True)
@click.option("--queries", type=click.IntRange(1), default=100, show_default=True)
@click.option("--rounds", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False), help="Also write the result as JSON.")
@output_options
@pass_ctx
def bench_cluster(ctx: Context, n: int, queries: int, rounds: int, out: str | None) -> None:
    """Ingest and recall N memories through REST on the configured node and on a private
    3-master cluster; the balance of 10 and 100 collections over the shards; a slot move
    of an N-memory collection under a reader and a writer (ADR 0079)."""
    from ...bench import cluster

    progress = Progress()
    result = cluster.run(ctx.settings, n=n, queries=queries, rounds=rounds, progress=progress)
    report(ctx, result, cluster.lines, out, progress)


def register(cli: click.Group) -> None:
    """Add this benchmark to ``houkai bench`` (the group lives in :mod:`.bench_cmds`)."""
    from .bench_cmds import bench_group

    bench_group.add_command(bench_cluster)
